//! Multi-flow ECMP, what large training clusters do about ECMP's collisions instead of routing
//! centrally: the collective library opens `k` flows (queue pairs) between each pair of GPUs and
//! the switches hash each one on its own. Meta trained Llama 3 with 16 flows per GPU pair
//! ("The Llama 3 Herd of Models", arXiv 2407.21783, section 3.3.1, "Load balancing").
//!
//! Modelled as a split instance: every ring edge becomes `k` sub-flows from the same NIC to the
//! same NIC, each sending `1/k` of the edge's bytes per ring step. Max-min fairness then shares
//! links and NICs among sub-flows, a ring step ends when its slowest sub-flow has sent its
//! share, and the All-Reduce still takes `2(n-1)` steps of a ring of `n` hosts (`Ring::members`).
//! The contention-free time stays that of the whole chunk at the NIC's rate (`Instance::subflows`).
//! Link loads, flow rates and the routing of a split instance are per sub-flow.

use super::algorithms::ecmp;
use super::metrics::{measure, measure_static, Metrics, Routing};
use super::scenario::{Flow, Instance, Ring};

/// Flows per GPU pair in Llama 3's training (the Routing view's and the cluster's multi-flow ECMP).
pub const LLAMA3_FLOWS: u32 = 16;

/// The most sub-flows per ring edge the command line accepts (a split instance has `k` times
/// the flows).
pub const MAX_FLOWS: u32 = 64;

/// The most sub-flows the fluid simulation is run on. Sub-flows hashed apart rarely finish
/// together, so its events grow with them: on the paper's fabric 4,096 sub-flows took 4.1 s
/// against 0.2 s for its 2,048 flows unsplit. Beyond, the fluid times are the static ones and
/// the result says so.
pub const FLUID_LIMIT: usize = 2048;

/// Whether the fluid simulation is run on `split` (see [`FLUID_LIMIT`]).
pub fn fluid_simulated(split: &Instance) -> bool {
    split.flows.len() <= FLUID_LIMIT
}

/// The metrics of `routing` on the split instance: with the fluid simulation up to
/// [`FLUID_LIMIT`] sub-flows, else with the static times in its place.
pub fn measure_split(split: &Instance, routing: &Routing) -> Metrics {
    match fluid_simulated(split) {
        true => measure(split, routing),
        false => measure_static(split, routing).with_static_as_fluid(),
    }
}

/// `inst` with every ring edge split into `k` sub-flows (`k >= 1`; flow `f`'s sub-flow `i` is
/// flow `f k + i`).
pub fn split(inst: &Instance, k: u32) -> Instance {
    let k = k.max(1);
    let ku = k as usize;
    let flows = inst
        .flows
        .iter()
        .flat_map(|f| {
            (0..k).map(move |i| Flow {
                id: f.id * ku + i as usize,
                sub: i,
                candidates: f.candidates.clone(),
                ..*f
            })
        })
        .collect();
    let rings = inst
        .rings
        .iter()
        .map(|r| Ring {
            job: r.job,
            members: r.members,
            flows: r
                .flows
                .iter()
                .flat_map(|&f| (0..ku).map(move |i| f * ku + i))
                .collect(),
        })
        .collect();
    let jobs = inst
        .jobs
        .iter()
        .map(|(chunk, rings)| (chunk / f64::from(k), rings.clone()))
        .collect();
    Instance {
        fabric: inst.fabric.clone(),
        flows,
        rings,
        jobs,
        subflows: inst.subflows * k,
    }
}

