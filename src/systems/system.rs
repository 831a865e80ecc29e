//! A system as architects buy it: an accelerator, the tiers of its network (NVLink, an InfiniBand
//! or RoCE fabric, a torus's links) with their bandwidth per accelerator, latency, limits and
//! prices, and the dimensions those tiers form, innermost first. From it follow the network of N
//! accelerators (`SW8:nvlink4 x SW512:ib-ndr` for 4,096 H100s), the cost model LIBRA's optimizer
//! prices it with, the system's own bandwidths, and the step model's view of it
//! (`predict::system::System`). docs/systems.md holds the presets' figures and their sources.

use super::clos::{FabricError, LeafSpine};
use crate::format::number;
use crate::model::cost::{CostModel, CostTier};
use crate::model::network::{Dim, Network, Topology};
use crate::predict::system::{ComputeEfficiency, System, Tier};
use serde::{Deserialize, Serialize};

/// One tier of a system's network, as one accelerator sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkTier {
    /// The tier's key, as a shape names it (`SW8:nvlink4`).
    pub name: String,
    pub title: String,
    /// Link bandwidth per accelerator and direction, GB/s (on a torus: per dimension).
    pub gbps_per_npu: f64,
    /// A level of the fabric of the dimension just inside it (Meta's pod and aggregation
    /// layers above its racks): bandwidth below over bandwidth above, at least 1 (1: full
    /// bisection; 7: Meta's aggregation layer); the level carries `B_below / it`
    /// (`model::taper`). None: the tier's links are its own.
    pub oversubscription: Option<f64>,
    /// Share of the link rate a collective's bus bandwidth reaches (step model), in (0, 1].
    pub efficiency: f64,
    /// Time of one collective besides its bytes (step model), us.
    pub latency_us: f64,
    /// Latency of one collective step (LIBRA's latency term), ns.
    pub step_latency_ns: f64,
    /// The most accelerators one dimension of this tier joins.
    pub max_npus: u32,
    /// The most bandwidth per accelerator its links reach, GB/s: a chip's NVLink, ICI or
    /// NeuronLink is what the silicon has, a fabric what the NICs the system builds reach (the
    /// presets: their own rate); None: no bound.
    pub max_gbps_per_npu: Option<f64>,
    /// $ per GB/s of per-accelerator bandwidth: links (cables and optics), switch ports, NICs.
    pub link_usd: f64,
    pub switch_usd: f64,
    pub nic_usd: f64,
    /// In-network reduction (NVLink SHARP, InfiniBand SHARP), $ per GB/s of the feature; None:
    /// the tier's switches do not reduce.
    pub in_network_usd: Option<f64>,
    /// Where the prices come from, or how they were derived.
    pub price: String,
    /// Where the bandwidth and limits come from.
    pub source: String,
}

/// One dimension of a system: its topology, size and tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemDim {
    pub topology: Topology,
    /// Accelerators along it; None: as many as the system's size needs (the last dimensions).
    pub npus: Option<u32>,
    pub tier: String,
}

/// A system (`libra-studio systems` lists the presets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemSpec {
    /// The preset's name (`dgx-h100`).
    pub name: String,
    pub title: String,
    /// The accelerator's key in `data/systems/accelerators.json`.
    pub accelerator: String,
    /// Accelerators in one scale-up domain (a node, an NVL72 rack, a TPU pod).
    pub scale_up_npus: u32,
    pub dims: Vec<SystemDim>,
    pub tiers: Vec<NetworkTier>,
    /// The most accelerators the system is built for.
    pub max_npus: u32,
    /// The leaf-spine tree its scale-out tier is built as (the Routing view routes one plane
    /// of it); None: no Clos (a torus) or no public switch figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fabric: Option<LeafSpine>,
    pub sources: Vec<String>,
    pub notes: String,
}

