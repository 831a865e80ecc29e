//! General linear constraints on the bandwidths, written as text: `"B1 = 500"`, `"B1 >= B2"`,
//! `"B3 + B4 = 200"`, `"2 B1 - B2 <= 10"`, `"0.5*B2 + B3 >= 1e2"`. Dimensions are 1-based (`B1` is
//! the first dimension). Both sides may hold terms and constants; the parsed form is
//! `sum_d coeffs[d] * B_d  (<= | = | >=)  rhs`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The relation of a linear constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Relation {
    Le,
    Eq,
    Ge,
}

impl Relation {
    fn symbol(self) -> &'static str {
        match self {
            Relation::Le => "<=",
            Relation::Eq => "=",
            Relation::Ge => ">=",
        }
    }
}

/// `sum_d coeffs[d] B_d (rel) rhs`, with the text it was written as (for messages).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearConstraint {
    pub coeffs: Vec<f64>,
    pub rel: Relation,
    pub rhs: f64,
    pub label: String,
}

impl LinearConstraint {
    /// A row without a label (built by the optimizer, not typed).
    pub fn new(coeffs: Vec<f64>, rel: Relation, rhs: f64) -> LinearConstraint {
        LinearConstraint {
            coeffs,
            rel,
            rhs,
            label: String::new(),
        }
    }
}

impl fmt::Display for LinearConstraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

/// Why a constraint's text cannot be read; `at` is the 1-based character position.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConstraintError {
    #[error("constraint \"{text}\": expected one of <=, =, >= (or <, >)")]
    NoRelation { text: String },
    #[error("constraint \"{text}\": more than one relation")]
    TwoRelations { text: String },
    #[error("constraint \"{text}\", at character {at}: {message}")]
    Syntax {
        text: String,
        at: usize,
        message: String,
    },
    #[error("constraint \"{text}\": B{dim} does not exist (the network has {dims} dimensions: B1 to B{dims})")]
    NoSuchDim {
        text: String,
        dim: usize,
        dims: usize,
    },
    #[error("constraint \"{text}\" has no bandwidth in it")]
    Constant { text: String },
}

/// One side of a relation: coefficients and a constant.
fn side(
    text: &str,
    part: &str,
    offset: usize,
    dims: usize,
) -> Result<(Vec<f64>, f64), ConstraintError> {
    let err = |at: usize, message: &str| ConstraintError::Syntax {
        text: text.to_string(),
        at: offset + at + 1,
        message: message.to_string(),
    };
    let chars: Vec<(usize, char)> = part.char_indices().collect();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < chars.len() && chars[*i].1.is_whitespace() {
            *i += 1;
        }
    };
    let mut coeffs = vec![0.0; dims];
    let mut constant = 0.0;
    let mut first = true;
    loop {
        skip_ws(&mut i);
        if i >= chars.len() {
            if first {
                return Err(err(part.len(), "expected a term"));
            }
            break;
        }
        // Sign.
        let mut sign = 1.0;
        if chars[i].1 == '+' || chars[i].1 == '-' {
            sign = if chars[i].1 == '-' { -1.0 } else { 1.0 };
            i += 1;
            skip_ws(&mut i);
        } else if !first {
            return Err(err(chars[i].0, "expected + or -"));
        }
        first = false;
        // Optional number.
        let start = i;
        while i < chars.len()
            && (chars[i].1.is_ascii_digit()
                || chars[i].1 == '.'
                || ((chars[i].1 == 'e' || chars[i].1 == 'E')
                    && i > start
                    && i + 1 < chars.len()
                    && (chars[i + 1].1.is_ascii_digit()
                        || chars[i + 1].1 == '-'
                        || chars[i + 1].1 == '+'))
                || ((chars[i].1 == '-' || chars[i].1 == '+')
                    && i > start
                    && (chars[i - 1].1 == 'e' || chars[i - 1].1 == 'E')))
        {
            i += 1;
        }
        let number = if i > start {
            let s: String = chars[start..i].iter().map(|c| c.1).collect();
            Some(
                s.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| err(chars[start].0, "not a number"))?,
            )
        } else {
            None
        };
        skip_ws(&mut i);
        if i < chars.len() && chars[i].1 == '*' {
            if number.is_none() {
                return Err(err(chars[i].0, "a * needs a number before it"));
            }
            i += 1;
            skip_ws(&mut i);
        }
        // Optional variable B<d>.
        if i < chars.len() && (chars[i].1 == 'B' || chars[i].1 == 'b') {
            let at = chars[i].0;
            i += 1;
            let ds = i;
            while i < chars.len() && chars[i].1.is_ascii_digit() {
                i += 1;
            }
            if ds == i {
                return Err(err(at, "expected a dimension number after B (B1, B2, ...)"));
            }
            let s: String = chars[ds..i].iter().map(|c| c.1).collect();
            let d: usize = s
                .parse()
                .map_err(|_| err(at, "dimension number too large"))?;
            if d == 0 || d > dims {
                return Err(ConstraintError::NoSuchDim {
                    text: text.to_string(),
                    dim: d,
                    dims,
                });
            }
            coeffs[d - 1] += sign * number.unwrap_or(1.0);
        } else {
            match number {
                Some(v) => constant += sign * v,
                None => {
                    let at = chars.get(i).map_or(part.len(), |c| c.0);
                    return Err(err(at, "expected a number or a bandwidth B1, B2, ..."));
                }
            }
        }
    }
    Ok((coeffs, constant))
}

