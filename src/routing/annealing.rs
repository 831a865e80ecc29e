//! The routing paper's other baseline: simulated annealing over spine assignments. It starts from
//! ECMP and makes a fixed number of moves, each putting one random inter-ToR flow on another of its
//! candidate spines; the energy is the sum of squared ToR-spine link loads (which spreads flows and
//! so lowers the largest load). A move that raises the energy by `Δ` is accepted with probability
//! `exp(-Δ / T)`, the temperature falling geometrically from [`T_START`] to [`T_END`]. The random
//! numbers come from splitmix64 of the seed, so a seed and a move budget always give the same
//! routing. The result is the least-energy assignment seen.

use super::algorithms::{ecmp, splitmix64};
use super::metrics::Routing;
use super::scenario::Instance;

/// The default number of moves (`route --algorithm annealing --moves N`).
pub const DEFAULT_MOVES: u64 = 200_000;
/// The starting temperature, in units of the energy (squared flows per link).
pub const T_START: f64 = 2.0;
/// The final temperature.
pub const T_END: f64 = 0.02;

/// Anneal `inst`'s routing with `moves` moves from `seed`.
pub fn annealing(inst: &Instance, seed: u64, moves: u64) -> Routing {
    let fabric = &inst.fabric;
    let mut routing = ecmp(inst);
    let movable: Vec<usize> = inst
        .flows
        .iter()
        .filter(|f| f.inter_tor() && f.candidates.len() > 1)
        .map(|f| f.id)
        .collect();
    if movable.is_empty() || moves == 0 {
        return routing;
    }
    let mut load: Vec<i64> = routing.loads(inst).into_iter().map(i64::from).collect();
    let mut energy: i64 = load.iter().map(|l| l * l).sum();
    // The moves since the best state, undone at the end (cheaper than copying the routing at
    // every improvement: 262,144 flows times thousands of improvements).
    let mut best_energy = energy;
    let mut since_best: Vec<(usize, u32)> = Vec::new();
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(1);
        splitmix64(state)
    };
    let cooling = (T_END / T_START).powf(1.0 / moves as f64);
    let mut t = T_START;
    for _ in 0..moves {
        let id = movable[(next() % movable.len() as u64) as usize];
        let f = &inst.flows[id];
        let now = routing.0[id].expect("an inter-ToR flow is routed");
        // Another candidate, uniformly.
        let mut k = (next() % (f.candidates.len() as u64 - 1)) as usize;
        if f.candidates[k] >= now {
            k += 1;
        }
        let to = f.candidates[k];
        let (a, b) = (fabric.up(f.src_tor, now), fabric.down(f.dst_tor, now));
        let (c, d) = (fabric.up(f.src_tor, to), fabric.down(f.dst_tor, to));
        // Sum of squares after taking one flow off a and b and putting it on c and d.
        let delta = 2 * (load[c] + load[d] - load[a] - load[b]) + 4;
        let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
        if delta <= 0 || u < (-(delta as f64) / t).exp() {
            load[a] -= 1;
            load[b] -= 1;
            load[c] += 1;
            load[d] += 1;
            energy += delta;
            routing.0[id] = Some(to);
            since_best.push((id, now));
            if energy < best_energy {
                best_energy = energy;
                since_best.clear();
            }
        }
        t *= cooling;
    }
    for (id, from) in since_best.into_iter().rev() {
        routing.0[id] = Some(from);
    }
    routing
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
