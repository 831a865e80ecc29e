//! A counting bound for the flow-lex optimizer on fabrics whose live spine links all have one
//! capacity `c` and whose NICs carry one flow each way (docs/routing.md 3.4 leaves the bounds open
//! beyond water-filling; this one is ours).
//!
//! Let `k` be the least possible max link load (the authors' ILP, proven first). Every flow-lex
//! optimum has least rate `z1 = c / k`: routings with a load above `k` have a smaller minimum.
//! With max load `k`, max-min fairness gives every flow at least the equal share of its links, so
//! the flows at `z1` are exactly those on a link carrying `k` flows, and every other flow gets
//! more. Flow-lex then first minimizes how many flows sit on full links. A lower bound on that
//! count at a partial routing: the flows already on full links, plus, per ToR side, the flows that
//! join them when the side's unassigned flows overflow its links' spare places below `k`: each
//! overflowing flow makes one more link full, which puts `k` flows at `z1` (fewer when some are
//! already counted); the cheapest links are taken. A flow sits on two sides, so the sides' counts
//! are halved, or their largest taken.

use super::max_flow::FlowGraph;
use super::scenario::Instance;

/// Relative tolerance of rate comparisons.
const TOL: f64 = 1e-9;

/// The counting bound's data for one instance.
#[derive(Clone, Debug, PartialEq)]
pub struct CountBound {
    /// The least possible max link load.
    pub k: u32,
    /// The least rate of every flow-lex optimum, `c / k`.
    pub z1: f64,
    /// The largest rate any flow can get: `min(nic, c)` for inter-ToR flows.
    pub top: f64,
    /// The source and destination ToR of each inter-ToR flow.
    tors_of: Vec<Option<(u32, u32)>>,
    num_tors: u32,
    num_spines: u32,
    /// The live links of each side.
    side_links: Vec<Vec<usize>>,
    /// The count bound with nothing routed.
    pub root: usize,
}

impl CountBound {
    /// The bound's data, when the instance qualifies: equal live spine capacities, one flow per
    /// NIC direction, `k >= 2` and NICs faster than `c / k`.
    pub fn new(inst: &Instance, k: u32) -> Option<CountBound> {
        let fabric = &inst.fabric;
        let (t, s) = (fabric.num_tors, fabric.num_spines);
        let spine_links = 2 * (t * s) as usize;
        let caps: Vec<f64> = fabric.capacity[..spine_links]
            .iter()
            .flatten()
            .copied()
            .collect();
        let c = *caps.first()?;
        if k < 2 || caps.iter().any(|x| (x - c).abs() > TOL * c) {
            return None;
        }
        let hosts = fabric.hosts.len();
        let (mut out_deg, mut in_deg) = (vec![0u32; hosts], vec![0u32; hosts]);
        for f in &inst.flows {
            out_deg[f.src_index] += 1;
            in_deg[f.dst_index] += 1;
        }
        let z1 = c / f64::from(k);
        if out_deg.iter().chain(&in_deg).any(|d| *d > 1) || fabric.nic_gbps <= z1 * (1.0 + TOL) {
            return None;
        }
        // Side 2t is ToR t's up side, 2t + 1 its down side.
        let side_links = (0..t)
            .flat_map(|tor| {
                let live = |e: usize| fabric.capacity[e].is_some();
                [
                    (0..s)
                        .map(|sp| fabric.up(tor, sp))
                        .filter(|e| live(*e))
                        .collect(),
                    (0..s)
                        .map(|sp| fabric.down(tor, sp))
                        .filter(|e| live(*e))
                        .collect(),
                ]
            })
            .collect();
        let tors_of = inst
            .flows
            .iter()
            .map(|f| f.inter_tor().then_some((f.src_tor, f.dst_tor)))
            .collect();
        let mut cb = CountBound {
            k,
            z1,
            top: fabric.nic_gbps.min(c),
            tors_of,
            num_tors: t,
            num_spines: s,
            side_links,
            root: 0,
        };
        cb.root = cb
            .bound(
                &vec![0; fabric.capacity.len()],
                &vec![None; inst.flows.len()],
            )
            .unwrap_or(usize::MAX);
        if k == 2 {
            cb.root = cb.root.max(cb.pairing_bound());
        }
        Some(cb)
    }

