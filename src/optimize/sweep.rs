//! Sweeps: the Pareto front of cost against training time over a range of budgets (warm-started),
//! and the uniform-allocation baseline.

use super::feasible::{analyze, Feasible};
use super::linear::Relation;
use super::min_time::{min_time_warm, Warm};
use super::problem::Problem;
use super::solution::{certified, SolveError, SolveOptions};
use serde::Serialize;

/// One design of a front.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrontPoint {
    pub budget_usd: f64,
    pub bw_gbps: Vec<f64>,
    pub time_ns: f64,
    pub cost_usd: f64,
    pub gap: f64,
}

/// The least training time at each budget; budgets that admit no design are listed apart.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Front {
    pub points: Vec<FrontPoint>,
    pub infeasible_budgets: Vec<f64>,
}

impl Front {
    /// The front as CSV: budget, time, cost, certified gap, then the bandwidth of each of `dims`
    /// dimensions; one row per design.
    pub fn to_csv(&self, dims: usize) -> String {
        let mut out = String::from("budget_usd,time_ns,cost_usd,gap");
        for d in 1..=dims {
            out.push_str(&format!(",bw{d}_gbps"));
        }
        out.push('\n');
        for p in &self.points {
            out.push_str(&format!(
                "{},{},{},{}",
                p.budget_usd, p.time_ns, p.cost_usd, p.gap
            ));
            for b in &p.bw_gbps {
                out.push_str(&format!(",{b}"));
            }
            out.push('\n');
        }
        out
    }
}

/// `n` budgets from `lo` to `hi` (both positive and finite), evenly spaced on a log scale (`n = 1`
/// gives `lo`). Interpolated between the logarithms, so that `hi / lo` may exceed the range of f64.
pub fn budget_range(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    match n {
        0 => Vec::new(),
        1 => vec![lo],
        _ => {
            let (a, b) = (lo.ln(), hi.ln());
            (0..n)
                .map(|i| match i {
                    0 => lo,
                    _ if i == n - 1 => hi,
                    _ => (a + (b - a) * (i as f64 / (n - 1) as f64)).exp(),
                })
                .collect()
        }
    }
}

/// The front of `problem` (its own rows plus `cost <= budget`) at each budget, each solve starting
/// from the previous design and its active set.
pub fn pareto(
    problem: &Problem,
    budgets: &[f64],
    opts: &SolveOptions,
) -> Result<Front, SolveError> {
    let mut front = Front::default();
    let mut last: Option<Warm> = None;
    let mut last_feasible: Option<Feasible> = None;
    for &budget in budgets {
        let mut rows = problem.rows.clone();
        rows.push(problem.budget_row(budget));
        let reused = last_feasible
            .as_ref()
            .and_then(|f: &Feasible| f.loosened(&rows));
        let feasible = match reused.map_or_else(|| analyze(&rows, problem.dims), Ok) {
            Ok(f) => f,
            Err(_) => {
                front.infeasible_budgets.push(budget);
                continue;
            }
        };
        // A warm start that does not certify is retried cold; an answer that still does not is an
        // error naming the budget, never a point with a broken certificate.
        let solved = min_time_warm(problem, &feasible, None, last.as_ref(), opts)
            .and_then(|(s, w)| certified(s, opts).map(|s| (s, w)));
        let (s, warm) = match solved {
            Err(_) if last.is_some() => analyze(&rows, problem.dims)
                .map_err(SolveError::from)
                .and_then(|fresh| min_time_warm(problem, &fresh, None, None, opts))
                .and_then(|(s, w)| certified(s, opts).map(|s| (s, w))),
            other => other,
        }
        .map_err(|e| SolveError::AtBudget {
            budget_usd: budget,
            error: Box::new(e),
        })?;
        last = Some(warm);
        last_feasible = Some(feasible);
        front.points.push(FrontPoint {
            budget_usd: budget,
            bw_gbps: s.bw_gbps,
            time_ns: s.time_ns,
            cost_usd: s.cost_usd,
            gap: s.gap,
        });
    }
    Ok(front)
}

