//! A flow-lex seed that reaches the counting bound (`lex_count`) whenever the construction of
//! issue 37 applies: L live spines (whole spines failed, every inter-ToR flow free to use each),
//! at most 2L flows on every ToR side (a least max load of 2 at most).
//!
//! Flows form a bipartite multigraph: source ToRs (up sides) against destination ToRs (down
//! sides), `m_e` flows on ToR pair `e`. A side `x` of degree `deg(x) > L` must fill
//! `forced(x) = deg(x) - L` of its links with 2 flows; the counting bound is reached when
//! exactly those links are full and every flow on a full link is full at both ends. Pick
//! `r_e <= m_e / 2` doubled colours per pair with `sum_{e at x} r_e = forced(x)` at every side (a
//! b-matching, found as a maximum flow), give pair `e` `m_e - r_e` colour slots (every side then
//! has at most L), colour the slots with L colours (König: a bipartite multigraph of maximum
//! degree L has an L-edge-colouring), and put 2 flows on `r_e` of pair `e`'s colours and 1 on
//! the rest. Each colour is a matching, so a spine's link from ToR `a` and its link to ToR `b`
//! carry the same pair's flows: a link is full exactly on a doubled colour, and so is the link
//! at the pair's other end. Every flow is then on full links at both ends (rate `c / 2`) or on
//! single links at both ends (the top rate): the least count at `c / 2` with everything else at
//! the top, the flow-lex optimum.
//!
//! When no such `r` exists the counting bound cannot be met; the chains of `lex_chains` then try
//! to meet the pairing bound instead (`lex_count`).

use super::max_flow::FlowGraph;
use super::metrics::Routing;
use super::scenario::Instance;
use std::collections::BTreeMap;

/// The routing of the construction above, or None where it does not apply or no even
/// b-matching exists.
pub fn counting_seed(inst: &Instance) -> Option<Routing> {
    let g = PairGraph::of(inst)?;
    match even_b_matching(g.t, &g.keys, &g.pairs, &g.forced) {
        Some(r) => even_seed(inst, &g, &r),
        None => super::lex_chains::chain_seed(inst, &g),
    }
}

/// The inter-ToR flows as a bipartite multigraph over ToR sides (up side `a`, down side
/// `t + b`), when every one of them may use the same live spines and no side has more than
/// 2L flows.
pub(super) struct PairGraph<'a> {
    pub t: usize,
    pub live: &'a [u32],
    /// The flows of each ToR pair (source ToR, destination ToR).
    pub pairs: BTreeMap<(u32, u32), Vec<usize>>,
    pub keys: Vec<(u32, u32)>,
    /// Links each side must fill: `max(0, deg - L)`.
    pub forced: Vec<usize>,
}

