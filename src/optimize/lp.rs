//! A small dense two-phase simplex (Bland's rule, so it cannot cycle) for the linear programs the
//! optimizer needs: feasibility of the constraint set, a strictly interior point, the range of each
//! bandwidth. Sizes here are tiny (a few dozen rows and columns). Every row is scaled to a largest
//! coefficient of 1, and the objective likewise, so that the absolute tolerances hold whatever the
//! units (a budget row in dollars is about 1e8 against tolerances of 1e-9); a run that reaches its
//! pivot limit says so ([`LpResult::IterationLimit`]), never claiming an optimum it did not reach.
//!
//! minimize `c . x` subject to `rows` and `x >= 0`.

use super::linear::{LinearConstraint, Relation};

/// One row `coeffs . x (rel) rhs`: the optimizer's one linear-row type.
pub type Row = LinearConstraint;

/// The result of an LP.
#[derive(Clone, Debug, PartialEq)]
pub enum LpResult {
    Optimal {
        x: Vec<f64>,
        value: f64,
    },
    Infeasible,
    Unbounded,
    /// The pivots ran out before either phase ended: nothing is known.
    IterationLimit {
        pivots: usize,
    },
}

/// Pivots per phase before [`solve`] gives up (Bland's rule never cycles; the LPs here take tens).
pub const MAX_PIVOTS: usize = 10_000;

/// How a phase of the simplex ended.
enum Phase {
    Optimal,
    Unbounded,
    Limit,
}

const EPS: f64 = 1e-9;

struct Tableau {
    /// rows x (cols + 1); the last column is the right-hand side.
    t: Vec<Vec<f64>>,
    basis: Vec<usize>,
    cols: usize,
}

impl Tableau {
    fn pivot(&mut self, r: usize, c: usize) {
        let p = self.t[r][c];
        for v in self.t[r].iter_mut() {
            *v /= p;
        }
        let pivot_row = self.t[r].clone();
        for (i, row) in self.t.iter_mut().enumerate() {
            if i != r {
                let f = row[c];
                if f != 0.0 {
                    for (v, pv) in row.iter_mut().zip(&pivot_row) {
                        *v -= f * pv;
                    }
                }
            }
        }
        self.basis[r] = c;
    }

    /// Minimize `cost . x` over the allowed columns from the current basic feasible solution,
    /// within `max_pivots` pivots.
    fn minimize(
        &mut self,
        cost: &[f64],
        allowed: &dyn Fn(usize) -> bool,
        max_pivots: usize,
    ) -> Phase {
        let rhs = self.cols;
        for _ in 0..=max_pivots {
            // Reduced costs: cost_j - sum_i cost_basis(i) t[i][j].
            let reduced = |j: usize| -> f64 {
                cost[j]
                    - self
                        .basis
                        .iter()
                        .zip(&self.t)
                        .map(|(&b, row)| cost[b] * row[j])
                        .sum::<f64>()
            };
            let Some(enter) = (0..self.cols).find(|&j| allowed(j) && reduced(j) < -EPS) else {
                return Phase::Optimal;
            };
            let mut leave: Option<(usize, f64)> = None;
            for (i, row) in self.t.iter().enumerate() {
                if row[enter] > EPS {
                    let ratio = row[rhs] / row[enter];
                    let better = match leave {
                        None => true,
                        Some((l, best)) => {
                            ratio < best - EPS
                                || (ratio <= best + EPS && self.basis[i] < self.basis[l])
                        }
                    };
                    if better {
                        leave = Some((i, ratio));
                    }
                }
            }
            match leave {
                Some((r, _)) => self.pivot(r, enter),
                None => return Phase::Unbounded,
            }
        }
        Phase::Limit
    }
}

/// Solve `minimize c . x` subject to `rows`, `x >= 0`.
pub fn solve(c: &[f64], rows: &[Row]) -> LpResult {
    solve_within(c, rows, MAX_PIVOTS)
}

