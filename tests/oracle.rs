//! The optimizer against an independent exact conic solver (Clarabel) on random instances, and the
//! invariants of docs/design.md section 3.
//!
//! Oracle formulation (epigraph): minimize `sum_p w_p t_p` subject to `(t_p - alpha_pd) B_d >= a_pd`
//! for every used (p, d), as the second-order cone `||(2 sqrt(a), u - B)|| <= u + B` with
//! `u = t_p - alpha_pd`, plus the linear rows and `B >= 0`.

mod common;

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};
use common::Rng;
use libra_studio::model::scenario::{Scenario, TotalBandwidth, WorkloadSpec};
use libra_studio::model::{
    Collective, Communicator, CostModel, CostTier, Dim, Layer, ModelOptions, Network, Phase,
    Topology, Workload,
};
use libra_studio::optimize::linear::Relation;
use libra_studio::optimize::sweep::{budget_range, pareto};
use libra_studio::optimize::{compile, solve, Method, Problem, SolveError, SolveOptions};

/// The oracle's optimal time, or None if Clarabel did not solve it.
fn oracle(p: &Problem) -> Option<f64> {
    let dims = p.dims;
    let pats = p.patterns.len();
    let n = dims + pats;
    // Variables scaled to O(1): B = beta B', t = t' / beta, with beta the uniform bandwidth that the
    // first row allows (so that the cones (t' - alpha beta) B' >= a are well conditioned).
    let beta = p
        .rows
        .first()
        .map(|r| r.rhs.abs() / r.coeffs.iter().map(|c| c.abs()).sum::<f64>())
        .filter(|b| b.is_finite() && *b > 0.0)
        .unwrap_or(1.0);
    let mut rows: Vec<(Vec<f64>, f64)> = Vec::new();
    let mut cones = Vec::new();
    let eq: Vec<_> = p.rows.iter().filter(|r| r.rel == Relation::Eq).collect();
    for r in &eq {
        let mut a: Vec<f64> = r.coeffs.iter().map(|c| c * beta).collect();
        a.resize(n, 0.0);
        rows.push((a, r.rhs));
    }
    if !eq.is_empty() {
        cones.push(SupportedConeT::ZeroConeT(eq.len()));
    }
    let mut nonneg = 0;
    for r in p.rows.iter().filter(|r| r.rel != Relation::Eq) {
        let sign = if r.rel == Relation::Le { 1.0 } else { -1.0 };
        let mut a: Vec<f64> = r.coeffs.iter().map(|c| sign * c * beta).collect();
        a.resize(n, 0.0);
        rows.push((a, sign * r.rhs));
        nonneg += 1;
    }
    for d in 0..dims {
        let mut a = vec![0.0; n];
        a[d] = -1.0;
        rows.push((a, 0.0));
        nonneg += 1;
    }
    cones.push(SupportedConeT::NonnegativeConeT(nonneg));
    // Each pattern's t is also scaled by rho_p, its largest a (or alpha): t_p = rho_p t'_p / beta.
    let rho: Vec<f64> = p
        .patterns
        .iter()
        .map(|pat| {
            let m = pat
                .a
                .iter()
                .chain(&pat.alpha)
                .fold(0.0f64, |m, v| m.max(*v));
            if m > 0.0 {
                m
            } else {
                1.0
            }
        })
        .collect();
    for (pi, pat) in p.patterns.iter().enumerate() {
        for d in pat.dims() {
            let (a, alpha) = (pat.a[d] / rho[pi], pat.alpha[d] / rho[pi] * beta);
            // s = b - A x = (t + B - alpha, 2 sqrt(a), t - alpha - B).
            let mut r1 = vec![0.0; n];
            r1[dims + pi] = -1.0;
            r1[d] = -1.0;
            rows.push((r1, -alpha));
            rows.push((vec![0.0; n], 2.0 * a.sqrt()));
            let mut r3 = vec![0.0; n];
            r3[dims + pi] = -1.0;
            r3[d] = 1.0;
            rows.push((r3, -alpha));
            cones.push(SupportedConeT::SecondOrderConeT(3));
        }
    }
    let m = rows.len();
    let (mut colptr, mut rowval, mut nzval) = (vec![0], Vec::new(), Vec::new());
    for j in 0..n {
        for (i, (a, _)) in rows.iter().enumerate() {
            if a[j] != 0.0 {
                rowval.push(i);
                nzval.push(a[j]);
            }
        }
        colptr.push(rowval.len());
    }
    let a = CscMatrix::new(m, n, colptr, rowval, nzval);
    let b: Vec<f64> = rows.iter().map(|r| r.1).collect();
    // Objective scaled to O(1) for the oracle's tolerances.
    let wsum: f64 = p
        .patterns
        .iter()
        .zip(&rho)
        .map(|(pat, r)| pat.weight * r)
        .sum();
    let mut q = vec![0.0; n];
    for (pi, pat) in p.patterns.iter().enumerate() {
        q[dims + pi] = pat.weight * rho[pi] / wsum / beta;
    }
    let pm = CscMatrix::<f64>::zeros((n, n));
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .tol_gap_abs(1e-9)
        .tol_gap_rel(1e-9)
        .tol_feas(1e-9)
        .max_iter(400)
        .build()
        .unwrap();
    let mut solver = DefaultSolver::new(&pm, &q, &a, &b, &cones, settings).ok()?;
    solver.solve();
    match solver.solution.status {
        SolverStatus::Solved => {
            // Report the time of the oracle's B (its t may sit slightly off the max).
            let bw: Vec<f64> = solver.solution.x[..dims].iter().map(|v| v * beta).collect();
            Some(p.time(&bw))
        }
        _ => None,
    }
}

