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
}
