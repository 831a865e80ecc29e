//! What better routing saves on the design (docs/routing.md): the design's outermost Switch
//! dimension, found by its topology, is provisioned for its optimal effective bandwidth `B*` as
//! `B* / eta` (docs/routing.md section 5), so each routing's efficiency `eta` prices the dimension
//! and its saving against ECMP's.

use crate::analysis::study::Study;
use crate::model::network::Topology;
use crate::model::scenario::Scenario;
use crate::routing::coupling::savings_usd;
use crate::routing::study::Routed;
use serde::{Deserialize, Serialize};

/// The design's outermost Switch dimension at the optimum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwitchDesign {
    /// How the results name the dimension ("d4 Switch").
    pub label: String,
    /// The optimal (effective) bandwidth per NPU, GB/s.
    pub target_gbps: f64,
    /// The dimension's cost per GB/s per NPU, $.
    pub usd_per_gbps: f64,
}

impl SwitchDesign {
    /// The outermost dimension of `sc` whose topology is a Switch, at `study`'s optimum; None when
    /// the network has no Switch dimension.
    pub fn of(sc: &Scenario, study: &Study) -> Option<SwitchDesign> {
        let d = sc
            .network
            .dims
            .iter()
            .rposition(|dim| dim.topology == Topology::Switch)?;
        Some(SwitchDesign {
            label: study.dim_labels.get(d)?.clone(),
            target_gbps: *study.optimum.bw_gbps.get(d)?,
            usd_per_gbps: *study.problem.cost_per_gbps.get(d)?,
        })
    }
}

/// One routing's row of the savings table.
#[derive(Clone, Debug, PartialEq)]
pub struct Saving {
    pub algorithm: &'static str,
    /// `eta` from the static All-Reduce times.
    pub efficiency: f64,
    /// `eta` from the fluid simulation's times (informational).
    pub efficiency_fluid: f64,
    /// `B* / eta`, GB/s per NPU.
    pub provisioned_gbps: f64,
    /// The dimension's cost at that bandwidth, $.
    pub cost_usd: f64,
    /// Against ECMP (the first routing), $.
    pub saved_usd: f64,
}

/// Each routing's provisioning and saving on `design`; empty when nothing was routed.
pub fn savings(design: &SwitchDesign, routed: &[Routed]) -> Vec<Saving> {
    let Some(eta_ecmp) = routed.first().map(|r| r.efficiency) else {
        return Vec::new();
    };
    routed
        .iter()
        .map(|r| Saving {
            algorithm: r.name,
            efficiency: r.efficiency,
            efficiency_fluid: r.efficiency_fluid,
            provisioned_gbps: design.target_gbps / r.efficiency,
            cost_usd: design.usd_per_gbps * design.target_gbps / r.efficiency,
            saved_usd: savings_usd(
                1.0,
                design.usd_per_gbps,
                design.target_gbps,
                eta_ecmp,
                r.efficiency,
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::study::study;
    use crate::model::network::Topology;
    use crate::routing::study::{route_study, RoutePreset};

    #[test]
    fn the_switch_is_found_by_topology_not_by_position_or_label() {
        let mut sc = crate::presets::default_scenario();
        // LIBRA's 4D network: Ring, FullyConnected, Ring, Switch.
        let s = study(&sc).unwrap();
        let d = SwitchDesign::of(&sc, &s).unwrap();
        assert_eq!(d.label, s.dim_labels[3]);
        assert_eq!(d.target_gbps, s.optimum.bw_gbps[3]);
        // A Switch moved inside (same sizes, so the communicators still
        // fit): still found, whatever the labels say.
        sc.network.dims[1].topology = Topology::Switch;
        sc.network.dims[1].tier = sc.network.dims[3].tier.clone();
        sc.network.dims[3].topology = Topology::Ring;
        let s = study(&sc).unwrap();
        let d = SwitchDesign::of(&sc, &s).unwrap();
        assert_eq!(sc.network.dims[1].topology, Topology::Switch);
        assert_eq!(d.target_gbps, s.optimum.bw_gbps[1]);
        assert_eq!(d.usd_per_gbps, s.problem.cost_per_gbps[1]);
        // No Switch at all: no savings to price.
        for dim in &mut sc.network.dims {
            dim.topology = Topology::Ring;
        }
        let s = study(&sc).unwrap();
        assert_eq!(SwitchDesign::of(&sc, &s), None);
    }

    #[test]
    fn savings_are_the_provisioning_difference_against_ecmp() {
        let routed = route_study(&RoutePreset::ThreeJobs.setup()).unwrap().routed;
        let design = SwitchDesign {
            label: "d4 Switch".into(),
            target_gbps: 100.0,
            usd_per_gbps: 7.0,
        };
        let rows = savings(&design, &routed);
        assert_eq!(rows.len(), routed.len());
        assert_eq!(rows[0].saved_usd, 0.0);
        for (row, r) in rows.iter().zip(&routed) {
            assert!(r.efficiency > 0.0 && r.efficiency <= 1.0);
            assert!((row.provisioned_gbps - 100.0 / r.efficiency).abs() < 1e-9);
            let by_hand = 7.0 * 100.0 / rows[0].efficiency - 7.0 * 100.0 / r.efficiency;
            assert!((row.saved_usd - by_hand).abs() < 1e-6 * by_hand.abs().max(1.0));
        }
    }
}
