//! The feasible set of the bandwidths, analysed before any iteration: is it empty (and which
//! constraints conflict), is there a strictly interior point (B > 0 with slack on every inequality),
//! and how far can each bandwidth go.

use super::linear::{LinearConstraint, Relation};
use super::lp::{solve, LpResult, Row};
use std::cell::OnceCell;

/// What the analysis found out.
#[derive(Clone, Debug, PartialEq)]
pub struct Feasible {
    /// A point with B > 0 and slack on every inequality.
    pub interior: Vec<f64>,
    /// The rows, with inequalities that can only hold with equality turned into equalities.
    pub rows: Vec<LinearConstraint>,
    /// The largest value of each bandwidth over the feasible set (None: unbounded), computed by an LP
    /// the first time it is asked for.
    upper: Vec<OnceCell<Option<f64>>>,
    /// The length scale of the rows (GB/s), see [`length_scale`].
    length: f64,
}

impl Feasible {
    /// The largest value of B_d (0-based) over the feasible set; None if unbounded.
    pub fn upper(&self, d: usize) -> Option<f64> {
        *self.upper[d].get_or_init(|| maximize(&self.rows, &unit(self.rows_dims(), d), self.length))
    }

    fn rows_dims(&self) -> usize {
        self.interior.len()
    }

    /// Use the upper bounds of a larger set (still valid bounds for this one).
    pub fn with_upper_of(mut self, larger: &Feasible) -> Feasible {
        self.upper = (0..self.rows_dims())
            .map(|d| OnceCell::from(larger.upper(d)))
            .collect();
        self
    }

    /// The first dimension among `dims` (0-based) whose bandwidth is unbounded, if any: one LP when
    /// all are bounded.
    pub fn first_unbounded(&self, dims: &[usize]) -> Option<usize> {
        let mut sum = vec![0.0; self.rows_dims()];
        for &d in dims {
            sum[d] = 1.0;
        }
        // A row `a . B <= b` with a > 0 on every dimension in question bounds them all (B >= 0).
        let capped = self.rows.iter().any(|r| {
            r.rel != Relation::Ge
                && dims
                    .iter()
                    .all(|&d| r.coeffs.get(d).is_some_and(|a| *a > 0.0))
        });
        if dims.is_empty() || capped || maximize(&self.rows, &sum, self.length).is_some() {
            return None;
        }
        dims.iter().copied().find(|&d| self.upper(d).is_none())
    }
}

/// Why no bandwidth allocation satisfies the constraints.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FeasibilityError {
    #[error("the constraints conflict: {}", .conflicting.join("; "))]
    Infeasible { conflicting: Vec<String> },
    #[error("the constraints force B{dim} to 0, but every bandwidth must be positive: {}", .conflicting.join("; "))]
    ZeroBandwidth {
        dim: usize,
        conflicting: Vec<String>,
    },
    /// The simplex reached its pivot limit (never seen on the optimizer's small programs): the
    /// analysis is not claimed either way.
    #[error("the analysis of the constraints stopped after {pivots} simplex pivots without an answer; simplify the constraints")]
    IterationLimit { pivots: usize },
}

/// The length scale of the rows: the smallest positive distance from the origin to a row's
/// hyperplane, `|rhs| / |a|` (1 when every row passes through the origin). The LPs run on
/// `B = length * x` with rows of unit norm, so that their tolerances hold whatever the units: a
/// budget of 5e11 $ next to a total of 500 GB/s, or a budget of 1e-6 $.
fn length_scale(rows: &[LinearConstraint]) -> f64 {
    let least = rows
        .iter()
        .filter_map(|r| {
            let d = r.rhs.abs() / norm(&r.coeffs);
            (d > 0.0 && d.is_finite()).then_some(d)
        })
        .fold(f64::INFINITY, f64::min);
    if least.is_finite() {
        least
    } else {
        1.0
    }
}