/// The largest absolute value of `v` (1 when every entry is 0, so that dividing by it is a no-op).
fn largest(v: &[f64]) -> f64 {
    let m = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if m > 0.0 && m.is_finite() {
        m
    } else {
        1.0
    }
}

/// [`solve`] with at most `max_pivots` pivots per phase.
pub fn solve_within(c: &[f64], rows: &[Row], max_pivots: usize) -> LpResult {
    let n = c.len();
    // Each row scaled to a largest coefficient of 1, and the objective too: the solution is the
    // same, and the tolerances below are relative to each row's own size.
    let scaled: Vec<Row> = rows
        .iter()
        .map(|r| {
            let k = largest(&r.coeffs[..r.coeffs.len().min(n)]);
            Row::new(r.coeffs.iter().map(|a| a / k).collect(), r.rel, r.rhs / k)
        })
        .collect();
    let rows = &scaled;
    let c_scale = largest(c);
    let m = rows.len();
    // Columns: n structural, one slack/surplus per inequality row, one artificial per row.
    let slack_of: Vec<Option<usize>> = {
        let mut next = n;
        rows.iter()
            .map(|r| {
                (r.rel != Relation::Eq).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    let slacks = slack_of.iter().flatten().count();
    let art0 = n + slacks;
    let cols = art0 + m;
    let mut t = vec![vec![0.0; cols + 1]; m];
    for (i, r) in rows.iter().enumerate() {
        let flip = if r.rhs < 0.0 { -1.0 } else { 1.0 };
        for (j, a) in r.coeffs.iter().enumerate().take(n) {
            t[i][j] = flip * a;
        }
        if let Some(s) = slack_of[i] {
            let sign = if r.rel == Relation::Le { 1.0 } else { -1.0 };
            t[i][s] = flip * sign;
        }
        t[i][art0 + i] = 1.0;
        t[i][cols] = flip * r.rhs;
    }
    let mut tab = Tableau {
        t,
        basis: (art0..art0 + m).collect(),
        cols,
    };
    // Phase 1: minimize the artificials.
    let mut phase1 = vec![0.0; cols];
    phase1[art0..].iter_mut().for_each(|v| *v = 1.0);
    if let Phase::Limit = tab.minimize(&phase1, &|_| true, max_pivots) {
        return LpResult::IterationLimit { pivots: max_pivots };
    }
    let infeasibility: f64 = tab
        .basis
        .iter()
        .zip(&tab.t)
        .filter(|(&b, _)| b >= art0)
        .map(|(_, row)| row[cols])
        .sum();
    let scale = 1.0 + rows.iter().map(|r| r.rhs.abs()).fold(0.0, f64::max);
    if infeasibility > 1e-9 * scale {
        return LpResult::Infeasible;
    }
    // Drive remaining (zero-valued) artificials out of the basis where possible.
    for i in 0..m {
        if tab.basis[i] >= art0 {
            if let Some(j) = (0..art0).find(|&j| tab.t[i][j].abs() > EPS) {
                tab.pivot(i, j);
            }
        }
    }
    // Phase 2.
    let mut cost = vec![0.0; cols];
    for (k, v) in cost[..n].iter_mut().zip(c) {
        *k = v / c_scale;
    }
    match tab.minimize(&cost, &|j| j < art0, max_pivots) {
        Phase::Optimal => {}
        Phase::Unbounded => return LpResult::Unbounded,
        Phase::Limit => return LpResult::IterationLimit { pivots: max_pivots },
    }
    let mut x = vec![0.0; n];
    for (i, &b) in tab.basis.iter().enumerate() {
        if b < n {
            x[b] = tab.t[i][cols].max(0.0);
        }
    }
    let value = c.iter().zip(&x).map(|(c, x)| c * x).sum();
    LpResult::Optimal { x, value }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(a: &[f64], rel: Relation, b: f64) -> Row {
        LinearConstraint::new(a.to_vec(), rel, b)
    }

    #[test]
    fn textbook_lp() {
        // max 3x + 5y s.t. x <= 4, 2y <= 12, 3x + 2y <= 18  ->  (2, 6), 36.
        let r = solve(
            &[-3.0, -5.0],
            &[
                row(&[1.0, 0.0], Relation::Le, 4.0),
                row(&[0.0, 2.0], Relation::Le, 12.0),
                row(&[3.0, 2.0], Relation::Le, 18.0),
            ],
        );
        match r {
            LpResult::Optimal { x, value } => {
                assert!((x[0] - 2.0).abs() < 1e-9 && (x[1] - 6.0).abs() < 1e-9);
                assert!((value + 36.0).abs() < 1e-9);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn rows_far_from_unit_size_are_scaled_before_the_tolerances_apply() {
        // 1e-15 x1 + 1e-15 x2 = 1e-12, i.e. x1 + x2 = 1000: unscaled, every coefficient was below
        // the pivot tolerance and the artificial stayed in the basis, giving x = 0.
        match solve(&[1.0, 0.0], &[row(&[1e-15, 1e-15], Relation::Eq, 1e-12)]) {
            LpResult::Optimal { x, .. } => {
                assert!(x[0].abs() < 1e-9 && (x[1] - 1000.0).abs() < 1e-9, "{x:?}")
            }
            other => panic!("{other:?}"),
        }
        // A budget row in dollars (1e5 $ per GB/s, 1e8 $) with a total in GB/s: the cheapest
        // design at a total of 500 over two prices puts it all on the cheaper dimension.
        let rows = [
            row(&[1.2e5, 3.4e5], Relation::Le, 1e8),
            row(&[1.0, 1.0], Relation::Eq, 500.0),
        ];
        match solve(&[1.2e5, 3.4e5], &rows) {
            LpResult::Optimal { x, value } => {
                assert!((x[0] - 500.0).abs() < 1e-9 && x[1].abs() < 1e-9, "{x:?}");
                assert!((value - 6e7).abs() < 1e-3, "{value}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn equalities_ge_rows_infeasible_and_unbounded() {
        // LIBRA's multiple_constraints: sum = 1000, B1 = 500, B1 >= B2, B2 >= B3, B3 + B4 = 200;
        // maximize B2: B2 = 300.
        let rows = vec![
            row(&[1.0, 1.0, 1.0, 1.0], Relation::Eq, 1000.0),
            row(&[1.0, 0.0, 0.0, 0.0], Relation::Eq, 500.0),
            row(&[1.0, -1.0, 0.0, 0.0], Relation::Ge, 0.0),
            row(&[0.0, 1.0, -1.0, 0.0], Relation::Ge, 0.0),
            row(&[0.0, 0.0, 1.0, 1.0], Relation::Eq, 200.0),
        ];
        match solve(&[0.0, -1.0, 0.0, 0.0], &rows) {
            LpResult::Optimal { x, .. } => assert!((x[1] - 300.0).abs() < 1e-9, "{x:?}"),
            other => panic!("{other:?}"),
        }
        // Minimizing B3 gives 0 (B4 = 200).
        match solve(&[0.0, 0.0, 1.0, 0.0], &rows) {
            LpResult::Optimal { value, .. } => assert!(value.abs() < 1e-9),
            other => panic!("{other:?}"),
        }
        let mut bad = rows.clone();
        bad.push(row(&[0.0, 1.0, 0.0, 0.0], Relation::Ge, 301.0));
        assert_eq!(solve(&[0.0; 4], &bad), LpResult::Infeasible);
        assert_eq!(
            solve(&[-1.0, 0.0], &[row(&[1.0, -1.0], Relation::Le, 1.0)]),
            LpResult::Unbounded
        );
        // The pivots run out: said, not taken for an optimum.
        assert_eq!(
            solve_within(&[0.0, -1.0, 0.0, 0.0], &rows, 1),
            LpResult::IterationLimit { pivots: 1 }
        );
        // Negative right-hand sides are flipped.
        match solve(&[1.0], &[row(&[-1.0], Relation::Le, -3.0)]) {
            LpResult::Optimal { x, .. } => assert!((x[0] - 3.0).abs() < 1e-12),
            other => panic!("{other:?}"),
        }
    }
}
