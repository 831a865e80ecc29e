//! The fluid simulation of one All-Reduce of every job (docs/routing.md section 2): every ring starts
//! step 0 at t = 0 with one flow of `chunk_bytes` per member; at each event the earliest flows
//! finish, max-min rates are recomputed over the flows still active, and a ring whose flows are all
//! done starts its next step; a ring ends after `2 (n - 1)` steps, a job with its last ring.

use super::rates::max_min_rates;
use super::scenario::Instance;

/// Relative remaining size under which a flow counts as finished.
const EPS: f64 = 1e-12;

/// Each job's All-Reduce time (s) with flows on `paths` (by flow id).
pub fn fluid_times(inst: &Instance, paths: &[Vec<usize>]) -> Vec<f64> {
    let mut run = FluidRun::new(inst, paths.to_vec());
    while !run.step(inst, usize::MAX) {}
    run.times(inst)
}

/// The fluid simulation an event at a time ([`FluidRun::step`]), so the app can spread it over
/// animation frames; run to the end it gives [`fluid_times`].
#[derive(Clone, Debug)]
pub struct FluidRun {
    paths: Vec<Vec<usize>>,
    cap: Vec<f64>,
    chunk_of_ring: Vec<f64>,
    step: Vec<usize>,
    ring_done_at: Vec<f64>,
    /// Remaining bytes of every flow in its ring's current step (0 when done for this step).
    remaining: Vec<f64>,
    t: f64,
    done: bool,
    /// Events simulated so far.
    pub events: usize,
}

impl FluidRun {
    pub fn new(inst: &Instance, paths: Vec<Vec<usize>>) -> FluidRun {
        let chunk_of_ring: Vec<f64> = inst.rings.iter().map(|r| inst.jobs[r.job].0).collect();
        FluidRun {
            remaining: inst.flows.iter().map(|f| chunk_of_ring[f.ring]).collect(),
            paths,
            cap: inst.capacities(),
            step: vec![0usize; inst.rings.len()],
            ring_done_at: vec![f64::NAN; inst.rings.len()],
            chunk_of_ring,
            t: 0.0,
            done: false,
            events: 0,
        }
    }

    /// Simulate up to `events` more events; true when every ring has finished.
    pub fn step(&mut self, inst: &Instance, events: usize) -> bool {
        for _ in 0..events {
            if self.done {
                break;
            }
            self.event(inst);
        }
        self.done
    }

    fn event(&mut self, inst: &Instance) {
        let remaining = &mut self.remaining;
        let active: Vec<usize> = (0..inst.flows.len())
            .filter(|&f| remaining[f] > 0.0)
            .collect();
        if active.is_empty() {
            self.done = true;
            return;
        }
        self.events += 1;
        let sub: Vec<Vec<usize>> = active.iter().map(|&f| self.paths[f].clone()).collect();
        let rates = max_min_rates(&sub, &self.cap);
        // Seconds to each completion, and to the first.
        let finish: Vec<f64> = active
            .iter()
            .zip(&rates)
            .map(|(&f, r)| remaining[f] * 8.0 / (r * 1e9))
            .collect();
        let dt = finish.iter().copied().fold(f64::INFINITY, f64::min);
        self.t += dt;
        // Every event ends at least the flows that finish first (by their own time, not by the
        // bytes left after rounding), so the simulation always progresses: at most one event per
        // flow and step.
        for ((&f, r), &tf) in active.iter().zip(&rates).zip(&finish) {
            let left = remaining[f] - r * 1e9 * dt / 8.0;
            remaining[f] = if tf <= dt || left <= EPS * self.chunk_of_ring[inst.flows[f].ring] {
                0.0
            } else {
                left
            };
        }
        // Rings whose step is complete move on (or finish).
        for (r, ring) in inst.rings.iter().enumerate() {
            if !self.ring_done_at[r].is_nan() || ring.flows.iter().any(|&f| remaining[f] > 0.0) {
                continue;
            }
            self.step[r] += 1;
            if self.step[r] == 2 * (ring.members - 1) {
                self.ring_done_at[r] = self.t;
            } else {
                for &f in &ring.flows {
                    remaining[f] = self.chunk_of_ring[r];
                }
            }
        }
    }

    /// Each job's All-Reduce time (s) (final once [`FluidRun::step`] has returned true).
    pub fn times(&self, inst: &Instance) -> Vec<f64> {
        inst.jobs
            .iter()
            .map(|(_, rings)| {
                rings
                    .iter()
                    .map(|&r| self.ring_done_at[r])
                    .fold(0.0, f64::max)
            })
            .collect()
    }
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
