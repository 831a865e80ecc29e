//! The multi-dimensional network of LIBRA: dimensions with an NPU count, a topology kind and a cost tier.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How the NPUs of one dimension are connected (LIBRA's `Topology` field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Topology {
    Ring,
    FullyConnected,
    Switch,
}

impl Topology {
    pub const ALL: [Topology; 3] = [Topology::Ring, Topology::FullyConnected, Topology::Switch];

    /// The name LIBRA's network YAML uses.
    pub fn name(self) -> &'static str {
        match self {
            Topology::Ring => "Ring",
            Topology::FullyConnected => "FullyConnected",
            Topology::Switch => "Switch",
        }
    }

    /// Parse LIBRA's spelling (case-insensitive; `FC` accepted for FullyConnected).
    pub fn parse(text: &str) -> Option<Topology> {
        match text.trim().to_ascii_lowercase().as_str() {
            "ring" => Some(Topology::Ring),
            "fullyconnected" | "fully_connected" | "fc" => Some(Topology::FullyConnected),
            "switch" => Some(Topology::Switch),
            _ => None,
        }
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One dimension of the network. Dimensions are numbered from 1 in every message, as in the papers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dim {
    pub topology: Topology,
    /// NPUs along this dimension, `n_d >= 2`.
    pub npus: u32,
    /// Name of the cost tier (a key of the cost model, e.g. `InterPod`).
    pub tier: String,
    /// Latency per collective step, ns (the alpha term; used only when the model's latency is on).
    #[serde(default)]
    pub latency_ns: f64,
}

/// A network of `D >= 1` dimensions; `N = prod n_d` NPUs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Network {
    pub dims: Vec<Dim>,
}

/// Why a network description is not usable. Every variant names the dimension (1-based) and the field.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NetworkError {
    #[error("the network has no dimensions: add at least one")]
    NoDimensions,
    #[error("dimension {dim}: NPUs must be a whole number of at least 2, got \"{text}\"")]
    NpusNotANumber { dim: usize, text: String },
    #[error("dimension {dim}: NPUs must be at least 2, got {npus}")]
    TooFewNpus { dim: usize, npus: u32 },
    #[error("the network has more than 2^32 - 1 NPUs in total")]
    TooManyNpus,
    #[error("dimension {dim}: latency must be a non-negative finite number of ns, got {}", crate::format::number(*.value))]
    BadLatency { dim: usize, value: f64 },
}

/// Parse the NPU count typed for dimension `dim` (1-based).
pub fn parse_npus(dim: usize, text: &str) -> Result<u32, NetworkError> {
    let npus: u32 = text
        .trim()
        .parse()
        .map_err(|_| NetworkError::NpusNotANumber {
            dim,
            text: text.to_string(),
        })?;
    if npus < 2 {
        return Err(NetworkError::TooFewNpus { dim, npus });
    }
    Ok(npus)
}

impl Network {
    /// Switch dimensions of `npus` each, all on `tier`, no latency (tests and sketches).
    pub fn switches(npus: &[u32], tier: &str) -> Network {
        Network {
            dims: npus
                .iter()
                .map(|&npus| Dim {
                    topology: Topology::Switch,
                    npus,
                    tier: tier.into(),
                    latency_ns: 0.0,
                })
                .collect(),
        }
    }

    /// Check every dimension; the first problem found is returned.
    pub fn validate(&self) -> Result<(), NetworkError> {
        self.total_npus().map(|_| ())
    }

    /// `N = prod_d n_d`, or the reason the network is invalid.
    pub fn total_npus(&self) -> Result<u32, NetworkError> {
        if self.dims.is_empty() {
            return Err(NetworkError::NoDimensions);
        }
        let mut total: u32 = 1;
        for (i, d) in self.dims.iter().enumerate() {
            if d.npus < 2 {
                return Err(NetworkError::TooFewNpus {
                    dim: i + 1,
                    npus: d.npus,
                });
            }
            if !(d.latency_ns.is_finite() && d.latency_ns >= 0.0) {
                return Err(NetworkError::BadLatency {
                    dim: i + 1,
                    value: d.latency_ns,
                });
            }
            total = total.checked_mul(d.npus).ok_or(NetworkError::TooManyNpus)?;
        }
        Ok(total)
    }

    /// "Ring 4 × FullyConnected 8 × Ring 4 × Switch 32", the way the papers name a shape.
    pub fn shape_label(&self) -> String {
        self.dims
            .iter()
            .map(|d| format!("{} {}", d.topology, d.npus))
            .collect::<Vec<_>>()
            .join(" × ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn libra_4d_network_has_4096_npus() {
        let net = presets::libra_4d_network();
        assert_eq!(net.total_npus(), Ok(4096));
        assert_eq!(
            net.shape_label(),
            "Ring 4 × FullyConnected 8 × Ring 4 × Switch 32"
        );
    }

    #[test]
    fn errors_name_the_dimension() {
        let mut net = presets::libra_4d_network();
        net.dims[2].npus = 1;
        assert_eq!(
            net.total_npus(),
            Err(NetworkError::TooFewNpus { dim: 3, npus: 1 })
        );
        assert_eq!(
            net.total_npus().unwrap_err().to_string(),
            "dimension 3: NPUs must be at least 2, got 1"
        );
        assert_eq!(
            Network { dims: vec![] }.total_npus(),
            Err(NetworkError::NoDimensions)
        );
    }

    #[test]
    fn overflow_is_an_error_not_a_panic() {
        let mut net = presets::libra_4d_network();
        for d in &mut net.dims {
            d.npus = 65_536;
        }
        assert_eq!(net.total_npus(), Err(NetworkError::TooManyNpus));
    }

    #[test]
    fn parse_npus_reports_bad_text() {
        assert_eq!(parse_npus(1, " 16 "), Ok(16));
        assert_eq!(
            parse_npus(2, "abc"),
            Err(NetworkError::NpusNotANumber {
                dim: 2,
                text: "abc".into()
            })
        );
        assert_eq!(
            parse_npus(4, "-3"),
            Err(NetworkError::NpusNotANumber {
                dim: 4,
                text: "-3".into()
            })
        );
        assert_eq!(
            parse_npus(1, "1"),
            Err(NetworkError::TooFewNpus { dim: 1, npus: 1 })
        );
    }

    #[test]
    fn topology_names_round_trip() {
        for t in Topology::ALL {
            assert_eq!(Topology::parse(t.name()), Some(t));
        }
        assert_eq!(Topology::parse("FC"), Some(Topology::FullyConnected));
        assert_eq!(Topology::parse("torus"), None);
    }
}
