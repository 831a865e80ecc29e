//! The optimizer against LIBRA + Gurobi (tests/data/libra_reference.json): every reference optimum
//! is matched or beaten (objective within 1e-6 relative, or lower), and every point of the reference
//! Pareto front (an exact conic solve) is matched within 1e-6; by both methods, interior point and
//! projected gradient.

mod common;

use common::{numbers, reference, scenario};
use libra_studio::model::scenario::{Objective, TotalBandwidth};
use libra_studio::optimize::{compile, solve, Method, SolveOptions};

fn constrain(sc: &mut libra_studio::model::Scenario, name: &str) {
    match name {
        "total_bw_500gbps" => sc.constraints.total_bw = Some(TotalBandwidth::Equal(500.0)),
        "multiple_constraints" => {
            sc.constraints.total_bw = Some(TotalBandwidth::Equal(1000.0));
            sc.constraints.linear = ["B1 = 500", "B1 >= B2", "B2 >= B3", "B3 + B4 = 200"]
                .map(String::from)
                .to_vec();
        }
        other => panic!("unknown reference constraint {other}"),
    }
}

#[test]
fn reference_optima_are_matched_or_beaten() {
    let reference = reference();
    for entry in reference["configs"].as_array().unwrap() {
        let mut sc = scenario(entry);
        constrain(&mut sc, entry["constraint"].as_str().unwrap());
        sc.objective = match entry["objective"].as_str().unwrap() {
            "perf" => Objective::Time,
            "perf_per_cost" => Objective::TimeXCost,
            other => panic!("unknown objective {other}"),
        };
        let label = format!(
            "{} {} {}",
            entry["workload"], entry["constraint"], entry["objective"]
        );
        let problem = compile(&sc).unwrap();
        for method in Method::ALL {
            let label = format!("{label} {}", method.key());
            let opts = SolveOptions {
                method,
                ..SolveOptions::default()
            };
            let s = solve(&problem, &opts).unwrap_or_else(|e| panic!("{label}: {e}"));
            let want = entry["best"]["objective_value"].as_f64().unwrap();
            assert!(
                s.objective_value <= want * (1.0 + 1e-6),
                "{label}: ours {} vs reference {want} ({:e})",
                s.objective_value,
                s.objective_value / want - 1.0
            );
            assert!(s.gap <= 1e-6, "{label}: gap {}", s.gap);
            // The certificate is a true lower bound: it does not exceed the reference optimum.
            assert!(
                s.lower_bound <= want * (1.0 + 1e-9),
                "{label}: bound {} above {want}",
                s.lower_bound
            );
            // The design satisfies its constraints.
            let ev = sc.evaluate(&s.bw_gbps).unwrap();
            assert!((ev.time_ns - s.time_ns).abs() <= 1e-9 * s.time_ns);
            let sum: f64 = s.bw_gbps.iter().sum();
            let total = if entry["constraint"] == "total_bw_500gbps" {
                500.0
            } else {
                1000.0
            };
            assert!((sum - total).abs() <= 1e-9 * total, "{label}: sum {sum}");
            // Time on LIBRA's multiple constraints (B1 and B2 fixed by the rows, B3 + B4 = 200) is
            // solved by the active set's Newton method straight from the start: the term that joins
            // a singular system is one on a bandwidth the rows leave free (B4), never the barrier.
            if method == Method::InteriorPoint
                && sc.objective == Objective::Time
                && entry["constraint"] == "multiple_constraints"
            {
                assert_eq!(s.iterations, 0, "{label}: barrier steps");
            }
            eprintln!(
                "{label}: {} (reference {want}, {:+e}), gap {:e}, {} steps",
                s.objective_value,
                s.objective_value / want - 1.0,
                s.gap,
                s.iterations
            );
        }
    }
}

#[test]
fn reference_front_points_are_matched() {
    let reference = reference();
    for front in reference["pareto_fronts"].as_array().unwrap() {
        let base = scenario(front);
        for p in front["points"].as_array().unwrap() {
            let mut sc = base.clone();
            sc.constraints.budget_usd = Some(p["budget_usd"].as_f64().unwrap());
            sc.constraints.min_gbps = vec![Some(1.0); sc.network.dims.len()];
            let problem = compile(&sc).unwrap();
            for method in Method::ALL {
                let opts = SolveOptions {
                    method,
                    ..SolveOptions::default()
                };
                let s = solve(&problem, &opts).unwrap_or_else(|e| panic!("{}: {e}", method.key()));
                let want = p["time_ns"].as_f64().unwrap();
                let budget = p["budget_usd"].as_f64().unwrap();
                let rel = s.time_ns / want - 1.0;
                // Matched or beaten: the reference is itself an iterative solve, and some of its points lie
                // above the optimum by up to ~2e-5 (e.g. the 4:1 balance of GPT-3's TP pattern is off in the
                // 5th digit); ours are certified, and the reference designs respect our lower bounds.
                assert!(
                    rel <= 1e-6,
                    "budget {budget}: {} vs {want} ({rel:e})",
                    s.time_ns
                );
                assert!(s.gap <= 1e-6, "budget {budget}: gap {}", s.gap);
                assert!(s.cost_usd <= budget * (1.0 + 1e-12), "over budget");
                assert!(s.bw_gbps.iter().all(|b| *b >= 1.0 - 1e-12));
                // The reference design is feasible, so it cannot beat our certified bound.
                let theirs = sc.evaluate(&numbers(&p["bw_gbps"])).unwrap();
                assert!(theirs.time_ns >= s.lower_bound * (1.0 - 1e-12));
            }
        }
    }
}
