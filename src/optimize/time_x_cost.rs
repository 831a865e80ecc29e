//! Minimize time x cost (LIBRA's PerfPerCost, reported as `T_ns * Cost_usd / 1e10`).
//!
//! The product is not convex in B, but along the cost axis it is one-dimensional: with `T*(c)` the
//! least time at cost at most `c` (a convex problem: `solver::min_time` with a budget row), the
//! optimum is `min_c c T*(c)`. Each solve at a budget `c_k` proves a lower bound `L_k` and a shadow
//! price `s_k = dL/dc`; as the dual multipliers stay feasible when only the budget changes, the
//! affine function `L_k + s_k (c - c_k)` bounds `T*` from below for every `c` (and so does the compute
//! time). So `c T*(c) >= c l(c)`, `l` the upper envelope of these cuts, a piecewise-concave function
//! whose minimum sits at a breakpoint: a certified lower bound. The next budget probed is that
//! minimizer (Kelley's cutting planes), until the best design found is within the relative gap.

use super::feasible::{analyze, Feasible};
use super::lp::{solve as lp, LpResult, Row};
use super::min_time::min_time;
use super::problem::Problem;
use super::solution::{Solution, SolveError, SolveOptions};

const SCALE: f64 = 1e10;

/// The least and largest cost over the feasible set (None: unbounded above).
pub(crate) fn cost_range(problem: &Problem, feasible: &Feasible) -> (f64, Option<f64>) {
    let rows: &[Row] = &feasible.rows;
    let lo = match lp(&problem.cost_per_gbps, rows) {
        LpResult::Optimal { value, .. } => value,
        _ => 0.0,
    };
    let neg: Vec<f64> = problem.cost_per_gbps.iter().map(|c| -c).collect();
    let hi = match lp(&neg, rows) {
        LpResult::Optimal { value, .. } => Some(-value),
        _ => None,
    };
    (lo, hi)
}

/// The fastest design at cost at most `budget` and the shadow price of the budget, or None if that
/// budget leaves no interior.
fn at_budget(
    problem: &Problem,
    feasible: &Feasible,
    budget: f64,
    start: Option<&[f64]>,
    opts: &SolveOptions,
) -> Option<(Solution, f64)> {
    let mut rows = feasible.rows.clone();
    rows.push(problem.budget_row(budget));
    // The box of the certificate must not depend on the budget for the cuts to hold everywhere.
    let f = analyze(&rows, problem.dims).ok()?.with_upper_of(feasible);
    let s = min_time(problem, &f, start, opts).ok()?;
    let slope = *s.sensitivity.last()?;
    Some((s, slope))
}

/// `T*(c) >= a + s c`.
#[derive(Clone, Copy, Debug)]
struct Cut {
    a: f64,
    s: f64,
}

/// The minimum of `c max(floor, max_k a_k + s_k c)` over `[lo, hi]`, and where it is attained.
fn envelope_min(cuts: &[Cut], floor: f64, lo: f64, hi: f64) -> (f64, f64) {
    let l = |c: f64| cuts.iter().map(|k| k.a + k.s * c).fold(floor, f64::max);
    let mut candidates = vec![lo, hi];
    let mut lines: Vec<Cut> = cuts.to_vec();
    lines.push(Cut { a: floor, s: 0.0 });
    for i in 0..lines.len() {
        for j in i + 1..lines.len() {
            let ds = lines[i].s - lines[j].s;
            if ds != 0.0 {
                let c = (lines[j].a - lines[i].a) / ds;
                if c > lo && c < hi {
                    candidates.push(c);
                }
            }
        }
    }
    candidates
        .into_iter()
        .map(|c| (c * l(c), c))
        .fold(
            (f64::INFINITY, lo),
            |best, x| if x.0 < best.0 { x } else { best },
        )
}

/// The state of the search: the cuts, the best design, the budgets probed.
struct Search<'a> {
    problem: &'a Problem,
    feasible: &'a Feasible,
    inner: SolveOptions,
    cuts: Vec<Cut>,
    /// The budget of each cut.
    cuts_at: Vec<f64>,
    best: Option<Solution>,
    probed: Vec<f64>,
    steps: usize,
}

