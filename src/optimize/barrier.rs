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

/// The barrier problem.
#[derive(Clone, Debug)]
pub struct Epigraph {
    pub dims: usize,
    pub patterns: usize,
    pub terms: Vec<Term>,
    pub c: Vec<f64>,
    /// Rows of `G z <= h` over z = (B, t).
    pub g: Vec<(Vec<f64>, f64)>,
    /// Rows of `E B = e` over B.
    pub e: Vec<(Vec<f64>, f64)>,
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
        let mut terms = Vec::new();
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

    fn strictly_feasible(&self, z: &[f64]) -> bool {
        (0..self.dims).all(|d| z[d] > 0.0)
            && self.terms.iter().all(|k| self.term_slack(k, z) > 0.0)
            && self.g.iter().all(|r| self.row_slack(r, z) > 0.0)
    }

    /// The barrier function, or None outside the domain.
    fn phi(&self, z: &[f64], tau: f64) -> Option<f64> {
        if !self.strictly_feasible(z) {
            return None;
        }
        let mut v = tau * self.c.iter().zip(z).map(|(c, x)| c * x).sum::<f64>();
        for k in &self.terms {
            v -= self.term_slack(k, z).ln();
        }
        for r in &self.g {
            v -= self.row_slack(r, z).ln();
        }
        Some(v)
    }

    /// Gradient and Hessian (row-major n x n) of the barrier function.
    fn derivatives(&self, z: &[f64], tau: f64) -> (Vec<f64>, Vec<f64>) {
        let n = self.n();
        let mut g: Vec<f64> = self.c.iter().map(|c| tau * c).collect();
        let mut h = vec![0.0; n * n];
        for k in &self.terms {
            let s = self.term_slack(k, z);
            let b = z[k.d];
            let (ti, bi) = (self.dims + k.p, k.d);
            let db = k.a / (b * b); // ds/dB
            g[ti] -= 1.0 / s;
            g[bi] -= db / s;
            let s2 = s * s;
            h[ti * n + ti] += 1.0 / s2;
            h[ti * n + bi] += db / s2;
            h[bi * n + ti] += db / s2;
            h[bi * n + bi] += db * db / s2 + 2.0 * k.a / (b * b * b) / s;
        }
        for r in &self.g {
            let slack = self.row_slack(r, z);
            let nz: Vec<(usize, f64)> =
                r.0.iter()
                    .copied()
                    .enumerate()
                    .filter(|(_, a)| *a != 0.0)
                    .collect();
            for &(i, ai) in &nz {
                g[i] += ai / slack;
                for &(j, aj) in &nz {
                    h[i * n + j] += ai * aj / (slack * slack);
                }
            }
        }
        (g, h)
    }

    /// Minimize the barrier function at `tau` from the strictly feasible `z`.
    pub fn center(&self, mut z: Vec<f64>, tau: f64, max_steps: usize) -> Option<Centered> {
        let n = self.n();
        let k = self.e.len();
        let mut eta = vec![0.0; k];
        let mut steps = 0;
        let mut value = self.phi(&z, tau)?;
        while steps < max_steps {
            let (g, h) = self.derivatives(&z, tau);
            // KKT: [H E^T; E 0] [dz; y] = [-g; -(E B - e)].
            let size = n + k;
            let mut m = vec![0.0; size * size];
            for i in 0..n {
                m[i * size..i * size + n].copy_from_slice(&h[i * n..i * n + n]);
            }
            let mut rhs = vec![0.0; size];
            for i in 0..n {
                rhs[i] = -g[i];
            }
            for (r, (row, e)) in self.e.iter().enumerate() {
                for (d, a) in row.iter().enumerate() {
                    m[(n + r) * size + d] = *a;
                    m[d * size + n + r] = *a;
                }
                let lhs: f64 = row.iter().zip(&z).map(|(a, b)| a * b).sum();
                rhs[n + r] = e - lhs;
            }
            if !solve_in_place(&mut m, size, &mut rhs) {
                return None;
            }
            let dz = &rhs[..n];
            for (r, y) in rhs[n..].iter().enumerate() {
                eta[r] = y / tau;
            }
            steps += 1;
            let decrement: f64 = -dz.iter().zip(&g).map(|(d, g)| d * g).sum::<f64>();
            // The certificate is computed from the multipliers whatever the centering accuracy, so a
            // moderate decrement suffices; rounding makes smaller ones meaningless at large tau.
            if decrement.abs() / 2.0 <= 1e-7 {
                break;
            }
            // Backtracking: stay in the domain, then Armijo.
            let mut alpha = 1.0;
            let slope: f64 = dz.iter().zip(&g).map(|(d, g)| d * g).sum();
            let mut accepted = false;
            for _ in 0..80 {
                let trial: Vec<f64> = z.iter().zip(dz).map(|(x, d)| x + alpha * d).collect();
                if let Some(v) = self.phi(&trial, tau) {
                    let noise = 1e-14 * value.abs();
                    if v <= value + 0.25 * alpha * slope + noise {
                        z = trial;
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
