//! Physical limits of a cost tier: the most NPUs one dimension of that tier can join, and the
//! latency of one collective step on it (docs/model.md "Physical tiers").
//!
//! LIBRA's cost model prices bandwidth only, so on its own it happily builds a ring of 2,048
//! chiplets whose 4,094-step all-reduce costs no time. The defaults below, for the tier names of
//! LIBRA's cost models, come from public systems:
//!
//! | tier | most NPUs | latency per step | from |
//! |---|---|---|---|
//! | InterChiplet | 8 | 100 ns | compute dies per package: AMD MI300X has 8 XCDs, NVIDIA B200 2 dies; a die-to-die hop is tens of ns |
//! | InterPackage | 16 | 470 ns | a directly connected scale-up group: 8 GPUs per HGX/MI300X board (16 allows LIBRA's 3D Ring 16); NCCL's NVLink ring step, LL protocol, 0.47 us |
//! | InterNode | 32 | 1,000 ns | one torus dimension of a pod: TPU v4 rings of 16, TPU v5p up to 28; NCCL's PCI ring step, 1.0 us |
//! | InterPod | 65,536 | 2,700 ns | a 3-level fat tree of radix-64 switches reaches 64^3/4 = 65,536 hosts; NCCL's network ring step, LL, 2.7 us |
//!
//! Tiers with other names get no limit and no latency until the user sets them. The limits never
//! change LIBRA's times or costs: LIBRA-compatible mode has the latency term off, and a network
//! beyond a limit is still evaluated and optimized, with a warning ([`CostModel::limit_notes`]).
//! The shape comparison and the co-design propose only shapes within the limits.

use super::cost::{CostModel, CostTier};
use super::network::{Dim, Network};

/// The default (most NPUs per dimension, latency per step in ns) of a tier named as in LIBRA's
/// cost models, or None for any other name.
pub fn physical_default(tier: &str) -> Option<(u32, f64)> {
    match tier {
        "InterChiplet" => Some((8, 100.0)),
        "InterPackage" => Some((16, 470.0)),
        "InterNode" => Some((32, 1_000.0)),
        "InterPod" => Some((65_536, 2_700.0)),
        _ => None,
    }
}

impl CostTier {
    /// Whether a dimension of `npus` NPUs fits this tier.
    pub fn holds(&self, npus: u32) -> bool {
        self.max_npus.is_none_or(|m| npus <= m)
    }

    /// Fill the limit and latency from [`physical_default`] where the tier has none.
    pub fn with_physical_default(mut self) -> CostTier {
        if let Some((max, latency)) = physical_default(&self.name) {
            self.max_npus.get_or_insert(max);
            if self.latency_ns == 0.0 {
                self.latency_ns = latency;
            }
        }
        self
    }
}

/// A dimension larger than its tier allows. Dimensions are 1-based.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("dimension {dim}: {npus} NPUs, but tier \"{tier}\" joins at most {max} per dimension")]
pub struct BeyondTierLimit {
    pub dim: usize,
    pub npus: u32,
    pub tier: String,
    pub max: u32,
}

impl CostModel {
    /// The dimensions of `net` beyond their tier's limit (unknown tiers are not reported here).
    pub fn limit_notes(&self, net: &Network) -> Vec<BeyondTierLimit> {
        net.dims
            .iter()
            .enumerate()
            .filter_map(|(i, d)| {
                let tier = self.tier(&d.tier)?;
                let max = tier.max_npus?;
                (d.npus > max).then(|| BeyondTierLimit {
                    dim: i + 1,
                    npus: d.npus,
                    tier: d.tier.clone(),
                    max,
                })
            })
            .collect()
    }

    /// Whether every dimension of `dims` fits its tier (unknown tiers fit nothing).
    pub fn holds(&self, dims: &[Dim]) -> bool {
        dims.iter()
            .all(|d| self.tier(&d.tier).is_some_and(|t| t.holds(d.npus)))
    }

    /// The latency per step of the tier `name` (0 when unknown).
    pub fn latency_ns(&self, name: &str) -> f64 {
        self.tier(name).map_or(0.0, |t| t.latency_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::LibraNetwork;

    #[test]
    fn libras_own_networks_are_within_the_limits() {
        for net in LibraNetwork::ALL {
            let costs = net.cost_model();
            assert!(costs.limit_notes(&net.network()).is_empty(), "{net:?}");
            assert!(costs.holds(&net.network().dims));
            assert!(costs.tiers.iter().all(|t| t.max_npus.is_some()));
        }
    }

    #[test]
    fn a_ring_of_2048_chiplets_is_beyond_the_chiplet_tier() {
        let costs = LibraNetwork::D4.cost_model();
        let mut net = LibraNetwork::D4.network();
        net.dims.truncate(2);
        net.dims[0].npus = 2048;
        net.dims[1] = LibraNetwork::D4.network().dims[3].clone();
        net.dims[1].npus = 2;
        let notes = costs.limit_notes(&net);
        assert_eq!(
            notes,
            vec![BeyondTierLimit {
                dim: 1,
                npus: 2048,
                tier: "InterChiplet".into(),
                max: 8
            }]
        );
        assert_eq!(
            notes[0].to_string(),
            "dimension 1: 2048 NPUs, but tier \"InterChiplet\" joins at most 8 per dimension"
        );
        assert!(!costs.holds(&net.dims));
    }

    #[test]
    fn defaults_fill_only_what_is_missing() {
        let tier = CostTier {
            max_gbps: None,
            oversubscription: None,
            in_network_usd: None,
            name: "InterPod".into(),
            link: 1.0,
            switch: Some(1.0),
            nic: Some(1.0),
            max_npus: Some(128),
            latency_ns: 0.0,
        }
        .with_physical_default();
        assert_eq!((tier.max_npus, tier.latency_ns), (Some(128), 2_700.0));
        let other = CostTier {
            max_gbps: None,
            oversubscription: None,
            in_network_usd: None,
            name: "Mine".into(),
            ..tier.clone()
        }
        .with_physical_default();
        assert_eq!(other.max_npus, Some(128));
        assert!(other.holds(128) && !other.holds(129));
    }
}