/// Why a system or its network for N accelerators cannot be used; each names the field.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SystemSpecError {
    #[error("system {system}: tier \"{tier}\": {field} must be a positive finite number, got {}", number(*.value))]
    NotPositive {
        system: String,
        tier: String,
        field: &'static str,
        value: f64,
    },
    #[error("system {system}: tier \"{tier}\": {field} must be a finite number >= 0, got {}", number(*.value))]
    Negative {
        system: String,
        tier: String,
        field: &'static str,
        value: f64,
    },
    #[error("system {system}: tier \"{tier}\": efficiency must be in (0, 1], got {}", number(*.value))]
    NotShare {
        system: String,
        tier: String,
        value: f64,
    },
    #[error("system {system}: tier \"{tier}\": oversubscription must be at least 1, got {}", number(*.value))]
    Oversubscription {
        system: String,
        tier: String,
        value: f64,
    },
    #[error("system {system}: tier \"{tier}\" is named twice")]
    DuplicateTier { system: String, tier: String },
    #[error("system {system}: dimension {dim} names tier \"{tier}\", which the system does not have (it has {known})")]
    UnknownTier {
        system: String,
        dim: usize,
        tier: String,
        known: String,
    },
    #[error(
        "system {system}: dimension {dim} has {npus} accelerators; a dimension joins at least 2"
    )]
    SmallDim {
        system: String,
        dim: usize,
        npus: u32,
    },
    #[error(transparent)]
    Fabric(#[from] FabricError),
    #[error("system {system}: it has no dimensions")]
    NoDims { system: String },
    #[error("system {system}: {npus} accelerators, but it is built for 2 to {max}")]
    Size { system: String, npus: u32, max: u32 },
    #[error("system {system}: {npus} accelerators do not fill its dimensions ({why})")]
    DoesNotFill {
        system: String,
        npus: u32,
        why: String,
    },
    #[error("system {system}: dimension {dim} would join {npus} accelerators, but tier \"{tier}\" joins at most {max}")]
    BeyondTier {
        system: String,
        dim: usize,
        npus: u32,
        tier: String,
        max: u32,
    },
}

impl SystemSpec {
    /// The tier named `name`.
    pub fn tier(&self, name: &str) -> Option<&NetworkTier> {
        self.tiers.iter().find(|t| t.name == name)
    }

    /// Check every figure and that every dimension's tier exists.
    pub fn validate(&self) -> Result<(), SystemSpecError> {
        let system = || self.name.clone();
        if self.dims.is_empty() {
            return Err(SystemSpecError::NoDims { system: system() });
        }
        for (i, t) in self.tiers.iter().enumerate() {
            let tier = || t.name.clone();
            if self.tiers[..i].iter().any(|u| u.name == t.name) {
                return Err(SystemSpecError::DuplicateTier {
                    system: system(),
                    tier: tier(),
                });
            }
            for (field, value) in [("gbps_per_npu", t.gbps_per_npu), ("link_usd", t.link_usd)] {
                if !(value.is_finite() && value > 0.0) {
                    return Err(SystemSpecError::NotPositive {
                        system: system(),
                        tier: tier(),
                        field,
                        value,
                    });
                }
            }
            for (field, value) in [
                ("in_network_usd", t.in_network_usd.unwrap_or(0.0)),
                ("latency_us", t.latency_us),
                ("step_latency_ns", t.step_latency_ns),
                ("switch_usd", t.switch_usd),
                ("nic_usd", t.nic_usd),
            ] {
                if !(value.is_finite() && value >= 0.0) {
                    return Err(SystemSpecError::Negative {
                        system: system(),
                        tier: tier(),
                        field,
                        value,
                    });
                }
            }
            if !(t.efficiency > 0.0 && t.efficiency <= 1.0) {
                return Err(SystemSpecError::NotShare {
                    system: system(),
                    tier: tier(),
                    value: t.efficiency,
                });
            }
            if let Some(r) = t.oversubscription.filter(|r| !(r.is_finite() && *r >= 1.0)) {
                return Err(SystemSpecError::Oversubscription {
                    system: system(),
                    tier: tier(),
                    value: r,
                });
            }
        }
        for (i, d) in self.dims.iter().enumerate() {
            if self.tier(&d.tier).is_none() {
                return Err(SystemSpecError::UnknownTier {
                    system: system(),
                    dim: i + 1,
                    tier: d.tier.clone(),
                    known: self.tier_names(),
                });
            }
            if let Some(n) = d.npus.filter(|n| *n < 2) {
                return Err(SystemSpecError::SmallDim {
                    system: system(),
                    dim: i + 1,
                    npus: n,
                });
            }
        }
        if let Some(f) = &self.fabric {
            f.validate(self)?;
        }
        Ok(())
    }

