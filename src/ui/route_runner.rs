//! The Routing view's study, run a slice per animation frame (`routing::study::RouteStudyRun`)
//! so that the page never freezes: a new setup abandons the run under way, Cancel stops it, and
//! the last complete study stays drawn meanwhile.

use super::browser;
use crate::routing::study::{RouteSetup, RouteStudy, RouteStudyRun, StudyProgress};
use leptos::prelude::*;
use std::sync::Arc;

/// Nodes of an exact search per piece of work (a few milliseconds natively).
const NODES_PER_STEP: u64 = 256;

#[derive(Clone, Copy)]
pub struct RouteRunner {
    run: StoredValue<Option<RouteStudyRun>>,
    /// Bumped to abandon a run under way.
    generation: StoredValue<u64>,
    /// The run under way, if any.
    pub progress: RwSignal<Option<StudyProgress>>,
    /// The last complete study, kept while the next one runs, after a cancel and while the
    /// setup is invalid.
    pub study: RwSignal<Option<Arc<RouteStudy>>>,
    /// Why the current setup cannot be studied.
    pub error: RwSignal<Option<String>>,
    /// Milliseconds of computation of the last complete study (its slices added up).
    pub compute_ms: RwSignal<Option<f64>>,
    /// The visitor cancelled the last run: the study shown is an earlier setup's.
    pub cancelled: RwSignal<bool>,
}

impl RouteRunner {
    pub fn new() -> RouteRunner {
        RouteRunner {
            run: StoredValue::new(None),
            generation: StoredValue::new(0),
            progress: RwSignal::new(None),
            study: RwSignal::new(None),
            error: RwSignal::new(None),
            compute_ms: RwSignal::new(None),
            cancelled: RwSignal::new(false),
        }
    }

    /// Study `setup` (abandoning any run under way).
    pub fn start(&self, setup: &RouteSetup) {
        let this = *self;
        this.generation.update_value(|g| *g += 1);
        let generation = this.generation.get_value();
        this.cancelled.set(false);
        match RouteStudyRun::new(setup) {
            Err(e) => {
                this.run.set_value(None);
                this.progress.set(None);
                this.error.set(Some(e));
            }
            Ok(run) => {
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
                    let done = browser::work_for_a_frame(|| {
                        this.run
                            .try_update_value(|r| r.as_mut().is_none_or(|r| r.step(NODES_PER_STEP)))
                            .unwrap_or(true)
                    });
                    spent += browser::now_ms() - t0;
                    if done {
                        let study = this
                            .run
                            .try_update_value(|r| r.take().map(RouteStudyRun::finish))
                            .flatten();
                        this.study.set(study.map(Arc::new));
                        this.compute_ms.set(Some(spent));
                        this.progress.set(None);
                    } else {
                        let p = this
                            .run
                            .with_value(|r| r.as_ref().map(RouteStudyRun::progress));
                        this.progress.set(p);
                    }
                    done
                });
            }
        }
    }

    /// Drop the run under way without a word (the view is closing).
    pub fn abandon(&self) {
        self.generation.try_update_value(|g| *g += 1);
    }

    /// Stop the run under way; the last complete study stays.
    pub fn cancel(&self) {
        self.generation.update_value(|g| *g += 1);
        self.run.set_value(None);
        if self.progress.get_untracked().is_some() {
            self.progress.set(None);
            self.cancelled.set(true);
        }
    }
}
