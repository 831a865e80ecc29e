//! The projected-gradient method: a second, first-order way to the same certified optimum as the
//! barrier method (`min_time.rs`), selectable with `SolveOptions::method`.
//!
//! The time `F(B) = sum_p c_p max_k (alpha_k + a_k / B_dk)` (pattern weights `c_p`, normalized as in
//! `min_time`) is not smooth where two dimensions tie for a pattern's max, which is where optima
//! lie. So the method minimizes the smoothed max
//! `F_mu(B) = sum_p c_p (m_p + mu_p ln sum_k exp((v_k - m_p) / mu_p))`, an upper bound of `F` within
//! `sum_p c_p mu_p ln n_p`, with `mu_p` a fraction of the pattern's time that shrinks by 5 after each
//! stage (continuation). Each stage runs FISTA (Nesterov's acceleration for projected gradients)
//! with a backtracking Lipschitz estimate and a restart whenever the momentum points uphill; every
//! step projects onto the feasible polytope with `B_d >= 1e-6` of the start (`projection.rs`).
//!
//! The certificate is the barrier's: after each stage the softmax weights give the term multipliers
//! `lambda_k = c_p pi_k`, the projection of `B - grad F_mu / L` gives the rows' multipliers (times
//! `L`), and weak duality (`certificate::dual_bound`) turns them into a proven lower bound. Once
//! that gap is below 1%, the active set of the near-max terms and the binding rows is finished
//! exactly by the same Newton polish as the barrier's (`polish.rs`). When the steps run out, the
//! best point found is returned with its certified gap, whatever it is.

use super::barrier::Epigraph;
use super::certificate::{dual_bound, Multipliers};
use super::polish::{guess_active, polish};
use super::projection::Polytope;
use super::solution::{SolveError, SolveOptions};

/// The outcome: the point `z = (B, t)`, its multipliers and certified bounds (normalized units),
/// the gradient steps taken and the iterates.
pub(crate) struct GradientRun {
    pub z: Vec<f64>,
    pub mult: Multipliers,
    pub up: f64,
    pub low: f64,
    pub steps: usize,
    pub path: Vec<Vec<f64>>,
}

/// Gradient steps per smoothing stage at most; a stage ends earlier once the smoothed time has
/// stopped falling: by less than `rel / 1000` of itself over the last `STALL_WINDOW` steps.
const STAGE_STEPS: usize = 2_000;
const STALL_WINDOW: usize = 20;
/// Iterates kept for the landscape's drawing.
const PATH_POINTS: usize = 256;

/// The smoothed objective at `b` with the stage's `mu`, its gradient into `grad` and the softmax
/// weights into `pi` (one per term); None outside the domain.
fn smoothed(ep: &Epigraph, mu: &[f64], b: &[f64], grad: &mut [f64], pi: &mut [f64]) -> Option<f64> {
    if b.iter().any(|x| !(*x > 0.0 && x.is_finite())) {
        return None;
    }
    let mut top = vec![f64::NEG_INFINITY; ep.patterns];
    for k in &ep.terms {
        top[k.p] = top[k.p].max(k.alpha + k.a / b[k.d]);
    }
    let mut sum = vec![0.0; ep.patterns];
    for (k, w) in ep.terms.iter().zip(pi.iter_mut()) {
        *w = ((k.alpha + k.a / b[k.d] - top[k.p]) / mu[k.p]).exp();
        sum[k.p] += *w;
    }
    grad.iter_mut().for_each(|g| *g = 0.0);
    let mut value = 0.0;
    for p in 0..ep.patterns {
        if sum[p] > 0.0 {
            value += ep.c[ep.dims + p] * (top[p] + mu[p] * sum[p].ln());
        }
    }
    for (k, w) in ep.terms.iter().zip(pi.iter_mut()) {
        *w /= sum[k.p];
        grad[k.d] -= ep.c[ep.dims + k.p] * *w * k.a / (b[k.d] * b[k.d]);
    }
    value.is_finite().then_some(value)
}

/// The `L` for which a gradient step `grad / (L M)` moves `x` by 0.1% (in the metric `M`).
fn step_scale(x: &[f64], grad: &[f64], metric: &[f64]) -> f64 {
    let size = x
        .iter()
        .zip(metric)
        .map(|(v, m)| m * v * v)
        .sum::<f64>()
        .sqrt();
    let slope = grad
        .iter()
        .zip(metric)
        .map(|(v, m)| v * v / m)
        .sum::<f64>()
        .sqrt();
    (slope / (1e-3 * size)).max(f64::MIN_POSITIVE)
}

