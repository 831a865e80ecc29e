//! The exact optimum in closed form, when one row prices every bandwidth and each dimension is
//! owned by one pattern.
//!
//! Setting: one constraint prices every bandwidth, `sum_d r_d B_d = R` (or `<=`, which binds, since
//! more bandwidth is always faster), every `r_d > 0`; no latency terms (`alpha = 0`); every dimension
//! used; any other rows are bounds on single bandwidths (`B_d >= 1`), and the point found must keep
//! them (then it is also the optimum with them, their multipliers 0; otherwise the general method
//! runs). Say
//! that pattern `p` owns dimension `d` when its term is the one that attains the max there
//! (`a_pd / B_d = t_p`). If each dimension has exactly one owner `sigma(d)` at the optimum, then
//! `B_d = a_{sigma(d) d} / t_{sigma(d)}`, the row reads `sum_p S_p / t_p = R` with
//! `S_p = sum_{sigma(d) = p} r_d a_pd`, and minimizing `sum_p w_p t_p` on it gives
//!
//! `sqrt(eta) = sum_p sqrt(w_p S_p) / R`, `t_p = sqrt(eta S_p / w_p)`,
//!
//! with the multipliers `lambda_pd = eta r_d B_d^2 / a_pd` on the owned terms (they sum to `w_p`
//! per pattern) and `eta` on the row. An owner map whose point keeps every other term at or below
//! its pattern's time satisfies the KKT conditions, so that point is the optimum (the problem is
//! convex). The search starts from the level start's owners (`B_d` in proportion to the summed
//! bytes; right at once on 154 of the 160 random one-owner optima of the tests), hands a dimension
//! whose term stands above its pattern's time to that pattern (159 of 160 found so), and when there
//! are at most 256 maps tries them all. The certificate is then checked as for any answer. When two
//! patterns share a dimension at the optimum no owner map passes and the caller runs the general
//! method.
//!
//! Cold, this is the whole solve: a few hundred flops in straight loops, no linear system, where
//! the active-set Newton method takes 6-8 dense KKT solves on LIBRA's two-pattern workloads.

use super::barrier::Epigraph;
use super::certificate::Multipliers;
use super::feasible::Feasible;
use super::linear::{LinearConstraint, Relation};

/// Every owner map (patterns^dimensions) is tried only when there are at most this many; beyond,
/// only the level start's and its repairs.
const MAX_MAPS: usize = 256;

