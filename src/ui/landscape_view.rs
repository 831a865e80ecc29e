//! The landscape view: pick two dimensions and see the training time over their bandwidths (the
//! other dimensions optimized at each point), the feasible set, the constraints, the uniform split
//! and the optimizer's path. The computation is `analysis::landscape`. The view lives in the
//! explore views' module (`explore_module`): the app hands it the design and the optimizer's
//! method (its *base*, while the view is shown) and the pair a link carried; it sends back the
//! pair the visitor picks.

use super::chart_canvas::ChartCanvas;
use super::module_bridge::LANDSCAPE;
use super::sliced_runner::SlicedRunner;
use crate::analysis::landscape::{pair_shown, pick, LandscapeRun, GRID};
use crate::analysis::study::study_by;
use crate::charts::landscape_chart::{pair_names, LandscapeChart};
use crate::model::scenario::Scenario;
use crate::optimize::Method;
use leptos::prelude::*;
use std::sync::Arc;

/// Cells of the grid solved per piece (a row of 32 solves took 56 ms on a slow machine).
const CELLS_PER_STEP: u64 = 4;

/// What the app hands over: the design and the method that solves it.
pub type LandscapeBase = (Scenario, Method);

/// The view, mounted in the app's `#landscape-root` by `explore_module`.
#[component]
pub fn LandscapePanel() -> impl IntoView {
    // The design's study, solved here; a design with errors (no base) keeps the last one drawn,
    // as the app's results do.
    let base = RwSignal::new(LANDSCAPE.base::<LandscapeBase>());
    LANDSCAPE.on_base(move |b: Option<LandscapeBase>| {
        if b.is_some() && base.with_untracked(|now| *now != b) {
            base.set(b);
        }
    });
    let chosen = RwSignal::new(LANDSCAPE.state::<Option<(usize, usize)>>().flatten());
    LANDSCAPE.on_restate(move |p: Option<Option<(usize, usize)>>| {
        let p = p.flatten();
        if chosen.get_untracked() != p {
            chosen.set(p);
        }
    });
    let study = Memo::new(move |_| {
        base.with(|b| {
            b.as_ref()
                .and_then(|(sc, method)| study_by(sc, *method).ok().map(Arc::new))
        })
    });
    let labels = Memo::new(move |_| {
        study.with(|s| s.as_ref().map(|s| s.dim_labels.clone()).unwrap_or_default())
    });
    // The pair shown: the link's, else the two dimensions with the most bandwidth at the optimum.
    let pair = Memo::new(move |_| {
        let chosen = chosen.get();
        study.with(|s| {
            s.as_ref()
                .map_or((0, 1), |s| pair_shown(chosen, &s.optimum.bw_gbps))
        })
    });
    // The landscape is solved a few cells per slice across animation frames (the one runner of
    // long work, `sliced_runner`): the last complete one stays drawn while the next is solved.
    let runner = SlicedRunner::<LandscapeRun>::new();
    LANDSCAPE.export_results(move || {
        runner
            .output
            .with_untracked(|l| l.as_deref().map(crate::results::landscape))
    });
    Effect::new(move |_| {
        let (i, j) = pair.get();
        match study.get() {
            None => runner.clear(),
            Some(s) => runner.start(
                LandscapeRun::new(&s, i, j, GRID).map_err(|e| e.to_string()),
                CELLS_PER_STEP,
            ),
        }
    });
    on_cleanup(move || runner.abandon());
    let set = move |axis: usize, d: usize| {
        let p = Some(pick(pair.get_untracked(), axis, d));
        chosen.set(p);
        LANDSCAPE.send_state(&p);
    };
    let picker = move |axis: usize, testid: &'static str, title: &'static str| {
        view! {
            <label class="field inline">
                <span>{title}</span>
                <select
                    data-testid=testid
                    on:change=move |ev| {
                        if let Ok(d) = event_target_value(&ev).parse::<usize>() {
                            set(axis, d);
                        }
                    }
                >
                    {move || {
                        let chosen = if axis == 0 { pair.get().0 } else { pair.get().1 };
                        labels
                            .get()
                            .into_iter()
                            .enumerate()
                            .map(|(d, l)| view! { <option value=d.to_string() selected=d == chosen>{l}</option> })
                            .collect_view()
                    }}
                </select>
            </label>
        }
    };
    let summary = move || {
        let l = runner.output.get()?;
        // The names of the landscape's own pair (the one drawn, which may not be the one picked yet).
        let (bi, bj) = pair_names(&l);
        let least = l.least_score().unwrap_or(f64::NAN);
        Some(view! {
            <div class="explain" data-testid="landscape-explain" data-value=l.feasible_share().to_string()>
                <p>{l.cells_text((&bi, &bj))}</p>
                <p>
                    {format!(
                        "{} The best grid cell is {}: the grid is {GRID} × {GRID}.",
                        l.paths_text((&bi, &bj)),
                        l.score_text(least)
                    )}
                </p>
                {(!l.lines.is_empty()).then(|| view! {
                    <p>"Red lines: the constraints on these two dimensions alone."</p>
                })}
            </div>
        })
    };
    view! {
        <section class="panel landscape" aria-label="Landscape">
            <h2>"Landscape"</h2>
            <p class="hint">
                "How flat is the optimum? See the training time over the bandwidths of two dimensions."
            </p>
            <div class="landscape-controls">
                {picker(0, "landscape-x", "horizontal")}
                {picker(1, "landscape-y", "vertical")}
            </div>
            <Show when=move || runner.progress.with(Option::is_some)>
                <div class="progress">
                    <progress
                        data-testid="landscape-progress"
                        max="1"
                        value=move || runner.progress.with(|p| p.as_ref().map_or(0.0, |p| p.fraction))
                    ></progress>
                    <span>{format!("solving the {GRID} × {GRID} grid…")}</span>
                </div>
            </Show>
            {move || match (runner.error.get(), runner.output.with(Option::is_some)) {
                (Some(e), _) => Some(view! { <p class="error" role="alert">{e}</p> }.into_any()),
                (None, false) => Some(view! { <p class="hint">"The design has no optimum yet: fix the form first."</p> }.into_any()),
                (None, true) => None,
            }}
            <ChartCanvas
                chart=LandscapeChart
                class="square"
                data=Signal::derive(move || runner.output.get())
            />
            {summary}
        </section>
    }
}