/// Parse one constraint for a network of `dims` dimensions.
pub fn parse_constraint(text: &str, dims: usize) -> Result<LinearConstraint, ConstraintError> {
    let ops = ["<=", ">=", "==", "=<", "=>", "<", ">", "="];
    let mut found: Option<(usize, &str)> = None;
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < bytes.len() {
        if let Some(op) = ops.iter().find(|op| text[i..].starts_with(**op)) {
            if found.is_some() {
                return Err(ConstraintError::TwoRelations {
                    text: text.to_string(),
                });
            }
            found = Some((i, op));
            i += op.len();
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    let (at, op) = found.ok_or_else(|| ConstraintError::NoRelation {
        text: text.to_string(),
    })?;
    let rel = match op {
        "<=" | "=<" | "<" => Relation::Le,
        ">=" | "=>" | ">" => Relation::Ge,
        _ => Relation::Eq,
    };
    let (left, lc) = side(text, &text[..at], 0, dims)?;
    let (right, rc) = side(text, &text[at + op.len()..], at + op.len(), dims)?;
    let coeffs: Vec<f64> = left.iter().zip(&right).map(|(l, r)| l - r).collect();
    if coeffs.iter().all(|c| *c == 0.0) {
        return Err(ConstraintError::Constant {
            text: text.to_string(),
        });
    }
    let label = {
        let terms: Vec<String> = coeffs
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0.0)
            .map(|(d, c)| match *c {
                1.0 => format!("B{}", d + 1),
                -1.0 => format!("-B{}", d + 1),
                c => format!("{c} B{}", d + 1),
            })
            .collect();
        format!(
            "{} {} {}",
            terms.join(" + ").replace("+ -", "- "),
            rel.symbol(),
            rc - lc
        )
    };
    Ok(LinearConstraint {
        coeffs,
        rel,
        rhs: rc - lc,
        label,
    })
}

/// The equality rows that are linearly independent of the ones before them (Gram-Schmidt, relative
/// tolerance 1e-10): `B1 = 1, B2 = 1, B1 + B2 = 2` keeps the first two, so that Newton and
/// projection systems stay regular.
pub(crate) fn independent(rows: &[(Vec<f64>, f64)]) -> Vec<usize> {
    orthonormal_basis(rows).1
}

/// The bandwidths among the first `dims` that the equality rows alone fix: `B_d` is fixed when the
/// unit vector `e_d` lies in the rows' span, i.e. its projection on their orthonormal basis has
/// length 1 (`B1 = 500`, `B3 + B4 = 200` and a total of 1000 fix `B1` and `B2`).
pub(crate) fn fixed_by(rows: &[(Vec<f64>, f64)], dims: usize) -> Vec<bool> {
    let (basis, _) = orthonormal_basis(rows);
    (0..dims)
        .map(|d| {
            basis
                .iter()
                .map(|q| q.get(d).map_or(0.0, |v| v * v))
                .sum::<f64>()
                > 1.0 - 1e-9
        })
        .collect()
}

/// Gram-Schmidt on `rows`: an orthonormal basis of their span, and which rows gave its vectors.
fn orthonormal_basis(rows: &[(Vec<f64>, f64)]) -> (Vec<Vec<f64>>, Vec<usize>) {
    // Sized up front: cold, a growth is a call to code far away (a page fault on first use).
    let mut basis: Vec<Vec<f64>> = Vec::with_capacity(rows.len());
    let mut kept = Vec::with_capacity(rows.len());
    for (i, (row, _)) in rows.iter().enumerate() {
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        let mut rest = row.clone();
        for q in &basis {
            let along: f64 = rest.iter().zip(q).map(|(a, b)| a * b).sum();
            rest.iter_mut().zip(q).for_each(|(r, b)| *r -= along * b);
        }
        let left = rest.iter().map(|v| v * v).sum::<f64>().sqrt();
        if left > 1e-10 * norm {
            basis.push(rest.iter().map(|v| v / left).collect());
            kept.push(i);
        }
    }
    (basis, kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> LinearConstraint {
        parse_constraint(text, 4).unwrap()
    }

    #[test]
    fn libras_multiple_constraints() {
        let a = c("B1 = 500");
        assert_eq!(
            (a.coeffs.clone(), a.rel, a.rhs),
            (vec![1.0, 0.0, 0.0, 0.0], Relation::Eq, 500.0)
        );
        let b = c("B1 >= B2");
        assert_eq!(
            (b.coeffs.clone(), b.rel, b.rhs),
            (vec![1.0, -1.0, 0.0, 0.0], Relation::Ge, 0.0)
        );
        let d = c("B3 + B4 = 200");
        assert_eq!(d.coeffs, vec![0.0, 0.0, 1.0, 1.0]);
        assert_eq!(d.label, "B3 + B4 = 200");
    }

    #[test]
    fn coefficients_constants_and_both_sides() {
        let a = c("2 B1 - B2 <= 10");
        assert_eq!(
            (a.coeffs.clone(), a.rel, a.rhs),
            (vec![2.0, -1.0, 0.0, 0.0], Relation::Le, 10.0)
        );
        let b = c("0.5*B2 + 3 >= B3 - 1e2");
        assert_eq!(b.coeffs, vec![0.0, 0.5, -1.0, 0.0]);
        assert_eq!(b.rhs, -103.0);
        assert_eq!(b.label, "0.5 B2 - B3 >= -103");
        let d = c("-B4 < -2.5e-1");
        assert_eq!((d.coeffs[3], d.rel, d.rhs), (-1.0, Relation::Le, -0.25));
        assert_eq!(c("b2 == 3").rel, Relation::Eq);
    }

    #[test]
    fn errors_point_at_the_problem() {
        let e = |t: &str| parse_constraint(t, 4).unwrap_err();
        assert!(matches!(e("B1 + B2"), ConstraintError::NoRelation { .. }));
        assert!(matches!(
            e("B1 <= B2 <= 3"),
            ConstraintError::TwoRelations { .. }
        ));
        assert_eq!(
            e("B5 = 1").to_string(),
            "constraint \"B5 = 1\": B5 does not exist (the network has 4 dimensions: B1 to B4)"
        );
        assert!(matches!(
            e("B0 = 1"),
            ConstraintError::NoSuchDim { dim: 0, .. }
        ));
        assert_eq!(
            e("B1 + x = 3"),
            ConstraintError::Syntax {
                text: "B1 + x = 3".into(),
                at: 6,
                message: "expected a number or a bandwidth B1, B2, ...".into()
            }
        );
        assert!(matches!(
            e("B1 B2 = 3"),
            ConstraintError::Syntax { at: 4, .. }
        ));
        assert!(matches!(e("B1 - B1 = 3"), ConstraintError::Constant { .. }));
        assert!(matches!(e("= 3"), ConstraintError::Syntax { .. }));
        assert!(matches!(e("B = 3"), ConstraintError::Syntax { .. }));
        for odd in [
            "",
            "=",
            "<=>",
            "B1 = é",
            "B99999999999999999999 = 1",
            "1e = B1",
            "--B1=2",
            "B1 = 1e999",
        ] {
            let _ = parse_constraint(odd, 4);
        }
    }
}
