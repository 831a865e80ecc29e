//! The certificate: Lagrange multipliers of the epigraph form, the weak-duality lower bound they
//! prove (docs/design.md section 3), and what the bound says about each constraint row.
//!
//! The lower bound: with `lambda_pd >= 0` rescaled so that `sum_d lambda_pd` equals the pattern's
//! objective weight, `nu >= 0` for the inequality rows and `eta` for the equalities,
//! `g = sum lambda alpha - nu.h - eta.e + sum_d min_{0 <= B_d <= hi_d} (c_d / B_d + k_d B_d)`,
//! `c_d = sum_p lambda_pd a_pd`, `k_d = cost_d + (G^T nu)_d + (E^T eta)_d`, is at most the optimum by
//! weak duality (`hi_d` is the largest B_d over the feasible set, from an LP).

use super::barrier::{Centered, Epigraph};
use super::feasible::Feasible;
use super::linear::Relation;

/// Lagrange multipliers of the epigraph form: terms, inequality rows, equality rows.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Multipliers {
    pub lambda: Vec<f64>,
    pub nu: Vec<f64>,
    pub eta: Vec<f64>,
}

impl Multipliers {
    pub(crate) fn scaled(&self, f: f64) -> Multipliers {
        let s = |v: &Vec<f64>| v.iter().map(|x| x * f).collect();
        Multipliers {
            lambda: s(&self.lambda),
            nu: s(&self.nu),
            eta: s(&self.eta),
        }
    }
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

/// d(lower bound)/d(rhs) of each row of `feasible`, in objective units per unit of the row's
/// right-hand side, from the multipliers of the epigraph built by `epigraph`.
pub(crate) fn sensitivities(
    feasible: &Feasible,
    e_of: &[usize],
    mult: &Multipliers,
    scale: f64,
) -> Vec<f64> {
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
                // A repeated equality carries none of the price (its first copy carries it all).
                e_of.iter()
                    .position(|&i| i == ei - 1)
                    .map_or(0.0, |k| -mult.eta[k] * scale)
            }
        })
        .collect()
}
