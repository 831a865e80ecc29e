//! Active-set polish: once the barrier iterates have settled, the pieces that attain each pattern's
//! max and the inequality rows that bind are known. Newton's method on the KKT equations of that
//! active set then converges quadratically to the exact optimum; the result is kept only if it is
//! primal feasible, its multipliers have the right signs, and its certificate (weak duality, as for
//! the barrier) is at least as good.
//!
//! Unknowns `x = (z, lambda_A, mu_R)`; equations, with `R` the equality rows and the active
//! inequality rows:
//! - `c + sum_{k in A} lambda_k grad(alpha_k + a_k / B_d - t_p) + sum_{r in R} mu_r R_r = 0`
//! - `alpha_k + a_k / B_d - t_p = 0` for k in A
//! - `R_r . z = rhs_r` for r in R

use super::barrier::Epigraph;
use super::certificate::Multipliers;
use super::dense::solve_in_place;
use super::linear::fixed_by;

/// The active set guessed from a barrier point: the terms whose slack is within a factor of the
/// smallest slack of their pattern, and the inequality rows with small slack.
pub(crate) fn guess_active(ep: &Epigraph, z0: &[f64]) -> (Vec<bool>, Vec<bool>) {
    let slack: Vec<f64> = ep.terms.iter().map(|k| ep.term_slack(k, z0)).collect();
    let mut least = vec![f64::INFINITY; ep.patterns];
    for (k, s) in ep.terms.iter().zip(&slack) {
        least[k.p] = least[k.p].min(*s);
    }
    let terms = ep
        .terms
        .iter()
        .zip(&slack)
        .map(|(k, s)| *s <= 5.0 * least[k.p])
        .collect();
    let rows =
        ep.g.iter()
            .map(|r| {
                // Relative to the size of the row's terms, so that `B1 - B3 <= 0` is judged at
                // the scale of B1, not of its right-hand side 0.
                let size: f64 = r.0.iter().zip(z0).map(|(a, x)| (a * x).abs()).sum();
                ep.row_slack(r, z0) <= 1e-3 * r.1.abs().max(size).max(1e-300)
            })
            .collect();
    (terms, rows)
}

/// The polished point and its multipliers, if the active-set Newton method succeeded from `z0`
/// with multipliers `mult` and the starting active set (`active` terms, `rows_on` rows).
///
/// As in a primal-dual active-set method, a term or row with a negative multiplier leaves the set
/// and a violated one joins it (a few rounds at most).
pub(crate) fn polish(
    ep: &Epigraph,
    z0: &[f64],
    mult: &Multipliers,
    mut active: Vec<bool>,
    mut rows_on: Vec<bool>,
) -> Option<(Vec<f64>, Multipliers)> {
    let dims = ep.dims;
    let slack: Vec<f64> = ep.terms.iter().map(|k| ep.term_slack(k, z0)).collect();
    // Which bandwidths the equality rows fix: found at the first singular system only.
    let mut pinned: Option<Vec<bool>> = None;
    for _ in 0..(8 + ep.terms.len()) {
        let Some((z, m)) = kkt(ep, z0, mult, &active, &rows_on) else {
            // A singular or diverging system: some bandwidth is left undetermined. A dimension
            // without an active term that the equality rows do not fix is (it appears in the rows
            // only), so one of its terms joins first; else the inactive term closest to its max
            // joins, and the system is tried again. (Joining any term first can make the system
            // singular the other way: two terms on bandwidths the rows fix both pin their
            // pattern's time.)
            let mut covered = pinned.get_or_insert_with(|| fixed_by(&ep.e, dims)).clone();
            for (k, on) in ep.terms.iter().zip(&active) {
                covered[k.d] |= *on;
            }
            let rel = |i: usize| slack[i] / z0[dims + ep.terms[i].p].abs().max(1e-300);
            let closest = |uncovered_only: bool| {
                (0..ep.terms.len())
                    .filter(|&i| !active[i] && (!uncovered_only || !covered[ep.terms[i].d]))
                    .min_by(|&a, &b| rel(a).total_cmp(&rel(b)))
            };
            let next = closest(true).or_else(|| closest(false))?;
            active[next] = true;
            continue;
        };
        // Leave: the most negative multiplier.
        let lam_scale = m
            .lambda
            .iter()
            .fold(0.0f64, |a, v| a.max(v.abs()))
            .max(1e-300);
        let worst_term = (0..ep.terms.len())
            .filter(|&i| active[i] && m.lambda[i] < -1e-9 * lam_scale)
            .min_by(|&a, &b| m.lambda[a].total_cmp(&m.lambda[b]));
        let worst_row = (0..ep.g.len())
            .filter(|&i| rows_on[i] && m.nu[i] < -1e-9 * lam_scale)
            .min_by(|&a, &b| m.nu[a].total_cmp(&m.nu[b]));
        if let Some(i) = worst_term {
            active[i] = false;
            continue;
        }
        if let Some(i) = worst_row {
            rows_on[i] = false;
            continue;
        }
        // Join: the most violated term or row.
        let viol_term = (0..ep.terms.len())
            .filter(|&i| !active[i])
            .map(|i| {
                (
                    i,
                    ep.term_slack(&ep.terms[i], &z) / z[dims + ep.terms[i].p].abs().max(1e-300),
                )
            })
            .filter(|(_, s)| *s < -1e-12)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let viol_row = (0..ep.g.len())
            .filter(|&i| !rows_on[i])
            .map(|i| (i, ep.row_slack(&ep.g[i], &z) / ep.g[i].1.abs().max(1.0)))
            .filter(|(_, s)| *s < -1e-12)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((i, _)) = viol_term {
            active[i] = true;
            continue;
        }
        if let Some((i, _)) = viol_row {
            rows_on[i] = true;
            continue;
        }
        if z[..dims].iter().any(|b| *b <= 0.0) {
            return None;
        }
        let mut m = m;
        m.lambda.iter_mut().for_each(|l| *l = l.max(0.0));
        m.nu.iter_mut().for_each(|v| *v = v.max(0.0));
        return Some((z, m));
    }
    None
}

