//! The routing algorithms of docs/routing.md section 3, all deterministic: ECMP (splitmix64 over the
//! candidate spines), the paper's greedy, and the capacity-aware greedy.

use super::metrics::Routing;
use super::scenario::Instance;
use serde::Serialize;

/// splitmix64 (wrapping u64 arithmetic).
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A random stream: splitmix64 of a counter from a seed (the annealings draw from it, so a seed
/// always gives the same moves however the run is sliced).
#[derive(Clone, Copy, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next number of the stream.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(1);
        splitmix64(self.0)
    }

    /// A uniform number in [0, 1) from the next number's top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// ECMP: each inter-ToR flow hashes `(src << 32) | dst` onto its candidate spines.
pub fn ecmp(inst: &Instance) -> Routing {
    Routing(
        inst.flows
            .iter()
            .map(|f| {
                f.inter_tor().then(|| {
                    // A sub-flow of a split ring edge hashes apart from its siblings (sub-flow
                    // 0, and every unsplit flow, as before the split existed).
                    let key = ((u64::from(f.src) << 32) | u64::from(f.dst))
                        ^ u64::from(f.sub).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    f.candidates[(splitmix64(key) % f.candidates.len() as u64) as usize]
                })
            })
            .collect(),
    )
}

/// One group of the greedy order: the inter-ToR flows leaving (`up`) or entering (`down`) a ToR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    pub kind: &'static str,
    pub tor: u32,
    pub size: usize,
    #[serde(skip)]
    pub flows: Vec<usize>,
}

/// The greedy's groups, largest first, then up before down, then by ToR.
pub fn group_order(inst: &Instance) -> Vec<Group> {
    let t = inst.fabric.num_tors as usize;
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); t];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); t];
    for f in inst.flows.iter().filter(|f| f.inter_tor()) {
        up[f.src_tor as usize].push(f.id);
        down[f.dst_tor as usize].push(f.id);
    }
    let mut groups: Vec<Group> = up
        .into_iter()
        .enumerate()
        .map(|(tor, flows)| ("up", tor, flows))
        .chain(
            down.into_iter()
                .enumerate()
                .map(|(tor, flows)| ("down", tor, flows)),
        )
        .filter(|(_, _, flows)| !flows.is_empty())
        .map(|(kind, tor, flows)| Group {
            kind,
            tor: tor as u32,
            size: flows.len(),
            flows,
        })
        .collect();
    groups.sort_by(|a, b| {
        b.size
            .cmp(&a.size)
            .then((a.kind != "up").cmp(&(b.kind != "up")))
            .then(a.tor.cmp(&b.tor))
    });
    groups
}

/// The order in which the greedy visits flows: group by group, by id, each flow once.
pub fn visit_order(groups: &[Group]) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    groups
        .iter()
        .flat_map(|g| g.flows.iter().copied())
        .filter(|f| seen.insert(*f))
        .collect()
}

/// How a greedy scores a spine for a flow (lower is better).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// The paper's: `max(n_up, n_down)`.
    Count,
    /// Ours: `max((n_up + 1) / c_up, (n_down + 1) / c_down)`, compared by cross-multiplying.
    Capacity,
}

/// Greedy over the flows in `order`: each takes the candidate spine of least score (ties: the
/// smallest spine), then counts on its up and down links.
pub fn greedy_in(inst: &Instance, order: &[usize], score: Score) -> Routing {
    let fabric = &inst.fabric;
    let mut n = vec![0u64; fabric.capacity.len()];
    let mut routing = vec![None; inst.flows.len()];
    for &id in order {
        let f = &inst.flows[id];
        let mut best: Option<(u32, (f64, f64))> = None;
        for &s in &f.candidates {
            let (u, d) = (fabric.up(f.src_tor, s), fabric.down(f.dst_tor, s));
            // A score as a fraction (numerator, denominator).
            let frac = match score {
                Score::Count => ((n[u].max(n[d])) as f64, 1.0),
                Score::Capacity => {
                    let cu = fabric.capacity[u].unwrap_or(f64::INFINITY);
                    let cd = fabric.capacity[d].unwrap_or(f64::INFINITY);
                    let (a, b) = ((n[u] + 1) as f64, (n[d] + 1) as f64);
                    // max(a / cu, b / cd)
                    if a * cd >= b * cu {
                        (a, cu)
                    } else {
                        (b, cd)
                    }
                }
            };
            let better = match best {
                None => true,
                Some((_, (p, q))) => frac.0 * q < p * frac.1,
            };
            if better {
                best = Some((s, frac));
            }
        }
        if let Some((s, _)) = best {
            routing[id] = Some(s);
            n[fabric.up(f.src_tor, s)] += 1;
            n[fabric.down(f.dst_tor, s)] += 1;
        }
    }
    Routing(routing)
}

/// The paper's greedy (docs/routing.md 3.2).
pub fn greedy(inst: &Instance) -> Routing {
    greedy_in(inst, &visit_order(&group_order(inst)), Score::Count)
}

/// The capacity-aware greedy (docs/routing.md 3.3).
pub fn greedy_capacity_aware(inst: &Instance) -> Routing {
    greedy_in(inst, &visit_order(&group_order(inst)), Score::Capacity)
}

/// The greedy rule in flow-id order (informational).
pub fn greedy_unsorted(inst: &Instance) -> Routing {
    let order: Vec<usize> = (0..inst.flows.len()).collect();
    greedy_in(inst, &order, Score::Count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_test_vector() {
        assert_eq!(splitmix64(0), 0xe220a8397b1dcdaf);
    }
}
