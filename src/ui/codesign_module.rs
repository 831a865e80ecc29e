//! The Co-design view, built as a wasm module of its own (`src/bin/codesign_view.rs`) that the app
//! loads the first time the view is opened, so that the app's own wasm stays within its budget.
//! It talks to the app through `bridge`: the app hands it the design (its cost tiers and shape)
//! and the question a link carried; it hands back the question as the visitor edits it (for the
//! link) and the design to load into the design view. The search runs a slice per animation frame
//! with a progress bar and Cancel.

use super::browser;
use super::chart_canvas::ChartCanvas;
use super::chart_table::data_table;
use super::module_bridge::CODESIGN as bridge;
use crate::charts::codesign_chart::CodesignChart;
use crate::charts::tables::{codesign_ranked_table, codesign_winners_table};
use crate::codesign::{
    CodesignInputs, CodesignResult, CodesignRun, CustomField, InputField, ModelPreset, CUSTOM,
};
use crate::format::usd;
use crate::model::scenario::Scenario;
use leptos::prelude::*;
use std::sync::Arc;

/// Mount the view in the app's `#codesign-root`.
pub fn start() {
    console_error_panic_hook::set_once();
    bridge.mount(CodesignPanel);
}

#[derive(Clone, Copy)]
struct Search {
    run: StoredValue<Option<CodesignRun>>,
    /// Bumped after every frame of work.
    tick: RwSignal<u64>,
    result: RwSignal<Option<Arc<CodesignResult>>>,
    of: StoredValue<Option<(CodesignInputs, Scenario)>>,
    error: RwSignal<Option<String>>,
    running: RwSignal<bool>,
    generation: StoredValue<u64>,
    elapsed_ms: RwSignal<Option<f64>>,
}

impl Search {
    fn new() -> Search {
        Search {
            run: StoredValue::new(None),
            tick: RwSignal::new(0),
            result: RwSignal::new(None),
            of: StoredValue::new(None),
            error: RwSignal::new(None),
            running: RwSignal::new(false),
            generation: StoredValue::new(0),
            elapsed_ms: RwSignal::new(None),
        }
    }

    fn cancel(&self) {
        self.generation.update_value(|g| *g += 1);
        self.run.set_value(None);
        self.running.set(false);
    }

    fn start(&self, inputs: &CodesignInputs, base: &Scenario) {
        let this = *self;
        this.cancel();
        let generation = this.generation.get_value();
        this.of.set_value(Some((inputs.clone(), base.clone())));
        this.elapsed_ms.set(None);
        let started = browser::now_ms();
        match inputs.setup(base).and_then(|s| CodesignRun::new(&s)) {
            Err(e) => {
                this.result.set(None);
                this.error.set(Some(e.to_string()));
            }
            Ok(run) => {
                this.error.set(None);
                this.run.set_value(Some(run));
                this.running.set(true);
                browser::run_in_frames(move || {
                    if this.generation.try_get_value() != Some(generation) {
                        return true;
                    }
                    let done = browser::work_for_a_frame(|| {
                        this.run
                            .try_update_value(|r| r.as_mut().is_none_or(|r| r.step(4)))
                            .unwrap_or(true)
                    });
                    if done {
                        this.running.set(false);
                        this.elapsed_ms.set(Some(browser::now_ms() - started));
                        let outcome = this
                            .run
                            .with_value(|r| r.as_ref().map(|r| (r.outcome(), r.result())));
                        match outcome {
                            Some((Ok(()), result)) => this.result.set(Some(Arc::new(result))),
                            Some((Err(e), _)) => {
                                this.result.set(None);
                                this.error.set(Some(e.to_string()));
                            }
                            None => {}
                        }
                        this.run.set_value(None);
                    }
                    this.tick.update(|t| *t += 1);
                    done
                });
            }
        }
    }

    fn is_for(&self, inputs: &CodesignInputs, base: &Scenario) -> bool {
        self.of
            .with_value(|o| o.as_ref().is_some_and(|(i, b)| i == inputs && b == base))
    }
}

