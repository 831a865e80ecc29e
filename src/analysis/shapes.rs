//! Network-shape comparison: every way to lay N NPUs on 2 to 4 dimensions (ordered factorizations
//! with each factor at least 2) with given topology kinds and cost tiers per dimension count, the
//! Pareto front of each shape over one budget range, and their lower envelope (the best shape at
//! each budget).
//!
//! Only shapes within the tiers' physical limits are enumerated (`CostTier::max_npus`), each
//! dimension with its tier's latency per step, and every shape is timed with the latency term on:
//! a ring of 2,048 chiplets is neither built nor free of latency.
//!
//! Each shape gets the base scenario's workloads remapped onto it (`Communicator::remap`: the same
//! TP and DP degrees, laid TP inside and DP outside), its cost tiers and model options (latency
//! on), and as constraints only the budget and `B_d >= min_gbps` on every dimension (per-dimension
//! bounds and linear constraints of the base refer to its own dimensions and do not carry over).

use crate::model::communicator::CommunicatorError;
use crate::model::cost::{CostModel, CostTier};
use crate::model::network::{Dim, Network, Topology};
use crate::model::scenario::{Constraints, Objective, Scenario};
use crate::optimize::problem::{compile, CompileError, Problem};
use crate::optimize::sweep::{pareto, Front};
use crate::optimize::SolveOptions;
use serde::Serialize;

/// The topology kind and cost tier of one dimension of a layout.
#[derive(Clone, Debug, PartialEq)]
pub struct DimKind {
    pub topology: Topology,
    pub tier: String,
}

impl DimKind {
    pub fn new(topology: Topology, tier: &str) -> DimKind {
        DimKind {
            topology,
            tier: tier.to_string(),
        }
    }
}

/// LIBRA's kinds, inner to outer, for 2, 3 and 4 dimensions: Ring chiplets, fully-connected
/// packages, Ring of packages, Switch across pods (tiers of LIBRA's cost model).
pub fn libra_layouts() -> Vec<Vec<DimKind>> {
    let ring = |t| DimKind::new(Topology::Ring, t);
    let fc = |t| DimKind::new(Topology::FullyConnected, t);
    let sw = |t| DimKind::new(Topology::Switch, t);
    vec![
        vec![ring("InterChiplet"), sw("InterPod")],
        vec![ring("InterChiplet"), fc("InterPackage"), sw("InterPod")],
        vec![
            ring("InterChiplet"),
            fc("InterPackage"),
            ring("InterNode"),
            sw("InterPod"),
        ],
    ]
}

/// The kinds and tiers to lay shapes on for `costs`: LIBRA's layouts whose tiers it has; when it
/// has none of them (a cost file with tiers of its own names), its own tiers inner to outer in
/// the file's order, LIBRA's way: for 2 to 4 dimensions, the first 1 to 3 tiers and then the last,
/// each a Switch when the tier prices switches and NICs, else a Ring.
pub fn layouts_of(costs: &CostModel) -> Vec<Vec<DimKind>> {
    let has = |tier: &str| costs.tier(tier).is_some();
    let libra: Vec<Vec<DimKind>> = libra_layouts()
        .into_iter()
        .filter(|l| l.iter().all(|k| has(&k.tier)))
        .collect();
    if !libra.is_empty() {
        return libra;
    }
    let kind = |t: &CostTier| {
        let topology = match (t.switch, t.nic) {
            (Some(_), Some(_)) => Topology::Switch,
            _ => Topology::Ring,
        };
        DimKind::new(topology, &t.name)
    };
    let tiers = &costs.tiers;
    (2..=tiers.len().min(4))
        .map(|k| {
            tiers[..k - 1]
                .iter()
                .chain(tiers.last())
                .map(kind)
                .collect()
        })
        .collect()
}

