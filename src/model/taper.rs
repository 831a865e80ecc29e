//! Oversubscribed fabric levels. A fabric built with fewer links above a level than below it (a
//! leaf with 2 downlinks per uplink is 2:1; Meta's aggregation layer 1:7) is laid as two
//! dimensions, the level below and the level above, whose tier says how oversubscribed it is
//! (`CostTier::oversubscription`, r): the level above carries `B_above = B_below / r`. LIBRA's
//! hierarchical collectives then cross the taper at the reduced bandwidth (an All-Reduce moves
//! `2 m (g-1)/g` inside each group at `B_below`, then `2 (m/g)(k-1)/k` across groups at
//! `B_below / r`), and the cost counts the ports and links actually built (each level is priced
//! per GB/s of its own bandwidth). docs/systems.md, "Oversubscription".

use super::cost::CostModel;
use super::network::Network;

/// The linear constraints that hold each fabric level at its ratio to the dimension just inside
/// it (`"B2 = 7 B3"`; `"B2 = B3"` at full bisection), for the scenario's `constraints.linear`. A first dimension has no
/// level below it: its tier's ratio is not a taper and adds nothing.
pub fn taper_constraints(net: &Network, costs: &CostModel) -> Vec<String> {
    net.dims
        .iter()
        .enumerate()
        .skip(1)
        .filter_map(|(i, d)| {
            let r = costs.tier(&d.tier)?.oversubscription?;
            (r.is_finite() && r >= 1.0).then(|| match r == 1.0 {
                true => format!("B{i} = B{}", i + 1),
                false => format!("B{i} = {r} B{}", i + 1),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::communicator::Communicator;
    use crate::model::cost::CostTier;
    use crate::model::network::{Dim, Topology};
    use crate::model::scenario::{Constraints, Scenario, WorkloadSpec};
    use crate::model::workload::{Collective, Layer, Phase, Workload};

    fn tier(name: &str, link: f64, switch: f64, nic: f64, r: Option<f64>) -> CostTier {
        CostTier {
            name: name.into(),
            link,
            switch: Some(switch),
            nic: Some(nic),
            max_npus: None,
            latency_ns: 0.0,
            max_gbps: None,
            oversubscription: r,
            in_network_usd: None,
        }
    }

    /// 16 hosts under 4 leaves of 4, the spine 2:1 oversubscribed; one layer whose weight
    /// gradients (1 GB) are all-reduced over both levels.
    fn two_level(r: f64) -> Scenario {
        let phase = |collective, bytes| Phase {
            compute_ns: 0.0,
            collective,
            size_bytes: bytes,
            count: 1,
            over: Default::default(),
        };
        let layer = Layer {
            name: "l".into(),
            reserved: -1,
            forward: phase(Collective::None, 0.0),
            input_grad: phase(Collective::None, 0.0),
            weight_grad: phase(Collective::AllReduce, 1e9),
            update_ns: 0.0,
        };
        Scenario {
            name: "two-level".into(),
            network: Network {
                dims: vec![
                    Dim {
                        topology: Topology::Switch,
                        npus: 4,
                        tier: "leaf".into(),
                        latency_ns: 0.0,
                    },
                    Dim {
                        topology: Topology::Switch,
                        npus: 4,
                        tier: "spine".into(),
                        latency_ns: 0.0,
                    },
                ],
            },
            // The leaf level: a down port, its link and the NIC; the spine level: the leaf's
            // uplink and the spine's port, and their link.
            costs: CostModel {
                tiers: vec![
                    tier("leaf", 25.6, 11.25, 31.6, None),
                    tier("spine", 25.6, 22.5, 0.0, Some(r)),
                ],
            },
            workloads: vec![WorkloadSpec {
                name: "w".into(),
                weight: 1.0,
                workload: Workload {
                    parallelism: None,
                    layers: vec![layer],
                },
                communicator: Communicator {
                    forward: vec![None, None],
                    input_grad: vec![None, None],
                    weight_grad: vec![Some(4), Some(4)],
                    pipeline: Vec::new(),
                    ..Default::default()
                },
            }],
            constraints: Constraints::default(),
            ..crate::presets::default_scenario()
        }
    }

    #[test]
    fn a_two_level_fabric_tapered_2_to_1_by_hand() {
        let mut sc = two_level(2.0);
        assert_eq!(taper_constraints(&sc.network, &sc.costs), ["B1 = 2 B2"]);
        assert_eq!(
            taper_constraints(&two_level(1.0).network, &two_level(1.0).costs),
            ["B1 = B2"]
        );
        // By hand, at 100 GB/s below and 50 above: inside a leaf 2 x 1e9 x 3/4 = 1.5e9 B at
        // 100 GB/s = 15 ms; across leaves 2 x (1e9 / 4) x 3/4 = 0.375e9 B at 50 GB/s = 7.5 ms;
        // LIBRA's pipelined max: 15 ms.
        let e = sc.evaluate(&[100.0, 50.0]).unwrap();
        assert!((e.time_ns - 15e6).abs() < 1e-3, "{}", e.time_ns);
        // Built: 16 hosts x (100 GB/s x $68.45 + 50 GB/s x $48.1) = $148,000.
        assert!((e.cost_usd - 16.0 * (100.0 * 68.45 + 50.0 * 48.1)).abs() < 1e-6);
        // Tapered 8:1 the spine binds: 0.375e9 B at 12.5 GB/s = 30 ms.
        let e = two_level(8.0).evaluate(&[100.0, 12.5]).unwrap();
        assert!((e.time_ns - 30e6).abs() < 1e-3, "{}", e.time_ns);
        // Optimized at a budget, the taper holds: B1 = 2 B2, and the budget is spent.
        sc.constraints.linear = taper_constraints(&sc.network, &sc.costs);
        sc.constraints.budget_usd = Some(148_000.0);
        let s = crate::analysis::study::study(&sc).unwrap();
        let b = &s.optimum.bw_gbps;
        assert!((b[0] - 2.0 * b[1]).abs() < 1e-6 * b[0], "{b:?}");
        assert!((b[0] - 100.0).abs() < 1e-4, "{b:?}");
        // Below 1 is refused naming the tier.
        let e = two_level(0.5)
            .evaluate(&[100.0, 50.0])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("tier \"spine\": oversubscription must be"),
            "{e}"
        );
    }
}
