//! Built-in networks and cost models: LIBRA's inputs (astra-sim/libra `inputs/`).

use crate::model::{CostModel, CostTier, Dim, Network, Topology};

fn dim(topology: Topology, npus: u32, tier: &str) -> Dim {
    Dim {
        topology,
        npus,
        tier: tier.to_string(),
    }
}

/// The name under which the default scenario is shown.
pub const DEFAULT_SCENARIO_NAME: &str = "LIBRA 4D network";

/// LIBRA's 4D network (inputs/network/4d_network.yml): Ring 4 × FullyConnected 8 × Ring 4 × Switch 32 = 4096 NPUs.
pub fn libra_4d_network() -> Network {
    Network {
        dims: vec![
            dim(Topology::Ring, 4, "InterChiplet"),
            dim(Topology::FullyConnected, 8, "InterPackage"),
            dim(Topology::Ring, 4, "InterNode"),
            dim(Topology::Switch, 32, "InterPod"),
        ],
    }
}

fn tier(name: &str, link: f64, switch: Option<f64>, nic: Option<f64>) -> CostTier {
    CostTier {
        name: name.to_string(),
        link,
        switch,
        nic,
    }
}

/// LIBRA's 4D cost model (inputs/cost_model/4d_cost_model.yml), $ per GB/s.
pub fn libra_4d_cost_model() -> CostModel {
    CostModel {
        tiers: vec![
            tier("InterChiplet", 2.00001, None, None),
            tier("InterPackage", 4.00002, Some(13.00002), None),
            tier("InterNode", 4.00003, Some(13.00003), None),
            tier("InterPod", 7.80004, Some(18.00004), Some(31.60004)),
        ],
    }
}
