//! The routing paper's other baseline: simulated annealing over spine assignments. It starts from
//! ECMP and makes a fixed number of moves, each putting one random inter-ToR flow on another of its
//! candidate spines; the energy is the sum of squared ToR-spine link loads (which spreads flows and
//! so lowers the largest load). A move that raises the energy by `Δ` is accepted with probability
//! `exp(-Δ / T)`, the temperature falling geometrically from [`T_START`] to [`T_END`]. The random
//! numbers come from splitmix64 of the seed, so a seed and a move budget always give the same
//! routing. The result is the least-energy assignment seen.

use super::algorithms::{ecmp, SplitMix};
use super::metrics::Routing;
use super::scenario::Instance;

/// The default number of moves (`route --algorithm annealing --moves N`).
pub const DEFAULT_MOVES: u64 = 200_000;
/// The starting temperature, in units of the energy (squared flows per link).
pub const T_START: f64 = 2.0;
/// The final temperature.
pub const T_END: f64 = 0.02;

/// Anneal `inst`'s routing with `moves` moves from `seed`, in memory bounded by the instance
/// whatever the number of moves (see [`Annealing`]).
pub fn annealing(inst: &Instance, seed: u64, moves: u64) -> Routing {
    anneal(inst, seed, moves, inst.flows.len().max(MIN_UNDO_LOG))
}

/// Accepted moves kept in the undo log at least, before the best state is copied instead.
const MIN_UNDO_LOG: usize = 4_096;

fn anneal(inst: &Instance, seed: u64, moves: u64, log_cap: usize) -> Routing {
    let mut run = Annealing::with_log(inst, seed, moves, log_cap);
    run.step(inst, moves);
    run.finish()
}

/// An annealing made a slice of moves at a time ([`Annealing::step`]), so that a page can spread
/// it over frames: any slicing makes the same moves, so gives the same routing as [`annealing`].
///
/// The best state is kept as the moves accepted since it (undone at the end: cheaper than copying
/// the routing at every improvement, 262,144 flows times thousands of improvements); once that
/// log reaches its cap, the best state is copied out and moves are no longer logged until the
/// next improvement. So the memory is O(flows + cap), not 16 bytes per accepted move (1e9 moves
/// took about 16 GB).
pub struct Annealing {
    routing: Routing,
    movable: Vec<usize>,
    load: Vec<i64>,
    energy: i64,
    best_energy: i64,
    /// The moves accepted since the best state, or (once the log is full) a copy of it.
    since_best: Vec<(usize, u32)>,
    best_copy: Option<Routing>,
    log_cap: usize,
    draw: SplitMix,
    cooling: f64,
    t: f64,
    left: u64,
}

impl Annealing {
    /// `moves` moves from `seed`, none made yet.
    pub fn new(inst: &Instance, seed: u64, moves: u64) -> Annealing {
        Annealing::with_log(inst, seed, moves, inst.flows.len().max(MIN_UNDO_LOG))
    }

    fn with_log(inst: &Instance, seed: u64, moves: u64, log_cap: usize) -> Annealing {
        let routing = ecmp(inst);
        let movable: Vec<usize> = inst
            .flows
            .iter()
            .filter(|f| f.inter_tor() && f.candidates.len() > 1)
            .map(|f| f.id)
            .collect();
        let load: Vec<i64> = routing.loads(inst).into_iter().map(i64::from).collect();
        let energy: i64 = load.iter().map(|l| l * l).sum();
        Annealing {
            left: if movable.is_empty() { 0 } else { moves },
            routing,
            movable,
            load,
            energy,
            best_energy: energy,
            since_best: Vec::new(),
            best_copy: None,
            log_cap,
            draw: SplitMix(seed),
            cooling: (T_END / T_START).powf(1.0 / moves as f64),
            t: T_START,
        }
    }

