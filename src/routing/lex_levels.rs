//! A lexicographic bound for flow-lex and job-lex beyond the least rate (ours; docs/routing.md
//! 3.4).
//!
//! The counting bound (`lex_count`) decides a subtree when the incumbent's flows other than those
//! at the least rate `z1` all run at the top rate. On uneven links they often do not: a side
//! whose links cannot all carry their share at the top rate leaves flows at intermediate rates,
//! and the search then water-filled at every node. This bound compares whole rate vectors.
//!
//! A link of capacity `c` carrying `n` flows gives them rates summing to at most `c`, each at
//! most the top rate, so their ascending rates are lexicographically at most the equal split
//! `min(c / n, top)` repeated `n` times. Merging ascending vectors keeps that order (the first
//! value where the merges differ is the first where a part differs), so over the links of a ToR
//! side, and then over all up sides (each inter-ToR flow leaves through one up link), the merged
//! equal splits bound the whole ascending rate vector; the down sides give a second bound. A
//! side's unrouted flows may go to any of its links: the lexicographically largest merge over
//! every placement is found link by link (a dynamic programme over how many flows are placed;
//! keeping the largest merge per count is exact because merging keeps the order). A subtree
//! whose bound is not above the incumbent's vector cannot beat it.
//!
//! Jobs: some flow of a side runs at most at its bound's least value, and some flow of a routed
//! link at most at `c / n`; the job of that flow is one of the side's (or the link's and the
//! side's unrouted) jobs. At a rate `w`, the jobs at `w` or below therefore number at least the
//! fewest jobs meeting every such set whose value is at most `w` (exact up to [`EXACT_JOBS`]
//! jobs, else a packing of disjoint sets), so the `k`-th smallest job bottleneck is at most `w`
//! when that number reaches `k`. Checked at each bottleneck of the incumbent, a completion that
//! passes every check has a job vector no better than the incumbent's.

use super::scenario::Instance;
use std::cmp::Ordering;

/// Relative tolerance of rate comparisons (as everywhere in the optimizer).
const TOL: f64 = 1e-9;

/// Up to this many jobs the fewest jobs meeting a set of sides is found over every set of jobs.
const EXACT_JOBS: usize = 10;

/// Beyond this much work per check (links times placements squared, over the sides), the bound
/// is not computed at that node (it only prunes; the search stays exact without it).
const WORK_LIMIT: usize = 200_000;

/// An ascending rate vector as runs of (rate, count).
type Runs = Vec<(f64, u32)>;

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= TOL * a.abs().max(b.abs())
}

/// The merge of two ascending run vectors.
fn merge(a: &[(f64, u32)], b: &[(f64, u32)]) -> Runs {
    let mut out: Runs = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 <= y.0 => {
                i += 1;
                *x
            }
            (Some(_), Some(y)) | (None, Some(y)) => {
                j += 1;
                *y
            }
            (Some(x), None) => {
                i += 1;
                *x
            }
            (None, None) => unreachable!(),
        };
        match out.last_mut() {
            Some(last) if same(last.0, next.0) => last.1 += next.1,
            _ => out.push(next),
        }
    }
    out
}

/// The lexicographic order of two ascending vectors given as runs (with the 1e-9 tolerance).
fn cmp_runs(a: &[(f64, u32)], b: &[(f64, u32)]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    let (mut left_a, mut left_b) = (a.first().map_or(0, |r| r.1), b.first().map_or(0, |r| r.1));
    while i < a.len() && j < b.len() {
        if !same(a[i].0, b[j].0) {
            return a[i].0.total_cmp(&b[j].0);
        }
        let step = left_a.min(left_b);
        left_a -= step;
        left_b -= step;
        if left_a == 0 {
            i += 1;
            left_a = a.get(i).map_or(0, |r| r.1);
        }
        if left_b == 0 {
            j += 1;
            left_b = b.get(j).map_or(0, |r| r.1);
        }
    }
    (a.len() - i).cmp(&(b.len() - j))
}

/// An ascending vector as runs.
fn runs_of(sorted: &[f64]) -> Runs {
    let mut out: Runs = Vec::new();
    for v in sorted {
        match out.last_mut() {
            Some(last) if same(last.0, *v) => last.1 += 1,
            _ => out.push((*v, 1)),
        }
    }
    out
}

