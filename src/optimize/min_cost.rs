//! Minimize the network cost subject to a training-time target: `min Cost(B)` s.t. `T(B) <= target`.
//!
//! Solved along the cost axis with the certified time solver: `T*(c)`, the least time at cost at
//! most `c`, is continuous and non-increasing, so the least cost is the smallest `c` with
//! `T*(c) <= target`. Each probe is a certified `min_time` with the budget row `Cost(B) <= c`:
//! - a design with time `<= target` proves the least cost is at most its cost (upper end);
//! - a proven lower bound on `T*(c)` above the target (or no feasible design at all) proves that no
//!   design of cost `<= c` meets it (lower end).
//!
//! The certified relative gap is `(upper - lower) / upper`. Probes follow the model
//! `T*(c) ~ floor + K / c` (exact without latency and with only a budget: `T_comm` is homogeneous of
//! degree -1), safeguarded by bisection, so a handful of warm solves suffice.

use super::feasible::{analyze, Feasible};
use super::min_time::min_time;
use super::problem::Problem;
use super::solution::{Solution, SolveError, SolveOptions};
use super::time_x_cost::cost_range;

/// The time no bandwidth can beat: compute plus each pattern's largest latency term.
fn time_floor(problem: &Problem) -> f64 {
    problem.compute_ns
        + problem
            .patterns
            .iter()
            .map(|p| p.weight * p.dims().map(|d| p.alpha[d]).fold(0.0, f64::max))
            .sum::<f64>()
}

/// What a probe at one budget proved.
enum Probe {
    /// The fastest design of cost at most the budget, with its certified lower bound.
    Solved(Solution),
    /// No design with every B > 0 costs at most the budget: a proof that the least cost is above.
    Infeasible,
    /// The solver gave no answer: nothing is proved either way.
    Unknown,
}

/// The fastest design of cost at most `budget`.
fn fastest_within(
    problem: &Problem,
    feasible: &Feasible,
    budget: f64,
    opts: &SolveOptions,
) -> Probe {
    let mut rows = feasible.rows.clone();
    rows.push(problem.budget_row(budget));
    match analyze(&rows, problem.dims) {
        Err(_) => Probe::Infeasible,
        Ok(capped) => match min_time(problem, &capped, None, opts) {
            Ok(s) if s.lower_bound.is_finite() && s.time_ns.is_finite() => Probe::Solved(s),
            _ => Probe::Unknown,
        },
    }
}