/// All ordered factorizations of `npus` into `parts` factors, each at least 2. The factors are
/// drawn from the divisors of `npus` (found up to its square root), so a large prime count of
/// NPUs answers at once instead of trying every number below it.
pub fn factorizations(npus: u32, parts: usize) -> Vec<Vec<u32>> {
    fn go(
        left: u32,
        parts: usize,
        divisors: &[u32],
        prefix: &mut Vec<u32>,
        out: &mut Vec<Vec<u32>>,
    ) {
        if parts == 1 {
            if left >= 2 {
                prefix.push(left);
                out.push(prefix.clone());
                prefix.pop();
            }
            return;
        }
        for &f in divisors
            .iter()
            .filter(|f| **f >= 2 && **f <= left && left.is_multiple_of(**f))
        {
            prefix.push(f);
            go(left / f, parts - 1, divisors, prefix, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    if parts > 0 {
        let mut divisors: Vec<u32> = Vec::new();
        let mut d = 1u32;
        while u64::from(d) * u64::from(d) <= u64::from(npus) {
            if npus.is_multiple_of(d) {
                divisors.push(d);
                divisors.push(npus / d);
            }
            d += 1;
        }
        divisors.sort_unstable();
        divisors.dedup();
        go(npus, parts, &divisors, &mut Vec::new(), &mut out);
    }
    out
}

/// Every shape of `npus` NPUs within the tier limits of `costs`, one per factorization matching
/// the length of each layout, each dimension with its tier's latency per step.
pub fn enumerate(npus: u32, layouts: &[Vec<DimKind>], costs: &CostModel) -> Vec<Network> {
    layouts
        .iter()
        .flat_map(|kinds| {
            factorizations(npus, kinds.len())
                .into_iter()
                .map(move |sizes| Network {
                    dims: sizes
                        .iter()
                        .zip(kinds)
                        .map(|(&n, k)| Dim {
                            topology: k.topology,
                            npus: n,
                            tier: k.tier.clone(),
                            latency_ns: costs.latency_ns(&k.tier),
                        })
                        .collect(),
                })
                .filter(|n| costs.holds(&n.dims))
        })
        .collect()
}

/// Why a shape could not be compared.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShapeError {
    #[error("workload {workload}: {source}")]
    Communicator {
        workload: String,
        source: CommunicatorError,
    },
    #[error(transparent)]
    Compile(#[from] CompileError),
    #[error("{0}")]
    Solve(String),
}

/// The base scenario's workloads and options on `network`, constrained only by `B_d >= min_gbps`.
pub fn scenario_on(
    base: &Scenario,
    network: &Network,
    min_gbps: f64,
) -> Result<Scenario, ShapeError> {
    let mut sc = base.clone();
    for w in &mut sc.workloads {
        w.communicator =
            w.communicator
                .remap(network)
                .map_err(|source| ShapeError::Communicator {
                    workload: w.name.clone(),
                    source,
                })?;
    }
    sc.name = format!("{} on {}", base.name, network.shape_label());
    sc.network = network.clone();
    sc.constraints = Constraints {
        min_gbps: vec![Some(min_gbps); network.dims.len()],
        ..Constraints::default()
    };
    sc.objective = Objective::Time;
    sc.model.latency = true;
    Ok(sc)
}

/// One shape's front (or why it has none).
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeFront {
    pub network: Network,
    pub front: Result<Front, ShapeError>,
}

/// The front of every shape over `budgets`.
pub fn compare(
    base: &Scenario,
    shapes: &[Network],
    budgets: &[f64],
    min_gbps: f64,
    opts: &SolveOptions,
) -> Vec<ShapeFront> {
    shapes
        .iter()
        .map(|network| ShapeFront {
            network: network.clone(),
            front: front_of(base, network, budgets, min_gbps, opts),
        })
        .collect()
}

/// The compiled problem of `base` on `network` (see [`scenario_on`]).
pub fn shape_problem(
    base: &Scenario,
    network: &Network,
    min_gbps: f64,
) -> Result<Problem, ShapeError> {
    Ok(compile(&scenario_on(base, network, min_gbps)?)?)
}

/// The front of one shape's problem over `budgets`.
pub fn problem_front(
    problem: &Problem,
    budgets: &[f64],
    opts: &SolveOptions,
) -> Result<Front, ShapeError> {
    pareto(problem, budgets, opts).map_err(|e| ShapeError::Solve(e.to_string()))
}

/// The front of one shape.
pub fn front_of(
    base: &Scenario,
    network: &Network,
    budgets: &[f64],
    min_gbps: f64,
    opts: &SolveOptions,
) -> Result<Front, ShapeError> {
    problem_front(&shape_problem(base, network, min_gbps)?, budgets, opts)
}

/// The best shape at one budget.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnvelopePoint {
    pub budget_usd: f64,
    pub time_ns: f64,
    /// Index into the compared shapes.
    pub shape: usize,
}

/// The lower envelope: at each budget that some shape can afford, the least time and its shape
/// (ties go to the first shape).
pub fn envelope(fronts: &[ShapeFront]) -> Vec<EnvelopePoint> {
    let mut best: Vec<EnvelopePoint> = Vec::new();
    for (i, sf) in fronts.iter().enumerate() {
        let Ok(front) = &sf.front else { continue };
        for p in &front.points {
            match best.iter_mut().find(|e| e.budget_usd == p.budget_usd) {
                Some(e) if p.time_ns < e.time_ns => {
                    e.time_ns = p.time_ns;
                    e.shape = i;
                }
                Some(_) => {}
                None => best.push(EnvelopePoint {
                    budget_usd: p.budget_usd,
                    time_ns: p.time_ns,
                    shape: i,
                }),
            }
        }
    }
    crate::order::sorted_by_key(best, |e| e.budget_usd)
}

/// The envelope as budget ranges won by one shape: (first budget, last budget, shape).
pub fn winners(envelope: &[EnvelopePoint]) -> Vec<(f64, f64, usize)> {
    let mut out: Vec<(f64, f64, usize)> = Vec::new();
    for e in envelope {
        match out.last_mut() {
            Some(last) if last.2 == e.shape => last.1 = e.budget_usd,
            _ => out.push((e.budget_usd, e.budget_usd, e.shape)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimize::sweep::budget_range;
    use crate::presets;

    #[test]
    fn factorizations_of_4096() {
        // 4096 = 2^12: compositions of 12 into k parts of at least 1 are C(11, k - 1).
        assert_eq!(factorizations(4096, 2).len(), 11);
        assert_eq!(factorizations(4096, 3).len(), 55);
        assert_eq!(factorizations(4096, 4).len(), 165);
        assert_eq!(
            factorizations(12, 2),
            vec![vec![2, 6], vec![3, 4], vec![4, 3], vec![6, 2]]
        );
        assert!(factorizations(7, 2).is_empty());
        // A large prime answers at once; u32::MAX = 3 x 5 x 17 x 257 x 65537.
        assert!(factorizations(4_294_967_291, 2).is_empty());
        assert_eq!(factorizations(u32::MAX, 2).len(), 30);
        let costs = presets::libra_4d_cost_model();
        let unlimited = CostModel {
            tiers: costs
                .tiers
                .iter()
                .map(|t| crate::model::CostTier {
                    max_npus: None,
                    ..t.clone()
                })
                .collect(),
        };
        assert_eq!(enumerate(4096, &libra_layouts(), &unlimited).len(), 231);
        // Within the tier limits (chiplets <= 8 = 2^3, packages <= 16 = 2^4, nodes <= 32 = 2^5):
        // 2-D 3 shapes, 3-D 3 x 4 = 12, 4-D: exponents 1 <= a <= 3, b <= 4, c <= 5 and d >= 1
        // summing to 12: 3 * 4 * 5 = 60 less the one with a + b + c = 12.
        let shapes = enumerate(4096, &libra_layouts(), &costs);
        assert_eq!(shapes.len(), 3 + 12 + 59);
        assert!(shapes.iter().all(|n| costs.holds(&n.dims)));
        assert!(shapes.iter().all(|n| n
            .dims
            .iter()
            .all(|d| d.latency_ns == costs.latency_ns(&d.tier))));
        assert!(shapes
            .iter()
            .all(|n| n.dims.iter().map(|d| d.npus).product::<u32>() == 4096));
    }

    #[test]
    fn the_envelope_is_the_pointwise_best_and_libra_4d_is_among_the_shapes() {
        let base = presets::default_scenario();
        let all = enumerate(4096, &libra_layouts(), &base.costs);
        let libra = presets::libra_4d_network();
        let chosen: Vec<Network> = all
            .iter()
            .filter(|n| n.dims.len() == 2 || *n == &libra)
            .cloned()
            .collect();
        assert_eq!(chosen.len(), 4);
        let budgets = budget_range(2e7, 2e8, 8);
        let fronts = compare(&base, &chosen, &budgets, 1.0, &SolveOptions::default());
        let env = envelope(&fronts);
        assert!(!env.is_empty());
        for e in &env {
            for sf in &fronts {
                if let Ok(f) = &sf.front {
                    if let Some(p) = f.points.iter().find(|p| p.budget_usd == e.budget_usd) {
                        assert!(e.time_ns <= p.time_ns);
                    }
                }
            }
            let winner = fronts[e.shape].front.as_ref().unwrap();
            assert!(winner.points.iter().any(|p| p.time_ns == e.time_ns));
        }
        // On its own network the remapped workload is LIBRA's: its front equals the base's.
        let i = chosen.iter().position(|n| n == &libra).unwrap();
        let own = fronts[i].front.as_ref().unwrap();
        let mut sc = base.clone();
        sc.model.latency = true;
        sc.constraints = Constraints {
            min_gbps: vec![Some(1.0); 4],
            ..Constraints::default()
        };
        let direct = pareto(&compile(&sc).unwrap(), &budgets, &SolveOptions::default()).unwrap();
        assert_eq!(own, &direct);
        let w = winners(&env);
        assert_eq!(w.first().unwrap().0, env[0].budget_usd);
        assert_eq!(w.last().unwrap().1, env.last().unwrap().budget_usd);
    }
}
