//! The Edge-Coloring baseline of the routing paper: the inter-ToR flows are the edges of a
//! bipartite multigraph (source ToRs on one side, destination ToRs on the other). König's theorem
//! colours it with as many colours as its largest degree `Δ` (the most flows leaving or entering a
//! ToR); each colour class is a matching, so the flows of one colour share no ToR up-link and no
//! ToR down-link. Colour `c` goes to live spine `c mod L`: every spine takes at most `⌈Δ/L⌉`
//! colours, so no ToR-spine link carries more than `⌈Δ/L⌉` flows, which is the least possible
//! (some ToR has `Δ` flows over its `L` links). With `Δ <= L` every flow is alone on its links.
//!
//! The theorem needs every flow to be able to use every live spine. When single links have
//! failed, flows differ in their candidate spines: the colouring is then mapped the same way, each
//! flow whose spine it cannot use moves to its least loaded candidate, and a repair pass moves
//! flows off the most loaded links while that lowers their load. There it is a heuristic with no
//! guarantee. Capacities are not looked at (a degraded link counts like any other).

use super::metrics::Routing;
use super::scenario::Instance;

/// A proper edge colouring of the bipartite multigraph of `edges` (pairs of left and right
/// vertices) with `colors` colours, which must be at least the largest degree. Returns each
/// edge's colour.
pub fn bipartite_edge_coloring(
    left: usize,
    right: usize,
    edges: &[(usize, usize)],
    colors: usize,
) -> Vec<usize> {
    const FREE: usize = usize::MAX;
    let nodes = left + right;
    // at[v * colors + c]: the edge of colour c at vertex v.
    let mut at = vec![FREE; nodes * colors];
    let mut color = vec![FREE; edges.len()];
    let free = |at: &[usize], v: usize| (0..colors).find(|&c| at[v * colors + c] == FREE);
    for (e, &(u, w)) in edges.iter().enumerate() {
        let (u, v) = (u, left + w);
        let a = free(&at, u).expect("colors >= the largest degree");
        let b = free(&at, v).expect("colors >= the largest degree");
        if at[v * colors + a] != FREE {
            // Colour a is taken at v, b is free there: swap a and b along the path from v that
            // alternates a, b, a, ... In a bipartite graph it cannot reach u, where a is free.
            let mut path = Vec::new();
            let (mut x, mut c) = (v, a);
            while at[x * colors + c] != FREE {
                let f = at[x * colors + c];
                path.push(f);
                let (fu, fv) = (edges[f].0, left + edges[f].1);
                x = if fu == x { fv } else { fu };
                c = if c == a { b } else { a };
            }
            for &f in &path {
                let (fu, fv) = (edges[f].0, left + edges[f].1);
                at[fu * colors + color[f]] = FREE;
                at[fv * colors + color[f]] = FREE;
            }
            for &f in &path {
                let (fu, fv) = (edges[f].0, left + edges[f].1);
                color[f] = if color[f] == a { b } else { a };
                at[fu * colors + color[f]] = f;
                at[fv * colors + color[f]] = f;
            }
        }
        color[e] = a;
        at[u * colors + a] = e;
        at[v * colors + a] = e;
    }
    color
}

/// The largest number of inter-ToR flows leaving or entering one ToR (`Δ`).
pub fn max_degree(inst: &Instance) -> usize {
    let t = inst.fabric.num_tors as usize;
    let (mut up, mut down) = (vec![0usize; t], vec![0usize; t]);
    for f in inst.flows.iter().filter(|f| f.inter_tor()) {
        up[f.src_tor as usize] += 1;
        down[f.dst_tor as usize] += 1;
    }
    up.into_iter().chain(down).max().unwrap_or(0)
}

/// The most cells (ToRs on both sides x colours) the colouring's table may have: 2^24, 64 MB.
/// Beyond it (thousands of ToRs and a ToR with thousands of flows, where the largest link load is
/// in the hundreds anyway) [`edge_coloring`] routes by the greedy instead.
pub const MAX_COLORING_CELLS: usize = 1 << 24;