/// The rows over `x = B / length`, each of unit norm (a row `0 . B (rel) b` is kept as it is).
fn lp_rows(rows: &[LinearConstraint], length: f64) -> Vec<Row> {
    rows.iter()
        .map(|r| {
            let n = norm(&r.coeffs);
            let n = if n > 0.0 { n } else { 1.0 };
            Row::new(
                r.coeffs.iter().map(|a| a / n).collect(),
                r.rel,
                r.rhs / (n * length),
            )
        })
        .collect()
}

/// Whether the rows are not proven infeasible (a program that reaches its pivot limit counts as
/// feasible here: the conflicting set it helps to find is then larger, never wrong).
fn feasible(rows: &[LinearConstraint], dims: usize, length: f64) -> bool {
    !matches!(
        solve(&vec![0.0; dims], &lp_rows(rows, length)),
        LpResult::Infeasible
    )
}

/// A smallest set of rows that is still infeasible (deletion filter), by label.
fn conflicting(
    rows: &[LinearConstraint],
    dims: usize,
    extra: Option<&LinearConstraint>,
    length: f64,
) -> Vec<String> {
    let mut keep: Vec<LinearConstraint> = rows.to_vec();
    let mut i = 0;
    while i < keep.len() {
        let mut trial = keep.clone();
        trial.remove(i);
        let mut with_extra = trial.clone();
        with_extra.extend(extra.cloned());
        if !feasible(&with_extra, dims, length) {
            keep = trial;
        } else {
            i += 1;
        }
    }
    keep.into_iter().map(|r| r.label).collect()
}

