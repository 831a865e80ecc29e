//! Projection onto the feasible polytope `{B : E B = e, G B <= h}` in a diagonal metric `M`, the
//! step of the projected-gradient method (`projected_gradient.rs`).
//!
//! A primal active-set method for `min 1/2 sum_d m_d (B_d - y_d)^2` over the polytope, from a
//! feasible point: on each working set (the equalities and some inequality rows held at equality)
//! the step solves `[M A^T; A 0] [p; mu] = [M (y - B); 0]`; a row that blocks the step joins the set,
//! a row whose multiplier is negative at the working set's minimizer leaves it. Each working set's
//! problem is solved exactly, so the method ends in finitely many steps (a few per active row in
//! practice). At the answer `M (y - B) = G^T nu + E^T eta` with `nu >= 0`: the multipliers the
//! certificate of the projected-gradient method is built from.

use super::dense::solve_in_place;

/// The polytope, rows over the bandwidths.
#[derive(Clone, Debug)]
pub(crate) struct Polytope {
    pub dims: usize,
    /// Rows `a . B = e`.
    pub eq: Vec<(Vec<f64>, f64)>,
    /// Rows `a . B <= h`.
    pub le: Vec<(Vec<f64>, f64)>,
}

/// The projection of a point and the multipliers of the rows.
#[derive(Clone, Debug)]
pub(crate) struct Projection {
    pub x: Vec<f64>,
    /// One per `le` row, `>= 0`, zero off the active set.
    pub nu: Vec<f64>,
    /// One per `eq` row.
    pub eta: Vec<f64>,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Polytope {
    /// The point of the polytope nearest to `y` in the metric `m` (one positive weight per
    /// dimension), starting from the feasible point `from` with the
    /// `le` rows of `working` held at equality (a guess, e.g. the last projection's active rows;
    /// rows that do not hold with equality at `from` are dropped from it). None when the working
    /// sets become linearly dependent (a degenerate vertex) or the steps run out.
    pub fn project(
        &self,
        y: &[f64],
        m: &[f64],
        from: &[f64],
        working: &[usize],
    ) -> Option<Projection> {
        let dims = self.dims;
        let mut x = from.to_vec();
        let size_of = |x: &[f64]| x.iter().map(|v| v.abs()).fold(0.0f64, f64::max);
        let scale = size_of(y).max(size_of(from)).max(f64::MIN_POSITIVE);
        let on = |i: usize, x: &[f64]| {
            let (a, h) = &self.le[i];
            (h - dot(a, x)).abs() <= 1e-12 * scale * a.iter().map(|v| v.abs()).sum::<f64>()
        };
        let mut work: Vec<usize> = working.iter().copied().filter(|&i| on(i, &x)).collect();
        let (mut a, mut rhs) = (Vec::new(), Vec::new());
        for _ in 0..(20 + 4 * (self.le.len() + dims)) {
            let size = dims + self.eq.len() + work.len();
            a.clear();
            a.resize(size * size, 0.0);
            rhs.clear();
            rhs.resize(size, 0.0);
            for d in 0..dims {
                a[d * size + d] = m[d];
                rhs[d] = m[d] * (y[d] - x[d]);
            }
            let rows = self.eq.iter().chain(work.iter().map(|&i| &self.le[i]));
            for (r, (row, _)) in rows.enumerate() {
                for (d, v) in row.iter().enumerate() {
                    a[d * size + dims + r] = *v;
                    a[(dims + r) * size + d] = *v;
                }
            }
            if !solve_in_place(&mut a, size, &mut rhs) {
                return None;
            }
            let (p, mu) = rhs.split_at(dims);
            // The longest step along p (up to the working set's minimizer) that keeps every
            // other row; none is needed when p is 0.
            let mut step = 1.0;
            let mut blocking = None;
            if size_of(p) > 1e-13 * scale {
                for (i, (row, h)) in self.le.iter().enumerate() {
                    let ap = dot(row, p);
                    if ap > 0.0 && !work.contains(&i) {
                        let reach = (h - dot(row, &x)).max(0.0) / ap;
                        if reach < step {
                            step = reach;
                            blocking = Some(i);
                        }
                    }
                }
                for (xi, pi) in x.iter_mut().zip(p) {
                    *xi += step * pi;
                }
            }
            if let Some(i) = blocking {
                work.push(i);
                continue;
            }
            // x minimizes over the working set: done unless a row's multiplier says it should
            // leave.
            let mu_scale = mu.iter().map(|v| v.abs()).fold(0.0f64, f64::max);
            let held = &mu[self.eq.len()..];
            let leave = (0..work.len())
                .filter(|&j| held[j] < -1e-12 * mu_scale)
                .min_by(|&i, &j| held[i].total_cmp(&held[j]));
            if let Some(j) = leave {
                work.remove(j);
                continue;
            }
            let mut nu = vec![0.0; self.le.len()];
            for (j, &i) in work.iter().enumerate() {
                nu[i] = held[j].max(0.0);
            }
            return Some(Projection {
                x,
                nu,
                eta: mu[..self.eq.len()].to_vec(),
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simplex_box() -> Polytope {
        // B1 + B2 + B3 = 10, B >= 1 (as -B <= -1), B1 <= 4.
        Polytope {
            dims: 3,
            eq: vec![(vec![1.0, 1.0, 1.0], 10.0)],
            le: vec![
                (vec![-1.0, 0.0, 0.0], -1.0),
                (vec![0.0, -1.0, 0.0], -1.0),
                (vec![0.0, 0.0, -1.0], -1.0),
                (vec![1.0, 0.0, 0.0], 4.0),
            ],
        }
    }

    /// Against the projection onto a simplex with bounds by bisection on the equality's multiplier
    /// (B_d = clamp(y_d - eta, lo_d, hi_d)), on a grid of points.
    #[test]
    fn equals_the_clamped_shift_of_the_bisection() {
        let poly = simplex_box();
        let (lo, hi) = ([1.0, 1.0, 1.0], [4.0, f64::INFINITY, f64::INFINITY]);
        for (i, y) in [
            [0.0, 0.0, 0.0],
            [20.0, -5.0, 3.0],
            [3.0, 3.0, 4.0],
            [100.0, 100.0, -100.0],
            [-7.0, 2.5, 2.5],
        ]
        .iter()
        .enumerate()
        {
            let p = poly.project(y, &[1.0; 3], &[3.0, 3.5, 3.5], &[]).unwrap();
            let at = |eta: f64| -> Vec<f64> {
                (0..3).map(|d| (y[d] - eta).clamp(lo[d], hi[d])).collect()
            };
            let (mut a, mut b) = (-1e3, 1e3);
            for _ in 0..200 {
                let m = 0.5 * (a + b);
                if at(m).iter().sum::<f64>() > 10.0 {
                    a = m;
                } else {
                    b = m;
                }
            }
            let want = at(0.5 * (a + b));
            for d in 0..3 {
                assert!(
                    (p.x[d] - want[d]).abs() < 1e-9,
                    "case {i}: {:?} vs {want:?}",
                    p.x
                );
            }
            // y - B = G^T nu + E^T eta with nu >= 0.
            for (d, yd) in y.iter().enumerate() {
                let r: f64 = poly
                    .eq
                    .iter()
                    .zip(&p.eta)
                    .map(|(r, e)| r.0[d] * e)
                    .sum::<f64>()
                    + poly
                        .le
                        .iter()
                        .zip(&p.nu)
                        .map(|(r, n)| r.0[d] * n)
                        .sum::<f64>();
                assert!((yd - p.x[d] - r).abs() < 1e-9, "case {i} d {d}");
            }
            assert!(p.nu.iter().all(|n| *n >= 0.0));
        }
    }

    #[test]
    fn a_point_inside_is_its_own_projection() {
        let p = simplex_box()
            .project(&[3.0, 3.0, 4.0], &[1.0; 3], &[2.0, 4.0, 4.0], &[])
            .unwrap();
        assert_eq!(p.nu, vec![0.0; 4]);
        for (a, b) in p.x.iter().zip([3.0, 3.0, 4.0]) {
            assert!((a - b).abs() < 1e-12);
        }
    }
}
