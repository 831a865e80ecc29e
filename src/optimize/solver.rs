//! The certified solver: minimize training time, or cost for a time target, over the feasible
//! bandwidths, and prove how close the answer is to the optimum.
//!
//! Method: a barrier (interior-point) method on the epigraph form (`barrier.rs`), started from a
//! strictly interior point found by linear programming (`feasible.rs`). After each centering the
//! multipliers give a Lagrangian lower bound on the optimum (`certificate`); the solver stops when
//! `(upper - lower) / upper <= rel_gap` (1e-6 by default), and returns that certified gap.
//!
//! The lower bound: with `lambda_pd >= 0` rescaled so that `sum_d lambda_pd` equals the pattern's
//! objective weight, `nu >= 0` for the inequality rows and `eta` for the equalities,
//! `g = sum lambda alpha - nu.h - eta.e + sum_d min_{0 <= B_d <= hi_d} (c_d / B_d + k_d B_d)`,
//! `c_d = sum_p lambda_pd a_pd`, `k_d = cost_d + (G^T nu)_d + (E^T eta)_d`, is at most the optimum by weak
//! duality (`hi_d` is the largest B_d over the feasible set, from an LP).

use super::barrier::{Centered, Epigraph};
use super::feasible::{analyze, FeasibilityError, Feasible};
use super::linear::Relation;
use super::lp::{self, LpResult, Row};
use super::polish::{guess_active, polish};
use super::problem::Problem;
use crate::model::scenario::Objective;
use serde::Serialize;

/// Solver settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolveOptions {
    /// Stop when the certified relative optimality gap is at most this.
    pub rel_gap: f64,
    /// Newton steps allowed in all.
    pub max_newton_steps: usize,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            rel_gap: 1e-6,
            max_newton_steps: 3_000,
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
    /// Newton steps taken.
    pub iterations: usize,
    /// For each pattern of the problem, the dimension (0-based) whose time bounds it.
    pub bounding_dim: Vec<Option<usize>>,
    /// Dimensions without traffic (their bandwidth does not change the time).
    pub idle_dims: Vec<usize>,
    /// Shadow prices: how the proven lower bound moves per unit of each constraint row's right-hand
    /// side (ns per GB/s, or per $ for a budget), in the order of the problem's rows (after the
    /// feasibility analysis).
    pub sensitivity: Vec<f64>,
    /// The bandwidths the barrier method went through: its start, the center of each barrier
    /// weight, then the optimum (only the start and the optimum when a warm start finished at once;
    /// empty for solves that are not a single barrier run).
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
    #[error("at the budget {budget_usd:e} $: {error}")]
    AtBudget {
        budget_usd: f64,
        error: Box<SolveError>,
    },
}

/// The epigraph of `problem` over the rows of `feasible`, with every B_d > 0 as a row.
fn epigraph(problem: &Problem, feasible: &Feasible) -> Epigraph {
    let dims = problem.dims;
    let pats = problem.patterns.len();
    let n = dims + pats;
    let mut ep = Epigraph::new(dims, &problem.patterns);
    for r in &feasible.rows {
        let pad = |sign: f64| {
            let mut a: Vec<f64> = r.coeffs.iter().map(|c| sign * c).collect();
            a.resize(n, 0.0);
            (a, sign * r.rhs)
        };
        match r.rel {
            Relation::Le => ep.g.push(pad(1.0)),
            Relation::Ge => ep.g.push(pad(-1.0)),
            Relation::Eq => ep.e.push((r.coeffs.clone(), r.rhs)),
        }
    }
    for d in 0..dims {
        let mut a = vec![0.0; n];
        a[d] = -1.0;
        ep.g.push((a, 0.0));
    }
    ep
}

/// The barrier's multipliers at a centered point: `lambda_k = 1/(tau s_k)`, `nu_i = 1/(tau r_i)`, `eta`.
pub(crate) fn barrier_multipliers(ep: &Epigraph, cen: &Centered, tau: f64) -> Multipliers {
    let z = &cen.z;
    Multipliers {
        lambda: ep
            .terms
            .iter()
            .map(|k| 1.0 / (tau * ep.term_slack(k, z)))
            .collect(),
        nu: ep
            .g
            .iter()
            .map(|r| 1.0 / (tau * ep.row_slack(r, z)))
            .collect(),
        eta: cen.eta.clone(),
    }
}

/// Lagrange multipliers of the epigraph form: terms, inequality rows, equality rows.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Multipliers {
    pub lambda: Vec<f64>,
    pub nu: Vec<f64>,
    pub eta: Vec<f64>,
}

