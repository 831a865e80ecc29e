//! Least training time over the feasible bandwidths: the barrier (interior-point) method on the
//! epigraph form (`barrier.rs`), started from a strictly interior point found by linear
//! programming (`feasible.rs`), stopped on a certified gap (`certificate.rs`) and finished exactly
//! on the active set once it has settled (`polish.rs`); warm-started along a sweep.

use super::barrier::Epigraph;
use super::certificate::{barrier_multipliers, dual_bound, sensitivities, Multipliers};
use super::closed_form::closed_form;
use super::feasible::Feasible;
use super::linear::{independent, Relation};
use super::lp::{self, LpResult, Row};
use super::polish::{guess_active, polish};
use super::problem::Problem;
use super::projected_gradient::projected_gradient;
use super::solution::{solution, Method, Solution, SolveError, SolveOptions};

/// The epigraph of `problem` over the rows of `feasible`, with every B_d > 0 as a row.
pub(crate) fn epigraph(problem: &Problem, feasible: &Feasible) -> Epigraph {
    let dims = problem.dims;
    let pats = problem.patterns.len();
    let n = dims + pats;
    let mut ep = Epigraph::new(dims, &problem.patterns);
    // Sized up front: this runs once per solve, and cold every growth is a call far away.
    let eqs = feasible
        .rows
        .iter()
        .filter(|r| r.rel == Relation::Eq)
        .count();
    ep.g = Vec::with_capacity(feasible.rows.len() - eqs + dims);
    if eqs > 0 {
        let equalities: Vec<(Vec<f64>, f64)> = feasible
            .rows
            .iter()
            .filter(|r| r.rel == Relation::Eq)
            .map(|r| (r.coeffs.clone(), r.rhs))
            .collect();
        ep.e_of = independent(&equalities);
        ep.e = ep.e_of.iter().map(|&i| equalities[i].clone()).collect();
    }
    for r in &feasible.rows {
        let sign = match r.rel {
            Relation::Le => 1.0,
            Relation::Ge => -1.0,
            Relation::Eq => continue,
        };
        let mut a = vec![0.0; n];
        for (x, c) in a.iter_mut().zip(&r.coeffs) {
            *x = sign * c;
        }
        ep.g.push((a, sign * r.rhs));
    }
    for d in 0..dims {
        let mut a = vec![0.0; n];
        a[d] = -1.0;
        ep.g.push((a, 0.0));
    }
    ep
}

/// How much further along the central path the barrier starts from the surrogate's point.
const SURROGATE_TAU: f64 = 10.0;

/// The surrogate start (see `min_time_warm`), when the feasible set has exactly one row with a
/// positive coefficient on every dimension that is an equality or the only inequality of that
/// kind; None otherwise.
fn surrogate_start(problem: &Problem, feasible: &Feasible, equalize: bool) -> Option<Vec<f64>> {
    let dims = problem.dims;
    let pricing: Vec<_> = feasible
        .rows
        .iter()
        .filter(|r| r.coeffs.iter().all(|c| *c > 0.0) && r.rhs > 0.0)
        .filter(|r| matches!(r.rel, Relation::Eq | Relation::Le))
        .collect();
    let [row] = pricing[..] else { return None };
    let c: Vec<f64> = (0..dims)
        .map(|d| {
            problem
                .patterns
                .iter()
                .map(|p| p.weight * p.a[d])
                .sum::<f64>()
        })
        .collect();
    let top = c.iter().copied().fold(0.0, f64::max);
    if !(top > 0.0 && top.is_finite()) {
        return None;
    }
    // Idle dimensions get a sliver, so that the start stays inside.
    let shape: Vec<f64> = c
        .iter()
        .zip(&row.coeffs)
        .map(|(c, r)| match equalize {
            true => c.max(1e-6 * top),
            false => (c.max(1e-6 * top) / r).sqrt(),
        })
        .collect();
    let used: f64 = shape.iter().zip(&row.coeffs).map(|(s, r)| s * r).sum();
    let fill = if row.rel == Relation::Eq { 1.0 } else { 0.999 };
    let b: Vec<f64> = shape.iter().map(|s| s * fill * row.rhs / used).collect();
    b.iter().all(|x| x.is_finite() && *x > 0.0).then_some(b)
}

/// The outcome of the barrier method: the point, its multipliers and the certified bounds (in the
/// epigraph's normalized units).
struct Run {
    z: Vec<f64>,
    mult: Multipliers,
    up: f64,
    low: f64,
    steps: usize,
    /// `z0` and every center.
    path: Vec<Vec<f64>>,
}

