//! One typed reader for the number fields of every view (Routing, Cluster, Co-design): the text
//! as typed is read whole or refused with the reason, never read as its longest parsable prefix,
//! and the reason always describes the text now in the field (it is computed from it). The views
//! keep a refused text as typed (in their link state) and mark it; they run only when every field
//! reads.

/// What a field takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A whole number in digits from `least` to `most`.
    Whole { least: u64, most: u64 },
    /// A finite number from `least` (excluded when `open`) to `most`.
    Real { least: f64, open: bool, most: f64 },
    /// As `Real`, or empty (or "never") for none.
    Optional { least: f64, most: f64 },
}

/// A value read from a field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Whole(u64),
    Real(f64),
    None,
}

impl Value {
    pub fn whole(self) -> u64 {
        match self {
            Value::Whole(n) => n,
            Value::Real(v) => v as u64,
            Value::None => 0,
        }
    }

    pub fn real(self) -> f64 {
        match self {
            Value::Whole(n) => n as f64,
            Value::Real(v) => v,
            Value::None => f64::NAN,
        }
    }

    pub fn optional(self) -> Option<f64> {
        match self {
            Value::None => None,
            v => Some(v.real()),
        }
    }
}

/// The typed text as a message quotes it (at most 40 characters).
fn quoted(t: &str) -> String {
    let mut s: String = t.chars().take(40).collect();
    if s.len() < t.len() {
        s.push('…');
    }
    s
}

/// A number as a message or a field shows it: Rust's shortest text that reads back to the same
/// value, in scientific form when plain digits would be long (1e-300, not 300 digits).
pub fn show(v: f64) -> String {
    if v == 0.0 || (1e-4..1e16).contains(&v.abs()) || !v.is_finite() {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

impl Kind {
    /// Whole numbers from `least` to `most`.
    pub fn whole(least: u64, most: u64) -> Kind {
        Kind::Whole { least, most }
    }

    /// Read `text`: the value, or why it is refused (the reason quotes the text).
    pub fn read(self, text: &str) -> Result<Value, String> {
        let t = text.trim();
        match self {
            Kind::Whole { least, most } => {
                if t.is_empty() {
                    return Err("is empty: type a whole number".into());
                }
                if !t.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(match t.parse::<f64>() {
                        Ok(v) if v.is_finite() && v < 0.0 => {
                            format!("must be at least {least}, got {}", quoted(t))
                        }
                        Ok(_) => format!("\"{}\" is not a whole number in digits", quoted(t)),
                        Err(_) => format!("\"{}\" is not a number", quoted(t)),
                    });
                }
                match t.parse::<u64>() {
                    Ok(n) if n < least => Err(format!("must be at least {least}, got {t}")),
                    Ok(n) if n <= most => Ok(Value::Whole(n)),
                    _ => Err(format!("must be at most {most}, got {}", quoted(t))),
                }
            }
            Kind::Real { least, open, most } => real(t, least, open, most).map(Value::Real),
            Kind::Optional { least, most } => match t {
                "" | "never" => Ok(Value::None),
                t => real(t, least, false, most).map(Value::Real),
            },
        }
    }
}

fn real(t: &str, least: f64, open: bool, most: f64) -> Result<f64, String> {
    if t.is_empty() {
        return Err("is empty: type a number".into());
    }
    let v: f64 = t
        .parse()
        .map_err(|_| format!("\"{}\" is not a number", quoted(t)))?;
    if !v.is_finite() {
        return Err(format!("must be a finite number, got {}", quoted(t)));
    }
    if open && v <= least {
        return Err(format!(
            "must be more than {}, got {}",
            show(least),
            quoted(t)
        ));
    }
    if v < least {
        return Err(format!(
            "must be at least {}, got {}",
            show(least),
            quoted(t)
        ));
    }
    if v > most {
        return Err(format!("must be at most {}, got {}", show(most), quoted(t)));
    }
    Ok(v)
}

/// What a view says instead of an answer while fields are refused (each is marked too): the
/// first field's name and reason, and how many more.
pub fn summary(refused: &[(&str, &str)]) -> String {
    match refused {
        [] => String::new(),
        [(f, e)] => format!("Fix the {f}: {e}."),
        [(f, e), rest @ ..] => format!("Fix the {f}: {e} (and {} more marked).", rest.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_read_whole_or_refused_with_a_reason_that_quotes_it() {
        let ring = Kind::whole(2, 2048);
        assert_eq!(ring.read(" 8 "), Ok(Value::Whole(8)));
        // Never the last parsable prefix.
        assert_eq!(
            ring.read("2.5").unwrap_err(),
            "\"2.5\" is not a whole number in digits"
        );
        assert_eq!(
            ring.read("1e309").unwrap_err(),
            "\"1e309\" is not a whole number in digits"
        );
        assert_eq!(ring.read("1").unwrap_err(), "must be at least 2, got 1");
        assert_eq!(ring.read("-3").unwrap_err(), "must be at least 2, got -3");
        assert_eq!(
            ring.read("99999999999999999999999").unwrap_err(),
            "must be at most 2048, got 99999999999999999999999"
        );
        assert_eq!(ring.read("").unwrap_err(), "is empty: type a whole number");
        assert_eq!(ring.read("abc").unwrap_err(), "\"abc\" is not a number");
        let period = Kind::Real {
            least: 1e-3,
            open: false,
            most: 1e9,
        };
        assert_eq!(period.read("0.1"), Ok(Value::Real(0.1)));
        assert_eq!(
            period.read("1e-300").unwrap_err(),
            "must be at least 0.001, got 1e-300"
        );
        assert_eq!(
            period.read("-1").unwrap_err(),
            "must be at least 0.001, got -1"
        );
        assert_eq!(
            period.read("1e309").unwrap_err(),
            "must be a finite number, got 1e309"
        );
        assert_eq!(
            period.read("NaN").unwrap_err(),
            "must be a finite number, got NaN"
        );
        let positive = Kind::Real {
            least: 0.0,
            open: true,
            most: f64::MAX,
        };
        assert_eq!(
            positive.read("0").unwrap_err(),
            "must be more than 0, got 0"
        );
        let never = Kind::Optional {
            least: 0.0,
            most: f64::MAX,
        };
        assert_eq!(never.read(""), Ok(Value::None));
        assert_eq!(never.read("3"), Ok(Value::Real(3.0)));
        for v in [1e-300, 0.1, 1.0 / 3.0, 5e22, 12345.0, 0.0] {
            assert_eq!(show(v).parse::<f64>(), Ok(v));
            assert!(show(v).len() < 25, "{}", show(v));
        }
        assert_eq!(show(1e-300), "1e-300");
    }
}
