//! A primal barrier method for the epigraph form of the problem, in `z = (B, t)`:
//!
//! minimize `c . z` subject to `t_p >= alpha_pd + a_pd / B_d` for every used (p, d),
//! `G z <= h`, and `E B = e`.
//!
//! Each centering step minimizes `tau c.z - sum log(t_p - alpha_pd - a_pd/B_d) - sum log(h - G z)`
//! over `E B = e` by Newton's method (feasible start, backtracking line search). On the central
//! path the multipliers `lambda_pd = 1 / (tau s_pd)`, `nu_i = 1 / (tau r_i)` and `eta = y / tau` are
//! dual feasible, up to the rescaling done by the certificate (see `certificate`).

use super::dense::solve_in_place;
use super::problem::Pattern;

/// One nonlinear term `t_p - alpha - a / B_d > 0`.
#[derive(Clone, Copy, Debug)]
pub struct Term {
    pub p: usize,
    pub d: usize,
    pub a: f64,
    pub alpha: f64,
}

/// A row of `G z <= h` with its nonzero coefficients only.
struct SparseRow {
    coeffs: Vec<(usize, f64)>,
    rhs: f64,
}

impl SparseRow {
    fn new(row: &(Vec<f64>, f64)) -> SparseRow {
        SparseRow {
            coeffs: row
                .0
                .iter()
                .copied()
                .enumerate()
                .filter(|(_, a)| *a != 0.0)
                .collect(),
            rhs: row.1,
        }
    }

    fn slack(&self, z: &[f64]) -> f64 {
        self.rhs - self.coeffs.iter().map(|&(i, a)| a * z[i]).sum::<f64>()
    }
}

/// The barrier problem.
#[derive(Clone, Debug)]
pub struct Epigraph {
    pub dims: usize,
    pub patterns: usize,
    pub terms: Vec<Term>,
    pub c: Vec<f64>,
    /// Rows of `G z <= h` over z = (B, t).
    pub g: Vec<(Vec<f64>, f64)>,
    /// Rows of `E B = e` over B, linearly independent.
    pub e: Vec<(Vec<f64>, f64)>,
    /// For each row of `e`, which equality of the problem's rows it is (0-based among them); an
    /// equality that repeats others (`B1 >= 10` and `B1 <= 10`, both found to hold with equality)
    /// is left out, so that the Newton systems stay regular.
    pub e_of: Vec<usize>,
}

/// The state after centering.
#[derive(Clone, Debug)]
pub struct Centered {
    pub z: Vec<f64>,
    /// Multipliers of the equality rows (already divided by tau).
    pub eta: Vec<f64>,
    pub newton_steps: usize,
}

impl Epigraph {
    pub fn new(dims: usize, patterns: &[Pattern]) -> Epigraph {
        let mut terms = Vec::with_capacity(patterns.iter().map(|p| p.dims().count()).sum());
        for (p, pat) in patterns.iter().enumerate() {
            for d in pat.dims() {
                terms.push(Term {
                    p,
                    d,
                    a: pat.a[d],
                    alpha: pat.alpha[d],
                });
            }
        }
        Epigraph {
            dims,
            patterns: patterns.len(),
            terms,
            c: vec![0.0; dims + patterns.len()],
            g: Vec::new(),
            e: Vec::new(),
            e_of: Vec::new(),
        }
    }

    pub fn n(&self) -> usize {
        self.dims + self.patterns
    }

    /// Number of barrier terms (the duality gap on the central path is `m / tau`).
    pub fn m(&self) -> usize {
        self.terms.len() + self.g.len()
    }

    /// Slack of term k at z.
    pub fn term_slack(&self, k: &Term, z: &[f64]) -> f64 {
        z[self.dims + k.p] - k.alpha - k.a / z[k.d]
    }

    pub fn row_slack(&self, row: &(Vec<f64>, f64), z: &[f64]) -> f64 {
        row.1 - row.0.iter().zip(z).map(|(a, x)| a * x).sum::<f64>()
    }

    /// The barrier function, or None outside the domain (one pass over terms and rows).
    fn phi(&self, rows: &[SparseRow], z: &[f64], tau: f64) -> Option<f64> {
        let mut v = tau * self.c.iter().zip(z).map(|(c, x)| c * x).sum::<f64>();
        let mut logs = 0.0;
        for k in &self.terms {
            let s = self.term_slack(k, z);
            if s.is_nan() || s <= 0.0 {
                return None;
            }
            logs += s.ln();
        }
        for r in rows {
            let s = r.slack(z);
            if s.is_nan() || s <= 0.0 {
                return None;
            }
            logs += s.ln();
        }
        v -= logs;
        v.is_finite().then_some(v)
    }