impl Search<'_> {
    /// Solve at `budget`; false if that budget leaves no interior.
    fn probe(&mut self, budget: f64) -> bool {
        self.probed.push(budget);
        let start = self.best.as_ref().map(|b| b.bw_gbps.clone());
        match at_budget(
            self.problem,
            self.feasible,
            budget,
            start.as_deref(),
            &self.inner,
        ) {
            Some((s, slope)) => {
                self.steps += s.iterations;
                self.cuts.push(Cut {
                    a: s.lower_bound - slope * budget,
                    s: slope,
                });
                self.cuts_at.push(budget);
                if s.time_ns * s.cost_usd < self.best_value() {
                    self.best = Some(s);
                }
                true
            }
            None => false,
        }
    }

    fn best_value(&self) -> f64 {
        self.best
            .as_ref()
            .map_or(f64::INFINITY, |b| b.time_ns * b.cost_usd)
    }
}

/// Minimize `T(B) Cost(B)` over the feasible set; objective values are in LIBRA's units (/1e10).
pub fn min_time_x_cost(
    problem: &Problem,
    feasible: &Feasible,
    opts: &SolveOptions,
) -> Result<Solution, SolveError> {
    let (c_lo, c_hi) = cost_range(problem, feasible);
    let mut search = Search {
        problem,
        feasible,
        inner: SolveOptions {
            rel_gap: opts.rel_gap * 0.01,
            ..*opts
        },
        cuts: Vec::new(),
        cuts_at: Vec::new(),
        best: None,
        probed: Vec::new(),
        steps: 0,
    };
    let lo = c_lo.max(1e-300);
    let hi = match c_hi {
        Some(h) => h,
        None => {
            // Unbounded cost: T >= compute, so nothing above (best product) / compute can win.
            let mut b = lo.max(1.0) * 2.0;
            while !search.probe(b) {
                b *= 2.0;
                if b > 1e300 {
                    return Err(SolveError::Numerical(
                        "no design found at any budget".into(),
                    ));
                }
            }
            (search.best_value() / problem.compute_ns.max(1e-30)).max(b)
        }
    };
    for i in 1..=6 {
        search.probe(lo * (hi / lo).powf(f64::from(i) / 6.0));
    }
    let floor = problem.compute_ns;
    let mut lb = 0.0;
    // The largest budget found to leave no (numerically usable) interior.
    let mut failed = lo;
    for _ in 0..200 {
        let ub = search.best_value();
        let (l, at) = envelope_min(&search.cuts, floor, lo, hi);
        lb = l;
        if (ub - lb) / ub <= opts.rel_gap {
            break;
        }
        // Probe the minimizer of the bound; below the last failure, approach it geometrically from
        // the cheapest successful probe instead.
        let c = if at <= failed * (1.0 + 1e-12) {
            let cheapest = search
                .cuts_at
                .iter()
                .copied()
                .filter(|c| *c > failed)
                .fold(hi, f64::min);
            (failed * cheapest).sqrt()
        } else {
            at.min(hi)
        };
        if search.probed.iter().any(|p| (p - c).abs() <= 1e-13 * c) {
            break;
        }
        if !search.probe(c) {
            failed = failed.max(c);
        }
    }
    let steps = search.steps;
    let b = search
        .best
        .ok_or(SolveError::Numerical("no feasible budget found".into()))?;
    let value = b.time_ns * b.cost_usd / SCALE;
    let lower = (lb / SCALE).min(value);
    Ok(Solution {
        objective_value: value,
        lower_bound: lower,
        gap: ((value - lower) / value).max(0.0),
        iterations: steps,
        ..b
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_of_cuts() {
        // T >= 10 - c (slope -1) and the floor 2: c l(c) on [1, 20] is min at c = 1: 1 * 9 = 9,
        // or at the far end 20 * 2 = 40; the kink at c = 8 gives 16.
        let (v, at) = envelope_min(&[Cut { a: 10.0, s: -1.0 }], 2.0, 1.0, 20.0);
        assert_eq!((v, at), (9.0, 1.0));
        let (v, at) = envelope_min(&[Cut { a: 100.0, s: -1.0 }], 2.0, 90.0, 200.0);
        // At 90: 90 * 10 = 900; kink at 98: 196; at 200: 400.
        assert_eq!((v, at), (196.0, 98.0));
    }
}