impl<'a> PairGraph<'a> {
    pub fn of(inst: &'a Instance) -> Option<PairGraph<'a>> {
        let t = inst.fabric.num_tors as usize;
        let mut live: Option<&[u32]> = None;
        let mut pairs: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
        for f in &inst.flows {
            if !f.inter_tor() {
                continue;
            }
            match live {
                None => live = Some(&f.candidates),
                Some(l) if l != f.candidates.as_slice() => return None,
                Some(_) => {}
            }
            pairs.entry((f.src_tor, f.dst_tor)).or_default().push(f.id);
        }
        let live = live?;
        let l = live.len();
        if l == 0 {
            return None;
        }
        let mut deg = vec![0usize; 2 * t];
        for (&(a, b), flows) in &pairs {
            deg[a as usize] += flows.len();
            deg[t + b as usize] += flows.len();
        }
        if deg.iter().any(|d| *d > 2 * l) {
            return None;
        }
        let forced = deg.iter().map(|d| d.saturating_sub(l)).collect();
        let keys = pairs.keys().copied().collect();
        Some(PairGraph {
            t,
            live,
            pairs,
            keys,
            forced,
        })
    }
}

/// The even construction from its b-matching `r`.
fn even_seed(inst: &Instance, g: &PairGraph, r: &[usize]) -> Option<Routing> {
    let (t, l, live, keys, pairs) = (g.t, g.live.len(), g.live, &g.keys, &g.pairs);
    // Colour slots: pair e gets m_e - r_e of them.
    let mut slots = Vec::new();
    for (i, &(a, b)) in keys.iter().enumerate() {
        let m = pairs[&(a, b)].len();
        for _ in 0..m - r[i] {
            slots.push((a as usize, b as usize, i));
        }
    }
    let colours = edge_colouring(t, l, &slots)?;
    let mut routing = vec![None; inst.flows.len()];
    let mut next_flow = vec![0usize; keys.len()];
    let mut doubled = vec![0usize; keys.len()];
    for (k, &(_, _, i)) in slots.iter().enumerate() {
        let spine = live[colours[k]];
        let flows = &pairs[&keys[i]];
        let n = match doubled[i] < r[i] {
            true => {
                doubled[i] += 1;
                2
            }
            false => 1,
        };
        for _ in 0..n {
            routing[flows[next_flow[i]]] = Some(spine);
            next_flow[i] += 1;
        }
    }
    Some(Routing(routing))
}

/// Integers `r_e` in `0..=m_e / 2` summing to `forced` at every side (up side `a`, down side
/// `t + b`), as a maximum flow: source to up sides (`forced`), pairs (`m_e / 2`), down sides to
/// sink (`forced`); None when the flow does not saturate every side.
pub(super) fn even_b_matching(
    t: usize,
    keys: &[(u32, u32)],
    pairs: &BTreeMap<(u32, u32), Vec<usize>>,
    forced: &[usize],
) -> Option<Vec<usize>> {
    let (up_total, down_total): (usize, usize) =
        (forced[..t].iter().sum(), forced[t..].iter().sum());
    if up_total != down_total {
        return None;
    }
    // Nodes: 0 source, 1..=t up sides, t+1..=2t down sides, 2t+1 sink.
    let n = 2 * t + 2;
    let sink = n - 1;
    let mut g = FlowGraph::new(n);
    for (x, f) in forced.iter().enumerate() {
        if *f > 0 {
            match x < t {
                true => g.add(0, 1 + x, *f),
                false => g.add(1 + x, sink, *f),
            };
        }
    }
    let pair_edges: Vec<usize> = keys
        .iter()
        .map(|&(a, b)| g.add(1 + a as usize, 1 + t + b as usize, pairs[&(a, b)].len() / 2))
        .collect();
    if g.max_flow(0, sink) != up_total {
        return None;
    }
    Some(pair_edges.iter().map(|&e| g.flow(e)).collect())
}

/// A proper colouring with `colours` colours of the bipartite multigraph of `edges` (left node
/// `a`, right node `b` of `t` each): König's theorem by alternating-path swaps. None when some
/// node has more edges than colours.
pub fn edge_colouring(
    t: usize,
    colours: usize,
    edges: &[(usize, usize, usize)],
) -> Option<Vec<usize>> {
    let none = usize::MAX;
    // at[node][colour] = the edge of that colour at the node (left nodes 0..t, right t..2t).
    let mut at = vec![vec![none; colours]; 2 * t];
    let mut colour = vec![none; edges.len()];
    let free = |at: &Vec<Vec<usize>>, node: usize| at[node].iter().position(|e| *e == none);
    for (k, &(a, b, _)) in edges.iter().enumerate() {
        let (u, v) = (a, t + b);
        let alpha = free(&at, u)?;
        let beta = free(&at, v)?;
        if at[v][alpha] != none {
            // Swap alpha and beta along the path from v that alternates alpha, beta, ...; it
            // cannot reach u (bipartite parity), so alpha becomes free at v and stays free at u.
            let mut path = Vec::new();
            let (mut node, mut c) = (v, alpha);
            while at[node][c] != none {
                let e = at[node][c];
                path.push(e);
                let (ea, eb, _) = edges[e];
                node = match node == ea {
                    true => t + eb,
                    false => ea,
                };
                c = match c == alpha {
                    true => beta,
                    false => alpha,
                };
            }
            for &e in &path {
                let (ea, eb, _) = edges[e];
                at[ea][colour[e]] = none;
                at[t + eb][colour[e]] = none;
            }
            for &e in &path {
                let (ea, eb, _) = edges[e];
                colour[e] = match colour[e] == alpha {
                    true => beta,
                    false => alpha,
                };
                at[ea][colour[e]] = e;
                at[t + eb][colour[e]] = e;
            }
        }
        colour[k] = alpha;
        at[u][alpha] = k;
        at[v][alpha] = k;
    }
    Some(colour)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::exact::{optimize, Objective};
    use crate::routing::generate::{generate, Placement};
    use crate::routing::lex_count::CountBound;
    use crate::routing::metrics::measure;

    #[test]
    fn the_colouring_is_proper_with_as_many_colours_as_the_largest_degree() {
        // Pseudo-random bipartite multigraphs of maximum degree at most L.
        let mut x = 7u64;
        let mut rand = |n: usize| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize % n
        };
        for trial in 0..200 {
            let (t, l) = (2 + trial % 6, 1 + trial % 5);
            let (mut left, mut right) = (vec![0; t], vec![0; t]);
            let mut edges = Vec::new();
            for _ in 0..4 * t * l {
                let (a, b) = (rand(t), rand(t));
                if left[a] < l && right[b] < l {
                    left[a] += 1;
                    right[b] += 1;
                    edges.push((a, b, 0));
                }
            }
            let c = edge_colouring(t, l, &edges).unwrap();
            assert!(c.iter().all(|k| *k < l));
            for (i, e) in edges.iter().enumerate() {
                for (j, f) in edges.iter().enumerate().skip(i + 1) {
                    if e.0 == f.0 || e.1 == f.1 {
                        assert_ne!(c[i], c[j], "trial {trial}: edges {i} and {j}");
                    }
                }
            }
        }
        // One edge too many at a node: no colouring.
        assert_eq!(edge_colouring(2, 1, &[(0, 0, 0), (0, 1, 0)]), None);
    }

