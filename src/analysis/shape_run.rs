//! A shape comparison for one scenario, run in steps so that a page can show its progress and stay
//! responsive between them: every shape of the scenario's NPU count (and the user's own shapes),
//! each optimized at every budget of one range, their lower envelope, the winner per budget range
//! and a ranking at the scenario's own budget.

use super::shapes::{enumerate, libra_layouts, problem_front, shape_problem, DimKind, ShapeFront};
use crate::model::network::{Dim, Network, Topology};
use crate::model::scenario::Scenario;
use crate::optimize::sweep::{budget_range, Front};
use crate::optimize::SolveOptions;
use crate::optimize::{compile, solve, Problem};
use crate::stepping::{units, Progress, Stepping};

/// Budgets per front; the scenario's own budget is added to them.
pub const COMPARE_BUDGETS: usize = 16;
/// The least bandwidth of every dimension of every shape, GB/s.
pub const MIN_GBPS: f64 = 1.0;

/// Why a comparison cannot start.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CompareError {
    #[error("the network is not valid: {0}")]
    Network(String),
    #[error("the design has no optimum to compare at: {0}")]
    NoOptimum(String),
    #[error("shape \"{text}\": {message}")]
    BadShape { text: String, message: String },
}

/// One shape's place at the ranking budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Rank {
    /// Index into the compared shapes.
    pub shape: usize,
    pub time_ns: f64,
    pub cost_usd: f64,
    pub bw_gbps: Vec<f64>,
    /// Time of the uniform split at the same cost over the optimum's time.
    pub speedup: f64,
}

/// A comparison, complete or under way.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeRun {
    base: Scenario,
    pub shapes: Vec<Network>,
    /// Which shapes the user added (the rest are enumerated).
    pub user_shapes: usize,
    pub budgets: Vec<f64>,
    /// The budget of the ranking: the scenario's budget, else its optimum's cost.
    pub budget_usd: f64,
    /// The index of the scenario's own shape.
    pub own: Option<usize>,
    pub fronts: Vec<ShapeFront>,
    /// Per shape done: the time of its uniform split at the cost of its design at the ranking
    /// budget (None when it has none there).
    uniform_ns: Vec<Option<f64>>,
    opts: SolveOptions,
}

/// The kinds and tiers of the shapes to enumerate: LIBRA's layouts when the scenario's cost model
/// has LIBRA's tiers, and the scenario's own kinds for its number of dimensions.
pub fn layouts_for(base: &Scenario) -> Vec<Vec<DimKind>> {
    let has = |tier: &str| base.costs.tiers.iter().any(|t| t.name == tier);
    let mut layouts: Vec<Vec<DimKind>> = libra_layouts()
        .into_iter()
        .filter(|l| l.iter().all(|k| has(&k.tier)))
        .collect();
    let own: Vec<DimKind> = base
        .network
        .dims
        .iter()
        .map(|d| DimKind::new(d.topology, &d.tier))
        .collect();
    if (2..=4).contains(&own.len()) && !layouts.contains(&own) {
        layouts.push(own);
    }
    layouts
}

