//! Dense linear algebra for the optimizer's tiny systems.

/// Solve `A x = b` in place (A is n x n, row-major; b becomes x) by Gaussian elimination with partial
/// pivoting. Returns false if A is singular to working precision.
pub fn solve_in_place(a: &mut [f64], n: usize, b: &mut [f64]) -> bool {
    for col in 0..n {
        let (piv, best) = (col..n)
            .map(|r| (r, a[r * n + col].abs()))
            .fold((col, -1.0), |acc, x| if x.1 > acc.1 { x } else { acc });
        if !(best > 1e-300 && best.is_finite()) {
            return false;
        }
        if piv != col {
            for k in 0..n {
                a.swap(col * n + k, piv * n + k);
            }
            b.swap(col, piv);
        }
        let d = a[col * n + col];
        for r in col + 1..n {
            let f = a[r * n + col] / d;
            if f != 0.0 {
                for k in col..n {
                    a[r * n + k] -= f * a[col * n + k];
                }
                b[r] -= f * b[col];
            }
        }
    }
    for col in (0..n).rev() {
        let mut v = b[col];
        for k in col + 1..n {
            v -= a[col * n + k] * b[k];
        }
        b[col] = v / a[col * n + col];
    }
    b.iter().all(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_small_system_with_pivoting() {
        // [[0, 2], [3, 1]] x = [4, 5] -> x = [1, 2].
        let mut a = vec![0.0, 2.0, 3.0, 1.0];
        let mut b = vec![4.0, 5.0];
        assert!(solve_in_place(&mut a, 2, &mut b));
        assert!((b[0] - 1.0).abs() < 1e-15 && (b[1] - 2.0).abs() < 1e-15);
        let mut s = vec![1.0, 2.0, 2.0, 4.0];
        assert!(!solve_in_place(&mut s, 2, &mut [1.0, 1.0]));
    }
}
