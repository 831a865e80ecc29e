//! A study of one scenario: everything the app's results panel shows, computed by the core in one
//! call. The optimum for the scenario's objective with its evaluation (time and cost breakdowns),
//! the uniform allocation next to it and the speedup, and the Pareto front of cost against time.
//!
//! The front sweeps the budget over the scenario's own per-dimension bounds and linear constraints;
//! its total-bandwidth and budget constraints are what single out one design, so they are left out
//! of the front (the current design is then a point on or above it). The budgets span a quarter of
//! the cheaper of the optimum and the uniform design to four times the dearer, log-spaced.

use crate::model::scenario::{Evaluation, Objective, Scenario, ScenarioError};
use crate::optimize::problem::{compile, constraint_rows, CompileError, Problem};
use crate::optimize::solver::{solve, Solution, SolveError, SolveOptions};
use crate::optimize::sweep::{budget_range, pareto, uniform, Front};
use crate::optimize::Method;

/// Points on the front the app draws.
pub const FRONT_POINTS: usize = 48;

/// The uniform allocation: the same bandwidth in every dimension, the largest the constraints allow.
#[derive(Clone, Debug, PartialEq)]
pub struct UniformDesign {
    pub bw_gbps: Vec<f64>,
    pub evaluation: Evaluation,
}

/// The results of one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Study {
    /// "d1 Ring", "d2 FullyConnected", ...: how charts and tables name the dimensions.
    pub dim_labels: Vec<String>,
    pub problem: Problem,
    /// The method that found the optimum.
    pub method: Method,
    pub optimum: Solution,
    /// The scenario evaluated at the optimum (time and cost breakdowns).
    pub evaluation: Evaluation,
    /// None when no uniform allocation satisfies the constraints (e.g. `B1 >= B2 + 10`).
    pub uniform: Option<UniformDesign>,
    /// The front of cost against time, or why it could not be computed.
    pub front: Result<Front, StudyError>,
}

impl Study {
    /// Uniform time over optimal time.
    pub fn speedup(&self) -> Option<f64> {
        let u = self.uniform.as_ref()?;
        Some(u.evaluation.time_ns / self.evaluation.time_ns)
    }
}

/// Why a scenario has no results.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StudyError {
    #[error(transparent)]
    Compile(#[from] CompileError),
    #[error(transparent)]
    Solve(#[from] SolveError),
    #[error(transparent)]
    Evaluate(#[from] ScenarioError),
}

/// The budgets of the front around the costs of the designs shown.
pub fn front_budgets(costs: &[f64]) -> Vec<f64> {
    let lo = costs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = costs.iter().copied().fold(0.0, f64::max);
    if !(lo.is_finite() && lo > 0.0 && hi.is_finite()) {
        return Vec::new();
    }
    budget_range(lo / 4.0, hi * 4.0, FRONT_POINTS)
}

/// The problem whose budget sweep is the front: the scenario's bounds and linear constraints only.
fn front_problem(sc: &Scenario, problem: &Problem) -> Result<Problem, CompileError> {
    let mut open = sc.clone();
    open.constraints.total_bw = None;
    open.constraints.budget_usd = None;
    Ok(Problem {
        rows: constraint_rows(&open, &problem.cost_per_gbps)?,
        objective: Objective::Time,
        ..problem.clone()
    })
}

/// Solve `sc` for its objective, evaluate the optimum and the uniform design, and sweep the front.
pub fn study(sc: &Scenario) -> Result<Study, StudyError> {
    study_by(sc, Method::InteriorPoint)
}

/// [`study`] with the optimum found by `method` (the front is always swept by the interior-point
/// method, warm-started along the budgets).
pub fn study_by(sc: &Scenario, method: Method) -> Result<Study, StudyError> {
    let problem = compile(sc)?;
    let optimum = solve(
        &problem,
        &SolveOptions {
            method,
            ..SolveOptions::default()
        },
    )?;
    let opts = SolveOptions::default();
    let evaluation = sc.evaluate(&optimum.bw_gbps)?;
    let uniform = match uniform(&problem) {
        Some(bw) => Some(UniformDesign {
            evaluation: sc.evaluate(&bw)?,
            bw_gbps: bw,
        }),
        None => None,
    };
    let mut costs = vec![evaluation.cost_usd];
    costs.extend(uniform.iter().map(|u| u.evaluation.cost_usd));
    // A front that cannot be compiled says so (not as a numerical failure of the solver).
    let front = front_problem(sc, &problem)
        .map_err(StudyError::from)
        .and_then(|fp| pareto(&fp, &front_budgets(&costs), &opts).map_err(StudyError::from));
    let dim_labels = sc
        .network
        .dims
        .iter()
        .enumerate()
        .map(|(i, d)| format!("d{} {}", i + 1, d.topology))
        .collect();
    Ok(Study {
        dim_labels,
        problem,
        method,
        optimum,
        evaluation,
        uniform,
        front,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scenario::TotalBandwidth;
    use crate::presets;

    #[test]
    fn the_default_scenario() {
        let s = study(&presets::default_scenario()).unwrap();
        // libra_reference.json: 722411780.9202211 ns optimum, speedup 1.072857930711946.
        assert!(s.evaluation.time_ns <= 722411780.9202211 * (1.0 + 1e-6));
        assert_eq!(s.uniform.as_ref().unwrap().bw_gbps, vec![125.0; 4]);
        assert!((s.speedup().unwrap() - 1.072857930711946).abs() < 1e-6);
        let front = s.front.as_ref().unwrap();
        assert_eq!(front.points.len(), FRONT_POINTS);
        // The front, free of sum B = 500, is at least as fast at the optimum's cost.
        let cost = s.evaluation.cost_usd;
        let above = front.points.iter().find(|p| p.budget_usd >= cost).unwrap();
        assert!(above.time_ns <= s.evaluation.time_ns * (1.0 + 1e-6));
    }

    #[test]
    fn conflicting_constraints_are_an_error_naming_them() {
        let mut sc = presets::default_scenario();
        sc.constraints.total_bw = Some(TotalBandwidth::Equal(100.0));
        sc.constraints.linear = vec!["B1 >= 60".into(), "B2 >= 50".into()];
        let e = study(&sc).unwrap_err().to_string();
        assert!(e.contains("B1 >= 60") && e.contains("B2 >= 50"), "{e}");
    }

    #[test]
    fn budgets_span_the_designs() {
        let b = front_budgets(&[1e7, 4e7]);
        assert_eq!(b.len(), FRONT_POINTS);
        assert!((b[0] - 2.5e6).abs() < 1e-6 && (b[FRONT_POINTS - 1] - 1.6e8).abs() < 1e-3);
        assert!(front_budgets(&[]).is_empty());
    }
}