    /// Gradient into `grad` and Hessian into the top-left n x n block of the row-major
    /// `kkt` (stride `size`), both overwritten.
    fn derivatives(
        &self,
        rows: &[SparseRow],
        z: &[f64],
        tau: f64,
        grad: &mut [f64],
        kkt: &mut [f64],
        size: usize,
    ) {
        for (g, c) in grad.iter_mut().zip(&self.c) {
            *g = tau * c;
        }
        kkt.iter_mut().for_each(|v| *v = 0.0);
        for k in &self.terms {
            let s = self.term_slack(k, z);
            let b = z[k.d];
            let (ti, bi) = (self.dims + k.p, k.d);
            let db = k.a / (b * b); // ds/dB
            grad[ti] -= 1.0 / s;
            grad[bi] -= db / s;
            let s2 = s * s;
            kkt[ti * size + ti] += 1.0 / s2;
            kkt[ti * size + bi] += db / s2;
            kkt[bi * size + ti] += db / s2;
            kkt[bi * size + bi] += db * db / s2 + 2.0 * k.a / (b * b * b) / s;
        }
        for r in rows {
            let slack = r.slack(z);
            let inv = 1.0 / slack;
            for &(i, ai) in &r.coeffs {
                grad[i] += ai * inv;
                for &(j, aj) in &r.coeffs {
                    kkt[i * size + j] += ai * aj * inv * inv;
                }
            }
        }
    }

    /// Minimize the barrier function at `tau` from the strictly feasible `z`.
    ///
    /// Newton's method on the KKT system `[H E^T; E 0] [dz; y] = [-g; -(E B - e)]` with a
    /// backtracking line search; all work buffers are allocated once per call.
    pub fn center(&self, mut z: Vec<f64>, tau: f64, max_steps: usize) -> Option<Centered> {
        let n = self.n();
        let k = self.e.len();
        let rows: Vec<SparseRow> = self.g.iter().map(SparseRow::new).collect();
        let size = n + k;
        let mut eta = vec![0.0; k];
        let mut grad = vec![0.0; n];
        let mut kkt = vec![0.0; size * size];
        let mut rhs = vec![0.0; size];
        let mut trial = vec![0.0; n];
        let mut steps = 0;
        let mut value = self.phi(&rows, &z, tau)?;
        while steps < max_steps {
            self.derivatives(&rows, &z, tau, &mut grad, &mut kkt, size);
            for i in 0..n {
                rhs[i] = -grad[i];
            }
            for (r, (row, e)) in self.e.iter().enumerate() {
                for (d, a) in row.iter().enumerate() {
                    kkt[(n + r) * size + d] = *a;
                    kkt[d * size + n + r] = *a;
                }
                let lhs: f64 = row.iter().zip(&z).map(|(a, b)| a * b).sum();
                rhs[n + r] = e - lhs;
            }
            if !solve_in_place(&mut kkt, size, &mut rhs) {
                return None;
            }
            let dz = &rhs[..n];
            for (r, y) in rhs[n..].iter().enumerate() {
                eta[r] = y / tau;
            }
            steps += 1;
            let slope: f64 = dz.iter().zip(&grad).map(|(d, g)| d * g).sum();
            // The certificate is computed from the multipliers whatever the centering accuracy, so a
            // moderate decrement suffices; rounding makes smaller ones meaningless at large tau.
            if slope.abs() / 2.0 <= 1e-7 {
                break;
            }
            // Backtracking: stay in the domain, then Armijo.
            let mut alpha = 1.0;
            let mut accepted = false;
            for _ in 0..80 {
                for ((t, x), d) in trial.iter_mut().zip(&z).zip(dz) {
                    *t = x + alpha * d;
                }
                if let Some(v) = self.phi(&rows, &trial, tau) {
                    let noise = 1e-14 * value.abs();
                    if v <= value + 0.25 * alpha * slope + noise {
                        std::mem::swap(&mut z, &mut trial);
                        value = v;
                        accepted = true;
                        break;
                    }
                }
                alpha *= 0.5;
            }
            if !accepted {
                break;
            }
        }
        Some(Centered {
            z,
            eta,
            newton_steps: steps,
        })
    }
}
