//! Dense linear algebra for the optimizer's tiny systems.

/// Solve `A x = b` in place (A is n x n, row-major; b becomes x) by Gaussian elimination with partial
/// pivoting. Returns false if A is singular to working precision.
pub fn solve_in_place(a: &mut [f64], n: usize, b: &mut [f64]) -> bool {
    let a = &mut a[..n * n];
    let b = &mut b[..n];
    for col in 0..n {
        let mut piv = col;
        let mut best = -1.0;
        for r in col..n {
            let v = a[r * n + col].abs();
            if v > best {
                (piv, best) = (r, v);
            }
        }
        if !(best > 1e-300 && best.is_finite()) {
            return false;
        }
        if piv != col {
            let (top, bottom) = a.split_at_mut(piv * n);
            top[col * n..col * n + n].swap_with_slice(&mut bottom[..n]);
            b.swap(col, piv);
        }
        let (done, rest) = a.split_at_mut((col + 1) * n);
        let pivot_row = &done[col * n + col..col * n + n];
        let d = pivot_row[0];
        let bc = b[col];
        for (i, row) in rest.chunks_exact_mut(n).enumerate() {
            let f = row[col] / d;
            if f != 0.0 {
                for (x, p) in row[col..].iter_mut().zip(pivot_row) {
                    *x -= f * p;
                }
                b[col + 1 + i] -= f * bc;
            }
        }
    }
    for col in (0..n).rev() {
        let row = &a[col * n..col * n + n];
        let mut v = b[col];
        for (x, bk) in row[col + 1..].iter().zip(&b[col + 1..]) {
            v -= x * bk;
        }
        b[col] = v / row[col];
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