/// Multi-flow ECMP: `inst` split into `k` sub-flows per ring edge, and each sub-flow hashed onto
/// its live spines on its own.
pub fn ecmp_multiflow(inst: &Instance, k: u32) -> (Instance, Routing) {
    let split = split(inst, k);
    let routing = ecmp(&split);
    (split, routing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::generate::{generate, Placement};
    use crate::routing::scenario::RouteScenario;

    fn default_instance() -> Instance {
        generate(&Placement::default()).unwrap().instance().unwrap()
    }

    #[test]
    fn a_split_keeps_the_rings_and_their_bytes_and_one_sub_flow_is_the_flow_itself() {
        let inst = default_instance();
        let one = split(&inst, 1);
        assert_eq!(one, inst);
        let s = split(&inst, 4);
        assert_eq!(s.flows.len(), 4 * inst.flows.len());
        assert_eq!(s.subflows, 4);
        for (r, q) in inst.rings.iter().zip(&s.rings) {
            assert_eq!((q.members, q.flows.len()), (r.members, 4 * r.flows.len()));
        }
        for ((c, _), (d, _)) in inst.jobs.iter().zip(&s.jobs) {
            assert_eq!(*d * 4.0, *c);
        }
        for f in &s.flows {
            let parent = &inst.flows[f.id / 4];
            assert_eq!(
                (f.sub as usize, f.src, f.dst),
                (f.id % 4, parent.src, parent.dst)
            );
        }
        // Sub-flow 0 hashes as the unsplit flow; the others apart, the same way every time.
        let (s, r) = ecmp_multiflow(&inst, 4);
        let plain = ecmp(&inst);
        for f in &inst.flows {
            assert_eq!(r.0[4 * f.id], plain.0[f.id]);
        }
        assert_eq!(ecmp_multiflow(&inst, 4).1, r);
        let spread = inst
            .flows
            .iter()
            .filter(|f| f.inter_tor())
            .filter(|f| (1..4).any(|i| r.0[4 * f.id + i] != r.0[4 * f.id]))
            .count();
        assert!(spread * 2 > inst.flows.iter().filter(|f| f.inter_tor()).count());
        // The contention-free time is the whole chunk's, split or not.
        let (a, b) = (measure(&inst, &plain), measure_split(&s, &r));
        assert_eq!(
            a.contention_free_allreduce_time_s,
            b.contention_free_allreduce_time_s
        );
    }

    #[test]
    fn sub_flows_on_two_spines_double_a_flow_that_one_slow_link_held_back() {
        // One flow between two ToRs over 50 Gbps links, NICs at 100 Gbps. Unsplit it runs at
        // 50; split in two, sub-flows on different spines run at 50 each (the NIC's 100) and the
        // All-Reduce takes half the time; on one spine they share its 50 and nothing changes.
        let text = r#"{"network": {"num_spines": 2, "num_tors": 2, "link_gbps": 50, "nic_gbps": 100},
            "hosts": [{"id": 0, "tor": 0}, {"id": 1, "tor": 1}],
            "jobs": [{"name": "j", "chunk_bytes": 1e6, "rings": [[0, 1]]}]}"#;
        let inst = RouteScenario::from_json(text).unwrap().instance().unwrap();
        let unsplit = measure(&inst, &ecmp(&inst));
        let s = split(&inst, 2);
        // Sub-flows 0, 1 carry 0 -> 1, sub-flows 2, 3 carry 1 -> 0.
        for (spines, speedup) in [
            ([0, 1, 1, 0], 2.0),
            ([0, 0, 1, 1], 1.0),
            ([1, 1, 0, 1], 1.0),
        ] {
            let routing = Routing(spines.iter().map(|x| Some(*x)).collect());
            let m = measure_split(&s, &routing);
            let ratio = unsplit.makespan_static_s / m.makespan_static_s;
            assert!((ratio - speedup).abs() < 1e-9, "{spines:?}: {ratio}");
            assert!((m.makespan_fluid_s - m.makespan_static_s).abs() < 1e-9 * m.makespan_static_s);
        }
    }

    #[test]
    fn on_the_papers_jobs_sixteen_flows_beat_one_and_stay_below_edge_colouring() {
        let placement = Placement {
            models: crate::routing::paper_jobs::PaperModel::ALL.to_vec(),
            ..Placement::paper(3, 8, 0)
        };
        let inst = generate(&placement).unwrap().instance().unwrap();
        let eta = |m: &Metrics| {
            crate::routing::coupling::efficiency_of(m, crate::routing::coupling::EtaBasis::Static)
        };
        let one = eta(&measure(&inst, &ecmp(&inst)));
        let (s, r) = ecmp_multiflow(&inst, LLAMA3_FLOWS);
        assert!(!fluid_simulated(&s));
        let sixteen = eta(&measure_split(&s, &r));
        // Golden values of this fabric (README): ECMP 0.167, 16 flows 0.516, edge colouring 1.
        assert!((one - 1.0 / 6.0).abs() < 1e-9, "{one}");
        assert!((sixteen - 0.516).abs() < 0.001, "{sixteen}");
    }
}
