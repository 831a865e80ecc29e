//! Max-min fair rates by progressive filling (docs/routing.md section 2): every flow is elastic; each
//! round, the links whose fair share `rem / #unfixed flows` is the least fix their unfixed flows at
//! that share. The result is the unique leximin-maximal allocation.

/// Relative tolerance under which two shares tie.
const TIE: f64 = 1e-12;

/// The max-min fair rate of each flow, given each flow's links and each link's capacity (links a
/// flow never uses may have any capacity). Flows with no link get `f64::INFINITY`.
pub fn max_min_rates(paths: &[Vec<usize>], capacity: &[f64]) -> Vec<f64> {
    match paths.len() > HEAP_FROM {
        true => by_heap(paths, capacity),
        false => scan(paths, capacity),
    }
}

/// The rounds by scanning every loaded link for the least share.
fn scan(paths: &[Vec<usize>], capacity: &[f64]) -> Vec<f64> {
    let mut rem = capacity.to_vec();
    let mut count = vec![0usize; capacity.len()];
    for p in paths {
        for &e in p {
            count[e] += 1;
        }
    }
    let mut on_link: Vec<Vec<usize>> = vec![Vec::new(); capacity.len()];
    for (f, p) in paths.iter().enumerate() {
        for &e in p {
            on_link[e].push(f);
        }
    }
    let mut rate = vec![f64::INFINITY; paths.len()];
    let mut fixed = vec![false; paths.len()];
    let mut left = paths.iter().filter(|p| !p.is_empty()).count();
    let mut live: Vec<usize> = (0..capacity.len()).filter(|&e| count[e] > 0).collect();
    while left > 0 {
        let z = live
            .iter()
            .map(|&e| rem[e] / count[e] as f64)
            .fold(f64::INFINITY, f64::min);
        let limit = z * (1.0 + TIE);
        let tight: Vec<usize> = live
            .iter()
            .copied()
            .filter(|&e| rem[e] / count[e] as f64 <= limit)
            .collect();
        for e in tight {
            for &f in &on_link[e] {
                if fixed[f] {
                    continue;
                }
                fixed[f] = true;
                rate[f] = z;
                left -= 1;
                for &g in &paths[f] {
                    rem[g] -= z;
                    count[g] -= 1;
                }
            }
        }
        live.retain(|&e| count[e] > 0);
    }
    rate
}

/// Beyond this many flows the rounds find their least share in a heap (multi-flow ECMP splits
/// the paper's 2,048 flows into 32,768, whose many distinct levels made the scan of every link
/// per round take 45 ms). Up to it the scan, bit for bit as before.
const HEAP_FROM: usize = 4096;

/// A share ordered by `total_cmp`, least first in a max-heap.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Share(f64);

impl Eq for Share {}

impl PartialOrd for Share {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Share {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.0.total_cmp(&self.0)
    }
}

