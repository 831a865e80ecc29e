//! One contract for the core's long computations (ARCHITECTURE.md, "Long computations"): a run
//! is stepped a piece at a time, says how far it is, and finishes with its answer or a typed
//! error. A page spreads any [`Stepping`] over animation frames with a progress bar and a cancel
//! (`ui/sliced_runner.rs`); the command line finishes it in one go.

/// How far a run is.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// From 0 to 1.
    pub fraction: f64,
    /// What it is doing, in words.
    pub doing: String,
}

impl Progress {
    /// `done` of `total` pieces of `what` ("12 of 40 shapes"); a total of 0 is complete.
    pub fn of(done: usize, total: usize, what: &str) -> Progress {
        Progress {
            fraction: if total == 0 {
                1.0
            } else {
                (done as f64 / total as f64).clamp(0.0, 1.0)
            },
            doing: format!("{done} of {total} {what}"),
        }
    }
}

/// A computation that advances a piece at a time.
pub trait Stepping {
    /// The answer.
    type Output;
    /// Why there is none.
    type Error: std::error::Error;
    /// Do up to `units` pieces of work (what a piece is belongs to the run: a routing, a few
    /// simulated events, a row of a grid); true when nothing is left to do.
    fn step(&mut self, units: u64) -> bool;
    /// How far the run is.
    fn progress(&self) -> Progress;
    /// The answer, or why there is none; the work not yet done is done first.
    fn finish(self) -> Result<Self::Output, Self::Error>;
}

/// A run whose step gives its answer once, at the end (None while under way), such as the
/// co-design's start or the calibration; [`Answering`] makes it a [`Stepping`].
pub trait AnswersOnce {
    type Output;
    type Error: std::error::Error;
    /// Do up to `units` pieces of work; the answer once the work is done, None before.
    fn step_once(&mut self, units: u64) -> Option<Result<Self::Output, Self::Error>>;
    fn progress(&self) -> Progress;
}

/// An [`AnswersOnce`] run as a [`Stepping`]: it keeps the answer until [`Stepping::finish`].
pub struct Answering<R: AnswersOnce> {
    run: R,
    answer: Option<Result<R::Output, R::Error>>,
}

impl<R: AnswersOnce> Answering<R> {
    pub fn new(run: R) -> Answering<R> {
        Answering { run, answer: None }
    }

    /// The run under way (for what it shows while it works).
    pub fn run(&self) -> &R {
        &self.run
    }
}

impl<R: AnswersOnce> Stepping for Answering<R> {
    type Output = R::Output;
    type Error = R::Error;

    fn step(&mut self, units: u64) -> bool {
        if self.answer.is_none() {
            self.answer = self.run.step_once(units);
        }
        self.answer.is_some()
    }

    fn progress(&self) -> Progress {
        if self.answer.is_some() {
            return Progress {
                fraction: 1.0,
                doing: "done".into(),
            };
        }
        self.run.progress()
    }

    fn finish(mut self) -> Result<R::Output, R::Error> {
        loop {
            if let Some(answer) = self.answer.take() {
                return answer;
            }
            self.answer = self.run.step_once(u64::MAX);
        }
    }
}

/// Pieces as a `usize` count (saturating on 32-bit targets).
pub(crate) fn units(units: u64) -> usize {
    usize::try_from(units).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_counts_pieces_and_an_empty_run_is_complete() {
        let p = Progress::of(3, 12, "shapes");
        assert_eq!(p.fraction, 0.25);
        assert_eq!(p.doing, "3 of 12 shapes");
        assert_eq!(Progress::of(0, 0, "rows").fraction, 1.0);
        assert_eq!(Progress::of(9, 4, "rows").fraction, 1.0);
        assert_eq!(units(7), 7);
    }

    /// Counts down from `left`; answers `Ok(pieces done)`, or `Err` when told to fail.
    struct Countdown {
        left: u64,
        done: u64,
        fail: bool,
        answered: bool,
    }

    #[derive(Debug, PartialEq, thiserror::Error)]
    #[error("failed after {0} pieces")]
    struct Failed(u64);

    impl AnswersOnce for Countdown {
        type Output = u64;
        type Error = Failed;
        fn step_once(&mut self, units: u64) -> Option<Result<u64, Failed>> {
            assert!(!self.answered, "stepped after its answer");
            let k = units.min(self.left);
            self.left -= k;
            self.done += k;
            (self.left == 0).then(|| {
                self.answered = true;
                if self.fail {
                    Err(Failed(self.done))
                } else {
                    Ok(self.done)
                }
            })
        }
        fn progress(&self) -> Progress {
            Progress::of(
                self.done as usize,
                (self.done + self.left) as usize,
                "pieces",
            )
        }
    }

    fn countdown(left: u64, fail: bool) -> Answering<Countdown> {
        Answering::new(Countdown {
            left,
            done: 0,
            fail,
            answered: false,
        })
    }

    #[test]
    fn an_answer_given_once_is_kept_until_finish_and_never_asked_again() {
        let mut run = countdown(10, false);
        assert!(!run.step(4));
        assert_eq!(run.progress().fraction, 0.4);
        assert!(run.step(100));
        // Stepping on after the answer does not step the run (Countdown would panic).
        assert!(run.step(1));
        assert_eq!(run.progress().fraction, 1.0);
        assert_eq!(run.finish(), Ok(10));
        // finish does the rest of the work, and a failure comes back typed.
        assert_eq!(countdown(7, false).finish(), Ok(7));
        let mut failing = countdown(3, true);
        assert!(!failing.step(2));
        assert_eq!(failing.finish(), Err(Failed(3)));
    }
}
