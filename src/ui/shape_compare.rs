//! The shape comparison's state (`ShapesView` draws it): the run of `analysis::shape_run` a few
//! shapes per animation frame, kept while other views are shown, with its setup, error and timing.

use super::browser;
use crate::analysis::shape_run::{CompareSetup, ShapeRun};
use crate::model::scenario::Scenario;
use leptos::prelude::*;
use std::sync::Arc;

/// The comparison's state, kept while other views are shown.
#[derive(Clone, Copy)]
pub struct ShapeCompare {
    /// The run, notified after every frame of work (what the view redraws on).
    pub(super) run: RwSignal<Option<Arc<ShapeRun>>>,
    /// The scenario the run is for.
    pub(super) of: StoredValue<Option<Scenario>>,
    /// The dimension counts enumerated and the shapes the visitor added.
    pub(super) setup: RwSignal<CompareSetup>,
    pub(super) error: RwSignal<Option<String>>,
    /// Bumped to abandon a run under way.
    pub(super) generation: StoredValue<u64>,
    /// How long the last complete run took, ms (wall clock, across frames).
    pub(super) elapsed_ms: RwSignal<Option<f64>>,
}

impl ShapeCompare {
    pub fn new() -> ShapeCompare {
        ShapeCompare {
            run: RwSignal::new(None),
            of: StoredValue::new(None),
            setup: RwSignal::new(CompareSetup::default()),
            error: RwSignal::new(None),
            generation: StoredValue::new(0),
            elapsed_ms: RwSignal::new(None),
        }
    }

    /// Start comparing the shapes of `sc` (abandoning any run under way).
    pub fn start(&self, sc: &Scenario) {
        let this = *self;
        this.generation.update_value(|g| *g += 1);
        let generation = this.generation.get_value();
        this.of.set_value(Some(sc.clone()));
        this.elapsed_ms.set(None);
        let started = browser::now_ms();
        match ShapeRun::new(sc, &this.setup.get_untracked()) {
            Err(e) => {
                this.run.set(None);
                this.error.set(Some(e.to_string()));
            }
            Ok(run) => {
                this.error.set(None);
                this.run.set(Some(Arc::new(run)));
                browser::run_in_frames(move || {
                    if this.generation.try_get_value() != Some(generation) {
                        return true;
                    }
                    let done = browser::work_for_a_frame(|| {
                        // The chart and tables hold the run only while drawing: `make_mut`
                        // steps it in place.
                        this.run
                            .try_update_untracked(|r| {
                                r.as_mut().is_none_or(|r| Arc::make_mut(r).step(1))
                            })
                            .unwrap_or(true)
                    });
                    if done {
                        this.elapsed_ms.set(Some(browser::now_ms() - started));
                    }
                    this.run.notify();
                    done
                });
            }
        }
    }

    /// Whether the comparison shown is for `sc`.
    pub(super) fn is_for(&self, sc: &Scenario) -> bool {
        self.of.with_value(|o| o.as_ref() == Some(sc))
    }
}
