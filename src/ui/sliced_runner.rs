//! Long work run a slice per animation frame, so that the page never freezes: a new start abandons
//! the run under way, Cancel stops it, and the last complete answer stays drawn meanwhile. Any
//! core [`Stepping`] runs this way: the Routing view's study (`routing::study::RouteStudyRun`), the
//! Cluster view's simulations (`cluster::study::ClusterRun`) and the landscape
//! (`analysis::landscape::LandscapeRun`) do.

use super::browser;
use crate::stepping::{Progress, Stepping};
use leptos::prelude::*;
use std::sync::Arc;

/// What a page can run in slices: a core [`Stepping`] whose answer can be shared.
pub trait Sliced: Stepping<Output: Send + Sync + 'static> + Send + Sync + Sized + 'static {}

impl<R: Stepping<Output: Send + Sync + 'static> + Send + Sync + 'static> Sliced for R {}

/// Milliseconds of pieces per frame: less than `browser::FRAME_MS`, since the Routing view's pieces
/// at the paper's scale run 2-3 times slower in wasm on a slow machine than natively (frames of
/// 57-62 ms were seen with 12). The co-design search keeps 12 ms: its wall time has a target.
const FRAME_MS: f64 = 8.0;

pub struct SlicedRunner<R: Sliced> {
    run: StoredValue<Option<R>>,
    /// Bumped to abandon a run under way.
    generation: StoredValue<u64>,
    /// The run under way, if any.
    pub progress: RwSignal<Option<Progress>>,
    /// The last complete answer, kept while the next one runs, after a cancel and while the
    /// input is invalid.
    pub output: RwSignal<Option<Arc<R::Output>>>,
    /// Why the current input has no answer.
    pub error: RwSignal<Option<String>>,
    /// Milliseconds of computation of the last complete answer (its slices added up).
    pub compute_ms: RwSignal<Option<f64>>,
    /// The visitor cancelled the last run: the answer shown is an earlier input's.
    pub cancelled: RwSignal<bool>,
}

impl<R: Sliced> Clone for SlicedRunner<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: Sliced> Copy for SlicedRunner<R> {}

impl<R: Sliced> SlicedRunner<R> {
    pub fn new() -> SlicedRunner<R> {
        SlicedRunner {
            run: StoredValue::new(None),
            generation: StoredValue::new(0),
            progress: RwSignal::new(None),
            output: RwSignal::new(None),
            error: RwSignal::new(None),
            compute_ms: RwSignal::new(None),
            cancelled: RwSignal::new(false),
        }
    }

    /// Run `made` (or say why it could not be made), `units` pieces at a time, abandoning any run
    /// under way.
    pub fn start(&self, made: Result<R, String>, units: u64) {
        let this = *self;
        this.generation.update_value(|g| *g += 1);
        let generation = this.generation.get_value();
        this.cancelled.set(false);
        let run = match made {
            Err(e) => {
                this.run.set_value(None);
                this.progress.set(None);
                this.error.set(Some(e));
                return;
            }
            Ok(run) => run,
        };
        this.error.set(None);
        this.progress.set(Some(run.progress()));
        this.run.set_value(Some(run));
        this.compute_ms.set(None);
        let mut spent = 0.0;
        browser::run_in_frames(move || {
            if this.generation.try_get_value() != Some(generation) {
                return true;
            }
            let t0 = browser::now_ms();
            let done = browser::work_for(FRAME_MS, || {
                this.run
                    .try_update_value(|r| r.as_mut().is_none_or(|r| r.step(units)))
                    .unwrap_or(true)
            });
            spent += browser::now_ms() - t0;
            if done {
                // The answer in a frame of its own: what it redraws does not add to the last
                // slice's task.
                browser::run_in_frames(move || {
                    if this.generation.try_get_value() != Some(generation) {
                        return true;
                    }
                    let finished = this
                        .run
                        .try_update_value(|r| {
                            r.take().map(|r| r.finish().map_err(|e| e.to_string()))
                        })
                        .flatten();
                    match finished {
                        Some(Ok(output)) => {
                            this.output.set(Some(Arc::new(output)));
                            this.compute_ms.set(Some(spent));
                        }
                        Some(Err(e)) => this.error.set(Some(e)),
                        None => {}
                    }
                    this.progress.set(None);
                    true
                });
            } else {
                let p = this.run.with_value(|r| r.as_ref().map(Stepping::progress));
                this.progress.set(p);
            }
            done
        });
    }

    /// No input: drop the run under way and the answer shown.
    pub fn clear(&self) {
        self.generation.update_value(|g| *g += 1);
        self.run.set_value(None);
        self.progress.set(None);
        self.output.set(None);
        self.error.set(None);
        self.compute_ms.set(None);
        self.cancelled.set(false);
    }

    /// Drop the run under way without a word (the view is closing).
    pub fn abandon(&self) {
        self.generation.try_update_value(|g| *g += 1);
    }

    /// Stop the run under way; the last complete answer stays.
    pub fn cancel(&self) {
        self.generation.update_value(|g| *g += 1);
        self.run.set_value(None);
        if self.progress.get_untracked().is_some() {
            self.progress.set(None);
            self.cancelled.set(true);
        }
    }

    /// The answer shown is not the current input's: a run is under way, it was cancelled, or the
    /// input has errors.
    pub fn stale(&self) -> bool {
        self.progress.with(Option::is_some)
            || self.cancelled.get()
            || self.error.with(Option::is_some)
    }
}
