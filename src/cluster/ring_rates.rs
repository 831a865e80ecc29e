//! Max-min fair rates of synchronous rings. A ring All-Reduce moves one step at the pace of its
//! slowest flow, so every flow of a ring sends at one rate: the ring's. Water-filling raises all
//! unfrozen rings together; a ring crossing a link `k` times loads it `k` times its rate; when a
//! link fills, the rings on it freeze. With one flow per ring this is the per-flow max-min of
//! `routing::rates`.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// A level (Gbps) ordered by `total_cmp`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Level(f64);

impl Eq for Level {}

impl PartialOrd for Level {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Level {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Each ring's rate (Gbps) given the links it crosses with their multiplicity and the links'
/// capacities (Gbps). A ring on a link of capacity 0 gets 0.
pub fn ring_rates(rings: &[Vec<(usize, u32)>], capacity: &[f64]) -> Vec<f64> {
    RingRates::default().rates(rings, capacity)
}

/// [`ring_rates`] with its work buffers kept from call to call (the simulation calls it at every
/// event). The rings rise together; the link that fills first (the least `left / load`, from a
/// heap) freezes its rings at that level and their load leaves their other links, whose filling
/// levels move later.
#[derive(Clone, Debug, Default)]
pub struct RingRates {
    /// Per link of the fabric: its position in `used` plus one (0: not in use in this call).
    slot: Vec<u32>,
    used: Vec<usize>,
    load: Vec<f64>,
    left: Vec<f64>,
    /// The rings on each used link (CSR).
    start: Vec<usize>,
    on: Vec<usize>,
}

impl RingRates {
    pub fn rates(&mut self, rings: &[Vec<(usize, u32)>], capacity: &[f64]) -> Vec<f64> {
        if self.slot.len() < capacity.len() {
            self.slot.resize(capacity.len(), 0);
        }
        for &l in &self.used {
            self.slot[l] = 0;
        }
        self.used.clear();
        self.load.clear();
        for links in rings {
            for &(l, k) in links {
                if self.slot[l] == 0 {
                    self.used.push(l);
                    self.slot[l] = self.used.len() as u32;
                    self.load.push(0.0);
                }
                self.load[self.slot[l] as usize - 1] += f64::from(k);
            }
        }
        let n = self.used.len();
        self.left.clear();
        self.left.extend(self.used.iter().map(|&l| capacity[l]));
        // CSR of link -> rings.
        self.start.clear();
        self.start.resize(n + 1, 0);
        for links in rings {
            for &(l, _) in links {
                self.start[self.slot[l] as usize] += 1;
            }
        }
        for i in 0..n {
            self.start[i + 1] += self.start[i];
        }
        self.on.clear();
        self.on.resize(self.start[n], 0);
        let mut fill = self.start.clone();
        for (r, links) in rings.iter().enumerate() {
            for &(l, _) in links {
                let i = self.slot[l] as usize - 1;
                self.on[fill[i]] = r;
                fill[i] += 1;
            }
        }
        // A ring that no other ring meets on any of its links (every ring, under a contention-free
        // routing) runs at its tightest link, `capacity / crossings`, exactly the level at which
        // the water-filling would freeze it; it is set here and its links leave the filling.
        let mut rate = vec![f64::NAN; rings.len()];
        for (r, links) in rings.iter().enumerate() {
            let alone = |&(l, _): &(usize, u32)| {
                let i = self.slot[l] as usize - 1;
                self.start[i + 1] - self.start[i] == 1
            };
            if !links.is_empty() && links.iter().all(alone) {
                rate[r] = links
                    .iter()
                    .map(|&(l, k)| capacity[l].max(0.0) / f64::from(k))
                    .fold(f64::INFINITY, f64::min);
                for &(l, _) in links {
                    self.load[self.slot[l] as usize - 1] = 0.0;
                }
            }
        }
        // Each used link fills at `at + left / load`; a heap of those levels (stale entries are
        // skipped by their version) replaces a scan of every link per round.
        let mut at = vec![0.0f64; n];
        let mut version = vec![0u32; n];
        let mut heap: BinaryHeap<Reverse<(Level, usize, u32)>> = (0..n)
            .filter(|&i| self.load[i] > 0.0)
            .map(|i| Reverse((Level(self.left[i].max(0.0) / self.load[i]), i, 0)))
            .collect();
        while let Some(Reverse((Level(level), i, v))) = heap.pop() {
            if v != version[i] {
                continue;
            }
            for j in self.start[i]..self.start[i + 1] {
                let r = self.on[j];
                if !rate[r].is_nan() {
                    continue;
                }
                rate[r] = level;
                for &(l, k) in &rings[r] {
                    let x = self.slot[l] as usize - 1;
                    self.left[x] -= (level - at[x]) * self.load[x];
                    at[x] = level;
                    self.load[x] -= f64::from(k);
                    version[x] += 1;
                    if x != i && self.load[x] > 0.5 {
                        let fill = level + self.left[x].max(0.0) / self.load[x];
                        heap.push(Reverse((Level(fill), x, version[x])));
                    }
                }
            }
        }
        // Rings on no link (none in practice) are unbounded; say 0 rather than infinity.
        for r in rate.iter_mut() {
            if r.is_nan() {
                *r = 0.0;
            }
        }
        rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::rates::max_min_rates;

    /// Each path as a ring of one flow, crossing each of its links once.
    fn single_flow_rings(paths: &[Vec<usize>]) -> Vec<Vec<(usize, u32)>> {
        paths
            .iter()
            .map(|p| p.iter().map(|&l| (l, 1)).collect())
            .collect()
    }

    #[test]
    fn single_flow_rings_are_per_flow_max_min() {
        // Three flows over links of 10, 4, 6: flows 0 and 1 share link 1.
        let paths = vec![vec![0, 1], vec![1, 2], vec![2]];
        let cap = vec![10.0, 4.0, 6.0];
        let a = ring_rates(&single_flow_rings(&paths), &cap);
        let b = max_min_rates(&paths, &cap);
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
        }
        assert_eq!(a, vec![2.0, 2.0, 4.0]);
    }