/// Route `inst` by edge colouring (see the module's documentation for what it guarantees).
pub fn edge_coloring(inst: &Instance) -> Routing {
    edge_coloring_within(inst, MAX_COLORING_CELLS)
}

/// [`edge_coloring`], falling back to the greedy when the table would exceed `max_cells`.
fn edge_coloring_within(inst: &Instance, max_cells: usize) -> Routing {
    let fabric = &inst.fabric;
    let inter: Vec<usize> = inst
        .flows
        .iter()
        .filter(|f| f.inter_tor() && !f.candidates.is_empty())
        .map(|f| f.id)
        .collect();
    let mut routing = vec![None; inst.flows.len()];
    // The live spines: those any flow may use.
    let mut spines: Vec<u32> = inter
        .iter()
        .flat_map(|&id| inst.flows[id].candidates.iter().copied())
        .collect();
    spines.sort_unstable();
    spines.dedup();
    if inter.is_empty() || spines.is_empty() {
        return Routing(routing);
    }
    let t = fabric.num_tors as usize;
    let edges: Vec<(usize, usize)> = inter
        .iter()
        .map(|&id| {
            let f = &inst.flows[id];
            (f.src_tor as usize, f.dst_tor as usize)
        })
        .collect();
    let colors = max_degree(inst).max(1);
    if (2 * t).saturating_mul(colors) > max_cells {
        return super::algorithms::greedy(inst);
    }
    let coloring = bipartite_edge_coloring(t, t, &edges, colors);
    let mut load = vec![0u32; fabric.capacity.len()];
    let mut misfits = Vec::new();
    for (k, &id) in inter.iter().enumerate() {
        let f = &inst.flows[id];
        let s = spines[coloring[k] % spines.len()];
        if f.candidates.binary_search(&s).is_ok() {
            routing[id] = Some(s);
            load[fabric.up(f.src_tor, s)] += 1;
            load[fabric.down(f.dst_tor, s)] += 1;
        } else {
            misfits.push(id);
        }
    }
    if misfits.is_empty() {
        return Routing(routing);
    }
    // Failed single links: the flows that cannot use their colour's spine take their least
    // loaded candidate, then flows leave the most loaded links while that lowers their load.
    let cost = |load: &[u32], id: usize, s: u32| {
        let f = &inst.flows[id];
        load[fabric.up(f.src_tor, s)].max(load[fabric.down(f.dst_tor, s)])
    };
    for id in misfits {
        let f = &inst.flows[id];
        let s = *f
            .candidates
            .iter()
            .min_by_key(|&&s| (cost(&load, id, s), s))
            .expect("a flow with candidates");
        routing[id] = Some(s);
        load[fabric.up(f.src_tor, s)] += 1;
        load[fabric.down(f.dst_tor, s)] += 1;
    }
    for _ in 0..4 {
        let mut moved = false;
        for &id in &inter {
            let f = &inst.flows[id];
            let Some(now) = routing[id] else { continue };
            let (u, d) = (fabric.up(f.src_tor, now), fabric.down(f.dst_tor, now));
            load[u] -= 1;
            load[d] -= 1;
            let here = load[u].max(load[d]);
            let best = *f
                .candidates
                .iter()
                .min_by_key(|&&s| (cost(&load, id, s), s != now, s))
                .expect("a flow with candidates");
            let s = if cost(&load, id, best) < here {
                moved = true;
                best
            } else {
                now
            };
            routing[id] = Some(s);
            load[fabric.up(f.src_tor, s)] += 1;
            load[fabric.down(f.dst_tor, s)] += 1;
        }
        if !moved {
            break;
        }
    }
    Routing(routing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::generate::{generate, Placement};

    fn splitmix(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut x = seed;
        move |n| {
            x = x.wrapping_add(1);
            crate::routing::splitmix64(x) % n
        }
    }

    #[test]
    fn random_bipartite_multigraphs_are_coloured_properly_with_their_largest_degree() {
        for seed in 0..200 {
            let mut next = splitmix(seed);
            let (l, r) = (1 + next(9) as usize, 1 + next(9) as usize);
            let edges: Vec<(usize, usize)> = (0..next(60))
                .map(|_| (next(l as u64) as usize, next(r as u64) as usize))
                .collect();
            let mut deg = vec![0usize; l + r];
            for &(u, v) in &edges {
                deg[u] += 1;
                deg[l + v] += 1;
            }
            let delta = deg.iter().copied().max().unwrap_or(0).max(1);
            let color = bipartite_edge_coloring(l, r, &edges, delta);
            assert!(color.iter().all(|c| *c < delta));
            // Proper: no two edges of one colour share a vertex.
            let mut seen = std::collections::HashSet::new();
            for (e, &(u, v)) in edges.iter().enumerate() {
                assert!(
                    seen.insert((u, color[e])),
                    "seed {seed}: left {u} twice in colour {}",
                    color[e]
                );
                assert!(
                    seen.insert((l + v, color[e])),
                    "seed {seed}: right {v} twice"
                );
            }
        }
    }

    #[test]
    fn at_the_papers_scale_the_largest_link_load_is_the_koenig_bound() {
        // 64 ToRs x 32 spines, 32 NICs per ToR: every failed-spine count and ring size of the paper.
        for (jobs, ring, failed) in [(5, 8, 0), (3, 4, 1), (1, 2, 4), (5, 2, 8), (3, 8, 8)] {
            let p = Placement::paper(jobs, ring, failed);
            let inst = generate(&p).unwrap().instance().unwrap();
            let r = edge_coloring(&inst);
            assert!(inst
                .flows
                .iter()
                .all(|f| r.0[f.id].is_some() == f.inter_tor()));
            assert!(inst
                .flows
                .iter()
                .all(|f| r.0[f.id].is_none_or(|s| f.candidates.contains(&s))));
            let live = 32 - failed as usize;
            let bound = max_degree(&inst).div_ceil(live);
            let max = r.loads(&inst).into_iter().max().unwrap_or(0) as usize;
            assert_eq!(
                max, bound,
                "jobs {jobs}, rings of {ring}, {failed} spines failed"
            );
        }
    }

    #[test]
    fn a_colouring_table_beyond_its_limit_routes_by_the_greedy_instead() {
        // Three jobs of rings of 4 on 16 ToRs of 16: greedy puts 3 flows on a link, the
        // colouring 2.
        let p = Placement {
            tors: 16,
            spines: 8,
            hosts_per_tor: 16,
            jobs: 3,
            ring_size: 4,
            ..Placement::default()
        };
        let inst = generate(&p).unwrap().instance().unwrap();
        let cells = 2 * 16 * max_degree(&inst);
        let greedy = crate::routing::algorithms::greedy(&inst);
        assert_ne!(
            edge_coloring(&inst),
            greedy,
            "the two must differ for this test to tell"
        );
        assert_eq!(
            edge_coloring_within(&inst, cells - 1),
            crate::routing::algorithms::greedy(&inst)
        );
        assert_eq!(edge_coloring_within(&inst, cells), edge_coloring(&inst));
    }

    #[test]
    fn with_failed_single_links_every_flow_keeps_to_its_candidates() {
        let p = Placement {
            tors: 16,
            spines: 8,
            hosts_per_tor: 8,
            jobs: 4,
            ring_size: 4,
            failed_links: 12,
            ..Placement::default()
        };
        let inst = generate(&p).unwrap().instance().unwrap();
        let r = edge_coloring(&inst);
        for f in inst.flows.iter().filter(|f| f.inter_tor()) {
            assert!(f.candidates.contains(&r.0[f.id].unwrap()));
        }
    }
}