    fn tier_names(&self) -> String {
        self.tiers
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The network of `npus` accelerators: the fixed dimensions fill first, innermost first (a
    /// partly filled one, such as a pod not fully built, takes what is left), then the open dimensions share the rest as evenly
    /// as they can (a torus's rings); dimensions of one accelerator are left out.
    pub fn network(&self, npus: u32) -> Result<Network, SystemSpecError> {
        self.validate()?;
        let system = || self.name.clone();
        if npus < 2 || npus > self.max_npus {
            return Err(SystemSpecError::Size {
                system: system(),
                npus,
                max: self.max_npus,
            });
        }
        let fills = |why: String| SystemSpecError::DoesNotFill {
            system: system(),
            npus,
            why,
        };
        let mut sizes: Vec<Option<u32>> = vec![None; self.dims.len()];
        let mut rest = npus;
        for (i, d) in self.dims.iter().enumerate() {
            let Some(k) = d.npus else { continue };
            let n = k.min(rest);
            if !rest.is_multiple_of(n) {
                return Err(fills(format!(
                    "dimension {} holds {k}, and {rest} are left to lay",
                    i + 1
                )));
            }
            sizes[i] = Some(n);
            rest /= n;
        }
        let open: Vec<usize> = (0..self.dims.len())
            .filter(|i| self.dims[*i].npus.is_none())
            .collect();
        if rest > 1 {
            let maxes: Vec<u32> = open
                .iter()
                .map(|i| self.tier(&self.dims[*i].tier).map_or(0, |t| t.max_npus))
                .collect();
            let split = balanced_factors(rest, &maxes).ok_or_else(|| {
                fills(format!(
                    "{rest} are left for {} open dimension(s) of at most {}",
                    open.len(),
                    maxes
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
            for (i, n) in open.iter().zip(split) {
                sizes[*i] = Some(n);
            }
        }
        let mut dims = Vec::new();
        for (i, (d, n)) in self.dims.iter().zip(sizes).enumerate() {
            let Some(n) = n.filter(|n| *n >= 2) else {
                continue;
            };
            let tier = self.tier(&d.tier).expect("validated");
            if n > tier.max_npus {
                return Err(SystemSpecError::BeyondTier {
                    system: system(),
                    dim: i + 1,
                    npus: n,
                    tier: tier.name.clone(),
                    max: tier.max_npus,
                });
            }
            dims.push(Dim {
                topology: d.topology,
                npus: n,
                tier: d.tier.clone(),
                latency_ns: tier.step_latency_ns,
            });
        }
        Ok(Network { dims })
    }

    /// The cost tiers LIBRA's cost model prices the system's networks with (a tier's NIC may
    /// cost 0: NVLink has none, and a fabric's NIC is counted once, at its first level).
    pub fn cost_model(&self) -> CostModel {
        CostModel {
            tiers: self
                .tiers
                .iter()
                .map(|t| CostTier {
                    name: t.name.clone(),
                    link: t.link_usd,
                    switch: (t.switch_usd > 0.0).then_some(t.switch_usd),
                    nic: Some(t.nic_usd),
                    max_npus: Some(t.max_npus),
                    latency_ns: t.step_latency_ns,
                    max_gbps: t.max_gbps_per_npu,
                    oversubscription: t.oversubscription,
                    in_network_usd: t.in_network_usd,
                })
                .collect(),
        }
    }

    /// The system's tiers beside `other`'s (the system's first; a tier `other` already names is
    /// kept as `other` has it, so a design's edited tier wins).
    pub fn cost_model_beside(&self, other: &CostModel) -> CostModel {
        let mut tiers = self.cost_model().tiers;
        tiers.retain(|t| other.tier(&t.name).is_none());
        tiers.extend(other.tiers.iter().cloned());
        CostModel { tiers }
    }

    /// The system's own bandwidth of each dimension of `net`, GB/s per accelerator: its tier's
    /// link rate over the tier's oversubscription (the scenarios built on the system hold each
    /// fabric level at that ratio to the level below: `model::taper`).
    pub fn bandwidths(&self, net: &Network) -> Vec<f64> {
        net.dims
            .iter()
            .map(|d| {
                self.tier(&d.tier)
                    .map_or(0.0, |t| t.gbps_per_npu / t.oversubscription.unwrap_or(1.0))
            })
            .collect()
    }

    /// The step model's view (docs/predict.md): the first dimension's tier as the scale-up
    /// tier, the first tier outside the scale-up domain as the scale-out tier (the scale-up tier
    /// when the domain is the whole system), and `compute` for how fast the accelerator runs.
    pub fn step_system(&self, compute: &ComputeEfficiency) -> System {
        let accelerator = super::accelerators::accelerator(&self.accelerator)
            .map(|a| a.accelerator())
            .unwrap_or_else(crate::predict::accelerator::Accelerator::h100_sxm);
        let as_tier = |t: &NetworkTier| Tier {
            name: t.title.clone(),
            gbps_per_npu: t.gbps_per_npu / t.oversubscription.unwrap_or(1.0),
            efficiency: t.efficiency,
            latency_us: t.latency_us,
            source: t.source.clone(),
        };
        let first = self.tier(&self.dims[0].tier).expect("validated");
        let mut inside = 1u64;
        let outer = self
            .dims
            .iter()
            .find(|d| {
                let n = u64::from(d.npus.unwrap_or(u32::MAX));
                let beyond = inside >= u64::from(self.scale_up_npus);
                inside = inside.saturating_mul(n);
                beyond
            })
            .and_then(|d| self.tier(&d.tier))
            .unwrap_or(first);
        System {
            name: self.name.clone(),
            accelerator,
            scale_up_npus: self.scale_up_npus,
            scale_up: as_tier(first),
            scale_out: as_tier(outer),
            compute: compute.clone(),
            calibration: None,
        }
    }
}

/// `n` as a product of one factor per `maxes` entry, each within its maximum, as even as can
/// be (the smallest largest factor); None when there is none. Factors of 1 are allowed.
pub fn balanced_factors(n: u32, maxes: &[u32]) -> Option<Vec<u32>> {
    fn go(n: u32, maxes: &[u32], best: &mut Option<(u32, Vec<u32>)>, acc: &mut Vec<u32>) {
        let Some((&max, rest)) = maxes.split_first() else {
            if n == 1 {
                let top = acc.iter().copied().max().unwrap_or(1);
                if best.as_ref().is_none_or(|(b, _)| top < *b) {
                    *best = Some((top, acc.clone()));
                }
            }
            return;
        };
        for f in 1..=max.min(n) {
            if n.is_multiple_of(f) {
                acc.push(f);
                go(n / f, rest, best, acc);
                acc.pop();
            }
        }
    }
    if maxes.is_empty() || maxes.len() > 4 {
        return (n == 1 && maxes.is_empty()).then(Vec::new);
    }
    let mut best = None;
    go(n, maxes, &mut best, &mut Vec::new());
    best.map(|(_, f)| f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_factors_are_as_even_as_the_limits_allow() {
        assert_eq!(
            balanced_factors(4096, &[16, 16, 16]),
            Some(vec![16, 16, 16])
        );
        assert_eq!(balanced_factors(64, &[16, 16, 16]), Some(vec![4, 4, 4]));
        let mut v5p = balanced_factors(8960, &[28, 28, 28]).unwrap();
        v5p.sort_unstable();
        assert_eq!(v5p, vec![16, 20, 28]);
        assert_eq!(balanced_factors(512, &[64]), None);
        assert_eq!(balanced_factors(512, &[2048]), Some(vec![512]));
        assert_eq!(balanced_factors(17, &[16, 16]), None);
        assert_eq!(
            balanced_factors(6, &[16, 16, 16])
                .unwrap()
                .iter()
                .product::<u32>(),
            6
        );
    }
}