    /// Make up to `moves` more moves; true when all are made.
    pub fn step(&mut self, inst: &Instance, moves: u64) -> bool {
        let fabric = &inst.fabric;
        let n = moves.min(self.left);
        for _ in 0..n {
            let pick = (self.draw.next_u64() % self.movable.len() as u64) as usize;
            let id = self.movable[pick];
            let f = &inst.flows[id];
            let now = self.routing.0[id].expect("an inter-ToR flow is routed");
            // Another candidate, uniformly.
            let mut k = (self.draw.next_u64() % (f.candidates.len() as u64 - 1)) as usize;
            if f.candidates[k] >= now {
                k += 1;
            }
            let to = f.candidates[k];
            let (a, b) = (fabric.up(f.src_tor, now), fabric.down(f.dst_tor, now));
            let (c, d) = (fabric.up(f.src_tor, to), fabric.down(f.dst_tor, to));
            let load = &mut self.load;
            // Sum of squares after taking one flow off a and b and putting it on c and d.
            let delta = 2 * (load[c] + load[d] - load[a] - load[b]) + 4;
            let u = self.draw.unit();
            if delta <= 0 || u < (-(delta as f64) / self.t).exp() {
                let load = &mut self.load;
                load[a] -= 1;
                load[b] -= 1;
                load[c] += 1;
                load[d] += 1;
                self.energy += delta;
                self.routing.0[id] = Some(to);
                if self.energy < self.best_energy {
                    self.best_energy = self.energy;
                    self.since_best.clear();
                    self.best_copy = None;
                } else if self.best_copy.is_none() {
                    self.since_best.push((id, now));
                    if self.since_best.len() >= self.log_cap {
                        let mut best = self.routing.clone();
                        for (id, from) in self.since_best.drain(..).rev() {
                            best.0[id] = Some(from);
                        }
                        self.best_copy = Some(best);
                    }
                }
            }
            self.t *= self.cooling;
        }
        self.left -= n;
        self.left == 0
    }

    /// Moves still to make.
    pub fn left(&self) -> u64 {
        self.left
    }

    /// The least-energy routing seen (after the moves made so far).
    pub fn finish(self) -> Routing {
        if let Some(best) = self.best_copy {
            return best;
        }
        let mut routing = self.routing;
        for (id, from) in self.since_best.into_iter().rev() {
            routing.0[id] = Some(from);
        }
        routing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::generate::{generate, Placement};

    fn energy(inst: &Instance, r: &Routing) -> u64 {
        r.loads(inst)
            .into_iter()
            .map(|l| u64::from(l) * u64::from(l))
            .sum()
    }

    #[test]
    fn a_seed_and_a_budget_always_give_the_same_routing_never_worse_than_its_start() {
        let p = Placement {
            tors: 16,
            spines: 8,
            hosts_per_tor: 8,
            jobs: 4,
            ring_size: 4,
            failed_links: 6,
            ..Placement::default()
        };
        let inst = generate(&p).unwrap().instance().unwrap();
        let a = annealing(&inst, 7, 20_000);
        assert_eq!(a, annealing(&inst, 7, 20_000));
        assert!(energy(&inst, &a) <= energy(&inst, &ecmp(&inst)));
        // Every flow stays on its own candidates.
        assert!(inst
            .flows
            .iter()
            .all(|f| a.0[f.id].is_none_or(|s| f.candidates.contains(&s))));
        // Another seed is another random walk.
        let others: Vec<Routing> = (8..12).map(|s| annealing(&inst, s, 20_000)).collect();
        assert!(others.iter().any(|o| *o != a));
        // No moves: ECMP itself.
        assert_eq!(annealing(&inst, 7, 0), ecmp(&inst));
        // Any slicing makes the same moves.
        for slice in [1, 999, 7_000, 20_000] {
            let mut run = Annealing::new(&inst, 7, 20_000);
            while !run.step(&inst, slice) {}
            assert_eq!(run.left(), 0);
            assert_eq!(run.finish(), a, "slices of {slice}");
        }
    }

    #[test]
    fn a_bounded_undo_log_gives_the_same_routing_as_an_unbounded_one() {
        // Issue 32: 1e9 moves kept 16 bytes per accepted move and aborted on allocation. With a
        // log of 1 to 64 moves the best state is copied out again and again; the answer must be
        // the one the whole log gives.
        let p = Placement {
            tors: 8,
            spines: 4,
            hosts_per_tor: 8,
            jobs: 3,
            ring_size: 4,
            failed_links: 2,
            ..Placement::default()
        };
        let inst = generate(&p).unwrap().instance().unwrap();
        for seed in 1..6 {
            let whole = anneal(&inst, seed, 30_000, usize::MAX);
            for cap in [1, 2, 7, 64] {
                assert_eq!(
                    anneal(&inst, seed, 30_000, cap),
                    whole,
                    "seed {seed}, cap {cap}"
                );
            }
        }
    }

    #[test]
    fn at_the_papers_scale_it_spreads_the_flows_ecmp_piles_up() {
        let p = Placement::paper(5, 8, 0);
        let inst = generate(&p).unwrap().instance().unwrap();
        let max = |r: &Routing| r.loads(&inst).into_iter().max().unwrap_or(0);
        let e = ecmp(&inst);
        let a = annealing(&inst, 1, DEFAULT_MOVES);
        assert!(
            max(&a) < max(&e),
            "annealing {} vs ECMP {}",
            max(&a),
            max(&e)
        );
        assert!(energy(&inst, &a) < energy(&inst, &e));
    }
}