/// A lower bound on `min c.z` by weak duality from any multipliers with `lambda, nu >= 0` (see the
/// module docs); `lambda` is rescaled per pattern so that the Lagrangian does not depend on t.
/// `point` is a feasible point (B first), so the largest feasible B_d is at least `point[d]`;
/// `upper(d)` gives that largest value when it is needed.
pub(crate) fn dual_bound(
    ep: &Epigraph,
    mult: &Multipliers,
    point: &[f64],
    upper: &dyn Fn(usize) -> Option<f64>,
) -> f64 {
    let dims = ep.dims;
    let nu: Vec<f64> = mult.nu.iter().map(|v| v.max(0.0)).collect();
    let mut lambda: Vec<f64> = mult.lambda.iter().map(|v| v.max(0.0)).collect();
    for p in 0..ep.patterns {
        let want = ep.c[dims + p]
            + ep.g
                .iter()
                .zip(&nu)
                .map(|(r, v)| v * r.0[dims + p])
                .sum::<f64>();
        let have: f64 = ep
            .terms
            .iter()
            .zip(&lambda)
            .filter(|(k, _)| k.p == p)
            .map(|(_, l)| l)
            .sum();
        let f = if have > 0.0 {
            want.max(0.0) / have
        } else {
            0.0
        };
        let count = ep.terms.iter().filter(|k| k.p == p).count().max(1) as f64;
        for (k, l) in ep.terms.iter().zip(lambda.iter_mut()) {
            if k.p == p {
                *l = if have > 0.0 {
                    *l * f
                } else {
                    want.max(0.0) / count
                };
            }
        }
    }
    let mut bound: f64 = ep.terms.iter().zip(&lambda).map(|(k, l)| l * k.alpha).sum();
    bound -= ep.g.iter().zip(&nu).map(|(r, v)| v * r.1).sum::<f64>();
    bound -=
        ep.e.iter()
            .zip(&mult.eta)
            .map(|(r, y)| y * r.1)
            .sum::<f64>();
    let total_c: f64 = ep.terms.iter().zip(&lambda).map(|(k, l)| l * k.a).sum();
    for (d, &at) in point.iter().enumerate().take(dims) {
        let c: f64 = ep
            .terms
            .iter()
            .zip(&lambda)
            .filter(|(k, _)| k.d == d)
            .map(|(k, l)| l * k.a)
            .sum();
        let k = ep.c[d]
            + ep.g.iter().zip(&nu).map(|(r, v)| v * r.0[d]).sum::<f64>()
            + ep.e
                .iter()
                .zip(&mult.eta)
                .map(|(r, y)| y * r.0[d])
                .sum::<f64>();
        // min over 0 <= B <= hi of c / B + k B. The largest feasible B_d (an LP) is only needed when
        // the unconstrained minimizer sqrt(c / k) is not below the current, feasible, B_d.
        let inner = if c > 0.0 && k > 0.0 && (c / k).sqrt() <= at {
            2.0 * (c * k).sqrt()
        } else {
            match upper(d) {
                _ if c > 0.0 && k > 0.0 && upper(d).is_none_or(|hi| (c / k).sqrt() <= hi) => {
                    2.0 * (c * k).sqrt()
                }
                Some(hi) if c > 0.0 => c / hi + k * hi,
                Some(hi) => (k * hi).min(0.0),
                None if k >= 0.0 => 0.0,
                // Numerically zero slope on an unbounded idle dimension.
                None if c == 0.0 && -k <= 1e-12 * total_c.max(1.0) => 0.0,
                None => f64::NEG_INFINITY,
            }
        };
        bound += inner;
    }
    bound
}

/// The outcome of the barrier method: the point, its multipliers and the certified bounds (in the
/// epigraph's normalized units).
struct Run {
    z: Vec<f64>,
    mult: Multipliers,
    up: f64,
    low: f64,
    steps: usize,
    /// `z0` and every center.
    path: Vec<Vec<f64>>,
}