/// The uniform allocation: the same bandwidth `beta` in every dimension, the largest `beta` that
/// the rows allow (e.g. `total / D` under a total-bandwidth constraint). None if no uniform
/// allocation is feasible or `beta` is unbounded.
pub fn uniform(problem: &Problem) -> Option<Vec<f64>> {
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    for r in &problem.rows {
        let a: f64 = r.coeffs.iter().sum();
        let tol = 1e-12 * r.rhs.abs().max(1.0);
        match r.rel {
            Relation::Eq if a == 0.0 => {
                if r.rhs.abs() > tol {
                    return None;
                }
            }
            Relation::Eq => {
                let b = r.rhs / a;
                lo = lo.max(b);
                hi = hi.min(b);
            }
            Relation::Le | Relation::Ge => {
                let le = r.rel == Relation::Le;
                if a == 0.0 {
                    if (le && r.rhs < -tol) || (!le && r.rhs > tol) {
                        return None;
                    }
                } else if (a > 0.0) == le {
                    hi = hi.min(r.rhs / a);
                } else {
                    lo = lo.max(r.rhs / a);
                }
            }
        }
    }
    let feasible = hi.is_finite() && hi > 0.0 && lo <= hi * (1.0 + 1e-12);
    feasible.then(|| vec![hi; problem.dims])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scenario::TotalBandwidth;
    use crate::optimize::compile;
    use crate::presets;

    #[test]
    fn budgets_are_log_spaced() {
        let b = budget_range(1e6, 1e8, 3);
        assert!((b[1] - 1e7).abs() < 1e-6);
        assert_eq!(budget_range(5.0, 9.0, 1), vec![5.0]);
        assert!(budget_range(1.0, 2.0, 0).is_empty());
        // A range wider than f64 (hi / lo overflows): still every budget finite and increasing.
        let wide = budget_range(1e-160, 1e160, 5);
        assert_eq!(wide.len(), 5);
        for (got, want) in wide.iter().zip([1e-160, 1e-80, 1.0, 1e80, 1e160]) {
            assert!((got / want - 1.0).abs() < 1e-9, "{got} vs {want}");
        }
    }

    #[test]
    fn uniform_split_of_the_default_scenario() {
        let p = compile(&presets::default_scenario()).unwrap();
        assert_eq!(uniform(&p), Some(vec![125.0; 4]));
        let mut sc = presets::default_scenario();
        sc.constraints.total_bw = None;
        sc.constraints.budget_usd = Some(1e7);
        let p = compile(&sc).unwrap();
        let u = uniform(&p).unwrap();
        assert!((p.cost(&u) - 1e7).abs() < 1e-6);
        sc.constraints.budget_usd = None;
        assert_eq!(uniform(&compile(&sc).unwrap()), None);
        sc.constraints.total_bw = Some(TotalBandwidth::Equal(100.0));
        sc.constraints.linear = vec!["B1 >= 30".into()];
        assert_eq!(uniform(&compile(&sc).unwrap()), None);
    }

    #[test]
    fn the_front_is_monotone_and_below_budget() {
        let mut sc = presets::default_scenario();
        sc.constraints.total_bw = None;
        sc.constraints.min_gbps = vec![Some(1.0); 4];
        let p = compile(&sc).unwrap();
        let budgets = budget_range(8e6, 8e7, 16);
        let front = pareto(&p, &budgets, &SolveOptions::default()).unwrap();
        assert_eq!(front.points.len(), 16);
        for w in front.points.windows(2) {
            assert!(w[1].time_ns <= w[0].time_ns * (1.0 + 1e-12));
        }
        for pt in &front.points {
            assert!(pt.cost_usd <= pt.budget_usd * (1.0 + 1e-12));
            assert!(pt.gap <= 1e-6);
        }
        // A budget below the cheapest allowed design (every B >= 1 GB/s) is infeasible.
        let front = pareto(&p, &[1.0], &SolveOptions::default()).unwrap();
        assert_eq!(front.infeasible_budgets, vec![1.0]);
    }

    #[test]
    fn the_warm_started_front_equals_cold_solves() {
        let mut sc = presets::default_scenario();
        sc.constraints.total_bw = None;
        sc.constraints.min_gbps = vec![Some(1.0); 4];
        sc.constraints.linear = vec!["B2 >= B3".into()];
        let p = compile(&sc).unwrap();
        let budgets = budget_range(6e6, 1e8, 24);
        let opts = SolveOptions::default();
        let front = pareto(&p, &budgets, &opts).unwrap();
        assert!(front.infeasible_budgets.is_empty());
        for pt in &front.points {
            let mut rows = p.rows.clone();
            rows.push(p.budget_row(pt.budget_usd));
            let cold = min_time_warm(&p, &analyze(&rows, 4).unwrap(), None, None, &opts).unwrap();
            let rel = (pt.time_ns - cold.0.time_ns).abs() / cold.0.time_ns;
            assert!(rel <= 2e-6, "budget {}: {rel:e}", pt.budget_usd);
            assert!(pt.gap <= 1e-6);
        }
    }
}