/// Lists of indices stored end to end (each list `i` is `items[start[i]..start[i + 1]]`), so that
/// following them reads memory in order: one `Vec` per flow put each flow's links in a heap
/// allocation of its own, and visiting flows link by link missed the cache at every one (half of
/// by_heap's time on the paper's 32,640 sub-flows).
struct Packed {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Packed {
    fn list(&self, i: usize) -> &[u32] {
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// `paths` as they are.
    fn of(paths: &[Vec<usize>]) -> Packed {
        let mut start = Vec::with_capacity(paths.len() + 1);
        let mut items = Vec::with_capacity(paths.iter().map(Vec::len).sum());
        start.push(0);
        for p in paths {
            items.extend(p.iter().map(|&e| e as u32));
            start.push(items.len() as u32);
        }
        Packed { start, items }
    }

    /// The flows on each of `links` links, each in increasing order (a counting sort of `paths`).
    fn flows_on(paths: &Packed, links: usize) -> Packed {
        let mut start = vec![0u32; links + 1];
        for &e in &paths.items {
            start[e as usize + 1] += 1;
        }
        for e in 0..links {
            start[e + 1] += start[e];
        }
        let mut next = start.clone();
        let mut items = vec![0u32; paths.items.len()];
        for f in 0..paths.start.len() - 1 {
            for &e in paths.list(f) {
                items[next[e as usize] as usize] = f as u32;
                next[e as usize] += 1;
            }
        }
        Packed { start, items }
    }
}

/// [`max_min_rates`] with the same rounds (the least share `z`, every link within `TIE` of it
/// fixing its unfixed flows at `z`), each link's share kept in a heap. Fixing a flow at the least
/// share never lowers a link's share, so an entry once pushed stays a lower bound: a link touched
/// in a round keeps its entry, and an entry found stale when it comes up is pushed again with the
/// link's share then (a push per touch instead made the heap half of the time). Flows are fixed
/// at the same `z` in the same rounds as by [`scan`], so the rates are bit for bit the same
/// whatever the order within a round.
fn by_heap(paths: &[Vec<usize>], capacity: &[f64]) -> Vec<f64> {
    use std::collections::BinaryHeap;
    let links = capacity.len();
    let packed = Packed::of(paths);
    let on_link = Packed::flows_on(&packed, links);
    let mut rem = capacity.to_vec();
    let mut count: Vec<u32> = (0..links)
        .map(|e| on_link.start[e + 1] - on_link.start[e])
        .collect();
    let share = |e: usize, rem: &[f64], count: &[u32]| rem[e] / count[e] as f64;
    let mut rate = vec![f64::INFINITY; paths.len()];
    let mut fixed = vec![false; paths.len()];
    // Bumped when a link's share changes: an entry of an older version is a lower bound.
    let mut version = vec![0u32; links];
    let mut heap: BinaryHeap<(Share, u32, u32)> = (0..links)
        .filter(|&e| count[e] > 0)
        .map(|e| (Share(share(e, &rem, &count)), e as u32, 0))
        .collect();
    let mut tight: Vec<usize> = Vec::new();
    while let Some((Share(z), e, v)) = heap.pop() {
        let e = e as usize;
        if count[e] == 0 {
            continue;
        }
        if v != version[e] {
            heap.push((Share(share(e, &rem, &count)), e as u32, version[e]));
            continue;
        }
        // Every other link's share is at least its entry's, so `z` is the least share.
        let limit = z * (1.0 + TIE);
        tight.clear();
        tight.push(e);
        while let Some(&(Share(z2), e2, v2)) = heap.peek() {
            if z2 > limit {
                break;
            }
            heap.pop();
            let e2 = e2 as usize;
            if count[e2] == 0 {
                continue;
            }
            if v2 == version[e2] {
                tight.push(e2);
            } else {
                let s2 = share(e2, &rem, &count);
                match s2 <= limit {
                    true => tight.push(e2),
                    false => heap.push((Share(s2), e2 as u32, version[e2])),
                }
            }
        }
        for &t in &tight {
            for &f in on_link.list(t) {
                let f = f as usize;
                if fixed[f] {
                    continue;
                }
                fixed[f] = true;
                rate[f] = z;
                for &g in packed.list(f) {
                    let g = g as usize;
                    rem[g] -= z;
                    count[g] -= 1;
                    version[g] += 1;
                }
            }
        }
    }
    rate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_max_min() {
        // Links 0 (cap 10) and 1 (cap 4): f0 on both, f1 on 0, f2 on 1.
        // Link 1 shares 4 / 2 = 2 first: f0 = f2 = 2; then f1 gets 10 - 2 = 8.
        let r = max_min_rates(&[vec![0, 1], vec![0], vec![1]], &[10.0, 4.0]);
        assert_eq!(r, vec![2.0, 8.0, 2.0]);
        // Three flows on one link of 9.
        assert_eq!(
            max_min_rates(&[vec![0], vec![0], vec![0]], &[9.0]),
            vec![3.0; 3]
        );
        assert_eq!(max_min_rates(&[vec![]], &[]), vec![f64::INFINITY]);
    }

    #[test]
    fn the_heap_gives_the_scans_rates_on_large_random_instances() {
        let mut x = 11u64;
        let mut next = |n: usize| {
            x = x.wrapping_add(1);
            (crate::routing::splitmix64(x) % n as u64) as usize
        };
        for trial in 0..6 {
            let links = 50 + 40 * trial;
            let capacity: Vec<f64> = (0..links).map(|_| [25.0, 50.0, 100.0][next(3)]).collect();
            let paths: Vec<Vec<usize>> = (0..5000)
                .map(|_| {
                    let mut p: Vec<usize> = (0..1 + next(4)).map(|_| next(links)).collect();
                    p.sort_unstable();
                    p.dedup();
                    p
                })
                .collect();
            // The same rounds at the same shares: bit for bit.
            let (a, b) = (by_heap(&paths, &capacity), scan(&paths, &capacity));
            for (f, (x, y)) in a.iter().zip(&b).enumerate() {
                assert_eq!(
                    x.to_bits(),
                    y.to_bits(),
                    "trial {trial}, flow {f}: {x} vs {y}"
                );
            }
        }
    }
}