/// Read a shape typed as `Ring 4 × FullyConnected 8 × Switch 128` (also `R4 x FC8 x SW128`; `×`,
/// `x` or `*` between dimensions). Tiers come from the first layout with as many dimensions, unless
/// a dimension names its own after `:` or `@` (`SW8:nvlink4`, `SW128@InterPod`).
pub fn parse_shape(text: &str, layouts: &[Vec<DimKind>]) -> Result<Network, CompareError> {
    let bad = |message: String| CompareError::BadShape {
        text: text.trim().chars().take(60).collect(),
        message,
    };
    // `x` between spaces (or `×`, `*`) separates dimensions when there is one, so that a tier's
    // name may hold an x (`SW8:nvlink-x`); else any x does (`R4xFC8`).
    let spaced = text.contains(" x ") || text.contains(" X ") || text.contains(['×', '*']);
    let parts: Vec<&str> = if spaced {
        text.split(['×', '*'])
            .flat_map(|p| p.split(" x "))
            .flat_map(|p| p.split(" X "))
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect()
    } else {
        text.split(['x', 'X'])
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect()
    };
    let layout = layouts
        .iter()
        .find(|l| l.len() == parts.len())
        .ok_or_else(|| {
            bad(format!(
                "{} dimensions, but the shapes compared have {}",
                parts.len(),
                layouts
                    .iter()
                    .map(|l| l.len().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    let dims = parts
        .iter()
        .zip(layout)
        .enumerate()
        .map(|(i, (part, kind))| {
            let (part, tier) = match part.split_once(['@', ':']) {
                Some((p, t)) if !t.trim().is_empty() => (p.trim(), t.trim().to_string()),
                Some(_) => return Err(bad(format!("dimension {}: no tier after : or @", i + 1))),
                None => (*part, kind.tier.clone()),
            };
            let split = part
                .find(|c: char| c.is_ascii_digit())
                .ok_or_else(|| bad(format!("dimension {} has no NPU count", i + 1)))?;
            let (name, npus) = part.split_at(split);
            let topology = match name.trim().to_ascii_lowercase().as_str() {
                "ring" | "r" => Topology::Ring,
                "fullyconnected" | "fully connected" | "fc" => Topology::FullyConnected,
                "switch" | "sw" | "s" => Topology::Switch,
                other => {
                    return Err(bad(format!(
                        "dimension {}: unknown topology \"{other}\" (Ring, FC or Switch)",
                        i + 1
                    )))
                }
            };
            let npus: u32 = npus
                .trim()
                .parse()
                .ok()
                .filter(|n| *n >= 2)
                .ok_or_else(|| {
                    bad(format!(
                        "dimension {}: NPUs must be a whole number of at least 2",
                        i + 1
                    ))
                })?;
            Ok(Dim {
                topology,
                npus,
                tier,
                latency_ns: 0.0,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Network { dims })
}

/// Whether `shape` can join the comparison of `base`: it must have the design's NPU count, use
/// tiers of its cost model and stay within their limits.
pub fn check_shape(base: &Scenario, shape: &Network) -> Result<(), CompareError> {
    let bad = |message: String| CompareError::BadShape {
        text: shape.shape_label(),
        message,
    };
    let npus = base.network.total_npus().unwrap_or(0);
    let total = shape.total_npus().unwrap_or(0);
    if total != npus {
        return Err(bad(format!("it has {total} NPUs, the design has {npus}")));
    }
    for (i, d) in shape.dims.iter().enumerate() {
        if !base.costs.tiers.iter().any(|t| t.name == d.tier) {
            return Err(bad(format!(
                "dimension {}: unknown cost tier \"{}\" (the design's tiers: {})",
                i + 1,
                d.tier,
                base.costs
                    .tiers
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    if let Some(beyond) = base.costs.limit_notes(shape).first() {
        return Err(bad(format!(
            "{beyond} (raise the tier's limit to compare it)"
        )));
    }
    Ok(())
}

/// What a comparison covers.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareSetup {
    /// The numbers of dimensions enumerated (of 2, 3 and 4).
    pub dim_counts: Vec<usize>,
    /// Shapes the user added.
    pub extra: Vec<Network>,
}

impl Default for CompareSetup {
    fn default() -> Self {
        CompareSetup {
            dim_counts: vec![2, 3, 4],
            extra: Vec::new(),
        }
    }
}

impl ShapeRun {
    /// The limits the enumerated shapes keep to, in words: each tier they use and the most NPUs
    /// one of its dimensions joins ("nvlink4 at most 8; ib-ndr at most 2048").
    pub fn tier_limits(&self) -> String {
        let used: Vec<String> = layouts_for(&self.base)
            .into_iter()
            .flatten()
            .map(|k| k.tier)
            .collect();
        self.base
            .costs
            .tiers
            .iter()
            .filter(|t| used.contains(&t.name))
            .map(|t| match t.max_npus {
                Some(m) => format!("{} at most {m}", t.name),
                None => format!("{} without a limit", t.name),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Prepare the comparison of `base`'s shapes on `setup.dim_counts` dimensions plus the typed
    /// shapes of `setup.extra` (which must have the scenario's NPU count).
    pub fn new(base: &Scenario, setup: &CompareSetup) -> Result<ShapeRun, CompareError> {
        let extra = &setup.extra;
        let npus = base
            .network
            .total_npus()
            .map_err(|e| CompareError::Network(e.to_string()))?;
        let opts = SolveOptions::default();
        let problem = compile(base).map_err(|e| CompareError::NoOptimum(e.to_string()))?;
        let optimum = solve(&problem, &opts).map_err(|e| CompareError::NoOptimum(e.to_string()))?;
        let budget_usd = base.constraints.budget_usd.unwrap_or(optimum.cost_usd);
        for n in extra {
            check_shape(base, n)?;
        }
        let layouts: Vec<Vec<DimKind>> = layouts_for(base)
            .into_iter()
            .filter(|l| setup.dim_counts.contains(&l.len()))
            .collect();
        let mut shapes = enumerate(npus, &layouts, &base.costs);
        if shapes.is_empty() && extra.is_empty() {
            return Err(CompareError::BadShape {
                text: String::new(),
                message: "no shapes to compare: pick some numbers of dimensions or add a shape"
                    .into(),
            });
        }
        let mut user_shapes = 0;
        for n in extra {
            let mut n = n.clone();
            for d in &mut n.dims {
                d.latency_ns = base.costs.latency_ns(&d.tier);
            }
            if !shapes.contains(&n) {
                shapes.push(n);
                user_shapes += 1;
            }
        }
        let own_kinds = |n: &Network| {
            n.dims.len() == base.network.dims.len()
                && n.dims
                    .iter()
                    .zip(&base.network.dims)
                    .all(|(a, b)| a.npus == b.npus && a.topology == b.topology && a.tier == b.tier)
        };
        let own = shapes.iter().position(own_kinds);
        let mut budgets = budget_range(budget_usd / 8.0, budget_usd * 8.0, COMPARE_BUDGETS);
        budgets.push(budget_usd);
        budgets.sort_by(f64::total_cmp);
        Ok(ShapeRun {
            base: base.clone(),
            shapes,
            user_shapes,
            budgets,
            budget_usd,
            own,
            fronts: Vec::new(),
            uniform_ns: Vec::new(),
            opts,
        })
    }

    /// Optimize up to `n` more shapes; true when every shape is done.
    pub fn step(&mut self, n: usize) -> bool {
        for _ in 0..n {
            let Some(network) = self.shapes.get(self.fronts.len()) else {
                break;
            };
            let problem = shape_problem(&self.base, network, MIN_GBPS);
            let front = problem
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|p| problem_front(p, &self.budgets, &self.opts));
            let uniform = match (&problem, &front) {
                (Ok(p), Ok(f)) => f
                    .points
                    .iter()
                    .find(|pt| pt.budget_usd == self.budget_usd)
                    .and_then(|pt| uniform_time(p, pt.cost_usd)),
                _ => None,
            };
            self.uniform_ns.push(uniform);
            self.fronts.push(ShapeFront {
                network: network.clone(),
                front,
            });
        }
        self.done()
    }

    pub fn done(&self) -> bool {
        self.fronts.len() == self.shapes.len()
    }

    /// Shapes done and shapes in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.fronts.len(), self.shapes.len())
    }

    /// The shapes done so far, fastest first at the ranking budget (shapes that cannot meet it
    /// are left out).
    pub fn ranking(&self) -> Vec<Rank> {
        let out: Vec<Rank> = self
            .fronts
            .iter()
            .enumerate()
            .filter_map(|(i, sf)| {
                let front: &Front = sf.front.as_ref().ok()?;
                let p = front
                    .points
                    .iter()
                    .find(|p| p.budget_usd == self.budget_usd)?;
                let uniform = self.uniform_ns[i]?;
                Some(Rank {
                    shape: i,
                    time_ns: p.time_ns,
                    cost_usd: p.cost_usd,
                    bw_gbps: p.bw_gbps.clone(),
                    speedup: uniform / p.time_ns,
                })
            })
            .collect();
        crate::order::sorted_by_key(out, |r| r.time_ns)
    }
}

/// The training time of `problem` with the same bandwidth on every dimension, at `cost_usd`.
fn uniform_time(problem: &Problem, cost_usd: f64) -> Option<f64> {
    let per_gbps: f64 = problem.cost_per_gbps.iter().sum();
    (per_gbps > 0.0).then(|| problem.time(&vec![cost_usd / per_gbps; problem.dims]))
}

/// The comparison is its own answer: once every shape is done, the run holds every front and
/// the ranking.
impl Stepping for ShapeRun {
    type Output = ShapeRun;
    type Error = std::convert::Infallible;

    fn step(&mut self, shapes: u64) -> bool {
        ShapeRun::step(self, units(shapes))
    }

    fn progress(&self) -> Progress {
        let (done, total) = ShapeRun::progress(self);
        Progress::of(done, total, "shapes")
    }

    fn finish(mut self) -> Result<ShapeRun, Self::Error> {
        while !ShapeRun::step(&mut self, usize::MAX) {}
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::shapes::{envelope, winners};
    use crate::presets;

    #[test]
    fn the_default_scenario_compares_74_shapes_within_the_tier_limits_and_ranks_them() {
        let base = presets::default_scenario();
        let mut run = ShapeRun::new(&base, &CompareSetup::default()).unwrap();
        assert_eq!(run.progress(), (0, 74));
        assert!(run.shapes.iter().all(|n| base.costs.holds(&n.dims)));
        assert_eq!(run.budgets.len(), COMPARE_BUDGETS + 1);
        assert!(run.budgets.contains(&run.budget_usd));
        assert_eq!(
            run.tier_limits(),
            "InterChiplet at most 8; InterPackage at most 16; InterNode at most 32; InterPod at most 65536"
        );
        // LIBRA's own 4D shape is among them.
        let own = run.own.unwrap();
        assert_eq!(run.shapes[own], base.network);
        let mut steps = 0;
        while !run.step(40) {
            steps += 1;
        }
        assert_eq!(steps, 1);
        assert_eq!(run.progress(), (74, 74));
        assert_eq!(Stepping::progress(&run).doing, "74 of 74 shapes");
        // The stepping contract's finish does the same work in one go.
        let Ok(whole) = Stepping::finish(ShapeRun::new(&base, &CompareSetup::default()).unwrap());
        assert_eq!(whole.ranking(), run.ranking());
        let ranking = run.ranking();
        assert!(ranking.len() > 50, "{}", ranking.len());
        assert!(ranking.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
        // Every ranked design spends at most the budget, and the best is at least as fast as the
        // design's own shape (which is in the ranking with its optimum's time).
        let best = &ranking[0];
        let mine = ranking.iter().find(|r| r.shape == own).unwrap();
        assert!(best.time_ns <= mine.time_ns);
        assert!(ranking
            .iter()
            .all(|r| r.cost_usd <= run.budget_usd * (1.0 + 1e-6)));
        // The comparison keeps only the budget (LIBRA's sum B = 500 is dropped), so the design's
        // own shape is at least as fast as its optimum (with the tiers' latencies, as the
        // comparison times every shape), and within a few percent here.
        let mut timed = base.clone();
        timed.model.latency = true;
        let direct = crate::analysis::study::study(&timed).unwrap();
        let ratio = mine.time_ns / direct.evaluation.time_ns;
        assert!(ratio <= 1.0 + 1e-6 && ratio > 0.95, "{ratio}");
        // The uniform split is never faster than the optimum.
        assert!(ranking.iter().all(|r| r.speedup >= 1.0 - 1e-6));
        // The envelope's winner at the ranking budget is the ranking's first.
        let env = envelope(&run.fronts);
        let at = env.iter().find(|e| e.budget_usd == run.budget_usd).unwrap();
        assert_eq!(at.time_ns, best.time_ns);
        assert!(!winners(&env).is_empty());
    }

    #[test]
    fn typed_shapes_read_or_say_what_is_wrong() {
        let layouts = libra_layouts();
        let n = parse_shape("R4 x FC8 x SW128", &layouts).unwrap();
        assert_eq!(n.shape_label(), "Ring 4 × FullyConnected 8 × Switch 128");
        assert_eq!(n.dims[2].tier, "InterPod");
        let same = parse_shape("Ring 4 × FullyConnected 8 × Switch 128", &layouts).unwrap();
        assert_eq!(n, same);
        for (text, needle) in [
            ("R4", "1 dimensions"),
            ("R4 x Q8", "unknown topology \"q\""),
            ("R4 x FC", "dimension 2 has no NPU count"),
            ("R1 x SW8", "at least 2"),
        ] {
            let e = parse_shape(text, &layouts).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
        // A typed shape must have the design's NPU count; a new one joins the comparison.
        let base = presets::default_scenario();
        let with = |extra: Vec<Network>, dim_counts: Vec<usize>| {
            ShapeRun::new(&base, &CompareSetup { dim_counts, extra })
        };
        let wrong = parse_shape("R4 x SW8", &layouts).unwrap();
        assert!(with(vec![wrong], vec![2])
            .unwrap_err()
            .to_string()
            .contains("it has 32 NPUs, the design has 4096"));
        let big = parse_shape("FC64@InterPackage x SW64", &layouts).unwrap();
        assert_eq!(big.dims[0].tier, "InterPackage");
        assert!(with(vec![big], vec![2]).unwrap_err().to_string().contains(
            "dimension 1: 64 NPUs, but tier \"InterPackage\" joins at most 16 per dimension"
        ));
        let fc = parse_shape("FC16@InterPackage x SW256", &layouts).unwrap();
        let run = with(vec![fc.clone()], vec![2, 3, 4]).unwrap();
        assert_eq!(run.user_shapes, 1);
        // It joins with its tiers' latencies.
        let joined = run.shapes.last().unwrap();
        assert_eq!(joined.shape_label(), fc.shape_label());
        assert_eq!(
            joined.dims.iter().map(|d| d.latency_ns).collect::<Vec<_>>(),
            vec![470.0, 2_700.0]
        );
        let odd = parse_shape("FC64@Nowhere x SW64", &layouts).unwrap();
        assert!(check_shape(&base, &odd)
            .unwrap_err()
            .to_string()
            .contains("unknown cost tier \"Nowhere\""));
        assert!(parse_shape("FC64@ x SW64", &layouts).is_err());
        // Only 2-D shapes: 3 within the chiplet tier's 8 (Ring 2, 4, 8), plus the typed one.
        let run = with(vec![fc], vec![2]).unwrap();
        assert_eq!(run.shapes.len(), 4);
        assert!(with(vec![], vec![]).is_err());
    }
}
