//! What a solve takes and gives: its settings, the certified solution, the errors, and the check
//! that never lets an uncertified answer out.

use super::feasible::FeasibilityError;
use super::problem::Problem;
use serde::Serialize;

/// How the least time is found; both end on the same certificate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// The barrier method on the epigraph form (`min_time.rs`): a few Newton steps.
    #[default]
    InteriorPoint,
    /// Accelerated projected gradient on a smoothed max (`projected_gradient.rs`): many cheap steps.
    ProjectedGradient,
}

impl Method {
    pub const ALL: [Method; 2] = [Method::InteriorPoint, Method::ProjectedGradient];

    /// The name on the command line and in links.
    pub fn key(self) -> &'static str {
        match self {
            Method::InteriorPoint => "interior-point",
            Method::ProjectedGradient => "projected-gradient",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Method::InteriorPoint => "Interior point (barrier)",
            Method::ProjectedGradient => "Projected gradient (accelerated)",
        }
    }

    /// What one of the method's iterations is called.
    pub fn step_name(self) -> &'static str {
        match self {
            Method::InteriorPoint => "Newton steps",
            Method::ProjectedGradient => "gradient steps",
        }
    }

    /// True for the default method (links leave it out).
    pub fn is_interior_point(&self) -> bool {
        *self == Method::InteriorPoint
    }

    pub fn from_key(key: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.key() == key)
    }
}

/// Solver settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolveOptions {
    /// Stop when the certified relative optimality gap is at most this.
    pub rel_gap: f64,
    /// Newton steps allowed in all (interior point).
    pub max_newton_steps: usize,
    pub method: Method,
    /// Gradient steps allowed in all (projected gradient); then the best point is returned with
    /// its certified gap.
    pub max_gradient_steps: usize,
    /// Keep the barrier's central path (the landscape draws it) rather than finishing at once
    /// from a start where the active set can be guessed.
    pub central_path: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            rel_gap: 1e-6,
            max_newton_steps: 3_000,
            method: Method::InteriorPoint,
            max_gradient_steps: 20_000,
            central_path: false,
        }
    }
}

/// An optimal allocation with its certificate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Solution {
    pub bw_gbps: Vec<f64>,
    pub time_ns: f64,
    pub cost_usd: f64,
    /// Time (ns), cost ($) or LIBRA's time x cost value, by objective.
    pub objective_value: f64,
    /// A proven lower bound on the objective over the feasible set.
    pub lower_bound: f64,
    /// Certified relative gap `(objective_value - lower_bound) / objective_value`.
    pub gap: f64,
    /// Newton steps (interior point) or gradient steps (projected gradient) taken.
    pub iterations: usize,
    /// For each pattern of the problem, the dimension (0-based) whose time bounds it.
    pub bounding_dim: Vec<Option<usize>>,
    /// Dimensions without traffic (their bandwidth does not change the time).
    pub idle_dims: Vec<usize>,
    /// Shadow prices: how the proven lower bound moves per unit of each constraint row's right-hand
    /// side (ns per GB/s, or per $ for a budget), in the order of the problem's rows (after the
    /// feasibility analysis).
    pub sensitivity: Vec<f64>,
    /// The bandwidths the method went through: its start, the center of each barrier weight (or
    /// the projected-gradient iterates, up to 256), then the optimum (only the start and the
    /// optimum when a warm start finished at once; empty for solves that are not a single run).
    pub path: Vec<Vec<f64>>,
}

/// Why no solution is returned.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SolveError {
    #[error(transparent)]
    Feasibility(#[from] FeasibilityError),
    #[error("B{dim} can grow without bound, so the time has no minimum: add a total bandwidth, a budget or an upper bound on B{dim}")]
    Unbounded { dim: usize },
    #[error("the time target {target_ns} ns cannot be met: the fastest feasible design takes {fastest_ns} ns")]
    TargetUnreachable { target_ns: f64, fastest_ns: f64 },
    #[error("the solver ran into numerical trouble: {0}")]
    Numerical(String),
    /// The steps ran out (or rounding stalled the method) before the tolerance: the best design
    /// found is within `gap` of the optimum, proven, but not within `tolerance`.
    #[error("stopped after {steps} steps at {time_ns} ns with a certified gap of {gap:.3e}, above the tolerance {tolerance:.1e}: allow more steps or a looser gap")]
    GapNotReached {
        steps: usize,
        gap: f64,
        tolerance: f64,
        time_ns: f64,
    },
    #[error("at the budget {budget_usd:e} $: {error}")]
    AtBudget {
        budget_usd: f64,
        error: Box<SolveError>,
    },
}

/// The solution at `bw` with its proven lower bound, for the time (`by_cost` false) or cost objective.
pub(crate) fn solution(
    problem: &Problem,
    bw: Vec<f64>,
    by_cost: bool,
    lower: f64,
    steps: usize,
) -> Solution {
    let time_ns = problem.time(&bw);
    let cost_usd = problem.cost(&bw);
    let value = if by_cost { cost_usd } else { time_ns };
    let lower = lower.min(value);
    Solution {
        bounding_dim: problem.patterns.iter().map(|p| p.time(&bw).1).collect(),
        idle_dims: (0..problem.dims).filter(|&d| problem.idle[d]).collect(),
        bw_gbps: bw,
        time_ns,
        cost_usd,
        objective_value: value,
        lower_bound: lower,
        gap: ((value - lower) / value.abs().max(f64::MIN_POSITIVE)).max(0.0),
        iterations: steps,
        sensitivity: Vec::new(),
        path: Vec::new(),
    }
}

/// A solution whose numbers are finite and whose certified gap meets the tolerance (with room for
/// rounding), or the numerical trouble that kept it from it: never a silently uncertified answer.
pub(crate) fn certified(sol: Solution, opts: &SolveOptions) -> Result<Solution, SolveError> {
    let finite = sol.time_ns.is_finite()
        && sol.cost_usd.is_finite()
        && sol.lower_bound.is_finite()
        && sol.bw_gbps.iter().all(|b| b.is_finite() && *b > 0.0);
    if !finite {
        return Err(SolveError::Numerical(format!(
            "the optimum is beyond the range of 64-bit numbers (time {} ns, cost {} $)",
            sol.time_ns, sol.cost_usd
        )));
    }
    if sol.gap.is_nan() {
        return Err(SolveError::Numerical(
            "the certified gap is not a number".into(),
        ));
    }
    if sol.gap > opts.rel_gap.max(1e-12) * 10.0 {
        return Err(SolveError::GapNotReached {
            steps: sol.iterations,
            gap: sol.gap,
            tolerance: opts.rel_gap,
            time_ns: sol.time_ns,
        });
    }
    Ok(sol)
}