/// Run the barrier method from `z0` until the certified gap of `c.z + offset` is below `rel_gap`.
/// `true_objective` maps a point to the objective value actually reported (its upper bound).
fn run(
    ep: &Epigraph,
    z0: Vec<f64>,
    offset: f64,
    upper: &dyn Fn(usize) -> Option<f64>,
    opts: &SolveOptions,
    true_objective: &dyn Fn(&[f64]) -> f64,
) -> Result<Run, SolveError> {
    let m = ep.m() as f64;
    let f0: f64 = ep.c.iter().zip(&z0).map(|(c, z)| c * z).sum::<f64>();
    let mut tau = m / f0.abs().max(1e-12);
    let mut path = vec![z0.clone()];
    let mut z = z0;
    let mut steps = 0;
    let mut best: Option<Run> = None;
    let gap_of = |up: f64, low: f64| (up - low) / up.abs().max(f64::MIN_POSITIVE);
    for _ in 0..60 {
        let left = opts.max_newton_steps.saturating_sub(steps).max(1);
        let cen = ep
            .center(z.clone(), tau, left.min(200))
            .ok_or_else(|| SolveError::Numerical("singular Newton system".into()))?;
        steps += cen.newton_steps;
        path.push(cen.z.clone());
        let up = true_objective(&cen.z);
        let mult = barrier_multipliers(ep, &cen, tau);
        let low = (dual_bound(ep, &mult, &cen.z, upper) + offset).min(up);
        let gap = gap_of(up, low);
        // Once the active set has settled, finish exactly on it.
        if gap <= 0.01 {
            let (terms, rows) = guess_active(ep, &cen.z);
            if let Some((zp, mp)) = polish(ep, &cen.z, &mult, terms, rows) {
                let up_p = true_objective(&zp);
                let low_p = (dual_bound(ep, &mp, &zp, upper) + offset).min(up_p);
                if gap_of(up_p, low_p) <= opts.rel_gap && gap_of(up_p, low_p) <= gap {
                    return Ok(Run {
                        z: zp,
                        mult: mp,
                        up: up_p,
                        low: low_p,
                        steps,
                        path,
                    });
                }
            }
        }
        z = cen.z.clone();
        let done = gap <= opts.rel_gap || steps >= opts.max_newton_steps || tau > 1e15;
        if best.as_ref().is_none_or(|b| up - low < b.up - b.low) {
            best = Some(Run {
                z: cen.z,
                mult,
                up,
                low,
                steps,
                path: Vec::new(),
            });
        }
        if done {
            break;
        }
        tau *= 10.0;
    }
    let mut best = best.expect("at least one centering");
    best.steps = steps;
    best.path = path;
    Ok(best)
}

/// d(lower bound)/d(rhs) of each row of `feasible`, in objective units per unit of the row's
/// right-hand side, from the multipliers of the epigraph built by `epigraph`.
fn sensitivities(feasible: &Feasible, mult: &Multipliers, scale: f64) -> Vec<f64> {
    let (mut gi, mut ei) = (0, 0);
    feasible
        .rows
        .iter()
        .map(|r| match r.rel {
            Relation::Le => {
                gi += 1;
                -mult.nu[gi - 1].max(0.0) * scale
            }
            Relation::Ge => {
                gi += 1;
                mult.nu[gi - 1].max(0.0) * scale
            }
            Relation::Eq => {
                ei += 1;
                -mult.eta[ei - 1] * scale
            }
        })
        .collect()
}

fn start_t(problem: &Problem, bw: &[f64], margin: f64) -> Vec<f64> {
    problem
        .patterns
        .iter()
        .map(|p| {
            let h = p.time(bw).0;
            h * (1.0 + margin) + 1e-9
        })
        .collect()
}