/// Newton's method on the KKT equations of one active set, from the barrier's point and multipliers.
fn kkt(
    ep: &Epigraph,
    z0: &[f64],
    mult: &Multipliers,
    on_terms: &[bool],
    on_rows: &[bool],
) -> Option<(Vec<f64>, Multipliers)> {
    let n = ep.n();
    let dims = ep.dims;
    let active: Vec<usize> = (0..ep.terms.len()).filter(|&i| on_terms[i]).collect();
    let mut rows: Vec<(Vec<f64>, f64, Option<usize>)> =
        ep.e.iter()
            .map(|(a, b)| {
                let mut a = a.clone();
                a.resize(n, 0.0);
                (a, *b, None)
            })
            .collect();
    for (i, r) in ep.g.iter().enumerate() {
        if on_rows[i] {
            rows.push((r.0.clone(), r.1, Some(i)));
        }
    }
    let na = active.len();
    let nr = rows.len();
    let size = n + na + nr;
    let mut x: Vec<f64> = z0.to_vec();
    x.extend(active.iter().map(|&i| mult.lambda[i]));
    x.extend(rows.iter().map(|(_, _, g)| match g {
        None => 0.0,
        Some(i) => mult.nu[*i],
    }));
    // Equality multipliers start from the barrier's.
    for (r, y) in mult.eta.iter().enumerate() {
        x[n + na + r] = *y;
    }
    let residual = |x: &[f64]| -> Vec<f64> {
        let mut f = vec![0.0; size];
        f[..n].copy_from_slice(&ep.c);
        for (j, &i) in active.iter().enumerate() {
            let k = &ep.terms[i];
            let l = x[n + j];
            let b = x[k.d];
            f[k.d] -= l * k.a / (b * b);
            f[dims + k.p] -= l;
            f[n + j] = k.alpha + k.a / b - x[dims + k.p];
        }
        for (r, (a, rhs, _)) in rows.iter().enumerate() {
            let mu = x[n + na + r];
            for (fj, aj) in f[..n].iter_mut().zip(a) {
                *fj += mu * aj;
            }
            f[n + na + r] = a.iter().zip(&x[..n]).map(|(a, z)| a * z).sum::<f64>() - rhs;
        }
        f
    };
    let norm = |f: &[f64]| f.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut f = residual(&x);
    let (mut jac, mut step) = (vec![0.0; size * size], vec![0.0; size]);
    for _ in 0..12 {
        if norm(&f) <= 1e-11 * (1.0 + norm(&x[..n])) {
            break;
        }
        jac.fill(0.0);
        for (j, &i) in active.iter().enumerate() {
            let k = &ep.terms[i];
            let l = x[n + j];
            let b = x[k.d];
            let (bd, tp, lj) = (k.d, dims + k.p, n + j);
            jac[bd * size + bd] += 2.0 * l * k.a / (b * b * b);
            let dfb = -k.a / (b * b);
            jac[bd * size + lj] += dfb;
            jac[lj * size + bd] += dfb;
            jac[tp * size + lj] -= 1.0;
            jac[lj * size + tp] -= 1.0;
        }
        for (r, (a, _, _)) in rows.iter().enumerate() {
            let rj = n + na + r;
            for (i, ai) in a.iter().enumerate() {
                jac[i * size + rj] += ai;
                jac[rj * size + i] += ai;
            }
        }
        for (s, v) in step.iter_mut().zip(&f) {
            *s = -v;
        }
        if !solve_in_place(&mut jac, size, &mut step) {
            return None;
        }
        // Damped: at most 90% of the way to B = 0 in any dimension.
        let reach = x[..dims]
            .iter()
            .zip(&step)
            .filter(|(_, s)| **s < 0.0)
            .map(|(b, s)| 0.9 * b / -s)
            .fold(1.0f64, f64::min);
        for (xi, s) in x.iter_mut().zip(&step) {
            *xi += reach * s;
        }
        if x[..dims].iter().any(|b| *b <= 0.0) {
            return None;
        }
        f = residual(&x);
    }
    if norm(&f) > 1e-9 * (1.0 + norm(&x[..n])) {
        return None;
    }
    let z = x[..n].to_vec();
    let mut lambda = vec![0.0; ep.terms.len()];
    for (j, &i) in active.iter().enumerate() {
        lambda[i] = x[n + j];
    }
    let mut nu = vec![0.0; ep.g.len()];
    let mut eta = vec![0.0; ep.e.len()];
    for (r, (_, _, g)) in rows.iter().enumerate() {
        match g {
            Some(i) => nu[*i] = x[n + na + r],
            None => eta[r] = x[n + na + r],
        }
    }
    Some((z, Multipliers { lambda, nu, eta }))
}