/// The bound's data for one instance (see the module text).
#[derive(Clone, Debug)]
pub struct LevelBound {
    /// The largest rate an inter-ToR flow can get: `min(nic, c)`, `c` the widest live link.
    top: f64,
    nic: f64,
    /// Per link (spine links first): its capacity, 0 when failed.
    cap: Vec<f64>,
    /// The live links of each side (side `2t` ToR `t`'s up side, `2t + 1` its down side).
    side_links: Vec<Vec<usize>>,
    /// The source and destination ToR of each inter-ToR flow.
    tors_of: Vec<Option<(u32, u32)>>,
    job_of: Vec<usize>,
    num_jobs: usize,
    /// Intra-ToR flows: they run at most at the NIC rate.
    intra: u32,
    num_spines: u32,
}

/// What a check needs of the incumbent: its ascending job bottlenecks (job-lex, while they can
/// still be beaten) and flow rates, and the fewest jobs at its least rate the counting bound
/// gives at the node (0 without it).
pub struct Incumbent<'a> {
    pub jobs: Option<&'a [f64]>,
    pub flows: &'a [f64],
    pub jobs_at_least: usize,
}

impl LevelBound {
    /// The bound for `inst`.
    pub fn new(inst: &Instance) -> LevelBound {
        let fabric = &inst.fabric;
        let (t, s) = (fabric.num_tors, fabric.num_spines);
        let spine_links = 2 * (t * s) as usize;
        let widest = fabric.capacity[..spine_links]
            .iter()
            .flatten()
            .copied()
            .fold(0.0, f64::max);
        let side_links = super::lex_count::live_side_links(fabric);
        LevelBound {
            top: fabric.nic_gbps.min(widest),
            nic: fabric.nic_gbps,
            cap: fabric.capacity.iter().map(|c| c.unwrap_or(0.0)).collect(),
            side_links,
            tors_of: inst
                .flows
                .iter()
                .map(|f| f.inter_tor().then_some((f.src_tor, f.dst_tor)))
                .collect(),
            job_of: inst.flows.iter().map(|f| f.job).collect(),
            num_jobs: inst.jobs.len(),
            intra: inst.flows.iter().filter(|f| !f.inter_tor()).count() as u32,
            num_spines: s,
        }
    }

    /// Link `e`'s equal split with `n` flows, as runs.
    fn split(&self, e: usize, n: u32) -> Runs {
        match n {
            0 => Vec::new(),
            _ => vec![((self.cap[e] / f64::from(n)).min(self.top), n)],
        }
    }

    /// The lexicographically largest merge of side `x`'s equal splits over every placement of
    /// its `r` unrouted flows, with its links at `load`.
    fn side_bound(&self, x: usize, r: usize, load: &[u32]) -> Runs {
        // best[k]: the largest merge with k unrouted flows placed on the links so far.
        let mut best: Vec<Option<Runs>> = vec![None; r + 1];
        best[0] = Some(Vec::new());
        for &e in &self.side_links[x] {
            let mut next: Vec<Option<Runs>> = vec![None; r + 1];
            for k in 0..=r {
                let Some(b) = &best[k] else { continue };
                for d in 0..=r - k {
                    let m = merge(b, &self.split(e, load[e] + d as u32));
                    if next[k + d]
                        .as_ref()
                        .is_none_or(|o| cmp_runs(&m, o) == Ordering::Greater)
                    {
                        next[k + d] = Some(m);
                    }
                }
            }
            best = next;
        }
        // A side without live links holds no inter-ToR flow (it would have no candidate).
        best[r].take().unwrap_or_default()
    }

