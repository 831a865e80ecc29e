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

/// [`max_min_rates`] with the same rounds (the least share `z`, every link within `TIE` of it
/// fixing its unfixed flows at `z`), each link's current share kept in a heap and stale entries
/// skipped by a version per link.
fn by_heap(paths: &[Vec<usize>], capacity: &[f64]) -> Vec<f64> {
    use std::collections::BinaryHeap;
    let links = capacity.len();
    let mut rem = capacity.to_vec();
    let mut count = vec![0usize; links];
    let mut on_link: Vec<Vec<usize>> = vec![Vec::new(); links];
    for (f, p) in paths.iter().enumerate() {
        for &e in p {
            count[e] += 1;
            on_link[e].push(f);
        }
    }
    let mut rate = vec![f64::INFINITY; paths.len()];
    let mut fixed = vec![false; paths.len()];
    let mut version = vec![0u32; links];
    let mut heap: BinaryHeap<(Share, usize, u32)> = (0..links)
        .filter(|&e| count[e] > 0)
        .map(|e| (Share(rem[e] / count[e] as f64), e, 0))
        .collect();
    let valid =
        |e: usize, v: u32, version: &[u32], count: &[usize]| v == version[e] && count[e] > 0;
    let mut touched: Vec<usize> = Vec::new();
    let mut seen = vec![0u32; links];
    let mut round = 0u32;
    while let Some((Share(z), e, v)) = heap.pop() {
        if !valid(e, v, &version, &count) {
            continue;
        }
        let limit = z * (1.0 + TIE);
        let mut tight = vec![e];
        while let Some(&(Share(z2), e2, v2)) = heap.peek() {
            if z2 > limit {
                break;
            }
            heap.pop();
            if valid(e2, v2, &version, &count) {
                tight.push(e2);
            }
        }
        round += 1;
        touched.clear();
        for t in tight {
            for &f in &on_link[t] {
                if fixed[f] {
                    continue;
                }
                fixed[f] = true;
                rate[f] = z;
                for &g in &paths[f] {
                    rem[g] -= z;
                    count[g] -= 1;
                    if seen[g] != round {
                        seen[g] = round;
                        touched.push(g);
                    }
                }
            }
        }
        for &g in &touched {
            version[g] += 1;
            if count[g] > 0 {
                heap.push((Share(rem[g] / count[g] as f64), g, version[g]));
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
            let (a, b) = (by_heap(&paths, &capacity), scan(&paths, &capacity));
            for (f, (x, y)) in a.iter().zip(&b).enumerate() {
                assert!(
                    (x - y).abs() <= 1e-9 * y,
                    "trial {trial}, flow {f}: {x} vs {y}"
                );
            }
        }
    }
}