/// The optimum `z = (B, t)` and its multipliers in the epigraph's units, or None when the problem
/// is not of this form or no owner map tried gives a KKT point (`exhaustive`: every map, when
/// there are at most [`MAX_MAPS`]; otherwise the level start's and its repairs).
pub(crate) fn closed_form(
    ep: &Epigraph,
    feasible: &Feasible,
    exhaustive: bool,
) -> Option<(Vec<f64>, Multipliers)> {
    let (dims, pats) = (ep.dims, ep.patterns);
    // One pricing row; any other row a bound on one bandwidth, which the point must then keep.
    let pricing = |r: &&LinearConstraint| {
        r.coeffs.len() == dims && r.coeffs.iter().all(|v| *v > 0.0 && v.is_finite())
    };
    let mut priced_rows = feasible.rows.iter().filter(pricing);
    let (Some(row), None) = (priced_rows.next(), priced_rows.next()) else {
        return None;
    };
    let bound = |r: &LinearConstraint| {
        r.rel != Relation::Eq && r.coeffs.iter().filter(|v| **v != 0.0).count() == 1
    };
    if !feasible
        .rows
        .iter()
        .all(|r| std::ptr::eq(r, row) || bound(r))
    {
        return None;
    }
    let r = &row.coeffs;
    let total = row.rhs;
    if !(total > 0.0 && total.is_finite()) || row.rel == Relation::Ge {
        return None;
    }
    let w = &ep.c[dims..];
    if pats == 0
        || w.iter().any(|v| v.is_nan() || *v <= 0.0)
        || ep.terms.iter().any(|k| k.alpha != 0.0)
    {
        return None;
    }
    // a[p * dims + d]: the pattern's bytes on the dimension (0 where it has no term).
    let mut a = vec![0.0; pats * dims];
    for k in &ep.terms {
        a[k.p * dims + k.d] = k.a;
    }
    let maps = u32::try_from(dims)
        .ok()
        .and_then(|d| pats.checked_pow(d))
        .unwrap_or(usize::MAX);
    if (0..dims).any(|d| (0..pats).all(|p| a[p * dims + d] <= 0.0)) {
        return None;
    }
    // The level start's owners: B_d proportional to c_d = sum_p w_p a_pd, t_p its pattern's max.
    let c: Vec<f64> = (0..dims)
        .map(|d| (0..pats).map(|p| w[p] * a[p * dims + d]).sum())
        .collect();
    let t0: Vec<f64> = (0..pats)
        .map(|p| {
            (0..dims)
                .map(|d| a[p * dims + d] / c[d])
                .fold(0.0, f64::max)
        })
        .collect();
    let mut owner: Vec<usize> = (0..dims)
        .map(|d| {
            (0..pats)
                .max_by(|&p, &q| (a[p * dims + d] / t0[p]).total_cmp(&(a[q * dims + d] / t0[q])))
                .unwrap_or(0)
        })
        .collect();
    let owners = Owners {
        dims,
        a: &a,
        r,
        w,
        total,
    };
    let mut b = vec![0.0; dims];
    let mut t = vec![0.0; pats];
    // From the level start's owners, hand each dimension whose term stands above its pattern's
    // time to that pattern, one at a time; then, if the maps are few, every map in turn.
    let mut found = None;
    for _ in 0..dims * pats {
        match owners.point(&owner, &mut b, &mut t) {
            Verdict::Optimal(root_eta) => found = Some(root_eta),
            Verdict::Above { p, d } => {
                owner[d] = p;
                continue;
            }
            Verdict::Invalid => {}
        }
        break;
    }
    if found.is_none() && exhaustive && maps <= MAX_MAPS {
        found = (0..maps).find_map(|code| {
            let mut rest = code;
            for o in owner.iter_mut() {
                *o = rest % pats;
                rest /= pats;
            }
            match owners.point(&owner, &mut b, &mut t) {
                Verdict::Optimal(root_eta) => Some(root_eta),
                _ => None,
            }
        });
    }
    let root_eta = found?;
    // The optimum without the bounds keeps them: then it is the optimum with them, their
    // multipliers 0. (Exactly: a point outside by a rounding is not claimed.)
    let kept = feasible.rows.iter().all(|r| {
        let lhs: f64 = r.coeffs.iter().zip(&b).map(|(a, x)| a * x).sum();
        std::ptr::eq(r, row)
            || match r.rel {
                Relation::Le => lhs <= r.rhs,
                _ => lhs >= r.rhs,
            }
    });
    if !kept {
        return None;
    }
    let eta = root_eta * root_eta;
    let lambda = ep
        .terms
        .iter()
        .map(|k| match owner[k.d] == k.p {
            true => eta * r[k.d] * b[k.d] * b[k.d] / k.a,
            false => 0.0,
        })
        .collect();
    // The row's multiplier: among the inequalities (in the order of the rows, `epigraph`) or the
    // equalities.
    let mut nu = vec![0.0; ep.g.len()];
    let on_row = match row.rel {
        Relation::Le => {
            let at = feasible
                .rows
                .iter()
                .filter(|r| r.rel != Relation::Eq)
                .position(|r| std::ptr::eq(r, row))?;
            nu[at] = eta;
            Vec::new()
        }
        _ => vec![eta],
    };
    if on_row.len() != ep.e.len() {
        return None;
    }
    let z: Vec<f64> = b.iter().chain(&t).copied().collect();
    Some((
        z,
        Multipliers {
            lambda,
            nu,
            eta: on_row,
        },
    ))
}

/// The problem's data for evaluating owner maps.
struct Owners<'a> {
    dims: usize,
    /// `a[p * dims + d]`.
    a: &'a [f64],
    r: &'a [f64],
    w: &'a [f64],
    total: f64,
}

/// What an owner map gives.
enum Verdict {
    /// The KKT point, with `sqrt(eta)`.
    Optimal(f64),
    /// Pattern `p`'s term on dimension `d` stands highest above the pattern's time.
    Above { p: usize, d: usize },
    /// A pattern owns no dimension, or owns one it has no traffic on.
    Invalid,
}