/// Run the barrier method from `z0` until the certified gap of `c.z + offset` is below `rel_gap`.
/// `true_objective` maps a point to the objective value actually reported (its upper bound).
fn run(
    ep: &Epigraph,
    z0: Vec<f64>,
    offset: f64,
    upper: &dyn Fn(usize) -> Option<f64>,
    opts: &SolveOptions,
    true_objective: &dyn Fn(&[f64]) -> f64,
    tau_scale: f64,
) -> Result<Run, SolveError> {
    let m = ep.m() as f64;
    let f0: f64 = ep.c.iter().zip(&z0).map(|(c, z)| c * z).sum::<f64>();
    let mut tau = tau_scale * m / f0.abs().max(1e-12);
    let mut path = vec![z0.clone()];
    let mut z = z0;
    let mut steps = 0;
    let mut best: Option<Run> = None;
    let gap_of = |up: f64, low: f64| (up - low) / up.abs().max(f64::MIN_POSITIVE);
    for _ in 0..60 {
        let left = opts.max_newton_steps.saturating_sub(steps).max(1);
        let cen = ep
            .center(z.clone(), tau, left.min(200))
            .ok_or_else(|| SolveError::Numerical("singular Newton system".into()))?;
        steps += cen.newton_steps;
        path.push(cen.z.clone());
        let up = true_objective(&cen.z);
        let mult = barrier_multipliers(ep, &cen, tau);
        let low = (dual_bound(ep, &mult, &cen.z, upper) + offset).min(up);
        let gap = gap_of(up, low);
        // Once the active set has settled, finish exactly on it.
        if gap <= 0.01 {
            let (terms, rows) = guess_active(ep, &cen.z);
            if let Some((zp, mp)) = polish(ep, &cen.z, &mult, terms, rows) {
                let up_p = true_objective(&zp);
                let low_p = (dual_bound(ep, &mp, &zp, upper) + offset).min(up_p);
                if gap_of(up_p, low_p) <= opts.rel_gap && gap_of(up_p, low_p) <= gap {
                    return Ok(Run {
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
        z = cen.z.clone();
        let done = gap <= opts.rel_gap || steps >= opts.max_newton_steps || tau > 1e15;
        if best.as_ref().is_none_or(|b| up - low < b.up - b.low) {
            best = Some(Run {
                z: cen.z,
                mult,
                up,
                low,
                steps,
                path: Vec::new(),
            });
        }
        if done {
            break;
        }
        tau *= 10.0;
    }
    let mut best = best.expect("at least one centering");
    best.steps = steps;
    best.path = path;
    Ok(best)
}

fn start_t(problem: &Problem, bw: &[f64], margin: f64) -> Vec<f64> {
    problem
        .patterns
        .iter()
        .map(|p| {
            let h = p.time(bw).0;
            h * (1.0 + margin) + 1e-9
        })
        .collect()
}

/// Minimize the training time over the feasible set, starting from `start` if it is strictly inside.
pub fn min_time(
    problem: &Problem,
    feasible: &Feasible,
    start: Option<&[f64]>,
    opts: &SolveOptions,
) -> Result<Solution, SolveError> {
    min_time_warm(problem, feasible, start, None, opts).map(|(s, _)| s)
}

/// An optimum with its multipliers in objective units (ns), to warm-start a nearby problem with the
/// same rows (the next budget of a sweep).
#[derive(Clone, Debug)]
pub(crate) struct Warm {
    bw: Vec<f64>,
    mult: Multipliers,
}

/// `min_time`, first trying the active set of `warm` directly (no barrier iterations when it is
/// still optimal, which the certificate decides), and returning the warm start for the next problem.
pub(crate) fn min_time_warm(
    problem: &Problem,
    feasible: &Feasible,
    start: Option<&[f64]>,
    warm: Option<&Warm>,
    opts: &SolveOptions,
) -> Result<(Solution, Warm), SolveError> {
    let busy: Vec<usize> = (0..problem.dims).filter(|&d| !problem.idle[d]).collect();
    if let Some(d) = feasible.first_unbounded(&busy) {
        return Err(SolveError::Unbounded { dim: d + 1 });
    }
    let mut ep = epigraph(problem, feasible);
    let start = start.or(warm.map(|w| w.bw.as_slice()));
    // A start is used when it is inside and no slower than the interior point: a design from a
    // far-away budget of a sweep would set the barrier's scale orders of magnitude off.
    let b0: Vec<f64> = match start {
        Some(s)
            if strictly_inside(&ep, s) && problem.time(s) <= problem.time(&feasible.interior) =>
        {
            s.to_vec()
        }
        _ => feasible.interior.clone(),
    };
    let comm0: f64 = problem.time(&b0) - problem.compute_ns;
    let scale = comm0.max(1e-30);
    for (p, pat) in problem.patterns.iter().enumerate() {
        ep.c[problem.dims + p] = pat.weight / scale;
    }
    let compute = problem.compute_ns / scale;
    let truth = |z: &[f64]| problem.time(&z[..problem.dims]) / scale;
    let upper = |d| feasible.upper(d);
    let finish = |z: &[f64], mult: Multipliers, low: f64, steps: usize| {
        let bw = least_idle(problem, feasible, &z[..problem.dims]);
        let mut sol = solution(problem, bw, false, low * scale, steps);
        sol.sensitivity = sensitivities(feasible, &ep.e_of, &mult, scale);
        let warm = Warm {
            bw: z[..problem.dims].to_vec(),
            mult: mult.scaled(scale),
        };
        (sol, warm)
    };
    // An exact point with its multipliers, kept when its certificate holds; `from` starts the path.
    let certify = |zp: Vec<f64>, mp: Multipliers, from: Option<&[f64]>| {
        let up = truth(&zp);
        let low = (dual_bound(&ep, &mp, &zp, &upper) + compute).min(up);
        ((up - low) / up.abs().max(f64::MIN_POSITIVE) <= opts.rel_gap).then(|| {
            let (mut sol, warm) = finish(&zp, mp, low, 0);
            sol.path = from.into_iter().map(<[f64]>::to_vec).collect();
            sol.path.push(sol.bw_gbps.clone());
            (sol, warm)
        })
    };
    // The closed form, when the method and the problem allow it: cold with every owner map if
    // need be, along a sweep only from the level start's (a budget-only front keeps its owners).
    let exact_allowed = !opts.central_path && opts.method == Method::InteriorPoint;
    if exact_allowed && (warm.is_some() || start.is_none()) {
        let found = closed_form(&ep, feasible, warm.is_none())
            .and_then(|(zp, mp)| certify(zp, mp, warm.map(|w| w.bw.as_slice())));
        if let Some(done) = found {
            return Ok(done);
        }
    }
    if let Some(w) = warm.filter(|w| {
        w.bw.len() == problem.dims
            && w.mult.lambda.len() == ep.terms.len()
            && w.mult.nu.len() == ep.g.len()
            && w.mult.eta.len() == ep.e.len()
    }) {
        let mut z = w.bw.clone();
        z.extend(start_t(problem, &w.bw, 0.0));
        let mult = w.mult.scaled(1.0 / scale);
        let terms = mult.lambda.iter().map(|l| *l > 0.0).collect();
        let rows = mult.nu.iter().map(|v| *v > 0.0).collect();
        if let Some(done) =
            polish(&ep, &z, &mult, terms, rows).and_then(|(zp, mp)| certify(zp, mp, Some(&w.bw)))
        {
            return Ok(done);
        }
    }
    // Cold: start near the optimum when one row prices every bandwidth (a total or a budget):
    // the minimum of the smooth surrogate sum_d c_d / B_d (c_d the patterns' summed bytes, an
    // upper bound of the max) on that row, B_d proportional to sqrt(c_d / r_d); the barrier then
    // begins at a weight that matches how close that start is.
    let (b0, tau_scale) = match (warm.is_none() && start.is_none())
        .then(|| surrogate_start(problem, feasible, false))
        .flatten()
        .filter(|b| strictly_inside(&ep, b) && problem.time(b) <= problem.time(&b0))
    {
        Some(b) => (b, SURROGATE_TAU),
        None => (b0, 1.0),
    };
    // The exact optimum at once when the active set can be guessed at the level start (every
    // pattern's dimensions equally fast, B_d proportional to c_d) or at the surrogate's.
    if exact_allowed && warm.is_none() && start.is_none() {
        let level = surrogate_start(problem, feasible, true).filter(|b| strictly_inside(&ep, b));
        for from in level.iter().chain([&b0]) {
            let found = direct(&ep, from).and_then(|(zp, mp)| certify(zp, mp, Some(from)));
            if let Some(done) = found {
                return Ok(done);
            }
        }
    }
    let r = match opts.method {
        Method::InteriorPoint => {
            let mut z0 = b0.clone();
            z0.extend(start_t(problem, &b0, 0.1));
            run(&ep, z0, compute, &upper, opts, &truth, tau_scale)?
        }
        Method::ProjectedGradient => {
            let g = projected_gradient(&ep, &b0, compute, &upper, opts, &truth)?;
            Run {
                z: g.z,
                mult: g.mult,
                up: g.up,
                low: g.low,
                steps: g.steps,
                path: g.path,
            }
        }
    };
    let (mut sol, warm) = finish(&r.z, r.mult, r.low, r.steps);
    sol.path = r.path.iter().map(|z| z[..problem.dims].to_vec()).collect();
    sol.path.push(sol.bw_gbps.clone());
    Ok((sol, warm))
}

/// The exact optimum straight from the surrogate start, without barrier steps, when its active set
/// can be guessed there: the terms within half of their pattern's time, the multipliers shared
/// equally among them, the equality rows' from the bandwidths' stationarity. None when the active
/// set's Newton method does not settle (the barrier then runs).
fn direct(ep: &Epigraph, b0: &[f64]) -> Option<(Vec<f64>, Multipliers)> {
    let dims = ep.dims;
    let mut z = b0.to_vec();
    z.resize(ep.n(), 0.0);
    for k in &ep.terms {
        z[dims + k.p] = z[dims + k.p].max(k.alpha + k.a / b0[k.d]);
    }
    let terms: Vec<bool> = ep
        .terms
        .iter()
        .map(|k| k.alpha + k.a / b0[k.d] >= 0.5 * z[dims + k.p])
        .collect();
    let mut count = vec![0usize; ep.patterns];
    for (k, on) in ep.terms.iter().zip(&terms) {
        count[k.p] += usize::from(*on);
    }
    let lambda: Vec<f64> = ep
        .terms
        .iter()
        .zip(&terms)
        .map(|(k, on)| match on {
            true => ep.c[dims + k.p] / count[k.p] as f64,
            false => 0.0,
        })
        .collect();
    let mut pull = vec![0.0; dims];
    for (k, l) in ep.terms.iter().zip(&lambda) {
        pull[k.d] += l * k.a / (b0[k.d] * b0[k.d]);
    }
    let eta =
        ep.e.iter()
            .map(|(row, _)| {
                let (num, den) = row
                    .iter()
                    .zip(&pull)
                    .fold((0.0, 0.0), |(n, d), (r, p)| (n + r * p, d + r * r));
                if den > 0.0 {
                    num / den
                } else {
                    0.0
                }
            })
            .collect();
    let mult = Multipliers {
        lambda,
        nu: vec![0.0; ep.g.len()],
        eta,
    };
    let (_, rows) = guess_active(ep, &z);
    polish(ep, &z, &mult, terms, rows)
}

/// Dimensions without traffic do not change the time, so their bandwidth is set to the least the
/// constraints allow with the busy dimensions at `bw` (an LP on the sum of idle bandwidths), moved
/// 0.1% of the way back towards `bw` so that it stays positive when that least value is 0.
fn least_idle(problem: &Problem, feasible: &Feasible, bw: &[f64]) -> Vec<f64> {
    let dims = problem.dims;
    if !problem.idle.iter().any(|i| *i) {
        return bw.to_vec();
    }
    let mut rows: Vec<Row> = feasible.rows.clone();
    for d in (0..dims).filter(|&d| !problem.idle[d]) {
        let mut a = vec![0.0; dims];
        a[d] = 1.0;
        rows.push(Row::new(a, Relation::Eq, bw[d]));
    }
    let c: Vec<f64> = problem
        .idle
        .iter()
        .map(|&i| if i { 1.0 } else { 0.0 })
        .collect();
    match lp::solve(&c, &rows) {
        LpResult::Optimal { x, .. } => (0..dims)
            .map(|d| match problem.idle[d] {
                true => x[d] + 1e-3 * (bw[d] - x[d]).max(0.0),
                false => bw[d],
            })
            .collect(),
        // Rounding in the fixed rows: keep the solver's (feasible) point.
        _ => bw.to_vec(),
    }
}

fn strictly_inside(ep: &Epigraph, b: &[f64]) -> bool {
    b.len() == ep.dims
        && b.iter().all(|x| *x > 0.0 && x.is_finite())
        && ep.g.iter().all(|r| {
            r.1 - r.0.iter().zip(b).map(|(a, x)| a * x).sum::<f64>() > 1e-12 * r.1.abs().max(1.0)
        })
        && ep.e.iter().all(|r| {
            (r.0.iter().zip(b).map(|(a, x)| a * x).sum::<f64>() - r.1).abs()
                <= 1e-12 * r.1.abs().max(1.0)
        })
}