/// The solution at `bw` with its proven lower bound, for the time (`by_cost` false) or cost objective.
fn solution(problem: &Problem, bw: Vec<f64>, by_cost: bool, lower: f64, steps: usize) -> Solution {
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

/// Minimize the training time over the feasible set, starting from `start` if it is strictly inside.
pub fn min_time(
    problem: &Problem,
    feasible: &Feasible,
    start: Option<&[f64]>,
    opts: &SolveOptions,
) -> Result<Solution, SolveError> {
    min_time_warm(problem, feasible, start, None, opts).map(|(s, _)| s)
}

/// An optimum with its multipliers in objective units (ns), to warm-start a nearby problem with the
/// same rows (the next budget of a sweep).
#[derive(Clone, Debug)]
pub(crate) struct Warm {
    bw: Vec<f64>,
    mult: Multipliers,
}

impl Multipliers {
    fn scaled(&self, f: f64) -> Multipliers {
        let s = |v: &Vec<f64>| v.iter().map(|x| x * f).collect();
        Multipliers {
            lambda: s(&self.lambda),
            nu: s(&self.nu),
            eta: s(&self.eta),
        }
    }
}

/// `min_time`, first trying the active set of `warm` directly (no barrier iterations when it is
/// still optimal, which the certificate decides), and returning the warm start for the next problem.
pub(crate) fn min_time_warm(
    problem: &Problem,
    feasible: &Feasible,
    start: Option<&[f64]>,
    warm: Option<&Warm>,
    opts: &SolveOptions,
) -> Result<(Solution, Warm), SolveError> {
    let busy: Vec<usize> = (0..problem.dims).filter(|&d| !problem.idle[d]).collect();
    if let Some(d) = feasible.first_unbounded(&busy) {
        return Err(SolveError::Unbounded { dim: d + 1 });
    }
    let mut ep = epigraph(problem, feasible);
    let start = start.or(warm.map(|w| w.bw.as_slice()));
    // A start is used when it is inside and no slower than the interior point: a design from a
    // far-away budget of a sweep would set the barrier's scale orders of magnitude off.
    let b0: Vec<f64> = match start {
        Some(s)
            if strictly_inside(&ep, s) && problem.time(s) <= problem.time(&feasible.interior) =>
        {
            s.to_vec()
        }
        _ => feasible.interior.clone(),
    };
    let comm0: f64 = problem.time(&b0) - problem.compute_ns;
    let scale = comm0.max(1e-30);
    for (p, pat) in problem.patterns.iter().enumerate() {
        ep.c[problem.dims + p] = pat.weight / scale;
    }
    let compute = problem.compute_ns / scale;
    let truth = |z: &[f64]| problem.time(&z[..problem.dims]) / scale;
    let upper = |d| feasible.upper(d);
    let finish = |z: &[f64], mult: Multipliers, low: f64, steps: usize| {
        let bw = least_idle(problem, feasible, &z[..problem.dims]);
        let mut sol = solution(problem, bw, false, low * scale, steps);
        sol.sensitivity = sensitivities(feasible, &mult, scale);
        let warm = Warm {
            bw: z[..problem.dims].to_vec(),
            mult: mult.scaled(scale),
        };
        (sol, warm)
    };
    if let Some(w) = warm.filter(|w| {
        w.bw.len() == problem.dims
            && w.mult.lambda.len() == ep.terms.len()
            && w.mult.nu.len() == ep.g.len()
            && w.mult.eta.len() == ep.e.len()
    }) {
        let mut z = w.bw.clone();
        z.extend(start_t(problem, &w.bw, 0.0));
        let mult = w.mult.scaled(1.0 / scale);
        let terms = mult.lambda.iter().map(|l| *l > 0.0).collect();
        let rows = mult.nu.iter().map(|v| *v > 0.0).collect();
        if let Some((zp, mp)) = polish(&ep, &z, &mult, terms, rows) {
            let up = truth(&zp);
            let low = (dual_bound(&ep, &mp, &zp, &upper) + compute).min(up);
            if (up - low) / up.abs().max(f64::MIN_POSITIVE) <= opts.rel_gap {
                let (mut sol, warm) = finish(&zp, mp, low, 0);
                sol.path = vec![w.bw.clone(), sol.bw_gbps.clone()];
                return Ok((sol, warm));
            }
        }
    }
    let mut z0 = b0.clone();
    z0.extend(start_t(problem, &b0, 0.1));
    let r = run(&ep, z0, compute, &upper, opts, &truth)?;
    let (mut sol, warm) = finish(&r.z, r.mult, r.low, r.steps);
    sol.path = r.path.iter().map(|z| z[..problem.dims].to_vec()).collect();
    sol.path.push(sol.bw_gbps.clone());
    Ok((sol, warm))
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
    if sol.gap.is_nan() || sol.gap > opts.rel_gap.max(1e-12) * 10.0 {
        return Err(SolveError::Numerical(format!(
            "the certified gap {:.3e} misses the tolerance {:.1e}",
            sol.gap, opts.rel_gap
        )));
    }
    Ok(sol)
}

/// Dimensions without traffic do not change the time, so their bandwidth is set to the least the
/// constraints allow with the busy dimensions at `bw` (an LP on the sum of idle bandwidths), moved
/// 0.1% of the way back towards `bw` so that it stays positive when that least value is 0.
fn least_idle(problem: &Problem, feasible: &Feasible, bw: &[f64]) -> Vec<f64> {
    let dims = problem.dims;
    if !problem.idle.iter().any(|i| *i) {
        return bw.to_vec();
    }
    let mut rows: Vec<Row> = feasible
        .rows
        .iter()
        .map(|r| Row {
            a: r.coeffs.clone(),
            rel: r.rel,
            b: r.rhs,
        })
        .collect();
    for d in (0..dims).filter(|&d| !problem.idle[d]) {
        let mut a = vec![0.0; dims];
        a[d] = 1.0;
        rows.push(Row {
            a,
            rel: Relation::Eq,
            b: bw[d],
        });
    }
    let c: Vec<f64> = problem
        .idle
        .iter()
        .map(|&i| if i { 1.0 } else { 0.0 })
        .collect();
    match lp::solve(&c, &rows) {
        LpResult::Optimal { x, .. } => (0..dims)
            .map(|d| match problem.idle[d] {
                true => x[d] + 1e-3 * (bw[d] - x[d]).max(0.0),
                false => bw[d],
            })
            .collect(),
        // Rounding in the fixed rows: keep the solver's (feasible) point.
        _ => bw.to_vec(),
    }
}

fn strictly_inside(ep: &Epigraph, b: &[f64]) -> bool {
    b.len() == ep.dims
        && b.iter().all(|x| *x > 0.0 && x.is_finite())
        && ep.g.iter().all(|r| {
            r.1 - r.0.iter().zip(b).map(|(a, x)| a * x).sum::<f64>() > 1e-12 * r.1.abs().max(1.0)
        })
        && ep.e.iter().all(|r| {
            (r.0.iter().zip(b).map(|(a, x)| a * x).sum::<f64>() - r.1).abs()
                <= 1e-12 * r.1.abs().max(1.0)
        })
}

/// Solve `problem` for its own objective: a finite answer with its certified gap within the
/// tolerance, or an error.
pub fn solve(problem: &Problem, opts: &SolveOptions) -> Result<Solution, SolveError> {
    let feasible = analyze(&problem.rows, problem.dims)?;
    certified(
        match problem.objective {
            Objective::Time => min_time(problem, &feasible, None, opts),
            Objective::Cost { time_target_ns } => {
                super::min_cost::min_cost(problem, &feasible, time_target_ns, opts)
            }
            Objective::TimeXCost => super::time_x_cost::min_time_x_cost(problem, &feasible, opts),
        }?,
        opts,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimize::compile;
    use crate::presets;

    #[test]
    fn gpt3_4d_at_500_gbps_matches_libra() {
        let p = compile(&presets::default_scenario()).unwrap();
        let s = solve(&p, &SolveOptions::default()).unwrap();
        // libra_reference.json: 722411780.9202211 ns at [338.45, 84.61, 58.16, 18.78].
        assert!(
            s.time_ns <= 722411780.9202211 * (1.0 + 1e-6),
            "{}",
            s.time_ns
        );
        assert!(s.gap <= 1e-6);
        assert!(s.lower_bound <= 722411780.9202211 * (1.0 + 1e-9));
        let sum: f64 = s.bw_gbps.iter().sum();
        assert!((sum - 500.0).abs() < 1e-9);
    }

    #[test]
    fn an_idle_dimension_gets_the_least_bandwidth_allowed() {
        use crate::optimize::linear::parse_constraint;
        use crate::optimize::Pattern;
        // One pattern max(1/B1, 4/B2); B3 carries nothing. B1 + B2 + B3 = 300, B3 >= 10.
        let rows = ["B1 + B2 + B3 = 300", "B3 >= 10", "B3 <= B1"]
            .iter()
            .map(|t| parse_constraint(t, 3).unwrap())
            .collect();
        let p = Problem {
            dims: 3,
            compute_ns: 0.0,
            patterns: vec![Pattern {
                weight: 1.0,
                a: vec![1.0, 4.0, 0.0],
                alpha: vec![0.0; 3],
                label: "p".into(),
            }],
            cost_per_gbps: vec![1.0; 3],
            rows,
            objective: Objective::Time,
            idle: vec![false, false, true],
        };
        let s = solve(&p, &SolveOptions::default()).unwrap();
        assert_eq!(s.idle_dims, vec![2]);
        // The optimum puts B2 = 4 B1 with B1 + B2 = 290: B1 = 58, time 1/58.
        assert!((s.bw_gbps[0] - 58.0).abs() < 1e-4, "{:?}", s.bw_gbps);
        assert!((s.time_ns - 1.0 / 58.0).abs() <= 1e-6 / 58.0);
        // B3 sits at its bound 10 (up to the 0.1% kept towards the interior).
        assert!(s.bw_gbps[2] >= 10.0 && s.bw_gbps[2] < 10.0 + 1e-3 * 290.0);
        let sum: f64 = s.bw_gbps.iter().sum();
        assert!((sum - 300.0).abs() < 1e-6);
    }
}