    /// True when no completion of the partial routing (`load`s and `routing`) beats the
    /// incumbent; false when the bound cannot tell (or the work would exceed [`WORK_LIMIT`]).
    pub fn dominated(&self, load: &[u32], routing: &[Option<u32>], best: &Incumbent) -> bool {
        let sides = self.side_links.len();
        let mut unrouted = vec![0usize; sides];
        for (f, tors) in self.tors_of.iter().enumerate() {
            let Some((a, b)) = *tors else { continue };
            if routing[f].is_none() {
                unrouted[2 * a as usize] += 1;
                unrouted[2 * b as usize + 1] += 1;
            }
        }
        let work: usize = (0..sides)
            .map(|x| self.side_links[x].len() * (unrouted[x] + 1).pow(2))
            .sum();
        if work > WORK_LIMIT || (best.jobs.is_some() && self.num_jobs > 64) {
            return false;
        }
        let per_side: Vec<Runs> = (0..sides)
            .map(|x| self.side_bound(x, unrouted[x], load))
            .collect();
        let intra: Runs = match self.intra {
            0 => Vec::new(),
            n => vec![(self.nic, n)],
        };
        let incumbent = runs_of(best.flows);
        let not_above = |parity: usize| {
            let whole = per_side
                .iter()
                .skip(parity)
                .step_by(2)
                .fold(intra.clone(), |acc, side| merge(&acc, side));
            cmp_runs(&whole, &incumbent) != Ordering::Greater
        };
        if !(not_above(0) || not_above(1)) {
            return false;
        }
        match best.jobs {
            None => true,
            Some(jobs) => self.jobs_not_above(jobs, &per_side, load, routing, best),
        }
    }

    /// Whether every completion's ascending job bottlenecks are, entry by entry, at most the
    /// incumbent's `jobs` (see the module text).
    fn jobs_not_above(
        &self,
        jobs: &[f64],
        per_side: &[Runs],
        load: &[u32],
        routing: &[Option<u32>],
        best: &Incumbent,
    ) -> bool {
        let sides = self.side_links.len();
        // Per side: the jobs of its flows, and of its unrouted flows; per loaded link: the jobs
        // routed on it.
        let (mut side_jobs, mut loose_jobs) = (vec![0u64; sides], vec![0u64; sides]);
        let mut link_jobs = vec![0u64; self.cap.len()];
        let sp = self.num_spines;
        let t = (sides / 2) as u32;
        for (f, tors) in self.tors_of.iter().enumerate() {
            let Some((a, b)) = *tors else { continue };
            let bit = 1u64 << self.job_of[f];
            let (us, ds) = (2 * a as usize, 2 * b as usize + 1);
            side_jobs[us] |= bit;
            side_jobs[ds] |= bit;
            match routing[f] {
                None => {
                    loose_jobs[us] |= bit;
                    loose_jobs[ds] |= bit;
                }
                Some(s) => {
                    link_jobs[(a * sp + s) as usize] |= bit;
                    link_jobs[((t + b) * sp + s) as usize] |= bit;
                }
            }
        }
        // Sets of jobs one of which runs at most at the set's rate.
        let mut sets: Vec<(f64, u64)> = Vec::new();
        for x in 0..sides {
            if let Some(first) = per_side[x].first() {
                sets.push((first.0, side_jobs[x]));
            }
            for &e in &self.side_links[x] {
                if load[e] > 0 {
                    let share = self.cap[e] / f64::from(load[e]);
                    sets.push((share, link_jobs[e] | loose_jobs[x]));
                }
            }
        }
        let with_inter = self
            .tors_of
            .iter()
            .zip(&self.job_of)
            .filter(|(t, _)| t.is_some())
            .fold(0u64, |m, (_, j)| m | 1 << j)
            .count_ones() as usize;
        let least = jobs.first().copied().unwrap_or(f64::INFINITY);
        let mut k = 0;
        while k < jobs.len() {
            let w = jobs[k];
            while k < jobs.len() && same(jobs[k], w) {
                k += 1;
            }
            // Now the first k entries are at most w: every completion needs k jobs at w or below.
            let below = if w >= self.nic * (1.0 - TOL) {
                self.num_jobs
            } else if w >= self.top * (1.0 - TOL) {
                with_inter
            } else {
                let meeting: Vec<u64> = sets
                    .iter()
                    .filter(|(v, _)| *v <= w * (1.0 + TOL))
                    .map(|(_, m)| *m)
                    .collect();
                let counted = if same(w, least) {
                    best.jobs_at_least
                } else {
                    0
                };
                counted.max(fewest_meeting(&meeting, self.num_jobs))
            };
            if below < k {
                return false;
            }
        }
        true
    }
}

