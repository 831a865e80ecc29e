//! A counting bound for the flow-lex optimizer on fabrics whose NICs carry one flow each way
//! (docs/routing.md 3.4 leaves the bounds open beyond water-filling; this one is ours).
//!
//! Let `z1` be the least rate of every flow-lex optimum: on links of one capacity `c`, `c / k`
//! with `k` the least possible max link load (the authors' ILP, proven first); on uneven links,
//! the largest least fair share `min_e c_e / n_e` over routings (the least max normalized load,
//! proven first). A link `e` then carries at most `floor(c_e / z1)` flows, and its flows run at
//! exactly `z1` when it carries `c_e / z1` of them (it is full; a link whose `c_e / z1` is not
//! whole can never be). Max-min fairness gives every flow at least the least fair share of its
//! links, so the flows at `z1` are exactly those on a full link, and flow-lex first minimizes how
//! many there are. A lower bound on that count at a partial routing: the flows already on full
//! links, plus, per ToR side, the flows that join them when the side's unassigned flows overflow
//! its links' places below full: each overflowing flow makes one more link full, which puts its
//! `c_e / z1` flows at `z1` (fewer when some are already counted); the cheapest links are taken. A
//! flow sits on two sides, so the sides' counts are halved, or their largest taken.

use super::max_flow::FlowGraph;
use super::scenario::{Fabric, Instance};

/// Relative tolerance of rate comparisons.
const TOL: f64 = 1e-9;

/// Up to this many jobs, [`CountBound::least_jobs`] tries every set of jobs.
const EXACT_JOBS: usize = 10;

/// The one capacity of the live spine links, if they have one.
pub fn uniform_capacity(inst: &Instance) -> Option<f64> {
    let fabric = &inst.fabric;
    let spine_links = 2 * (fabric.num_tors * fabric.num_spines) as usize;
    let mut caps = fabric.capacity[..spine_links].iter().flatten();
    let c = *caps.next()?;
    caps.all(|x| (x - c).abs() <= TOL * c).then_some(c)
}

/// The counting bound's data for one instance.
#[derive(Clone, Debug, PartialEq)]
pub struct CountBound {
    /// The least rate of every flow-lex optimum.
    pub z1: f64,
    /// The largest rate any flow can get: `min(nic, c)` for inter-ToR flows, `c` the largest
    /// live link capacity.
    pub top: f64,
    /// Per link: the most flows it carries with each at `z1` or more (`floor(c_e / z1)`;
    /// unbounded for the NIC links, whose flows are alone).
    most: Vec<u32>,
    /// Per link: whether `most` flows on it run at exactly `z1` (it can be full).
    can_fill: Vec<bool>,
    /// When every live spine link is full at the same `k` flows (one capacity).
    uniform_k: Option<u32>,
    /// The source and destination ToR of each inter-ToR flow.
    tors_of: Vec<Option<(u32, u32)>>,
    num_tors: u32,
    num_spines: u32,
    /// The live links of each side.
    side_links: Vec<Vec<usize>>,
    /// The job of each flow.
    job_of: Vec<usize>,
    /// The jobs with inter-ToR flows.
    num_jobs: usize,
    /// The count bound with nothing routed.
    pub root: usize,
    /// The fewest jobs at `z1` (with a flow on a full link) in every routing whose least rate
    /// is `z1` (see [`CountBound::least_jobs`]).
    pub least_jobs: usize,
}

impl CountBound {
    /// The bound's data on links of one capacity `c` whose least possible max load is `k`
    /// (`z1 = c / k`), when the instance qualifies: `k >= 2`, one flow per NIC direction and NICs
    /// faster than `z1`.
    pub fn new(inst: &Instance, k: u32) -> Option<CountBound> {
        let c = uniform_capacity(inst)?;
        if k < 2 {
            return None;
        }
        CountBound::at_rate(inst, c / f64::from(k))
    }