impl Owners<'_> {
    /// The point of `owner` (the owning pattern of each dimension) into `b` and `t`.
    fn point(&self, owner: &[usize], b: &mut [f64], t: &mut [f64]) -> Verdict {
        let (dims, a) = (self.dims, self.a);
        // S_p = sum over p's dimensions of r_d a_pd, in t until it becomes the time.
        t.fill(0.0);
        for (d, &p) in owner.iter().enumerate() {
            if a[p * dims + d] <= 0.0 {
                return Verdict::Invalid;
            }
            t[p] += self.r[d] * a[p * dims + d];
        }
        if t.iter().any(|s| s.is_nan() || *s <= 0.0) {
            return Verdict::Invalid;
        }
        let root_eta = t
            .iter()
            .zip(self.w)
            .map(|(s, w)| (w * s).sqrt())
            .sum::<f64>()
            / self.total;
        for (tp, w) in t.iter_mut().zip(self.w) {
            *tp = root_eta * (*tp / w).sqrt();
        }
        for (d, &p) in owner.iter().enumerate() {
            b[d] = a[p * dims + d] / t[p];
        }
        if !b.iter().all(|v| *v > 0.0 && v.is_finite()) {
            return Verdict::Invalid;
        }
        let mut worst = (1.0 + 1e-12, None);
        for (p, tp) in t.iter().enumerate() {
            for (d, bd) in b.iter().enumerate() {
                let above = a[p * dims + d] / bd / tp;
                if owner[d] != p && above > worst.0 {
                    worst = (above, Some((p, d)));
                }
            }
        }
        match worst.1 {
            Some((p, d)) => Verdict::Above { p, d },
            None => Verdict::Optimal(root_eta),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scenario::Objective;
    use crate::optimize::feasible::analyze;
    use crate::optimize::min_time::epigraph;
    use crate::optimize::{compile, solve, Pattern, Problem, SolveOptions};
    use crate::presets;
    use crate::routing::splitmix64;

    /// The epigraph of `problem` with its weights as objective (unit scale).
    fn setup(problem: &Problem) -> (Epigraph, Feasible) {
        let feasible = analyze(&problem.rows, problem.dims).unwrap();
        let mut ep = epigraph(problem, &feasible);
        for (p, pat) in problem.patterns.iter().enumerate() {
            ep.c[problem.dims + p] = pat.weight;
        }
        (ep, feasible)
    }

    #[test]
    fn libras_gpt3_on_4d_is_solved_in_closed_form() {
        let p = compile(&presets::default_scenario()).unwrap();
        let (ep, feasible) = setup(&p);
        let (z, mult) = closed_form(&ep, &feasible, true).expect("each dimension has one owner");
        // libra_reference.json: 722411780.9202211 ns at [338.45, 84.61, 58.16, 18.78].
        let time = p.time(&z[..4]);
        assert!((time / 722411780.9202211 - 1.0).abs() < 1e-12, "{time}");
        let want = [338.45, 84.61, 58.16, 18.78];
        for (b, w) in z.iter().zip(want) {
            assert!((b - w).abs() < 0.01, "{z:?}");
        }
        // Each pattern's multipliers sum to its weight.
        for (pi, pat) in p.patterns.iter().enumerate() {
            let sum: f64 = ep
                .terms
                .iter()
                .zip(&mult.lambda)
                .filter(|(k, _)| k.p == pi)
                .map(|(_, l)| l)
                .sum();
            assert!((sum / pat.weight - 1.0).abs() < 1e-12);
        }
    }

    /// Bounds on single bandwidths: kept by the point, they change nothing; binding, they leave the
    /// problem to the general method, which puts B4 on its bound.
    #[test]
    fn bounds_are_kept_or_left_to_the_general_method() {
        use crate::model::scenario::TotalBandwidth;
        let mut sc = presets::default_scenario();
        sc.constraints.min_gbps = vec![Some(1.0); 4];
        let p = compile(&sc).unwrap();
        let (ep, feasible) = setup(&p);
        assert_eq!(feasible.rows.len(), 5);
        let (z, _) = closed_form(&ep, &feasible, true).expect("the bounds are slack");
        assert!((p.time(&z[..4]) / 722411780.9202211 - 1.0).abs() < 1e-12);

        sc.constraints.min_gbps = vec![None, None, None, Some(100.0)];
        sc.constraints.total_bw = Some(TotalBandwidth::Equal(500.0));
        let p = compile(&sc).unwrap();
        let (ep, feasible) = setup(&p);
        assert!(closed_form(&ep, &feasible, true).is_none());
        let s = solve(&p, &SolveOptions::default()).unwrap();
        assert!(
            (s.bw_gbps[3] - 100.0).abs() < 1e-6 && s.gap <= 1e-6,
            "{:?}",
            s.bw_gbps
        );
    }

    /// A random problem with one row pricing every bandwidth: 1-3 patterns on 1-5 dimensions, some
    /// bytes zero, the row an equality or an upper limit.
    fn random_problem(seed: u64) -> Problem {
        let mut state = seed;
        let mut next = move || {
            state = splitmix64(state);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let dims = 1 + (next() * 5.0) as usize;
        let pats = 1 + (next() * 3.0) as usize;
        let patterns: Vec<Pattern> = (0..pats)
            .map(|i| {
                let mut a: Vec<f64> = (0..dims)
                    .map(|_| match next() < 0.25 {
                        true => 0.0,
                        false => 10f64.powf(6.0 + 3.0 * next()),
                    })
                    .collect();
                if a.iter().all(|v| *v == 0.0) {
                    a[i % dims] = 1e7;
                }
                Pattern {
                    weight: 0.5 + 2.0 * next(),
                    a,
                    alpha: vec![0.0; dims],
                    label: format!("p{i}"),
                }
            })
            .collect();
        let coeffs: Vec<f64> = (0..dims).map(|_| 0.2 + 5.0 * next()).collect();
        let rel = if next() < 0.5 {
            Relation::Eq
        } else {
            Relation::Le
        };
        let used: Vec<bool> = (0..dims)
            .map(|d| patterns.iter().any(|p| p.a[d] > 0.0))
            .collect();
        Problem {
            dims,
            compute_ns: 0.0,
            cost_per_gbps: vec![1.0; dims],
            rows: vec![LinearConstraint::new(coeffs, rel, 100.0 + 900.0 * next())],
            objective: Objective::Time,
            idle: used.iter().map(|u| !u).collect(),
            patterns,
        }
    }

    /// Against the barrier method (run to its own certificate): whenever the barrier's optimum has
    /// one owner per dimension the closed form finds it, and whatever it returns is that optimum.
    #[test]
    fn agrees_with_the_barrier_and_never_misses_a_one_owner_optimum() {
        let barrier = SolveOptions {
            central_path: true,
            ..SolveOptions::default()
        };
        let (mut found, mut one_owner) = (0, 0);
        for seed in 0..400 {
            let p = random_problem(seed);
            if p.idle.iter().any(|i| *i) {
                continue;
            }
            let (ep, feasible) = setup(&p);
            let ours = closed_form(&ep, &feasible, true);
            let s = solve(&p, &barrier).unwrap();
            let b = &s.bw_gbps;
            // The barrier's owners: terms within 1e-4 of their pattern's time.
            let owners: Vec<usize> = (0..p.dims)
                .map(|d| {
                    p.patterns
                        .iter()
                        .filter(|pat| {
                            pat.a[d] > 0.0 && pat.a[d] / b[d] >= pat.time(b).0 * (1.0 - 1e-4)
                        })
                        .count()
                })
                .collect();
            let owns = |pi: usize| {
                (0..p.dims)
                    .any(|d| p.patterns[pi].a[d] / b[d] >= p.patterns[pi].time(b).0 * (1.0 - 1e-4))
            };
            if owners.iter().all(|o| *o == 1) && (0..p.patterns.len()).all(owns) {
                one_owner += 1;
                assert!(ours.is_some(), "seed {seed}: missed {b:?}");
            }
            if let Some((z, _)) = ours {
                found += 1;
                let bw = &z[..p.dims];
                let row = &p.rows[0];
                let used: f64 = row.coeffs.iter().zip(bw).map(|(r, b)| r * b).sum();
                assert!(
                    used <= row.rhs * (1.0 + 1e-12),
                    "seed {seed}: {used} > {}",
                    row.rhs
                );
                let (t, best) = (p.time(bw), s.time_ns);
                assert!(
                    (t - best).abs() <= 1e-6 * best,
                    "seed {seed}: closed form {t}, barrier {best}"
                );
            }
        }
        assert!(
            one_owner >= 100 && found >= one_owner,
            "{one_owner} {found}"
        );
    }

    /// Two patterns and one dimension: they share it, so no owner map works.
    #[test]
    fn a_shared_dimension_is_left_to_the_general_method() {
        let pat = |a: f64| Pattern {
            weight: 1.0,
            a: vec![a],
            alpha: vec![0.0],
            label: "p".into(),
        };
        let p = Problem {
            dims: 1,
            compute_ns: 0.0,
            cost_per_gbps: vec![1.0],
            rows: vec![LinearConstraint::new(vec![1.0], Relation::Eq, 10.0)],
            objective: Objective::Time,
            idle: vec![false],
            patterns: vec![pat(1.0), pat(2.0)],
        };
        let (ep, feasible) = setup(&p);
        assert!(closed_form(&ep, &feasible, true).is_none());
        let s = solve(&p, &SolveOptions::default()).unwrap();
        assert!((s.bw_gbps[0] - 10.0).abs() < 1e-9 && (s.time_ns - 0.3).abs() < 1e-9);
    }
}