    /// Small fabrics with failed spines, so that some ToR sides must fill links.
    fn instances() -> Vec<Instance> {
        let mut out = Vec::new();
        for (tors, spines, hosts, failed) in
            [(4, 4, 4, 1), (4, 3, 3, 1), (6, 4, 4, 2), (3, 3, 4, 1)]
        {
            for (jobs, ring) in [(1, 4), (2, 4), (3, 4), (2, 6), (4, 2), (1, 8)] {
                for seed in 1..4 {
                    let p = Placement {
                        tors,
                        spines,
                        hosts_per_tor: hosts,
                        jobs,
                        ring_size: ring,
                        failed_spines: failed,
                        seed,
                        ..Placement::default()
                    };
                    if let Ok(sc) = generate(&p) {
                        if let Ok(inst) = sc.instance() {
                            out.push(inst);
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn where_it_applies_the_seed_is_the_proven_flow_lex_optimum_and_meets_the_counting_bound() {
        let (mut applied, mut total, mut full) = (0, 0, 0);
        for inst in instances() {
            total += 1;
            let Some(seed) = counting_seed(&inst) else {
                continue;
            };
            applied += 1;
            let mine = measure(&inst, &seed);
            assert!(mine.max_link_load <= 2, "{}", mine.max_link_load);
            // Every flow on its live spines.
            for (f, s) in inst.flows.iter().zip(&seed.0) {
                match s {
                    Some(s) => assert!(f.candidates.contains(s)),
                    None => assert!(!f.inter_tor()),
                }
            }
            let best = optimize(&inst, Objective::FlowLex, 2_000_000);
            assert!(best.proven);
            let theirs = measure(&inst, &best.routing);
            for (a, b) in mine
                .flow_rates_sorted_gbps
                .iter()
                .zip(&theirs.flow_rates_sorted_gbps)
            {
                assert!((a - b).abs() <= 1e-9 * b, "{a} vs {b}");
            }
            if mine.max_link_load == 2 {
                full += 1;
                let cb = CountBound::new(&inst, 2).unwrap();
                let (count, rest_top) = cb.profile(&mine.flow_rates_sorted_gbps);
                assert_eq!((count, rest_top), (cb.root, true));
            }
        }
        eprintln!("applied {applied} of {total}, {full} with full links");
        assert!(
            applied >= total / 3 && full >= 10,
            "{applied} of {total}, {full}"
        );
    }
}

#[cfg(test)]
mod paper_grid {
    use super::*;
    use crate::routing::exact::{optimize, Objective};
    use crate::routing::generate::{generate, Placement};
    use crate::routing::lex_count::CountBound;
    use crate::routing::metrics::measure;

    #[test]
    fn every_papers_cell_with_failed_spines_and_several_jobs_is_proven_at_the_pairing_bound() {
        // Cells of the paper's grid (64 ToRs x 32 spines, 32 NICs a ToR) that issue 37 found
        // unproven. Where an even b-matching exists the even construction meets the counting
        // bound; in the other five the chains of `lex_chains` meet the pairing bound, which is
        // 1 to 9 above it. The counts are flows at the least rate (on full links), measured
        // from the routing, not taken from the construction.
        for (jobs, ring, failed, even, count) in [
            (3, 2, 1, true, None),
            (3, 8, 4, true, None),
            (5, 8, 4, true, None),
            (5, 4, 4, true, None),
            (3, 4, 4, false, Some(503)),
            (3, 4, 8, false, Some(1015)),
            (3, 8, 8, false, Some(1011)),
            (5, 4, 8, false, Some(1009)),
            (5, 8, 8, false, Some(1010)),
        ] {
            let inst = generate(&Placement::paper(jobs, ring, failed))
                .unwrap()
                .instance()
                .unwrap();
            let g = PairGraph::of(&inst).unwrap();
            let has_even = even_b_matching(g.t, &g.keys, &g.pairs, &g.forced).is_some();
            assert_eq!(has_even, even, "{jobs} {ring} {failed}");
            let seed = counting_seed(&inst).unwrap();
            let cb = CountBound::new(&inst, 2).unwrap();
            let m = measure(&inst, &seed);
            assert_eq!(m.max_link_load, 2);
            let (at_z1, rest_top) = cb.profile(&m.flow_rates_sorted_gbps);
            assert_eq!((at_z1, rest_top), (cb.root, true), "{jobs} {ring} {failed}");
            if let Some(c) = count {
                assert_eq!(at_z1, c, "{jobs} {ring} {failed}");
            }
        }
        // Every cell of the grid, both lexicographic objectives: proven within a small node
        // budget (the times are in `cargo bench -p libra-bench --bench paper_grid`).
        for jobs in [1, 3, 5] {
            for ring in [2, 4, 8] {
                for failed in [0, 1, 4, 8] {
                    let inst = generate(&Placement::paper(jobs, ring, failed))
                        .unwrap()
                        .instance()
                        .unwrap();
                    for objective in [Objective::FlowLex, Objective::JobLex] {
                        let o = optimize(&inst, objective, 10_000);
                        assert!(
                            o.proven,
                            "{jobs} jobs, rings of {ring}, {failed} failed: {objective:?}"
                        );
                    }
                }
            }
        }
    }
}