    /// The bound's data for a least rate `z1` proven on any capacities, when the instance
    /// qualifies: one flow per NIC direction, NICs faster than `z1`, and some link that can be
    /// full at `z1` with at least 2 flows.
    pub fn at_rate(inst: &Instance, z1: f64) -> Option<CountBound> {
        let fabric = &inst.fabric;
        let (t, s) = (fabric.num_tors, fabric.num_spines);
        let spine_links = 2 * (t * s) as usize;
        if !(z1.is_finite() && z1 > 0.0) {
            return None;
        }
        let hosts = fabric.hosts.len();
        let (mut out_deg, mut in_deg) = (vec![0u32; hosts], vec![0u32; hosts]);
        for f in &inst.flows {
            out_deg[f.src_index] += 1;
            in_deg[f.dst_index] += 1;
        }
        if out_deg.iter().chain(&in_deg).any(|d| *d > 1) || fabric.nic_gbps <= z1 * (1.0 + TOL) {
            return None;
        }
        let mut most = vec![u32::MAX; fabric.capacity.len()];
        let mut can_fill = vec![false; fabric.capacity.len()];
        let mut widest = 0.0f64;
        for e in 0..spine_links {
            let c = fabric.capacity[e].unwrap_or(0.0);
            widest = widest.max(c);
            let m = (c / z1 * (1.0 + TOL)).floor().min(f64::from(u32::MAX - 1));
            most[e] = m as u32;
            can_fill[e] = m >= 1.0 && (c / m - z1).abs() <= TOL * z1;
        }
        let live = |e: usize| fabric.capacity[e].is_some();
        let fills: Vec<u32> = (0..spine_links)
            .filter(|e| live(*e) && can_fill[*e])
            .map(|e| most[e])
            .collect();
        if !fills.iter().any(|m| *m >= 2) {
            return None;
        }
        let uniform_k = (fills.len() == (0..spine_links).filter(|e| live(*e)).count()
            && fills.iter().all(|m| *m == fills[0]))
        .then_some(fills[0]);
        // Side 2t is ToR t's up side, 2t + 1 its down side.
        let side_links = live_side_links(fabric);
        let tors_of = inst
            .flows
            .iter()
            .map(|f| f.inter_tor().then_some((f.src_tor, f.dst_tor)))
            .collect();
        let mut cb = CountBound {
            z1,
            top: fabric.nic_gbps.min(widest),
            most,
            can_fill,
            uniform_k,
            tors_of,
            num_tors: t,
            num_spines: s,
            side_links,
            job_of: inst.flows.iter().map(|f| f.job).collect(),
            num_jobs: inst.jobs.len(),
            root: 0,
            least_jobs: 0,
        };
        cb.root = cb
            .bound(
                &vec![0; fabric.capacity.len()],
                &vec![None; inst.flows.len()],
            )
            .unwrap_or(usize::MAX);
        if uniform_k == Some(2) {
            cb.root = cb.root.max(cb.pairing_bound());
        }
        cb.least_jobs = cb.least_jobs();
        Some(cb)
    }

    /// How many flows link `e` holds below full: `most - 1` if it can be full, else `most`.
    fn below_full(&self, e: usize) -> u32 {
        match self.can_fill[e] {
            true => self.most[e].saturating_sub(1),
            false => self.most[e],
        }
    }

