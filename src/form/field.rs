//! The fields of the app's form, and an error tied to one of them. Indices are 1-based, as in every
//! message and in the page's test ids (`dim-npus-1` is the first dimension's NPU count).

use std::fmt;

/// One input of the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// The network as a whole (no dimension, too many NPUs).
    Network,
    DimNpus(usize),
    DimTier(usize),
    DimLatency(usize),
    DimMin(usize),
    DimMax(usize),
    TierName(usize),
    TierLink(usize),
    TierSwitch(usize),
    TierNic(usize),
    TierMaxNpus(usize),
    TierLatency(usize),
    /// The workload list as a whole (none left).
    Workloads,
    WorkloadWeight(usize),
    /// A workload's layers (from its preset or imported file).
    Workload(usize),
    WorkloadCommunicator(usize),
    TotalBw,
    Budget,
    /// One line of the linear-constraints text.
    Constraint(usize),
    TimeTarget,
    /// The model options (training loop, latency).
    Model,
}

impl Field {
    /// The `data-testid` of the input (or of the block that holds it).
    pub fn testid(self) -> String {
        match self {
            Field::Network => "dims".into(),
            Field::DimNpus(d) => format!("dim-npus-{d}"),
            Field::DimTier(d) => format!("dim-tier-{d}"),
            Field::DimLatency(d) => format!("dim-latency-{d}"),
            Field::DimMin(d) => format!("dim-min-{d}"),
            Field::DimMax(d) => format!("dim-max-{d}"),
            Field::TierName(t) => format!("tier-name-{t}"),
            Field::TierLink(t) => format!("tier-link-{t}"),
            Field::TierSwitch(t) => format!("tier-switch-{t}"),
            Field::TierNic(t) => format!("tier-nic-{t}"),
            Field::TierMaxNpus(t) => format!("tier-max-npus-{t}"),
            Field::TierLatency(t) => format!("tier-latency-{t}"),
            Field::Workloads => "workloads".into(),
            Field::WorkloadWeight(w) => format!("workload-weight-{w}"),
            Field::Workload(w) => format!("workload-{w}"),
            Field::WorkloadCommunicator(w) => format!("workload-comm-{w}"),
            Field::TotalBw => "total-bw".into(),
            Field::Budget => "budget".into(),
            Field::Constraint(_) => "constraint-text".into(),
            Field::TimeTarget => "time-target".into(),
            Field::Model => "model-options".into(),
        }
    }

    /// How the field is named to the user.
    pub fn label(self) -> String {
        match self {
            Field::Network => "network".into(),
            Field::DimNpus(d) => format!("NPUs of dimension {d}"),
            Field::DimTier(d) => format!("cost tier of dimension {d}"),
            Field::DimLatency(d) => format!("latency of dimension {d}"),
            Field::DimMin(d) => format!("minimum bandwidth of dimension {d}"),
            Field::DimMax(d) => format!("maximum bandwidth of dimension {d}"),
            Field::TierName(t) => format!("name of tier {t}"),
            Field::TierLink(t) => format!("link cost of tier {t}"),
            Field::TierSwitch(t) => format!("switch cost of tier {t}"),
            Field::TierNic(t) => format!("NIC cost of tier {t}"),
            Field::TierMaxNpus(t) => format!("most NPUs per dimension of tier {t}"),
            Field::TierLatency(t) => format!("latency per step of tier {t}"),
            Field::Workloads => "workloads".into(),
            Field::WorkloadWeight(w) => format!("weight of workload {w}"),
            Field::Workload(w) => format!("workload {w}"),
            Field::WorkloadCommunicator(w) => format!("parallelism of workload {w}"),
            Field::TotalBw => "total bandwidth".into(),
            Field::Budget => "budget".into(),
            Field::Constraint(line) => format!("constraint line {line}"),
            Field::TimeTarget => "time target".into(),
            Field::Model => "model options".into(),
        }
    }
}

/// What is wrong with one field, in words for the user.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub field: Field,
    pub message: String,
}

impl FieldError {
    pub fn new(field: Field, message: impl Into<String>) -> FieldError {
        FieldError {
            field,
            message: message.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field.label(), self.message)
    }
}

/// A number typed into `field`: finite, and `> 0` (or `>= 0` when `zero_ok`).
pub fn number(field: Field, text: &str, zero_ok: bool) -> Result<f64, FieldError> {
    let t = text.trim();
    let v: f64 = t.parse().map_err(|_| {
        FieldError::new(
            field,
            if t.is_empty() {
                "is empty: type a number".to_string()
            } else {
                format!("\"{t}\" is not a number")
            },
        )
    })?;
    if !v.is_finite() {
        return Err(FieldError::new(field, format!("must be finite, got {t}")));
    }
    match (zero_ok, v) {
        (true, v) if v < 0.0 => Err(FieldError::new(
            field,
            format!("must be 0 or more, got {t}"),
        )),
        (false, v) if v <= 0.0 => Err(FieldError::new(
            field,
            format!("must be more than 0, got {t}"),
        )),
        _ => Ok(v),
    }
}

/// An optional number: empty text is `None`.
pub fn optional(field: Field, text: &str, zero_ok: bool) -> Result<Option<f64>, FieldError> {
    if text.trim().is_empty() {
        Ok(None)
    } else {
        number(field, text, zero_ok).map(Some)
    }
}

/// An optional whole number from 2 to 2^32 - 1 (a count of NPUs); empty = None.
pub fn at_least_2(field: Field, text: &str) -> Result<Option<f64>, FieldError> {
    match text.trim() {
        "" => Ok(None),
        t => match t.parse::<u32>() {
            Ok(v) if v >= 2 => Ok(Some(f64::from(v))),
            _ => Err(FieldError::new(
                field,
                format!("must be a whole number of at least 2 (empty: no limit), got \"{t}\""),
            )),
        },
    }
}

/// A number as the form shows it: Rust's shortest text that reads back to the same `f64`.
pub fn show(v: f64) -> String {
    format!("{v}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_with_messages_naming_the_problem() {
        let f = Field::DimMin(2);
        assert_eq!(number(f, " 1e3 ", false), Ok(1000.0));
        assert_eq!(
            number(f, "abc", false).unwrap_err().to_string(),
            "minimum bandwidth of dimension 2: \"abc\" is not a number"
        );
        assert_eq!(
            number(f, "", false).unwrap_err().message,
            "is empty: type a number"
        );
        assert!(number(f, "0", false).is_err());
        assert_eq!(number(f, "0", true), Ok(0.0));
        assert!(number(f, "-1", true).is_err());
        assert!(number(f, "inf", true).is_err());
        assert!(number(f, "NaN", true).is_err());
        assert_eq!(optional(f, "  ", true), Ok(None));
        assert_eq!(Field::DimNpus(3).testid(), "dim-npus-3");
        for v in [0.1, 1.0 / 3.0, 722411780.9202039, 1e-300, 5e22] {
            assert_eq!(show(v).parse::<f64>().unwrap(), v);
        }
    }
}