/// The stage's metric: the curvature `sum_k c_p pi_k 2 a_k / B_d^3` of each dimension's terms at
/// `b`, as weighted by the softmax, scaled to a largest weight of 1 and kept at least 1e-6 of it
/// (a dimension with no term near its pattern's max). Gradient steps in this metric move a cheap
/// dimension with little traffic as readily as a busy one: in the Euclidean metric a budget row
/// with prices 50 times apart made the method crawl along it.
fn curvature(ep: &Epigraph, b: &[f64], pi: &[f64]) -> Vec<f64> {
    let mut h = vec![0.0; ep.dims];
    for (k, w) in ep.terms.iter().zip(pi) {
        let slope = k.a / (b[k.d] * b[k.d]);
        let c = ep.c[ep.dims + k.p];
        h[k.d] += c * w * 2.0 * slope / b[k.d];
    }
    let top = h.iter().copied().fold(0.0f64, f64::max);
    if !(top > 0.0 && top.is_finite()) {
        return vec![1.0; ep.dims];
    }
    h.iter().map(|v| (v / top).max(1e-6)).collect()
}

/// `z = (B, t)` with each `t_p` the pattern's time at `B`.
fn with_times(ep: &Epigraph, b: &[f64]) -> Vec<f64> {
    let mut z = b.to_vec();
    z.resize(ep.n(), f64::NEG_INFINITY);
    for k in &ep.terms {
        z[ep.dims + k.p] = z[ep.dims + k.p].max(k.alpha + k.a / b[k.d]);
    }
    for t in &mut z[ep.dims..] {
        if *t == f64::NEG_INFINITY {
            *t = 0.0;
        }
    }
    z
}

