//! The fluid simulation of one All-Reduce of every job (ROUTING.md section 2): every ring starts
//! step 0 at t = 0 with one flow of `chunk_bytes` per member; at each event the earliest flows
//! finish, max-min rates are recomputed over the flows still active, and a ring whose flows are all
//! done starts its next step; a ring ends after `2 (n - 1)` steps, a job with its last ring.

use super::rates::max_min_rates;
use super::scenario::Instance;

/// Relative remaining size under which a flow counts as finished.
const EPS: f64 = 1e-12;

/// Each job's All-Reduce time (s) with flows on `paths` (by flow id).
pub fn fluid_times(inst: &Instance, paths: &[Vec<usize>]) -> Vec<f64> {
    let cap = inst.capacities();
    let chunk_of_ring: Vec<f64> = inst.rings.iter().map(|r| inst.jobs[r.job].0).collect();
    let mut step = vec![0usize; inst.rings.len()];
    let mut ring_done_at = vec![f64::NAN; inst.rings.len()];
    // Remaining bytes of every flow in its ring's current step (0 when done for this step).
    let mut remaining: Vec<f64> = inst.flows.iter().map(|f| chunk_of_ring[f.ring]).collect();
    let mut t = 0.0;
    loop {
        let active: Vec<usize> = (0..inst.flows.len())
            .filter(|&f| remaining[f] > 0.0)
            .collect();
        if active.is_empty() {
            break;
        }
        let sub: Vec<Vec<usize>> = active.iter().map(|&f| paths[f].clone()).collect();
        let rates = max_min_rates(&sub, &cap);
        // Seconds to each completion, and to the first.
        let finish: Vec<f64> = active
            .iter()
            .zip(&rates)
            .map(|(&f, r)| remaining[f] * 8.0 / (r * 1e9))
            .collect();
        let dt = finish.iter().copied().fold(f64::INFINITY, f64::min);
        t += dt;
        // Every event ends at least the flows that finish first (by their own time, not by the
        // bytes left after rounding), so the simulation always progresses: at most one event per
        // flow and step.
        for ((&f, r), &tf) in active.iter().zip(&rates).zip(&finish) {
            let left = remaining[f] - r * 1e9 * dt / 8.0;
            remaining[f] = if tf <= dt || left <= EPS * chunk_of_ring[inst.flows[f].ring] {
                0.0
            } else {
                left
            };
        }
        // Rings whose step is complete move on (or finish).
        for (r, ring) in inst.rings.iter().enumerate() {
            if !ring_done_at[r].is_nan() || ring.flows.iter().any(|&f| remaining[f] > 0.0) {
                continue;
            }
            step[r] += 1;
            if step[r] == 2 * (ring.flows.len() - 1) {
                ring_done_at[r] = t;
            } else {
                for &f in &ring.flows {
                    remaining[f] = chunk_of_ring[r];
                }
            }
        }
    }
    inst.jobs
        .iter()
        .map(|(_, rings)| rings.iter().map(|&r| ring_done_at[r]).fold(0.0, f64::max))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::algorithms::greedy;
    use crate::routing::generate::{generate, Placement};

    #[test]
    fn every_event_finishes_a_flow_even_with_subnormal_chunks() {
        // A chunk of 1e-310 bytes (below the validated minimum, set directly) once looped forever:
        // the time step rounded to 0 and no flow ever finished.
        let sc = generate(&Placement::default()).unwrap();
        let mut inst = sc.instance().unwrap();
        let paths: Vec<Vec<usize>> = {
            let r = greedy(&inst);
            inst.flows
                .iter()
                .map(|f| f.path(&inst.fabric, r.0[f.id]))
                .collect()
        };
        let normal = fluid_times(&inst, &paths);
        for chunk in [1e-310, 5e-324, 1.0] {
            for j in &mut inst.jobs {
                j.0 = chunk;
            }
            let times = fluid_times(&inst, &paths);
            // Times scale with the chunk (64e6 bytes in the default placement).
            for (t, n) in times.iter().zip(&normal) {
                assert!(t.is_finite() && *t >= 0.0, "{chunk}: {t}");
                if chunk == 1.0 {
                    assert!((t / (n / 64e6) - 1.0).abs() < 1e-9, "{t} vs {n}");
                }
            }
        }
    }
}
