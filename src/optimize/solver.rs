//! The certified solver: minimize training time, time x cost, or cost for a time target, over the
//! feasible bandwidths, and prove how close the answer is to the optimum. This file dispatches on
//! the objective; the parts live one concept per file:
//! - `solution.rs`: settings, solutions, errors, and the certified-gap check;
//! - `min_time.rs`: the barrier run, warm starts along a sweep;
//! - `certificate.rs`: multipliers, the dual bound, sensitivities;
//! - `min_cost.rs`, `time_x_cost.rs`: the other objectives on top of `min_time`.
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

use super::feasible::analyze;
use super::min_time::min_time;
use super::problem::Problem;
use super::solution::certified;
pub use super::solution::{Solution, SolveError, SolveOptions};
use crate::model::scenario::Objective;

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

    fn problem(rows: &[&str], a: Vec<f64>) -> Problem {
        use crate::optimize::linear::parse_constraint;
        use crate::optimize::Pattern;
        let dims = a.len();
        Problem {
            dims,
            compute_ns: 0.0,
            patterns: vec![Pattern {
                weight: 1.0,
                alpha: vec![0.0; dims],
                label: "p".into(),
                a: a.clone(),
            }],
            cost_per_gbps: vec![1.0; dims],
            rows: rows
                .iter()
                .map(|t| parse_constraint(t, dims).unwrap())
                .collect(),
            objective: Objective::Time,
            idle: a.iter().map(|v| *v == 0.0).collect(),
        }
    }

    /// Degenerate feasible sets, by both methods: the optimum with its certificate, never a
    /// singular system or a NaN.
    #[test]
    fn degenerate_problems_are_solved_by_both_methods() {
        // (name, rows, bytes per dimension, the optimum)
        type Case = (&'static str, Vec<&'static str>, Vec<f64>, Vec<f64>);
        let cases: [Case; 3] = [
            // Every bandwidth fixed by the rows.
            (
                "all fixed",
                vec!["B1 = 100", "B2 = 200", "B3 = 50"],
                vec![1.0, 2.0, 3.0],
                vec![100.0, 200.0, 50.0],
            ),
            // A budget exactly at the cheapest design (B >= 1 at cost 1 each): one point.
            (
                "budget at the cheapest",
                vec!["B1 + B2 + B3 <= 3", "B1 >= 1", "B2 >= 1", "B3 >= 1"],
                vec![1.0, 2.0, 3.0],
                vec![1.0, 1.0, 1.0],
            ),
            // Bounds that meet, beside a total: B1 = 10 from two rows, the rest split 2 : 3.
            (
                "bounds that meet",
                vec!["B1 + B2 + B3 = 100", "B1 >= 10", "B1 <= 10"],
                vec![0.1, 2.0, 3.0],
                vec![10.0, 36.0, 54.0],
            ),
        ];
        for (name, rows, a, want) in cases {
            let p = problem(&rows, a);
            for method in crate::optimize::Method::ALL {
                let opts = SolveOptions {
                    method,
                    ..SolveOptions::default()
                };
                let s = solve(&p, &opts).unwrap_or_else(|e| panic!("{name} {method:?}: {e}"));
                assert!(s.gap <= 1e-6 && s.time_ns.is_finite(), "{name} {method:?}");
                for (b, w) in s.bw_gbps.iter().zip(&want) {
                    assert!(
                        (b - w).abs() <= 1e-6 * w,
                        "{name} {method:?}: {:?}",
                        s.bw_gbps
                    );
                }
            }
        }
    }

    /// Out of steps, the projected-gradient method says so with the gap it proved.
    #[test]
    fn the_projected_gradient_method_stops_with_its_gap() {
        let p = compile(&presets::default_scenario()).unwrap();
        let opts = SolveOptions {
            method: crate::optimize::Method::ProjectedGradient,
            max_gradient_steps: 3,
            rel_gap: 1e-15,
            ..SolveOptions::default()
        };
        match solve(&p, &opts) {
            Err(SolveError::GapNotReached { steps, gap, .. }) => {
                assert!(steps <= 3 && gap.is_finite() && gap >= 0.0, "{steps} {gap}");
            }
            other => panic!("{other:?}"),
        }
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
        for method in crate::optimize::Method::ALL {
            let opts = SolveOptions {
                method,
                ..SolveOptions::default()
            };
            let s = solve(&p, &opts).unwrap();
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
}