fn tier(name: &str, link: f64) -> CostTier {
    CostTier {
        max_gbps: None,
        oversubscription: None,
        in_network_usd: None,
        name: name.into(),
        link,
        switch: Some(link * 2.0),
        nic: Some(link * 3.0),
        max_npus: None,
        latency_ns: 0.0,
    }
}

/// A random network, workload and constraint set.
fn random_scenario(rng: &mut Rng) -> Scenario {
    let dims = 2 + rng.below(4);
    let sizes = [2u32, 4, 8, 16, 32];
    let network = Network {
        dims: (0..dims)
            .map(|d| Dim {
                topology: Topology::ALL[rng.below(3)],
                npus: sizes[rng.below(sizes.len())],
                tier: format!("T{d}"),
                latency_ns: rng.range(0.0, 2000.0),
            })
            .collect(),
    };
    let costs = CostModel {
        tiers: (0..dims)
            .map(|d| tier(&format!("T{d}"), rng.range(0.5, 20.0)))
            .collect(),
    };
    let groups = |rng: &mut Rng| -> Vec<Option<u32>> {
        loop {
            let g: Vec<Option<u32>> = network
                .dims
                .iter()
                .map(|d| (rng.below(3) > 0).then_some(d.npus))
                .collect();
            if g.iter().any(Option::is_some) {
                return g;
            }
        }
    };
    let communicator = Communicator {
        forward: groups(rng),
        input_grad: groups(rng),
        weight_grad: groups(rng),
        pipeline: Vec::new(),
        ..Default::default()
    };
    let phase = |rng: &mut Rng| {
        Phase::new(
            rng.range(0.0, 1e6),
            Collective::ALL[rng.below(5)],
            rng.range(1e3, 1e9),
        )
    };
    let layers = (0..1 + rng.below(12))
        .map(|i| Layer {
            name: format!("l{i}"),
            reserved: -1,
            forward: phase(rng),
            input_grad: phase(rng),
            weight_grad: phase(rng),
            update_ns: 0.0,
        })
        .collect();
    let mut sc = Scenario {
        name: "random".into(),
        network,
        costs,
        workloads: vec![WorkloadSpec {
            name: "w".into(),
            weight: 1.0,
            workload: Workload {
                parallelism: None,
                layers,
            },
            communicator,
        }],
        constraints: Default::default(),
        objective: Default::default(),
        model: ModelOptions {
            latency: rng.below(3) == 0,
            ..ModelOptions::default()
        },
        efficiency: Vec::new(),
    };
    let total = rng.range(50.0, 2000.0);
    match rng.below(3) {
        0 => sc.constraints.total_bw = Some(TotalBandwidth::Equal(total)),
        1 => sc.constraints.total_bw = Some(TotalBandwidth::AtMost(total)),
        _ => {
            // A budget instead, with every B >= 1.
            let u = sc.costs.unit_costs(&sc.network).unwrap();
            let n = f64::from(sc.network.total_npus().unwrap());
            let cheapest: f64 = u.iter().map(|u| u * n).sum();
            sc.constraints.budget_usd = Some(cheapest * rng.range(2.0, 200.0));
            sc.constraints.min_gbps = vec![Some(1.0); dims];
        }
    }
    if rng.below(2) == 0 {
        let (i, j) = (1 + rng.below(dims), 1 + rng.below(dims));
        if i != j {
            sc.constraints.linear.push(format!("B{i} >= B{j}"));
        }
    }
    if rng.below(3) == 0 {
        let d = rng.below(dims);
        sc.constraints.max_gbps = vec![None; dims];
        sc.constraints.max_gbps[d] = Some(total / dims as f64 * rng.range(0.2, 1.5));
    }
    sc
}