/// Run the method from `b0` (strictly inside) until the certified gap of `F + offset` is at most
/// `opts.rel_gap` or `opts.max_gradient_steps` are spent. `truth` maps `z` to the objective value
/// reported (the upper bound); `upper(d)` is the largest feasible `B_d`.
pub(crate) fn projected_gradient(
    ep: &Epigraph,
    b0: &[f64],
    offset: f64,
    upper: &dyn Fn(usize) -> Option<f64>,
    opts: &SolveOptions,
    truth: &dyn Fn(&[f64]) -> f64,
) -> Result<GradientRun, SolveError> {
    let dims = ep.dims;
    if ep.g.iter().any(|r| r.0[dims..].iter().any(|v| *v != 0.0)) {
        return Err(SolveError::Numerical(
            "the projected-gradient method handles rows on the bandwidths only".into(),
        ));
    }
    // The polytope; the last `dims` rows of the epigraph are `-B_d <= 0`, held at a sliver above.
    let floor = ep.g.len() - dims;
    let poly = Polytope {
        dims,
        eq: ep.e.clone(),
        le: ep
            .g
            .iter()
            .enumerate()
            .map(|(i, r)| match i.checked_sub(floor) {
                Some(d) => (r.0[..dims].to_vec(), -1e-6 * b0[d]),
                None => (r.0[..dims].to_vec(), r.1),
            })
            .collect(),
    };
    // The same floor for the polish, which must not put a bandwidth at 0.
    let mut floored = ep.clone();
    for (row, (_, h)) in floored.g[floor..].iter_mut().zip(&poly.le[floor..]) {
        row.1 = *h;
    }
    let gap_of = |up: f64, low: f64| (up - low) / up.abs().max(f64::MIN_POSITIVE);
    let mut x = b0.to_vec();
    let mut path = vec![x.clone()];
    let (mut grad, mut pi) = (vec![0.0; dims], vec![0.0; ep.terms.len()]);
    let mut gy = vec![0.0; dims];
    let mut work: Vec<usize> = Vec::new();
    let mut rel = 1e-2;
    let mut lipschitz = 0.0;
    let mut steps = 0;
    let mut best: Option<GradientRun> = None;
    let broke = || SolveError::Numerical("the projection onto the constraints broke down".into());
    loop {
        let mu: Vec<f64> = {
            let z = with_times(ep, &x);
            z[dims..]
                .iter()
                .map(|t| (rel * t.abs()).max(1e-300))
                .collect()
        };
        let mut fx = smoothed(ep, &mu, &x, &mut grad, &mut pi).ok_or_else(broke)?;
        let metric = curvature(ep, &x, &pi);
        if lipschitz == 0.0 {
            lipschitz = step_scale(&x, &grad, &metric);
        }
        let (mut prev, mut theta) = (x.clone(), 1.0f64);
        let mut history = vec![fx];
        for _ in 0..STAGE_STEPS {
            if steps >= opts.max_gradient_steps {
                break;
            }
            steps += 1;
            let next_theta = 0.5 * (1.0 + (1.0 + 4.0 * theta * theta).sqrt());
            let beta = (theta - 1.0) / next_theta;
            let mut y: Vec<f64> = x
                .iter()
                .zip(&prev)
                .map(|(a, b)| a + beta * (a - b))
                .collect();
            let fy = match smoothed(ep, &mu, &y, &mut gy, &mut pi) {
                Some(v) => v,
                None => {
                    y.copy_from_slice(&x);
                    gy.copy_from_slice(&grad);
                    fx
                }
            };
            let mut accepted = None;
            for _ in 0..80 {
                let target: Vec<f64> = (0..dims)
                    .map(|d| y[d] - gy[d] / (lipschitz * metric[d]))
                    .collect();
                let proj = poly
                    .project(&target, &metric, &x, &work)
                    .ok_or_else(broke)?;
                let diff: Vec<f64> = proj.x.iter().zip(&y).map(|(a, b)| a - b).collect();
                let step: f64 = diff.iter().zip(&metric).map(|(d, m)| m * d * d).sum();
                let model = fy
                    + gy.iter().zip(&diff).map(|(g, d)| g * d).sum::<f64>()
                    + 0.5 * lipschitz * step;
                match smoothed(ep, &mu, &proj.x, &mut grad, &mut pi) {
                    Some(f) if f <= model + 1e-12 * model.abs() => {
                        work = (0..poly.le.len()).filter(|&i| proj.nu[i] > 0.0).collect();
                        accepted = Some((proj.x, f));
                        break;
                    }
                    _ => lipschitz *= 2.0,
                }
            }
            let (xn, fxn) = accepted.ok_or_else(broke)?;
            // Restart the momentum when it pointed uphill (O'Donoghue and Candes).
            theta = if fxn > fx { 1.0 } else { next_theta };
            let moved = xn
                .iter()
                .zip(&x)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f64, f64::max);
            let size = xn.iter().map(|v| v.abs()).fold(0.0f64, f64::max);
            prev = std::mem::replace(&mut x, xn);
            fx = fxn;
            lipschitz *= 0.9;
            if path.len() < PATH_POINTS {
                path.push(x.clone());
            }
            history.push(fx);
            let stalled = history.len() > STALL_WINDOW
                && history[history.len() - 1 - STALL_WINDOW] - fx <= 1e-3 * rel * fx.abs();
            if moved <= 1e-12 * size || stalled {
                break;
            }
        }
        // `grad` and `pi` are at x: the stage's certificate.
        smoothed(ep, &mu, &x, &mut grad, &mut pi).ok_or_else(broke)?;
        // At a fixed point B = P(B - grad / (l M)) for every l > 0, with multipliers l times
        // those of the projection: taken at a step of 0.1% of B rather than at the last 1 / L,
        // which near the end is so short that rounding would decide them.
        let l = step_scale(&x, &grad, &metric);
        let target: Vec<f64> = (0..dims)
            .map(|d| x[d] - grad[d] / (l * metric[d]))
            .collect();
        let proj = poly
            .project(&target, &metric, &x, &work)
            .ok_or_else(broke)?;
        let mult = Multipliers {
            lambda: ep
                .terms
                .iter()
                .zip(&pi)
                .map(|(k, w)| ep.c[dims + k.p] * w)
                .collect(),
            // B >= 0 is already in the dual bound's inner minimum over [0, hi]; the floor's own
            // multipliers would only add rounding there.
            nu: proj
                .nu
                .iter()
                .enumerate()
                .map(|(i, v)| if i < floor { v * l } else { 0.0 })
                .collect(),
            eta: proj.eta.iter().map(|v| v * l).collect(),
        };
        let z = with_times(ep, &x);
        let up = truth(&z);
        let low = (dual_bound(ep, &mult, &z, upper) + offset).min(up);
        let gap = gap_of(up, low);
        if gap <= 0.1 {
            // The near-max terms: by the softmax, or within 0.1%, 1% or 10% of their pattern's time
            // (the softmax of a small mu may favour one of two terms that tie at the optimum).
            let near = |within: f64| -> Vec<bool> {
                ep.terms
                    .iter()
                    .zip(&pi)
                    .map(|(k, w)| match within {
                        0.0 => *w > 1e-3,
                        _ => ep.term_slack(k, &z) <= within * z[dims + k.p].abs(),
                    })
                    .collect()
            };
            let (_, rows) = guess_active(&floored, &z);
            for within in [0.0, 1e-3, 1e-2, 1e-1] {
                let Some((zp, mut mp)) = polish(&floored, &z, &mult, near(within), rows.clone())
                else {
                    continue;
                };
                mp.nu[floor..].iter_mut().for_each(|v| *v = 0.0);
                let up_p = truth(&zp);
                let low_p = (dual_bound(ep, &mp, &zp, upper) + offset).min(up_p);
                if gap_of(up_p, low_p) <= opts.rel_gap && gap_of(up_p, low_p) <= gap {
                    return Ok(GradientRun {
                        z: zp,
                        mult: mp,
                        up: up_p,
                        low: low_p,
                        steps,
                        path,
                    });
                }
            }
        }
        if best.as_ref().is_none_or(|b| up - low < b.up - b.low) {
            best = Some(GradientRun {
                z,
                mult,
                up,
                low,
                steps,
                path: Vec::new(),
            });
        }
        if gap <= opts.rel_gap || steps >= opts.max_gradient_steps {
            break;
        }
        rel *= 0.2;
    }
    let mut best = best.ok_or_else(broke)?;
    best.steps = steps;
    best.path = path;
    Ok(best)
}