    #[test]
    fn rings_alone_on_their_links_and_shared_ones_match_per_flow_max_min() {
        // Random single-flow rings on 24 links, half of them on links of their own: the shortcut
        // for rings that meet no other ring and the water-filling together equal the per-flow
        // max-min of `routing::rates` (the independent progressive filling).
        let mut state = 7u64;
        let mut next = |n: usize| {
            state = crate::routing::algorithms::splitmix64(state);
            (state % n as u64) as usize
        };
        for case in 0..300 {
            let links = 24;
            let cap: Vec<f64> = (0..links).map(|_| 1.0 + next(40) as f64).collect();
            let mut paths: Vec<Vec<usize>> = Vec::new();
            let mut own = 12;
            for _ in 0..(1 + next(10)) {
                let mut p: Vec<usize> = match own < links && next(2) == 0 {
                    true => {
                        own += 1;
                        vec![own - 1]
                    }
                    false => (0..1 + next(3)).map(|_| next(12)).collect(),
                };
                p.sort_unstable();
                p.dedup();
                paths.push(p);
            }
            let a = ring_rates(&single_flow_rings(&paths), &cap);
            let b = max_min_rates(&paths, &cap);
            for (x, y) in a.iter().zip(&b) {
                assert!(
                    (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                    "case {case}: {a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn a_ring_crossing_a_link_twice_gets_half_of_it() {
        // Ring 0 crosses link 0 twice; ring 1 once: 3 r = 9 -> r = 3 each.
        let rings = vec![vec![(0, 2)], vec![(0, 1), (1, 1)]];
        assert_eq!(ring_rates(&rings, &[9.0, 100.0]), vec![3.0, 3.0]);
        // A failed link stops the rings on it, not the others.
        let r = ring_rates(&[vec![(0, 1)], vec![(1, 1)]], &[0.0, 5.0]);
        assert_eq!(r, vec![0.0, 5.0]);
    }
}