#[test]
fn agrees_with_clarabel_on_random_instances() {
    let mut rng = Rng(42);
    let (mut compared, mut skipped, mut close, mut short) = (0, 0, 0, 0);
    let mut worst: f64 = 0.0;
    for case in 0..300 {
        let sc = random_scenario(&mut rng);
        let problem = match compile(&sc) {
            Ok(p) => p,
            Err(_) => {
                skipped += 1;
                continue;
            }
        };
        let theirs = oracle(&problem);
        for method in Method::ALL {
            let case = format!("{case} {}", method.key());
            let opts = SolveOptions {
                method,
                ..SolveOptions::default()
            };
            let ours = solve(&problem, &opts);
            // The projected-gradient method may stop short of the tolerance with its certified gap;
            // its design is then within that gap of the optimum.
            if let (Err(SolveError::GapNotReached { gap, time_ns, .. }), Some(t)) = (&ours, theirs)
            {
                assert_eq!(method, Method::ProjectedGradient, "case {case}");
                assert!(gap.is_finite() && *gap >= 0.0, "case {case}: gap {gap}");
                // Its proven lower bound, time (1 - gap), is no higher than the optimum.
                assert!(
                    time_ns * (1.0 - gap) <= t * (1.0 + 1e-7),
                    "case {case}: {time_ns} with gap {gap} vs {t}"
                );
                short += 1;
                continue;
            }
            match (ours, theirs) {
                (Ok(s), Some(t)) => {
                    compared += 1;
                    let rel = s.time_ns / t - 1.0;
                    worst = worst.max(rel.abs());
                    if rel.abs() <= 1e-6 {
                        close += 1;
                    }
                    // Ours is within the certified gap of the optimum, and the oracle's design is no
                    // better than our proven lower bound.
                    assert!(
                        rel <= 1e-6,
                        "case {case}: ours {} oracle {t} ({rel:e})",
                        s.time_ns
                    );
                    assert!(
                        s.gap <= 1e-6,
                        "case {case}: gap {} after {} steps",
                        s.gap,
                        s.iterations
                    );
                    // (The oracle's design may break a constraint by ~1e-9 relative: some slack here.)
                    assert!(
                        s.lower_bound <= t * (1.0 + 1e-7),
                        "case {case}: bound {} above the oracle's {t}",
                        s.lower_bound
                    );
                    assert!(s.lower_bound <= s.time_ns);
                    // Our design satisfies every row.
                    for r in &problem.rows {
                        let v: f64 = r.coeffs.iter().zip(&s.bw_gbps).map(|(a, b)| a * b).sum();
                        let tol = 1e-9 * r.rhs.abs().max(1.0);
                        let ok = match r.rel {
                            Relation::Le => v <= r.rhs + tol,
                            Relation::Ge => v >= r.rhs - tol,
                            Relation::Eq => (v - r.rhs).abs() <= tol,
                        };
                        assert!(ok, "case {case}: {} violated: {v}", r.label);
                    }
                    assert!(s.bw_gbps.iter().all(|b| *b > 0.0));
                }
                (Err(e), Some(t)) => {
                    panic!("case {case}: we failed ({e}) where the oracle found {t}")
                }
                _ => skipped += 1,
            }
        }
    }
    eprintln!(
        "compared {compared} (within 1e-6 of the oracle: {close}), skipped {skipped}, \
         largest difference {worst:e} (the oracle above us); the projected-gradient method \
         stopped short of 1e-6 on {short}"
    );
    assert!(short * 100 <= compared * 10, "{short} stopped short");
    assert!(
        compared >= 400,
        "only {compared} solves compared (both methods)"
    );
    assert!(
        close * 100 >= compared * 95,
        "only {close} of {compared} within 1e-6"
    );
}

#[test]
fn budget_only_fronts_are_homogeneous() {
    // With only a budget (no latency), T_comm is homogeneous of degree -1: the optimal proportions do
    // not depend on the budget and T_comm * budget is constant along the front.
    let mut sc = libra_studio::presets::default_scenario();
    sc.constraints.total_bw = None;
    // Without compute time the certified gap is relative to the communication time itself.
    for l in &mut sc.workloads[0].workload.layers {
        for ph in [&mut l.forward, &mut l.input_grad, &mut l.weight_grad] {
            ph.compute_ns = 0.0;
        }
    }
    let p = compile(&sc).unwrap();
    let front = pareto(&p, &budget_range(1e6, 1e9, 7), &SolveOptions::default()).unwrap();
    let first = &front.points[0];
    let k0 = (first.time_ns - p.compute_ns) * first.budget_usd;
    for pt in &front.points {
        let k = (pt.time_ns - p.compute_ns) * pt.budget_usd;
        assert!((k / k0 - 1.0).abs() < 1e-6, "T_comm * budget {k} vs {k0}");
        for (b, b0) in pt.bw_gbps.iter().zip(&first.bw_gbps) {
            let ratio = b / b0 / (pt.budget_usd / first.budget_usd);
            assert!((ratio - 1.0).abs() < 1e-6, "proportions moved: {ratio}");
        }
    }
}

