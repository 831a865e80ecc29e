//! Max-min fair rates by progressive filling (docs/routing.md section 2): every flow is elastic; each
//! round, the links whose fair share `rem / #unfixed flows` is the least fix their unfixed flows at
//! that share. The result is the unique leximin-maximal allocation.

/// Relative tolerance under which two shares tie.
const TIE: f64 = 1e-12;

/// The max-min fair rate of each flow, given each flow's links and each link's capacity (links a
/// flow never uses may have any capacity). Flows with no link get `f64::INFINITY`.
pub fn max_min_rates(paths: &[Vec<usize>], capacity: &[f64]) -> Vec<f64> {
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
}
