//! Max-min fair rates of synchronous rings. A ring All-Reduce moves one step at the pace of its
//! slowest flow, so every flow of a ring sends at one rate: the ring's. Water-filling raises all
//! unfrozen rings together; a ring crossing a link `k` times loads it `k` times its rate; when a
//! link fills, the rings on it freeze. With one flow per ring this is the per-flow max-min of
//! `routing::rates`.

/// Each ring's rate (Gbps) given the links it crosses with their multiplicity and the links'
/// capacities (Gbps). A ring on a link of capacity 0 gets 0.
pub fn ring_rates(rings: &[Vec<(usize, u32)>], capacity: &[f64]) -> Vec<f64> {
    let mut rate = vec![0.0; rings.len()];
    let mut frozen = vec![false; rings.len()];
    let mut left: Vec<f64> = capacity.to_vec();
    let mut load = vec![0.0f64; capacity.len()];
    loop {
        // The unfrozen rings' multiplicity on each link.
        load.iter_mut().for_each(|l| *l = 0.0);
        for (r, links) in rings.iter().enumerate() {
            if !frozen[r] {
                for &(l, k) in links {
                    load[l] += f64::from(k);
                }
            }
        }
        let step = (0..capacity.len())
            .filter(|&l| load[l] > 0.0)
            .map(|l| left[l].max(0.0) / load[l])
            .fold(f64::INFINITY, f64::min);
        if !step.is_finite() {
            break;
        }
        for (r, links) in rings.iter().enumerate() {
            if !frozen[r] {
                rate[r] += step;
                for &(l, k) in links {
                    left[l] -= step * f64::from(k);
                }
            }
        }
        let mut any = false;
        for (r, links) in rings.iter().enumerate() {
            if !frozen[r]
                && links
                    .iter()
                    .any(|&(l, _)| left[l] <= 1e-12 * capacity[l].max(1e-300))
            {
                frozen[r] = true;
                any = true;
            }
        }
        if !any {
            // Rounding left every link a sliver: nothing more to share.
            break;
        }
    }
    rate
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::rates::max_min_rates;

    #[test]
    fn single_flow_rings_are_per_flow_max_min() {
        // Three flows over links of 10, 4, 6: flows 0 and 1 share link 1.
        let paths = vec![vec![0, 1], vec![1, 2], vec![2]];
        let cap = vec![10.0, 4.0, 6.0];
        let rings: Vec<Vec<(usize, u32)>> = paths
            .iter()
            .map(|p| p.iter().map(|&l| (l, 1)).collect())
            .collect();
        let a = ring_rates(&rings, &cap);
        let b = max_min_rates(&paths, &cap);
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
        }
        assert_eq!(a, vec![2.0, 2.0, 4.0]);
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