#[test]
fn single_pattern_closed_form() {
    // One AllReduce over every dimension and a total-bandwidth equality: the optimum equalizes
    // a_d / B_d, so B_d = total * a_d / sum(a).
    let mut sc = libra_studio::presets::default_scenario();
    let spec = &mut sc.workloads[0];
    spec.communicator = Communicator::uniform(vec![Some(4), Some(8), Some(4), Some(32)]);
    for l in &mut spec.workload.layers {
        for ph in [&mut l.forward, &mut l.input_grad] {
            ph.collective = Collective::None;
        }
        l.weight_grad.collective = Collective::AllReduce;
        l.weight_grad.size_bytes = 1e8;
    }
    let p = compile(&sc).unwrap();
    assert_eq!(p.patterns.len(), 1);
    let a = &p.patterns[0].a;
    let sum: f64 = a.iter().sum();
    let s = solve(&p, &SolveOptions::default()).unwrap();
    for (b, a) in s.bw_gbps.iter().zip(a) {
        let want = 500.0 * a / sum;
        assert!((b / want - 1.0).abs() < 1e-9, "{b} vs {want}");
    }
}

#[test]
fn the_certificate_bounds_the_distance_to_the_optimum() {
    // Stop early on purpose: the reported gap must still cover the true distance to the oracle.
    let mut rng = Rng(7);
    let mut checked = 0;
    for _ in 0..60 {
        let sc = random_scenario(&mut rng);
        let Ok(problem) = compile(&sc) else { continue };
        let loose = SolveOptions {
            rel_gap: 1e-2,
            ..SolveOptions::default()
        };
        let (Ok(s), Some(t)) = (solve(&problem, &loose), oracle(&problem)) else {
            continue;
        };
        let true_gap = (s.time_ns - t) / s.time_ns;
        assert!(
            true_gap <= s.gap + 1e-9,
            "true gap {true_gap} above certified {}",
            s.gap
        );
        checked += 1;
    }
    assert!(checked >= 30);
}

#[test]
fn min_cost_for_a_time_target_inverts_min_time_for_a_budget() {
    // On the budget-only instances, the least cost that reaches the fastest time a budget buys is
    // that budget (the front is strictly decreasing), whether the budget row stays in the problem
    // (it then binds at the fastest design: the start must still be strictly inside) or not (the
    // time then has no minimum, yet the target is reachable).
    let mut rng = Rng(11);
    let mut checked = 0;
    for case in 0..200 {
        let mut sc = random_scenario(&mut rng);
        let Some(budget) = sc.constraints.budget_usd else {
            continue;
        };
        sc.constraints.max_gbps.clear();
        sc.constraints.linear.clear();
        let Ok(problem) = compile(&sc) else { continue };
        let fast = solve(&problem, &SolveOptions::default()).unwrap();
        let cost_for = |target: f64, budget_row: bool| {
            let mut c = sc.clone();
            if !budget_row {
                c.constraints.budget_usd = None;
            }
            c.objective = libra_studio::model::Objective::Cost {
                time_target_ns: target,
            };
            let s = solve(&compile(&c).unwrap(), &SolveOptions::default())
                .unwrap_or_else(|e| panic!("case {case} (budget row: {budget_row}): {e}"));
            assert!(
                s.time_ns <= target * (1.0 + 1e-9),
                "case {case}: target missed"
            );
            assert!(
                s.gap <= 1e-6,
                "case {case} (budget row: {budget_row}): gap {}",
                s.gap
            );
            s
        };
        // Without the budget row (the time has no minimum), the fastest time the budget buys costs
        // the budget.
        let s = cost_for(fast.time_ns, false);
        let rel = s.cost_usd / budget - 1.0;
        assert!(
            rel.abs() <= 1e-6,
            "case {case}: cost {} for budget {budget}",
            s.cost_usd
        );
        // With it (it binds at the fastest design), a slower target costs some budget C' below,
        // and C' buys exactly that time.
        let target = fast.time_ns * 1.001;
        let s = cost_for(target, true);
        assert!(s.cost_usd < budget);
        let mut again = sc.clone();
        again.constraints.budget_usd = Some(s.cost_usd);
        let t = solve(&compile(&again).unwrap(), &SolveOptions::default()).unwrap();
        assert!(
            (t.time_ns / target - 1.0).abs() <= 1e-6,
            "case {case}: {} vs {target}",
            t.time_ns
        );
        // Below the compute floor no design reaches the target.
        let mut c = sc.clone();
        c.constraints.budget_usd = None;
        c.objective = libra_studio::model::Objective::Cost {
            time_target_ns: problem.compute_ns * 0.999,
        };
        if problem.compute_ns > 0.0 {
            assert!(solve(&compile(&c).unwrap(), &SolveOptions::default()).is_err());
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} instances");
}
