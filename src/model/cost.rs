//! Cost tiers and network cost (LIBRA src/cost_model/cost_model.py).
//!
//! A dimension is built from identical building blocks (a ring, a fully-connected group or a switch).
//! With `B` the bandwidth per NPU of dimension `d` in GB/s and unit costs in $ per GB/s:
//! - blocks: Ring / FullyConnected `N / n_d`; Switch `prod_{e>d} n_e`
//! - link bandwidth: Ring `B / 2`; FullyConnected `B / (n_d - 1)`; Switch `B`
//! - links per block: Ring `2 n_d`; FullyConnected `n_d (n_d - 1)`; Switch `prod_{e<=d} n_e`
//! - block cost = link_bw * links * (link + [Switch only] nic + switch)
//!
//! which collapses to `N * B * (link [+ nic + switch])`: the cost is linear in `B`.

use super::network::{Network, NetworkError, Topology};
use serde::{Deserialize, Serialize};

/// Unit costs of one tier, in $ per GB/s. `switch` and `nic` are needed by Switch dimensions only.
/// The physical limits (`max_npus`, `latency_ns`, see [`super::physical`]) do not enter the cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostTier {
    pub name: String,
    pub link: f64,
    pub switch: Option<f64>,
    pub nic: Option<f64>,
    /// The most NPUs one dimension of this tier joins; None = no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_npus: Option<u32>,
    /// Latency of one collective step on this tier, ns: what dimensions built on it start with.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub latency_ns: f64,
    /// The most bandwidth per NPU this tier's links reach, GB/s (a chip's NVLink or ICI; None: a
    /// fabric grows with its NICs): a dimension of this tier is optimized within it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_gbps: Option<f64>,
    /// A level of the fabric of the dimension just inside it, built `r`:1 oversubscribed (1: full
    /// bisection): a dimension of this tier carries 1 / r of that dimension's bandwidth
    /// (`model::taper`); at least 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oversubscription: Option<f64>,
    /// In-network reduction (NVLink SHARP, InfiniBand SHARP), $ per GB/s of the feature: when
    /// given, this tier's Switch dimensions reduce in the switch (an All-Reduce sends `m`
    /// instead of `2 m (g-1)/g` per NPU there: `collective::message_sizes_on`) and pay it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_network_usd: Option<f64>,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// The tiers a network's dimensions refer to by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    pub tiers: Vec<CostTier>,
}

/// Why a cost cannot be computed. Dimensions are 1-based.
/// Which price of a tier an error is about (the tier's field in the form and in files).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PriceOf {
    Link,
    Switch,
    Nic,
    InNetworkReduction,
}

impl PriceOf {
    /// A NIC and in-network reduction may cost nothing; links and switches may not.
    pub fn may_be_zero(self) -> bool {
        matches!(self, PriceOf::Nic | PriceOf::InNetworkReduction)
    }
}

impl std::fmt::Display for PriceOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PriceOf::Link => "link",
            PriceOf::Switch => "switch",
            PriceOf::Nic => "nic",
            PriceOf::InNetworkReduction => "in-network reduction",
        })
    }
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CostError {
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error("dimension {dim}: unknown cost tier \"{tier}\"")]
    UnknownTier { dim: usize, tier: String },
    #[error(
        "dimension {dim}: tier \"{tier}\" has no {component} cost, which a Switch dimension needs"
    )]
    MissingUnitCost {
        dim: usize,
        tier: String,
        component: PriceOf,
    },
    #[error("tier \"{tier}\": {component} cost must be a {} finite number of $ per GB/s, got {}", if component.may_be_zero() { "non-negative" } else { "positive" }, crate::format::number(*.value))]
    BadUnitCost {
        tier: String,
        component: PriceOf,
        value: f64,
    },
    #[error(
        "dimension {dim}: bandwidth must be a non-negative finite number of GB/s, got {value}"
    )]
    BadBandwidth { dim: usize, value: f64 },
    #[error("tier \"{tier}\": oversubscription must be a finite number of at least 1, got {}", crate::format::number(*.value))]
    Oversubscription { tier: String, value: f64 },
    #[error("{given} bandwidths given for a network of {dims} dimensions")]
    BandwidthCount { given: usize, dims: usize },
}

/// The cost of one dimension, by component, with the building-block counts behind it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DimCost {
    pub blocks: u64,
    pub links_per_block: u64,
    /// Bandwidth of one link, GB/s.
    pub link_bw_gbps: f64,
    pub links_usd: f64,
    pub switches_usd: f64,
    pub nics_usd: f64,
}

/// What a dimension's cost is made of (LIBRA's cost model prices each per GB/s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CostComponent {
    Links,
    Switches,
    Nics,
}

impl CostComponent {
    /// In the order the charts stack them and the tables list them.
    pub const ALL: [CostComponent; 3] = [
        CostComponent::Links,
        CostComponent::Switches,
        CostComponent::Nics,
    ];

