//! The routing paper's simulated annealing as its authors' code runs it (ofircohen205/
//! dcn-simulators, `SimulatedAnnealingRoutingStrategy`, read on 2026-12-07; docs/routing.md 3.7):
//! the state gives every destination NIC one spine, used by every flow into it; it starts with
//! each NIC on the spine of its position within its ToR; a move swaps the spines of two
//! destination NICs; the energy is the largest number of flows on a ToR-spine link times the
//! number of links that carry it; the temperature falls from 1000 to 0.1 by a factor 0.99 a step
//! (917 steps), a worse move accepted with probability `exp(-Δ / T)`; the least-energy state seen
//! is returned. Their random numbers come from Java's generator seeded 1234; ours from splitmix64
//! of the seed, so the moves are the same kind but not the same draws.

use super::algorithms::SplitMix;
use super::metrics::Routing;
use super::scenario::Instance;

/// The authors' seed (their `simulation_seed`), the Routing view's and the command line's default.
pub const AUTHORS_SEED: u64 = 1234;

/// The starting temperature of the authors' schedule.
pub const T_START: f64 = 1000.0;
/// Their last temperature.
pub const T_END: f64 = 0.1;
/// Their cooling factor per step.
pub const COOLING: f64 = 0.99;

/// The authors' annealing of `inst` from `seed`.
pub fn annealing_authors(inst: &Instance, seed: u64) -> Routing {
    let mut run = AuthorsAnnealing::new(inst, seed);
    while !run.step(inst, usize::MAX) {}
    run.finish(inst)
}

/// The authors' annealing made a slice of steps at a time ([`AuthorsAnnealing::step`]), so that a
/// page can spread it over frames (each step computes the whole routing's link loads: 917 of
/// them take tens of milliseconds at the paper's scale). Any slicing gives [`annealing_authors`].
pub struct AuthorsAnnealing {
    /// The NICs that receive an inter-ToR flow.
    nics: Vec<usize>,
    state: Vec<u32>,
    best: Vec<u32>,
    energy: u64,
    best_energy: u64,
    draw: SplitMix,
    t: f64,
}

impl AuthorsAnnealing {
    /// The authors' start: each NIC on the spine of its position within its ToR.
    pub fn new(inst: &Instance, seed: u64) -> AuthorsAnnealing {
        let hosts = inst.fabric.hosts.len();
        // The NICs that receive an inter-ToR flow, and each one's position within its ToR.
        let mut position = vec![0u32; hosts];
        let mut on_tor = vec![0u32; inst.fabric.num_tors as usize];
        for (i, h) in inst.fabric.hosts.iter().enumerate() {
            position[i] = on_tor[h.tor as usize];
            on_tor[h.tor as usize] += 1;
        }
        let mut receives = vec![false; hosts];
        for f in inst.flows.iter().filter(|f| f.inter_tor()) {
            receives[f.dst_index] = true;
        }
        let energy = energy_of(inst, &position);
        AuthorsAnnealing {
            nics: (0..hosts).filter(|i| receives[*i]).collect(),
            best: position.clone(),
            state: position,
            energy,
            best_energy: energy,
            draw: SplitMix(seed),
            t: T_START,
        }
    }

    /// Make up to `steps` more steps of the schedule; true when it has ended.
    pub fn step(&mut self, inst: &Instance, steps: usize) -> bool {
        for _ in 0..steps {
            if self.ended() {
                return true;
            }
            let n = self.nics.len() as u64;
            let (i, j) = (self.draw.next_u64() % n, self.draw.next_u64() % n);
            let (a, b) = (self.nics[i as usize], self.nics[j as usize]);
            self.state.swap(a, b);
            let e = energy_of(inst, &self.state);
            let accept = e <= self.energy || {
                let u = self.draw.unit();
                u < (-((e - self.energy) as f64) / self.t).exp()
            };
            if accept {
                self.energy = e;
                if e < self.best_energy {
                    self.best_energy = e;
                    self.best.clone_from(&self.state);
                }
            } else {
                self.state.swap(a, b);
            }
            self.t *= COOLING;
        }
        self.ended()
    }

    /// The schedule has reached its last temperature (or there is nothing to swap).
    fn ended(&self) -> bool {
        !(self.t > T_END && self.nics.len() > 1)
    }

    /// The least-energy routing seen (after the steps made so far).
    pub fn finish(&self, inst: &Instance) -> Routing {
        routing_of(inst, &self.best)
    }
}

/// Every inter-ToR flow on its destination NIC's spine (the `state`-th of its live spines,
/// modulo how many it has).
fn routing_of(inst: &Instance, state: &[u32]) -> Routing {
    Routing(
        inst.flows
            .iter()
            .map(|f| {
                f.inter_tor()
                    .then(|| f.candidates[state[f.dst_index] as usize % f.candidates.len()])
            })
            .collect(),
    )
}

/// The authors' energy: the largest flow count on a ToR-spine link times how many links carry it.
fn energy_of(inst: &Instance, state: &[u32]) -> u64 {
    let loads = routing_of(inst, state).loads(inst);
    let spine_links = 2 * (inst.fabric.num_tors * inst.fabric.num_spines) as usize;
    let top = loads[..spine_links].iter().copied().max().unwrap_or(0);
    let at = loads[..spine_links].iter().filter(|n| **n == top).count() as u64;
    u64::from(top) * at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::generate::{generate, Placement};

    #[test]
    fn each_nic_receives_on_one_spine_and_the_energy_never_ends_above_the_start() {
        for seed in 1..6 {
            let p = Placement {
                seed,
                failed_spines: (seed % 2) as u32,
                ..Placement::default()
            };
            let inst = generate(&p).unwrap().instance().unwrap();
            let r = annealing_authors(&inst, 1234);
            assert_eq!(annealing_authors(&inst, 1234), r, "deterministic");
            // Any slicing makes the same steps.
            for slice in [1, 100, 916, 917] {
                let mut run = AuthorsAnnealing::new(&inst, 1234);
                while !run.step(&inst, slice) {}
                assert_eq!(run.finish(&inst), r, "slices of {slice}");
            }
            for f in inst.flows.iter().filter(|f| f.inter_tor()) {
                let s = r.0[f.id].unwrap();
                assert!(f.candidates.contains(&s));
                for g in inst
                    .flows
                    .iter()
                    .filter(|g| g.inter_tor() && g.dst_index == f.dst_index)
                {
                    assert_eq!(r.0[g.id], Some(s));
                }
            }
            let start: Vec<u32> = {
                let mut on_tor = vec![0u32; inst.fabric.num_tors as usize];
                inst.fabric
                    .hosts
                    .iter()
                    .map(|h| {
                        on_tor[h.tor as usize] += 1;
                        on_tor[h.tor as usize] - 1
                    })
                    .collect()
            };
            let end = {
                let loads = r.loads(&inst);
                let links = 2 * (inst.fabric.num_tors * inst.fabric.num_spines) as usize;
                let top = loads[..links].iter().copied().max().unwrap();
                u64::from(top) * loads[..links].iter().filter(|n| **n == top).count() as u64
            };
            assert!(end <= energy_of(&inst, &start), "seed {seed}");
        }
    }

    #[test]
    fn the_schedule_has_the_authors_917_steps() {
        let (mut t, mut steps) = (T_START, 0);
        while t > T_END {
            t *= COOLING;
            steps += 1;
        }
        assert_eq!(steps, 917);
    }
}