fn norm(a: &[f64]) -> f64 {
    a.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// Maximize the smallest slack `s` (inequalities and positivity) over `x = B / length`, with
/// `s <= cap`; returns (B, s) with `s` in units of `length`, None when the rows are infeasible.
fn max_min_slack(
    rows: &[LinearConstraint],
    dims: usize,
    cap: f64,
    length: f64,
) -> Result<Option<(Vec<f64>, f64)>, FeasibilityError> {
    let mut lp = Vec::with_capacity(rows.len() + dims + 1);
    for mut r in lp_rows(rows, length) {
        let n = norm(&r.coeffs);
        r.coeffs.push(match r.rel {
            Relation::Le => n,
            Relation::Ge => -n,
            Relation::Eq => 0.0,
        });
        lp.push(r);
    }
    for d in 0..dims {
        let mut a = vec![0.0; dims + 1];
        a[d] = 1.0;
        a[dims] = -1.0;
        lp.push(Row::new(a, Relation::Ge, 0.0));
    }
    let mut a = vec![0.0; dims + 1];
    a[dims] = 1.0;
    lp.push(Row::new(a, Relation::Le, cap));
    let mut c = vec![0.0; dims + 1];
    c[dims] = -1.0;
    match solve(&c, &lp) {
        LpResult::Optimal { x, .. } => {
            let s = x[dims];
            Ok(Some((x[..dims].iter().map(|x| x * length).collect(), s)))
        }
        LpResult::IterationLimit { pivots } => Err(FeasibilityError::IterationLimit { pivots }),
        LpResult::Infeasible | LpResult::Unbounded => Ok(None),
    }
}

/// The largest `coeffs . B` over the rows (None: unbounded).
fn maximize(rows: &[LinearConstraint], coeffs: &[f64], length: f64) -> Option<f64> {
    let c: Vec<f64> = coeffs.iter().map(|x| -x).collect();
    match solve(&c, &lp_rows(rows, length)) {
        LpResult::Optimal { value, .. } => Some(-value * length),
        _ => None,
    }
}

/// Analyse the rows of a problem over `dims` bandwidths. Every tolerance is relative: to the rows'
/// length scale ([`length_scale`]) for slacks, to the largest bandwidth of the feasible set for a
/// bandwidth forced to 0, and to each row's own right-hand side for an implied equality.
pub fn analyze(rows: &[LinearConstraint], dims: usize) -> Result<Feasible, FeasibilityError> {
    match box_and_pricing_row(rows, dims, length_scale(rows)) {
        Some(f) => Ok(f),
        None => analyze_by_lp(rows, dims),
    }
}

/// [`analyze`] by linear programming, for any rows.
fn analyze_by_lp(rows: &[LinearConstraint], dims: usize) -> Result<Feasible, FeasibilityError> {
    const TOL: f64 = 1e-9;
    let length = length_scale(rows);
    // Slacks are measured in units of `length`; the cap lets the interior point reach the
    // farthest row, so that it sits well inside.
    let cap = rows
        .iter()
        .map(|r| r.rhs.abs() / (norm(&r.coeffs) * length))
        .filter(|d| d.is_finite())
        .fold(1.0, f64::max);
    // The max-min-slack LP is feasible (s = 0) exactly when the rows are.
    let Some((mut interior, s)) = max_min_slack(rows, dims, cap, length)? else {
        return Err(FeasibilityError::Infeasible {
            conflicting: conflicting(rows, dims, None, length),
        });
    };
    let mut rows = rows.to_vec();
    if s <= TOL {
        // Some inequality (or some B_d > 0) can only hold with equality.
        let most: Vec<Option<f64>> = (0..dims)
            .map(|d| maximize(&rows, &unit(dims, d), length))
            .collect();
        let extent = most.iter().flatten().fold(length, |a, &b| a.max(b));
        for (d, m) in most.iter().enumerate() {
            if m.is_some_and(|v| v <= TOL * extent) {
                let zero = LinearConstraint {
                    coeffs: unit(dims, d),
                    rel: Relation::Ge,
                    rhs: TOL * extent * 10.0,
                    label: format!("B{} > 0", d + 1),
                };
                return Err(FeasibilityError::ZeroBandwidth {
                    dim: d + 1,
                    conflicting: conflicting(&rows, dims, Some(&zero), length),
                });
            }
        }
        for i in 0..rows.len() {
            let r = &rows[i];
            if r.rel == Relation::Eq {
                continue;
            }
            let sign = if r.rel == Relation::Le { -1.0 } else { 1.0 };
            let dir: Vec<f64> = r.coeffs.iter().map(|c| sign * c).collect();
            // Largest slack of this row alone, against the row's own scale.
            let scale = r.rhs.abs().max(norm(&r.coeffs) * length);
            if let Some(v) = maximize(&rows, &dir, length) {
                if (v - sign * r.rhs).abs() <= TOL * scale {
                    rows[i].rel = Relation::Eq;
                }
            }
        }
        // Turning rows that only hold with equality into equalities keeps the set as it was.
        let Some((b, _)) = max_min_slack(&rows, dims, cap, length)? else {
            return Err(FeasibilityError::Infeasible {
                conflicting: conflicting(&rows, dims, None, length),
            });
        };
        interior = b;
    }
    Ok(Feasible {
        interior,
        rows,
        upper: vec![OnceCell::new(); dims],
        length,
    })
}

/// The analysis in closed form for the common shape of a problem: bounds on single bandwidths
/// (`B_d >= l`, `B_d <= u`) and one row that prices every bandwidth (`r . B = R` or `<= R`, every
/// `r_d > 0`), as LIBRA's total bandwidth or a budget. With `L`, `U` the bounds and `gap = R - r.L`,
/// the largest `B_d` is `min(U_d, L_d + gap / r_d)` (the others at their least), exactly what the LP
/// finds; the interior point spreads `gap` over the dimensions in proportion to how far each can
/// go. None for any other shape, and whenever the set is not clearly full-dimensional (a bound that
/// meets, a row at its least): the LP analysis then decides, names conflicts and finds implied
/// equalities.
fn box_and_pricing_row(rows: &[LinearConstraint], dims: usize, length: f64) -> Option<Feasible> {
    const MARGIN: f64 = 1e-6;
    let mut lo = vec![0.0f64; dims];
    let mut hi = vec![f64::INFINITY; dims];
    let mut pricing: Option<&LinearConstraint> = None;
    for r in rows {
        if r.coeffs.len() != dims || !r.rhs.is_finite() {
            return None;
        }
        let nonzero = r.coeffs.iter().filter(|a| **a != 0.0).count();
        let first = r.coeffs.iter().position(|a| *a != 0.0);
        match (nonzero, first, r.rel) {
            (1, Some(d), Relation::Le | Relation::Ge) => {
                let (a, v) = (r.coeffs[d], r.rhs / r.coeffs[d]);
                if !(a.is_finite() && v.is_finite()) {
                    return None;
                }
                match (r.rel == Relation::Le) == (a > 0.0) {
                    true => hi[d] = hi[d].min(v),
                    false => lo[d] = lo[d].max(v),
                }
            }
            _ if nonzero == dims
                && r.rel != Relation::Ge
                && r.rhs > 0.0
                && r.coeffs.iter().all(|a| *a > 0.0 && a.is_finite())
                && pricing.is_none() =>
            {
                pricing = Some(r);
            }
            _ => return None,
        }
    }
    let row = pricing?;
    let r = &row.coeffs;
    let width: Vec<f64> = (0..dims).map(|d| hi[d] - lo[d]).collect();
    if width
        .iter()
        .zip(&hi)
        .any(|(w, h)| h.is_finite() && *w <= MARGIN * h.abs().max(length))
    {
        return None;
    }
    let least: f64 = r.iter().zip(&lo).map(|(a, l)| a * l).sum();
    let gap = row.rhs - least;
    if gap <= MARGIN * row.rhs {
        return None;
    }
    let reach: Vec<f64> = (0..dims).map(|d| width[d].min(gap / r[d])).collect();
    let room: f64 = r.iter().zip(&reach).map(|(a, x)| a * x).sum();
    let share = match row.rel {
        // Strictly inside every box when the boxes can hold more than the row asks.
        Relation::Eq if room > (1.0 + MARGIN) * gap => gap / room,
        Relation::Eq => return None,
        _ => 0.5 * (gap / room).min(1.0),
    };
    let interior: Vec<f64> = (0..dims).map(|d| lo[d] + share * reach[d]).collect();
    let upper = (0..dims)
        .map(|d| OnceCell::from(Some(hi[d].min(lo[d] + gap / r[d]))))
        .collect();
    interior
        .iter()
        .all(|b| *b > 0.0 && b.is_finite())
        .then(|| Feasible {
            interior,
            rows: rows.to_vec(),
            upper,
            length,
        })
}

impl Feasible {
    /// The analysis of `rows` when each is a loosened copy of the corresponding row of `self` (same
    /// coefficients and relation, right-hand side moved outward, as the budget row along an
    /// ascending sweep): the interior stays strictly inside and no row can become an implied
    /// equality, so no LP is needed. None when `rows` is not such a copy.
    pub fn loosened(&self, rows: &[LinearConstraint]) -> Option<Feasible> {
        let looser = rows.len() == self.rows.len()
            && rows.iter().zip(&self.rows).all(|(new, old)| {
                new.coeffs == old.coeffs
                    && new.rel == old.rel
                    && match new.rel {
                        Relation::Le => new.rhs >= old.rhs,
                        Relation::Ge => new.rhs <= old.rhs,
                        Relation::Eq => new.rhs == old.rhs,
                    }
            });
        if !looser {
            return None;
        }
        let dims = self.rows_dims();
        box_and_pricing_row(rows, dims, length_scale(rows)).or_else(|| {
            Some(Feasible {
                interior: self.interior.clone(),
                rows: rows.to_vec(),
                upper: vec![OnceCell::new(); dims],
                length: self.length,
            })
        })
    }
}

fn unit(dims: usize, d: usize) -> Vec<f64> {
    let mut u = vec![0.0; dims];
    u[d] = 1.0;
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimize::linear::parse_constraint;

    fn rows(texts: &[&str]) -> Vec<LinearConstraint> {
        texts
            .iter()
            .map(|t| parse_constraint(t, 4).unwrap())
            .collect()
    }

    fn strictly_inside(f: &Feasible) {
        for r in &f.rows {
            let v: f64 = r.coeffs.iter().zip(&f.interior).map(|(c, b)| c * b).sum();
            match r.rel {
                Relation::Le => assert!(v < r.rhs, "{} at {:?}", r.label, f.interior),
                Relation::Ge => assert!(v > r.rhs, "{} at {:?}", r.label, f.interior),
                Relation::Eq => assert!((v - r.rhs).abs() <= 1e-9 * r.rhs.abs().max(1.0)),
            }
        }
        assert!(f.interior.iter().all(|b| *b > 0.0));
    }

    #[test]
    fn libras_multiple_constraints_have_an_interior() {
        let f = analyze(
            &rows(&[
                "B1 + B2 + B3 + B4 = 1000",
                "B1 = 500",
                "B1 >= B2",
                "B2 >= B3",
                "B3 + B4 = 200",
            ]),
            4,
        )
        .unwrap();
        strictly_inside(&f);
        assert_eq!(f.upper(1), Some(300.0));
        assert!((f.upper(3).unwrap() - 200.0).abs() < 1e-9);
    }

    #[test]
    fn conflicts_are_named() {
        let e = analyze(
            &rows(&["B1 + B2 + B3 + B4 = 100", "B1 >= 60", "B2 >= 50", "B3 <= 7"]),
            4,
        )
        .unwrap_err();
        assert_eq!(
            e,
            FeasibilityError::Infeasible {
                conflicting: vec![
                    "B1 + B2 + B3 + B4 = 100".into(),
                    "B1 >= 60".into(),
                    "B2 >= 50".into()
                ]
            }
        );
    }

    #[test]
    fn implicit_equalities_and_forced_zeros() {
        let f = analyze(
            &rows(&["B1 >= B2", "B2 >= B1", "B1 + B2 + B3 + B4 = 10"]),
            4,
        )
        .unwrap();
        strictly_inside(&f);
        assert_eq!(f.rows[0].rel, Relation::Eq);
        let e = analyze(&rows(&["B1 + B2 <= 0", "B3 + B4 = 10"]), 4).unwrap_err();
        assert!(
            matches!(e, FeasibilityError::ZeroBandwidth { dim: 1, .. }),
            "{e}"
        );
    }

    #[test]
    fn tolerances_follow_the_scale_of_the_rows() {
        // A far-away budget or bound next to a total of 500 GB/s: feasible, and nothing is forced
        // to 0 (an absolute tolerance against 5e11 said "B1 is forced to 0").
        let budget = |rhs: f64| LinearConstraint {
            coeffs: vec![4096.0 * 120.0, 4096.0 * 60.0, 4096.0 * 30.0, 4096.0 * 900.0],
            rel: Relation::Le,
            rhs,
            label: format!("budget {rhs}"),
        };
        for far in [5e11, 1e20, 1e200] {
            let mut r = rows(&["B1 + B2 + B3 + B4 = 500"]);
            r.push(budget(far));
            let f = analyze(&r, 4).unwrap();
            strictly_inside(&f);
            assert!(f.interior.iter().all(|b| *b > 1.0), "{:?}", f.interior);
        }
        let f = analyze(&rows(&["B1 + B2 + B3 + B4 = 500", "B1 <= 1e12"]), 4).unwrap();
        strictly_inside(&f);
        // A tiny budget alone: a tiny but strictly interior design.
        for tiny in [1e-6, 1e-60] {
            let f = analyze(&[budget(tiny)], 4).unwrap();
            strictly_inside(&f);
            let v: f64 = budget(tiny)
                .coeffs
                .iter()
                .zip(&f.interior)
                .map(|(a, b)| a * b)
                .sum();
            assert!(v > 0.01 * tiny && v < tiny, "{v} for {tiny}");
        }
        // A bandwidth truly forced to 0 is still found at any scale.
        let e = analyze(&rows(&["B1 + B2 <= 0", "B3 + B4 = 1e-9"]), 4).unwrap_err();
        assert!(
            matches!(e, FeasibilityError::ZeroBandwidth { dim: 1, .. }),
            "{e}"
        );
    }

    #[test]
    fn unbounded_dimensions_have_no_upper_bound() {
        let f = analyze(&rows(&["B1 + B2 <= 10"]), 4).unwrap();
        assert_eq!(f.upper(0), Some(10.0));
        assert_eq!(f.upper(2), None);
        assert_eq!(f.first_unbounded(&[0, 1]), None);
        assert_eq!(f.first_unbounded(&[0, 3]), Some(3));
        strictly_inside(&f);
    }

    #[test]
    fn a_loosened_copy_keeps_the_interior_without_an_lp() {
        let tight = rows(&["B1 + B2 + B3 + B4 <= 100", "B1 >= B2 + 2"]);
        let f = analyze(&tight, 4).unwrap();
        let looser = rows(&["B1 + B2 + B3 + B4 <= 200", "B1 >= B2 + 1"]);
        let g = f.loosened(&looser).unwrap();
        assert_eq!(g.interior, f.interior);
        assert!((g.upper(0).unwrap() - 200.0).abs() < 1e-9);
        // Tighter, or a different row: a fresh analysis is needed.
        assert!(f
            .loosened(&rows(&["B1 + B2 + B3 + B4 <= 50", "B1 >= B2 + 2"]))
            .is_none());
        assert!(f
            .loosened(&rows(&["B1 + B2 <= 200", "B1 >= B2 + 2"]))
            .is_none());
        assert!(f.loosened(&looser[..1]).is_none());
        // A box cut by one pricing row is analysed again in closed form, still inside.
        let b = analyze(&rows(&["B1 + B2 + B3 + B4 <= 100", "B1 >= 2"]), 4).unwrap();
        let c = b
            .loosened(&rows(&["B1 + B2 + B3 + B4 <= 200", "B1 >= 1"]))
            .unwrap();
        strictly_inside(&c);
        assert_eq!(c.upper(0), Some(200.0));
    }

    /// The closed form against the LP analysis on random boxes cut by one pricing row: the same
    /// largest bandwidths, the same rows, and a strictly interior point; where it declines (a bound
    /// that meets, a row at its least) the LP decides.
    #[test]
    fn the_closed_form_agrees_with_the_lps() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut closed = 0;
        for case in 0..400 {
            let dims = 2 + case % 4;
            let r: Vec<f64> = (0..dims).map(|_| 0.1 + 10.0 * next()).collect();
            let rhs = 10f64.powf(6.0 * next() - 1.0);
            let rel = if next() < 0.5 {
                Relation::Eq
            } else {
                Relation::Le
            };
            let mut all = vec![LinearConstraint::new(r.clone(), rel, rhs)];
            for d in 0..dims {
                let mut u = vec![0.0; dims];
                u[d] = if next() < 0.2 { -2.0 } else { 1.0 };
                let share = rhs / r[d] / dims as f64;
                match next() {
                    x if x < 0.3 => all.push(LinearConstraint::new(
                        u.clone(),
                        Relation::Ge,
                        share * u[d] * next(),
                    )),
                    x if x < 0.5 => all.push(LinearConstraint::new(
                        u.clone(),
                        Relation::Le,
                        share * u[d] * (0.5 + 2.0 * next()),
                    )),
                    // A bound that meets another: declined by the closed form.
                    x if x < 0.52 => {
                        all.push(LinearConstraint::new(u.clone(), Relation::Le, share * u[d]));
                        all.push(LinearConstraint::new(u.clone(), Relation::Ge, share * u[d]));
                    }
                    _ => {}
                }
            }
            let lp = analyze_by_lp(&all, dims);
            let Some(fast) = box_and_pricing_row(&all, dims, length_scale(&all)) else {
                continue;
            };
            closed += 1;
            let lp = lp.expect("the closed form only answers feasible sets");
            strictly_inside(&fast);
            assert_eq!(fast.rows, lp.rows, "case {case}");
            for d in 0..dims {
                let (a, b) = (fast.upper(d).unwrap(), lp.upper(d).unwrap());
                assert!(
                    (a - b).abs() <= 1e-9 * b.abs().max(1e-300),
                    "case {case} B{}: {a} vs {b}",
                    d + 1
                );
            }
        }
        assert!(closed > 250, "{closed} of 400 in closed form");
    }
}