    /// A lower bound on the number of flows at `z1` in every completion of the partial routing
    /// (`routing`, with link `load`s) that keep every flow at `z1` or more; None when the partial
    /// routing already has a link above its `most` (its completions have a least rate below `z1`).
    pub fn bound(&self, load: &[u32], routing: &[Option<u32>]) -> Option<usize> {
        if load.iter().zip(&self.most).any(|(n, m)| n > m) {
            return None;
        }
        let full = |e: usize| self.can_fill[e] && load[e] == self.most[e];
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
                    if full(up) || full(down) {
                        on_full += 1;
                        at_z1[up] += 1;
                        at_z1[down] += 1;
                    }
                }
            }
        }
        // Per side: the unassigned flows beyond the spare places below full must make some links
        // full; a link made full puts its `most` flows at z1, of which those already there count
        // only once.
        let mut costs: Vec<u32> = Vec::new();
        let new: Vec<usize> = self
            .side_links
            .iter()
            .zip(&remaining)
            .map(|(links, r)| {
                let spare: usize = links
                    .iter()
                    .map(|e| self.below_full(*e).saturating_sub(load[*e]) as usize)
                    .sum();
                let forced = r.saturating_sub(spare);
                if forced == 0 {
                    return 0;
                }
                costs.clear();
                costs.extend(
                    links
                        .iter()
                        .filter(|e| self.can_fill[**e] && load[**e] < self.most[**e])
                        .map(|e| self.most[*e] - at_z1[*e]),
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

    /// Per ToR side: how many inter-ToR flows of each job it has.
    fn side_jobs(&self) -> Vec<Vec<usize>> {
        let mut of_side = vec![vec![0usize; self.num_jobs]; self.side_links.len()];
        for (f, tors) in self.tors_of.iter().enumerate() {
            let Some((a, b)) = *tors else { continue };
            for side in [2 * a as usize, 2 * b as usize + 1] {
                of_side[side][self.job_of[f]] += 1;
            }
        }
        of_side
    }

    /// Per ToR side: the fewest flows its forced full links hold, with nothing routed (a side with
    /// more flows than places below full must fill links; the smallest fills first).
    fn held(&self, side_jobs: &[Vec<usize>]) -> Vec<usize> {
        side_jobs
            .iter()
            .zip(&self.side_links)
            .map(|(jobs, links)| {
                let flows: usize = jobs.iter().sum();
                let below: usize = links.iter().map(|e| self.below_full(*e) as usize).sum();
                let forced = flows.saturating_sub(below);
                let mut fills: Vec<usize> = links
                    .iter()
                    .filter(|e| self.can_fill[**e])
                    .map(|e| self.most[*e] as usize)
                    .collect();
                fills.sort_unstable();
                fills.iter().take(forced).sum()
            })
            .collect()
    }

    /// The fewest jobs at `z1` in every routing whose least rate is `z1`. The flows on a full
    /// link run at `z1`, so their jobs do: the jobs at `z1` must own, at every side, at least
    /// the flows its forced full links hold. Exact over the sets of jobs up to
    /// [`EXACT_JOBS`] jobs; beyond, the larger of the jobs each side forces alone (the others'
    /// flows there fall short) and the fewest jobs any one side needs.
    fn least_jobs(&self) -> usize {
        let side_jobs = self.side_jobs();
        let held = self.held(&side_jobs);
        let needy: Vec<usize> = (0..held.len()).filter(|x| held[*x] > 0).collect();
        if needy.is_empty() {
            return 0;
        }
        let enough = |x: usize, mask: u32| {
            let own: usize = (0..self.num_jobs)
                .filter(|j| mask >> j & 1 == 1)
                .map(|j| side_jobs[x][j])
                .sum();
            own >= held[x]
        };
        if self.num_jobs <= EXACT_JOBS {
            return (0..1u32 << self.num_jobs)
                .filter(|mask| needy.iter().all(|x| enough(*x, *mask)))
                .map(|mask| mask.count_ones() as usize)
                .min()
                .unwrap_or(self.num_jobs);
        }
        let alone = (0..self.num_jobs)
            .filter(|j| {
                needy.iter().any(|x| {
                    let others: usize = side_jobs[*x].iter().sum::<usize>() - side_jobs[*x][*j];
                    side_jobs[*x][*j] > 0 && others < held[*x]
                })
            })
            .count();
        let one_side = needy
            .iter()
            .map(|x| {
                let mut counts = side_jobs[*x].clone();
                counts.sort_unstable_by(|a, b| b.cmp(a));
                let mut sum = 0;
                counts
                    .iter()
                    .take_while(|c| {
                        let short = sum < held[*x];
                        sum += **c;
                        short
                    })
                    .count()
            })
            .max()
            .unwrap_or(0);
        alone.max(one_side)
    }

    /// True when every routing whose least rate is `z1` puts a flow of every job on a full link.
    /// Then every job's bottleneck is `z1` in every routing that reaches `z1`, and the job-lex
    /// optimum is the flow-lex optimum (its job vector is the best possible, its flow vector too).
    pub fn every_job_at_z1(&self) -> bool {
        self.least_jobs == self.num_jobs
    }

    /// A lower bound on the jobs at `z1` in every completion of the partial routing that keeps
    /// every flow at `z1` or more; None when a link is already above its `most`. The jobs with a
    /// flow on a full link are there; a side that must still fill a link and whose candidate
    /// flows (unrouted, or on a link not yet full) belong to none of them adds a job, and sides
    /// whose candidate jobs are disjoint add one each.
    pub fn jobs_bound(&self, load: &[u32], routing: &[Option<u32>]) -> Option<usize> {
        if load.iter().zip(&self.most).any(|(n, m)| n > m) {
            return None;
        }
        let full = |e: usize| self.can_fill[e] && load[e] == self.most[e];
        let (t, sp) = (self.num_tors, self.num_spines);
        let mut known = vec![false; self.num_jobs];
        let mut remaining = vec![0usize; self.side_links.len()];
        let mut candidates = vec![vec![false; self.num_jobs]; self.side_links.len()];
        for (f, tors) in self.tors_of.iter().enumerate() {
            let Some((a, b)) = *tors else { continue };
            let j = self.job_of[f];
            let (us, ds) = (2 * a as usize, 2 * b as usize + 1);
            match routing[f] {
                None => {
                    remaining[us] += 1;
                    remaining[ds] += 1;
                    candidates[us][j] = true;
                    candidates[ds][j] = true;
                }
                Some(s) => {
                    let (up, down) = ((a * sp + s) as usize, ((t + b) * sp + s) as usize);
                    if full(up) || full(down) {
                        known[j] = true;
                    }
                    for (side, e) in [(us, up), (ds, down)] {
                        if self.can_fill[e] && !full(e) {
                            candidates[side][j] = true;
                        }
                    }
                }
            }
        }
        let mut taken = known.clone();
        let mut extra = 0;
        for (side, links) in self.side_links.iter().enumerate() {
            let spare: usize = links
                .iter()
                .map(|e| self.below_full(*e).saturating_sub(load[*e]) as usize)
                .sum();
            let cands = &candidates[side];
            if remaining[side] <= spare || (0..self.num_jobs).any(|j| cands[j] && known[j]) {
                continue;
            }
            // Disjoint from the jobs counted so far: this side needs a job of its own.
            if (0..self.num_jobs).all(|j| !(cands[j] && taken[j])) {
                extra += 1;
                for j in 0..self.num_jobs {
                    taken[j] |= cands[j];
                }
            }
        }
        let known = known.iter().filter(|k| **k).count();
        Some((known + extra).max(self.least_jobs))
    }

    /// Per link: the most flows it carries with each at `z1` or more.
    pub fn most(&self) -> &[u32] {
        &self.most
    }

    /// The live links of each ToR side (`2t` up, `2t + 1` down).
    pub fn side_links(&self) -> &[Vec<usize>] {
        &self.side_links
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

/// The live links of each ToR side: side `2t` is ToR `t`'s up side, `2t + 1` its down side.
pub(super) fn live_side_links(fabric: &Fabric) -> Vec<Vec<usize>> {
    let live = |e: usize| fabric.capacity[e].is_some();
    (0..fabric.num_tors)
        .flat_map(|tor| {
            [
                (0..fabric.num_spines)
                    .map(|sp| fabric.up(tor, sp))
                    .filter(|e| live(*e))
                    .collect(),
                (0..fabric.num_spines)
                    .map(|sp| fabric.down(tor, sp))
                    .filter(|e| live(*e))
                    .collect(),
            ]
        })
        .collect()
}