/// The fewest jobs meeting every set (bit masks over `jobs` jobs): exact up to [`EXACT_JOBS`]
/// jobs, else the number of pairwise disjoint sets taken greedily (a lower bound).
fn fewest_meeting(sets: &[u64], jobs: usize) -> usize {
    if sets.is_empty() {
        return 0;
    }
    if jobs <= EXACT_JOBS {
        return (0u64..1 << jobs)
            .filter(|m| sets.iter().all(|s| s & m != 0))
            .map(|m| m.count_ones() as usize)
            .min()
            .unwrap_or(jobs);
    }
    let mut taken = 0u64;
    let mut count = 0;
    for s in sets {
        if s & taken == 0 {
            taken |= s;
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(runs: &[(f64, u32)]) -> Vec<f64> {
        runs.iter()
            .flat_map(|(v, n)| std::iter::repeat_n(*v, *n as usize))
            .collect()
    }

    fn naive_cmp(a: &[f64], b: &[f64]) -> Ordering {
        for (x, y) in a.iter().zip(b) {
            if !same(*x, *y) {
                return x.total_cmp(y);
            }
        }
        a.len().cmp(&b.len())
    }

    #[test]
    fn merged_runs_and_their_order_equal_the_sorted_vectors() {
        let mut x = 11u64;
        let mut next = |n: u64| {
            x = x.wrapping_add(1);
            crate::routing::splitmix64(x) % n
        };
        let rates = [12.5, 25.0, 100.0 / 3.0, 50.0, 100.0];
        for _ in 0..2000 {
            let mut vec_of = || -> Vec<f64> {
                let mut v: Vec<f64> = (0..next(6))
                    .map(|_| rates[next(rates.len() as u64) as usize])
                    .collect();
                v.sort_by(f64::total_cmp);
                v
            };
            let (a, b) = (vec_of(), vec_of());
            let (ra, rb) = (runs_of(&a), runs_of(&b));
            let mut both = [a.clone(), b.clone()].concat();
            both.sort_by(f64::total_cmp);
            assert_eq!(expand(&merge(&ra, &rb)), both);
            assert_eq!(cmp_runs(&ra, &rb), naive_cmp(&a, &b), "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn a_sides_bound_is_the_largest_merge_over_every_placement() {
        // Sides of 1 to 4 links with random capacities and loads, 0 to 5 unrouted flows: the
        // dynamic programme against every placement.
        let mut x = 5u64;
        let mut next = |n: u64| {
            x = x.wrapping_add(1);
            crate::routing::splitmix64(x) % n
        };
        for _ in 0..400 {
            let links = 1 + next(4) as usize;
            let cap: Vec<f64> = (0..links)
                .map(|_| [25.0, 50.0, 75.0, 100.0][next(4) as usize])
                .collect();
            let load: Vec<u32> = (0..links).map(|_| next(3) as u32).collect();
            let r = next(6) as usize;
            let bound = LevelBound {
                top: 100.0,
                nic: 100.0,
                cap: cap.clone(),
                side_links: vec![(0..links).collect()],
                tors_of: Vec::new(),
                job_of: Vec::new(),
                num_jobs: 0,
                intra: 0,
                num_spines: links as u32,
            };
            let got = expand(&bound.side_bound(0, r, &load));
            // Every placement: each unrouted flow on any link.
            let mut best: Option<Vec<f64>> = None;
            for code in 0..links.pow(r as u32) {
                let mut n = load.clone();
                let mut c = code;
                for _ in 0..r {
                    n[c % links] += 1;
                    c /= links;
                }
                let mut v: Vec<f64> = (0..links)
                    .flat_map(|e| {
                        std::iter::repeat_n(cap[e] / f64::from(n[e].max(1)), n[e] as usize)
                    })
                    .collect();
                v.sort_by(f64::total_cmp);
                if best
                    .as_ref()
                    .is_none_or(|b| naive_cmp(&v, b) == Ordering::Greater)
                {
                    best = Some(v);
                }
            }
            let best = best.unwrap();
            assert_eq!(
                naive_cmp(&got, &best),
                Ordering::Equal,
                "{cap:?} {load:?} {r}"
            );
        }
    }

    #[test]
    fn the_fewest_jobs_meeting_every_set() {
        assert_eq!(fewest_meeting(&[], 3), 0);
        assert_eq!(fewest_meeting(&[0b001, 0b010], 3), 2);
        assert_eq!(fewest_meeting(&[0b011, 0b110], 3), 1);
        assert_eq!(fewest_meeting(&[0b011, 0b110, 0b101], 3), 2);
        // Beyond the exact limit: disjoint sets each need a job of their own.
        assert_eq!(fewest_meeting(&[1 << 11, 1 << 12, 3 << 11], 12), 2);
    }
}
