//! What the results panel shows as the form changes: the last study that could be computed stays
//! on screen, marked stale, while the form holds an error or the optimizer refuses it, so that a
//! visitor typing through an invalid state never loses the numbers (and the charts never blank).

use super::study::{Study, StudyError};
use crate::form::FieldError;
use std::fmt;
use std::sync::Arc;

/// Why the form's current state has no results.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// The fields the form refused, each error naming its field, in the form's order.
    Fields(Vec<FieldError>),
    /// The scenario reads but cannot be studied (it does not compile, or the solver refuses it).
    Study(StudyError),
}

/// One line for the results panel.
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Fields(errors) => match errors.as_slice() {
                [] => Ok(()),
                [one] => write!(f, "Fix the {}: {}.", one.field.label(), one.message),
                [first, rest @ ..] => write!(
                    f,
                    "Fix the {}: {} (and {} more marked in the form).",
                    first.field.label(),
                    first.message,
                    rest.len()
                ),
            },
            Problem::Study(e) => write!(f, "{e}"),
        }
    }
}

/// The results on screen: the last study that could be computed, and whether it is the study of the
/// form as it is now.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The last good study (None before any).
    pub study: Option<Arc<Study>>,
    /// True when `study` is not the form's current state (the form has an error).
    pub stale: bool,
    /// Why the form's current state has no results: field errors, or the optimizer's reason.
    pub problem: Option<Problem>,
    /// How long the last study took, ms.
    pub solve_ms: Option<f64>,
}

impl Outcome {
    /// The outcome after `prev` once the form's current state gave `result`: a study (with how long
    /// it took, ms) replaces what was shown; a problem keeps the last study, marked stale, with the
    /// problem said.
    pub fn next(prev: Option<&Outcome>, result: Result<(Study, f64), Problem>) -> Outcome {
        match result {
            Ok((study, ms)) => Outcome {
                study: Some(Arc::new(study)),
                stale: false,
                problem: None,
                solve_ms: Some(ms),
            },
            Err(problem) => {
                let last = prev.and_then(|p| p.study.clone());
                Outcome {
                    stale: last.is_some(),
                    study: last,
                    problem: Some(problem),
                    solve_ms: prev.and_then(|p| p.solve_ms),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::study::study;
    use crate::presets;

    use crate::form::Field;

    fn fields(errors: &[(Field, &str)]) -> Problem {
        Problem::Fields(
            errors
                .iter()
                .map(|(f, m)| FieldError::new(*f, *m))
                .collect(),
        )
    }

    #[test]
    fn a_problem_says_its_first_field_and_how_many_more() {
        assert_eq!(
            fields(&[(Field::DimNpus(1), "not a number")]).to_string(),
            "Fix the NPUs of dimension 1: not a number."
        );
        assert_eq!(
            fields(&[
                (Field::DimNpus(1), "not a number"),
                (Field::TierLink(2), "must be positive"),
                (Field::Network, "too many NPUs"),
            ])
            .to_string(),
            "Fix the NPUs of dimension 1: not a number (and 2 more marked in the form)."
        );
        assert_eq!(fields(&[]).to_string(), "");
    }

    #[test]
    fn a_problem_keeps_the_last_study_marked_stale_and_a_study_replaces_it() {
        let b1 = fields(&[(Field::DimNpus(1), "not a number")]);
        let b2 = fields(&[(Field::DimMin(2), "must be positive")]);
        let first = Outcome::next(None, Err(b1.clone()));
        assert_eq!((first.study.is_none(), first.stale), (true, false));
        assert_eq!(first.problem, Some(b1));
        let s = study(&presets::default_scenario()).unwrap();
        let good = Outcome::next(Some(&first), Ok((s.clone(), 2.5)));
        assert_eq!(
            (good.stale, good.problem.is_none(), good.solve_ms),
            (false, true, Some(2.5))
        );
        let typing = Outcome::next(Some(&good), Err(b2.clone()));
        assert!(typing.stale);
        assert_eq!(typing.study.as_deref(), Some(&s));
        assert_eq!(typing.solve_ms, Some(2.5));
        assert_eq!(typing.problem.as_ref(), Some(&b2));
        // Still invalid: the same study stays.
        let still = Outcome::next(Some(&typing), Err(b2));
        assert!(Arc::ptr_eq(
            still.study.as_ref().unwrap(),
            good.study.as_ref().unwrap()
        ));
    }
}