    /// The name people read.
    pub fn label(self) -> &'static str {
        match self {
            CostComponent::Links => "links",
            CostComponent::Switches => "switches",
            CostComponent::Nics => "NICs",
        }
    }
}

impl DimCost {
    pub fn total_usd(&self) -> f64 {
        CostComponent::ALL.iter().map(|c| self.usd(*c)).sum()
    }

    /// What `component` costs in this dimension ($).
    pub fn usd(&self, component: CostComponent) -> f64 {
        match component {
            CostComponent::Links => self.links_usd,
            CostComponent::Switches => self.switches_usd,
            CostComponent::Nics => self.nics_usd,
        }
    }
}

/// Network cost with its per-dimension breakdown.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetworkCost {
    pub dims: Vec<DimCost>,
}

impl NetworkCost {
    pub fn total_usd(&self) -> f64 {
        self.dims.iter().map(DimCost::total_usd).sum()
    }
}

impl CostModel {
    pub fn tier(&self, name: &str) -> Option<&CostTier> {
        self.tiers.iter().find(|t| t.name == name)
    }

    /// The most bandwidth each dimension of `net` may have, from its tier (None: no bound).
    pub fn max_gbps(&self, net: &Network) -> Vec<Option<f64>> {
        net.dims
            .iter()
            .map(|d| self.tier(&d.tier).and_then(|t| t.max_gbps))
            .collect()
    }

    /// Which dimensions of `net` reduce in the switch: Switch dimensions of a tier with
    /// in-network reduction.
    pub fn in_network(&self, net: &Network) -> Vec<bool> {
        net.dims
            .iter()
            .map(|d| {
                d.topology == Topology::Switch
                    && self
                        .tier(&d.tier)
                        .is_some_and(|t| t.in_network_usd.is_some())
            })
            .collect()
    }