fn input_field(
    inputs: RwSignal<Option<CodesignInputs>>,
    field: InputField,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    // Its own text only: an edit of another field does not rewrite this one.
    let text =
        Memo::new(move |_| inputs.with(|c| c.as_ref().map(|c| c.text(field)).unwrap_or_default()));
    view! {
        <label class="field inline">
            <span>{field.label()}</span>
            <input
                type="text"
                inputmode="decimal"
                data-testid=field.testid()
                prop:value=text
                on:change=move |ev| {
                    // A refused value stays in the field, with the reason; the question keeps its
                    // last good value.
                    let text = event_target_value(&ev);
                    let Some(mut next) = inputs.get_untracked() else { return };
                    match next.set(field, &text) {
                        Ok(()) => {
                            error.set(None);
                            inputs.set(Some(next));
                        }
                        Err(e) => error.set(Some(e.to_string())),
                    }
                }
            />
        </label>
    }
}

#[component]
fn CodesignPanel() -> impl IntoView {
    let base = RwSignal::new(bridge.base::<Scenario>());
    bridge.on_base(move |sc| base.set(sc));
    let inputs = RwSignal::new(bridge.state::<CodesignInputs>().or_else(|| {
        base.get_untracked()
            .map(|sc| CodesignInputs::for_design(&sc))
    }));
    // The question travels in the app's link.
    Effect::new(move |_| {
        if let Some(i) = inputs.get() {
            bridge.send_state(&i);
        }
    });
    let search = Search::new();
    let typed_error = RwSignal::new(None::<String>);
    let run_now = move || {
        match (inputs.get_untracked(), base.get_untracked()) {
        (Some(i), Some(sc)) => search.start(&i, &sc),
        (None, Some(sc)) => {
            let i = CodesignInputs::for_design(&sc);
            inputs.set(Some(i.clone()));
            search.start(&i, &sc);
        }
        _ => search.error.set(Some(
            "The design has errors: fix the form in the design view first (the co-design uses its cost tiers).".into(),
        )),
    }
    };
    run_now();
    let stale = move || match (inputs.get(), base.get()) {
        (Some(i), Some(sc)) => !search.is_for(&i, &sc),
        _ => false,
    };
    let status = move || {
        search.tick.track();
        let error = typed_error.get().or_else(|| search.error.get());
        let progress = search.run.with_value(|r| r.as_ref().map(|r| r.progress()));
        let line = match (progress, search.result.get()) {
            (Some((done, all)), _) => format!("candidate {done} of {all}…"),
            (None, Some(r)) => format!(
                "{} candidates on {} shapes: {} optimized, {} skipped by a lower bound, {} that do not fit in memory, {} that do not lay on a shape{}.",
                r.candidates,
                r.shapes,
                r.evaluated,
                r.pruned_by.bound,
                r.pruned_by.memory,
                r.pruned_by.lay,
                search.elapsed_ms.get().map(|v| format!(", in {v:.0} ms")).unwrap_or_default(),
            ),
            (None, None) => String::new(),
        };
        let (done, all) = progress.unwrap_or((1, 1));
        view! {
            {error.map(|e| view! { <p class="error" role="alert" data-testid="codesign-error">{e}</p> })}
            <div class="progress" aria-live="polite">
                <progress data-testid="codesign-progress" max=all value=done></progress>
                <span
                    data-testid="codesign-status"
                    data-value=search.elapsed_ms.get().map(|v| v.to_string()).unwrap_or_default()
                >
                    {line}
                </span>
            </div>
            {stale().then(|| view! { <p class="stale-note">"The question or the design changed since this search: search again."</p> })}
        }
    };
    let results = move || {
        search.result.with(|r| {
            r.as_ref().map(|r| {
                let of = search.of.get_value();
                let designs: Vec<Option<Scenario>> = r
                    .ranked
                    .iter()
                    .map(|d| of.as_ref().and_then(|(i, b)| i.design_scenario(b, d)))
                    .collect();
                let count = designs.len();
                let pick = RwSignal::new(0usize);
                view! {
                    <h3>"The fastest design per budget range"</h3>
                    {data_table(codesign_winners_table(r), "The fastest design per budget range", Some("codesign-winners"))}
                    <h3>{format!("The fastest designs at {}", usd(r.rank_budget_usd))}</h3>
                    {data_table(codesign_ranked_table(r), "The fastest designs at one budget", Some("codesign-table"))}
                    <div class="compare-controls">
                        <label class="field inline">
                            <span>"Design #"</span>
                            <select data-testid="codesign-pick" on:change=move |ev| {
                                pick.set(event_target_value(&ev).parse().unwrap_or(0));
                            }>
                                {(0..count).map(|k| view! { <option value=k.to_string()>{k + 1}</option> }).collect_view()}
                            </select>
                        </label>
                        <button type="button" class="primary" data-testid="codesign-load" on:click=move |_| {
                            if let Some(Some(sc)) = designs.get(pick.get_untracked()) {
                                bridge.load(sc);
                            }
                        }>
                            "Load into the design view"
                        </button>
                    </div>
                }
            })
        })
    };
    view! {
        <section class="panel shapes" aria-label="Co-design parallelism and network" data-testid="codesign-view">
            <h2>"Co-design: parallelism, shape and bandwidths"</h2>
            <p class="hint">
                "Which way of splitting the model (tensor × pipeline × data parallel, micro-batch) on \
                 which network shape, with which bandwidths, trains fastest for the money? Every \
                 split that fits the HBM (16 bytes per parameter with the optimizer state sharded \
                 over DP, or everything with ZeRO-3; activations with selective or full \
                 recomputation) is laid on every shape within \
                 the cost tiers' limits (TP innermost, then PP and DP in either order), each with \
                 certified optimal bandwidths at every budget, timed with the tiers' latencies, \
                 pipeline sends and the 1F1B bubble. Lower bounds skip the candidates that cannot win."
            </p>
            <div class="compare-controls">
                <label class="field inline">
                    <span>"Model"</span>
                    <select
                        data-testid="codesign-model"
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            inputs.update(|c| {
                                if let Some(c) = c.as_mut() {
                                    c.model = v;
                                }
                            });
                        }
                    >
                        {ModelPreset::ALL
                            .into_iter()
                            .map(|p| (p.key(), p.transformer().name))
                            .chain([(CUSTOM, "Custom (your sizes)".to_string())])
                            .map(|(key, name)| view! {
                                <option
                                    value=key
                                    selected=move || inputs.with(|i| i.as_ref().is_some_and(|i| i.model == key))
                                >
                                    {name}
                                </option>
                            })
                            .collect_view()}
                    </select>
                </label>
                {InputField::ALL.map(|f| input_field(inputs, f, typed_error)).collect_view()}
                <Show when=move || inputs.with(|i| i.as_ref().is_some_and(|i| i.model == CUSTOM))>
                    {CustomField::ALL
                        .map(|f| input_field(inputs, InputField::Custom(f), typed_error))
                        .collect_view()}
                </Show>
                {[
                    ("codesign-full-recompute", " full recomputation", false),
                    ("codesign-zero3", " ZeRO-3", true),
                ]
                    .map(|(testid, label, zero3)| view! {
                        <label class="field inline">
                            <input
                                type="checkbox"
                                data-testid=testid
                                prop:checked=move || inputs.with(|i| i.as_ref().is_some_and(|i| if zero3 { i.zero3 } else { i.full_recompute }))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    inputs.update(|c| {
                                        if let Some(c) = c.as_mut() {
                                            if zero3 { c.zero3 = on } else { c.full_recompute = on }
                                        }
                                    });
                                }
                            />
                            {label}
                        </label>
                    })
                    .collect_view()}
                <label class="field inline">
                    <input
                        type="checkbox"
                        data-testid="codesign-own-shape"
                        prop:checked=move || inputs.with(|i| i.as_ref().is_some_and(|i| i.own_shape))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            inputs.update(|c| {
                                if let Some(c) = c.as_mut() {
                                    c.own_shape = on;
                                }
                            });
                        }
                    />
                    " the design's shape only"
                </label>
                <button type="button" class="primary" data-testid="codesign-run" on:click=move |_| run_now()>"Search"</button>
                <Show when=move || search.running.get()>
                    <button type="button" data-testid="codesign-cancel" on:click=move |_| search.cancel()>"Cancel"</button>
                </Show>
            </div>
            {status}
            <ChartCanvas chart=CodesignChart data=search.result />
            {results}
        </section>
    }
}