    /// A lower bound on the number of flows at `z1` in every completion of the partial routing
    /// (`routing`, with link `load`s) whose max load is at most `k`; None when the partial routing
    /// already has a load above `k` (its completions have a least rate below `z1`).
    pub fn bound(&self, load: &[u32], routing: &[Option<u32>]) -> Option<usize> {
        let k = self.k;
        if load.iter().any(|n| *n > k) {
            return None;
        }
        let mut remaining = vec![0usize; self.side_links.len()];
        // Routed flows already at z1 (one of their links is full), in all and per link.
        let mut on_full = 0;
        let mut at_z1 = vec![0u32; load.len()];
        let (t, sp) = (self.num_tors, self.num_spines);
        for (f, tors) in self.tors_of.iter().enumerate() {
            let Some((a, b)) = *tors else { continue };
            match routing[f] {
                None => {
                    remaining[2 * a as usize] += 1;
                    remaining[2 * b as usize + 1] += 1;
                }
                Some(s) => {
                    let (up, down) = ((a * sp + s) as usize, ((t + b) * sp + s) as usize);
                    if load[up] == k || load[down] == k {
                        on_full += 1;
                        at_z1[up] += 1;
                        at_z1[down] += 1;
                    }
                }
            }
        }
        // Per side: the unassigned flows beyond the spare places below k must make some links
        // full; a link made full puts k flows at z1, of which those already there count only once.
        let mut costs: Vec<u32> = Vec::new();
        let new: Vec<usize> = self
            .side_links
            .iter()
            .zip(&remaining)
            .map(|(links, r)| {
                let spare: usize = links
                    .iter()
                    .map(|e| (k - 1).saturating_sub(load[*e]) as usize)
                    .sum();
                let forced = r.saturating_sub(spare);
                if forced == 0 {
                    return 0;
                }
                costs.clear();
                costs.extend(
                    links
                        .iter()
                        .filter(|e| load[**e] < k)
                        .map(|e| k - at_z1[*e]),
                );
                costs.sort_unstable();
                costs.iter().take(forced).map(|c| *c as usize).sum()
            })
            .collect();
        let most = new.iter().copied().max().unwrap_or(0);
        let half = new.iter().sum::<usize>().div_ceil(2);
        Some(on_full + most.max(half))
    }

    /// With a least max load of 2, a lower bound on the flows on full links that knows when the
    /// counting bound cannot be met. Side `x` uses at most its `L_x` live links, so at least
    /// `f(x) = deg(x) - L_x` of them carry 2 flows: `2 a_x >= 2 f(x)` flows there are doubled
    /// on their link. A flow on a full link is doubled at one end or at both; with `Y` the
    /// flows doubled at both ends, the flows on full links number `sum 2 a_x - |Y|`, and `Y`
    /// has at most `2 a_x` flows at each side. Raising `a_x` by one raises the best `|Y|` by at
    /// most two, so the count is at least `sum 2 f(x) - M`, `M` the largest b-matching of the
    /// ToR multigraph with `2 f(x)` at each side and `m_e` on each ToR pair (a maximum flow).
    /// It equals the counting bound `sum f(x)` exactly when a perfect b-matching exists.
    fn pairing_bound(&self) -> usize {
        let t = self.num_tors as usize;
        let mut deg = vec![0usize; 2 * t];
        let mut pairs: std::collections::BTreeMap<(u32, u32), usize> = Default::default();
        for &(a, b) in self.tors_of.iter().flatten() {
            deg[2 * a as usize] += 1;
            deg[2 * b as usize + 1] += 1;
            *pairs.entry((a, b)).or_default() += 1;
        }
        let forced: Vec<usize> = deg
            .iter()
            .zip(&self.side_links)
            .map(|(d, links)| d.saturating_sub(links.len()))
            .collect();
        // Nodes: 0 source, 1..=t up sides, t+1..=2t down sides, 2t+1 sink.
        let sink = 2 * t + 1;
        let mut g = FlowGraph::new(2 * t + 2);
        for tor in 0..t {
            g.add(0, 1 + tor, 2 * forced[2 * tor]);
            g.add(1 + t + tor, sink, 2 * forced[2 * tor + 1]);
        }
        for (&(a, b), &m) in &pairs {
            g.add(1 + a as usize, 1 + t + b as usize, m);
        }
        let most = g.max_flow(0, sink);
        2 * forced.iter().sum::<usize>() - most
    }

    /// True when every routing whose max load is `k` puts a flow of every job on a full link: some
    /// ToR side of the job must fill more links than the other jobs' flows there can fill. Then
    /// every job's bottleneck is `z1` in every routing that reaches `z1`, and the job-lex optimum
    /// is the flow-lex optimum (its job vector is the best possible, its flow vector too).
    pub fn every_job_at_z1(&self, inst: &Instance) -> bool {
        let k = self.k as usize;
        let sides = self.side_links.len();
        let mut flows = vec![0usize; sides];
        let mut of_job = vec![vec![0usize; sides]; inst.jobs.len()];
        for (f, tors) in self.tors_of.iter().enumerate() {
            let Some((a, b)) = *tors else { continue };
            for side in [2 * a as usize, 2 * b as usize + 1] {
                flows[side] += 1;
                of_job[inst.flows[f].job][side] += 1;
            }
        }
        of_job.iter().all(|mine| {
            (0..sides).any(|side| {
                let links = self.side_links[side].len();
                let full = flows[side].saturating_sub((k - 1) * links);
                mine[side] > 0 && flows[side] - mine[side] < k * full
            })
        })
    }

    /// How many entries of an ascending rate vector sit at `z1`, and whether every other entry is
    /// at the largest rate a flow can get (then only fewer flows at `z1` could beat it).
    pub fn profile(&self, sorted_rates: &[f64]) -> (usize, bool) {
        let at = |x: f64, y: f64| (x - y).abs() <= TOL * y.abs().max(x.abs());
        let count = sorted_rates.iter().filter(|x| at(**x, self.z1)).count();
        let rest_top = sorted_rates
            .iter()
            .filter(|x| !at(**x, self.z1))
            .all(|x| *x >= self.top * (1.0 - TOL));
        (count, rest_top)
    }
}