/// Minimize the network cost subject to `T(B) <= target_ns`, with a certified gap.
pub fn min_cost(
    problem: &Problem,
    feasible: &Feasible,
    target_ns: f64,
    opts: &SolveOptions,
) -> Result<Solution, SolveError> {
    let floor = time_floor(problem);
    let unreachable = |fastest_ns: f64| SolveError::TargetUnreachable {
        target_ns,
        fastest_ns,
    };
    // The inner solves are certified tighter than the answer, so that their bounds decide.
    let inner = SolveOptions {
        rel_gap: opts.rel_gap * 0.01,
        ..*opts
    };
    let (least, most) = cost_range(problem, feasible);
    let mut steps = 0;
    // Upper end: a design meeting the target.
    let mut best = match min_time(problem, feasible, None, &inner) {
        Ok(fast) if fast.time_ns > target_ns => {
            return Err(unreachable(fast.lower_bound.max(floor)));
        }
        Ok(fast) => fast,
        Err(SolveError::Unbounded { .. }) => {
            if floor >= target_ns {
                return Err(unreachable(floor));
            }
            // Grow a budget until some design meets the target.
            let mut c = (least * 2.0)
                .max(problem.cost(&feasible.interior))
                .max(1e-9);
            loop {
                match fastest_within(problem, feasible, c, &inner) {
                    Probe::Solved(s) if s.time_ns <= target_ns => break s,
                    Probe::Solved(s) => steps += s.iterations,
                    Probe::Infeasible | Probe::Unknown => {}
                }
                c *= 10.0;
                if c > 1e300 || most.is_some_and(|m| c > m * 10.0) {
                    return Err(SolveError::Numerical(
                        "no budget found that meets the time target".into(),
                    ));
                }
            }
        }
        Err(e) => return Err(e),
    };
    steps += best.iterations;
    let mut hi = best.cost_usd;
    let mut lo = least;
    // After a probe a hair below the model raised the lower end, the next one goes a hair above.
    let mut above = false;
    for _ in 0..200 {
        if hi - lo <= opts.rel_gap * hi {
            break;
        }
        // The model through the best design: floor + (T - floor) hi / c = target.
        let model = hi * (best.time_ns - floor) / (target_ns - floor);
        let aim = model * (1.0 + if above { 0.5 } else { -0.1 } * opts.rel_gap);
        let c = if aim > lo && aim < hi {
            aim
        } else if lo > 0.0 {
            (lo * hi).sqrt()
        } else {
            0.5 * hi
        };
        above = false;
        match fastest_within(problem, feasible, c, &inner) {
            Probe::Solved(s) => {
                steps += s.iterations;
                if s.time_ns <= target_ns {
                    hi = s.cost_usd.min(c);
                    best = s;
                } else if s.lower_bound > target_ns {
                    lo = c;
                    above = c == aim;
                } else {
                    // The target lies within this probe's certified gap: only a sliver below the
                    // probe is ruled out; the next probe bisects or aims above.
                    above = c == aim;
                }
            }
            Probe::Infeasible => lo = c,
            // No proof at this budget: stop at the gap proved so far (reported, and refused by
            // `solve` when it misses the tolerance).
            Probe::Unknown => break,
        }
    }
    let gap = ((hi - lo) / hi).max(0.0);
    Ok(Solution {
        objective_value: best.cost_usd,
        lower_bound: lo.min(best.cost_usd),
        gap,
        iterations: steps,
        sensitivity: Vec::new(),
        ..best
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scenario::Objective;
    use crate::optimize::{compile, solve};
    use crate::presets;

    #[test]
    fn the_least_cost_for_the_time_a_budget_buys_is_that_budget() {
        let mut sc = presets::default_scenario();
        sc.constraints.total_bw = None;
        sc.constraints.budget_usd = Some(2e7);
        let fast = solve(&compile(&sc).unwrap(), &SolveOptions::default()).unwrap();
        // With the budget row (it binds at the fastest design) and without (no fastest design).
        for budget in [Some(2e7), None] {
            sc.constraints.budget_usd = budget;
            sc.objective = Objective::Cost {
                time_target_ns: fast.time_ns,
            };
            let s = solve(&compile(&sc).unwrap(), &SolveOptions::default()).unwrap();
            assert!((s.cost_usd / 2e7 - 1.0).abs() <= 1e-6, "{}", s.cost_usd);
            assert!(s.time_ns <= fast.time_ns * (1.0 + 1e-12));
            assert!(s.gap <= 1e-6 && s.lower_bound <= 2e7 * (1.0 + 1e-9));
        }
        // Faster than compute alone: unreachable, with the floor named.
        sc.objective = Objective::Cost {
            time_target_ns: 1e6,
        };
        let e = solve(&compile(&sc).unwrap(), &SolveOptions::default()).unwrap_err();
        assert!(matches!(e, SolveError::TargetUnreachable { .. }), "{e}");
    }

    #[test]
    fn the_least_cost_is_right_at_every_target() {
        // No latency and no constraint: T_comm is homogeneous of degree -1 in B, so the least cost
        // for a target is K / (target - compute) with one K for every target. The lower bound was
        // false (absolute tolerances) beyond about 1.25e18 ns, 80x off at 1e20.
        let mut sc = presets::default_scenario();
        sc.constraints.total_bw = None;
        let mut at = |target: f64| {
            sc.objective = Objective::Cost {
                time_target_ns: target,
            };
            let p = compile(&sc).unwrap();
            let s = solve(&p, &SolveOptions::default()).unwrap();
            assert!(
                s.gap <= 1e-6 && s.lower_bound <= s.cost_usd,
                "{target}: {s:?}"
            );
            (s.cost_usd, p.compute_ns)
        };
        let (c0, compute) = at(1e12);
        let k = c0 * (1e12 - compute);
        for target in [2e9, 1e15, 1e18, 1e20, 1e24, 1e40] {
            let (c, _) = at(target);
            let want = k / (target - compute);
            assert!((c / want - 1.0).abs() <= 2e-6, "{target}: {c} vs {want}");
        }
    }
}