    /// Unit cost per GB/s of per-NPU bandwidth in each dimension: `u_d`, so that `Cost(B) = N * sum_d u_d B_d`.
    pub fn unit_costs(&self, net: &Network) -> Result<Vec<f64>, CostError> {
        net.validate()?;
        net.dims
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let (link, switch, nic) = self.components(i + 1, &d.tier, d.topology)?;
                Ok(link + switch + nic)
            })
            .collect()
    }

    /// Unit costs (link, switch, nic) of dimension `dim` (1-based); switch and nic are 0 unless Switch.
    fn components(
        &self,
        dim: usize,
        tier_name: &str,
        topology: Topology,
    ) -> Result<(f64, f64, f64), CostError> {
        let tier = self.tier(tier_name).ok_or_else(|| CostError::UnknownTier {
            dim,
            tier: tier_name.to_string(),
        })?;
        let check = |component: PriceOf, value: f64| {
            if value.is_finite() && value > 0.0 {
                Ok(value)
            } else {
                Err(CostError::BadUnitCost {
                    tier: tier.name.clone(),
                    component,
                    value,
                })
            }
        };
        let link = check(PriceOf::Link, tier.link)?;
        if let Some(r) = tier.oversubscription {
            if !(r.is_finite() && r >= 1.0) {
                return Err(CostError::Oversubscription {
                    tier: tier.name.clone(),
                    value: r,
                });
            }
        }
        if topology != Topology::Switch {
            return Ok((link, 0.0, 0.0));
        }
        let needed = |component: PriceOf, value: Option<f64>| {
            value
                .ok_or_else(|| CostError::MissingUnitCost {
                    dim,
                    tier: tier.name.clone(),
                    component,
                })
                .and_then(|v| check(component, v))
        };
        let switch = needed(PriceOf::Switch, tier.switch)?;
        // A NIC may cost nothing: NVLink has none, and a fabric's upper levels are reached
        // through the NIC counted at its first level.
        let nic = tier.nic.ok_or_else(|| CostError::MissingUnitCost {
            dim,
            tier: tier.name.clone(),
            component: PriceOf::Nic,
        })?;
        if !(nic.is_finite() && nic >= 0.0) {
            return Err(CostError::BadUnitCost {
                tier: tier.name.clone(),
                component: PriceOf::Nic,
                value: nic,
            });
        }
        let reduction = match tier.in_network_usd {
            None => 0.0,
            Some(v) if v.is_finite() && v >= 0.0 => v,
            Some(v) => {
                return Err(CostError::BadUnitCost {
                    tier: tier.name.clone(),
                    component: PriceOf::InNetworkReduction,
                    value: v,
                })
            }
        };
        Ok((link, switch + reduction, nic))
    }

    /// The cost of `net` at per-NPU bandwidths `bw_gbps`, with its breakdown.
    pub fn network_cost(&self, net: &Network, bw_gbps: &[f64]) -> Result<NetworkCost, CostError> {
        let total = u64::from(net.total_npus()?);
        if bw_gbps.len() != net.dims.len() {
            return Err(CostError::BandwidthCount {
                given: bw_gbps.len(),
                dims: net.dims.len(),
            });
        }
        let mut dims = Vec::with_capacity(net.dims.len());
        for (i, (d, &bw)) in net.dims.iter().zip(bw_gbps).enumerate() {
            if !(bw.is_finite() && bw >= 0.0) {
                return Err(CostError::BadBandwidth {
                    dim: i + 1,
                    value: bw,
                });
            }
            let (link, switch, nic) = self.components(i + 1, &d.tier, d.topology)?;
            let n = u64::from(d.npus);
            let inner: u64 = net.dims[..=i].iter().map(|e| u64::from(e.npus)).product();
            let (blocks, links_per_block, link_bw_gbps) = match d.topology {
                Topology::Ring => (total / n, 2 * n, bw / 2.0),
                Topology::FullyConnected => (total / n, n * (n - 1), bw / (n - 1) as f64),
                Topology::Switch => (total / inner, inner, bw),
            };
            let capacity = blocks as f64 * link_bw_gbps * links_per_block as f64;
            dims.push(DimCost {
                blocks,
                links_per_block,
                link_bw_gbps,
                links_usd: link * capacity,
                switches_usd: switch * capacity,
                nics_usd: nic * capacity,
            });
        }
        Ok(NetworkCost { dims })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn uniform_cost_of_libra_4d_matches_the_reference() {
        // LIBRA's published reference result, GPT_3 on 4d_network, uniform 125 GB/s per dimension.
        let (net, costs) = (presets::libra_4d_network(), presets::libra_4d_cost_model());
        let cost = costs.network_cost(&net, &[125.0; 4]).unwrap();
        // "uniform": {"cost_usd": 34508892.160000004} in the reference file.
        assert!(
            rel(cost.total_usd(), 34508892.160000004) < 1e-12,
            "{}",
            cost.total_usd()
        );
        // Building blocks of LIBRA's 4D network.
        let blocks: Vec<u64> = cost.dims.iter().map(|d| d.blocks).collect();
        assert_eq!(blocks, vec![1024, 512, 1024, 1]);
        let links: Vec<u64> = cost.dims.iter().map(|d| d.links_per_block).collect();
        assert_eq!(links, vec![8, 56, 8, 4096]);
        // Only the Switch dimension pays for switches and NICs.
        assert_eq!(cost.dims[1].switches_usd, 0.0);
        assert!(cost.dims[3].nics_usd > cost.dims[3].links_usd);
    }

    #[test]
    fn breakdown_agrees_with_the_linear_form() {
        let (net, costs) = (presets::libra_4d_network(), presets::libra_4d_cost_model());
        let bw = [338.4, 84.6, 58.1, 18.8];
        let u = costs.unit_costs(&net).unwrap();
        let linear: f64 = 4096.0 * u.iter().zip(bw).map(|(u, b)| u * b).sum::<f64>();
        let cost = costs.network_cost(&net, &bw).unwrap();
        assert!(rel(cost.total_usd(), linear) < 1e-12);
    }

    #[test]
    fn cost_is_linear_in_bandwidth() {
        let (net, costs) = (
            presets::LibraNetwork::D3.network(),
            presets::LibraNetwork::D3.cost_model(),
        );
        let total = |bw: &[f64]| costs.network_cost(&net, bw).unwrap().total_usd();
        let (x, y) = ([10.0, 250.0, 3.5], [1.0, 0.25, 77.0]);
        let (a, b) = (2.5, 0.75);
        let mix: Vec<f64> = x.iter().zip(&y).map(|(x, y)| a * x + b * y).collect();
        assert!(rel(total(&mix), a * total(&x) + b * total(&y)) < 1e-12);
        assert_eq!(total(&[0.0; 3]), 0.0);
    }

    #[test]
    fn errors_name_dimension_and_field() {
        let (mut net, mut costs) = (presets::libra_4d_network(), presets::libra_4d_cost_model());
        net.dims[1].tier = "Nowhere".into();
        assert_eq!(
            costs.network_cost(&net, &[1.0; 4]).unwrap_err().to_string(),
            "dimension 2: unknown cost tier \"Nowhere\""
        );
        net = presets::libra_4d_network();
        costs.tiers[3].nic = None;
        assert_eq!(
            costs.unit_costs(&net).unwrap_err(),
            CostError::MissingUnitCost {
                dim: 4,
                tier: "InterPod".into(),
                component: PriceOf::Nic
            }
        );
        costs = presets::libra_4d_cost_model();
        costs.tiers[0].link = f64::NAN;
        assert!(matches!(
            costs.unit_costs(&net),
            Err(CostError::BadUnitCost {
                component: PriceOf::Link,
                ..
            })
        ));
        costs = presets::libra_4d_cost_model();
        assert_eq!(
            costs.network_cost(&net, &[1.0, -1.0, 1.0, 1.0]),
            Err(CostError::BadBandwidth {
                dim: 2,
                value: -1.0
            })
        );
        assert_eq!(
            costs.network_cost(&net, &[1.0; 3]),
            Err(CostError::BandwidthCount { given: 3, dims: 4 })
        );
    }
}
