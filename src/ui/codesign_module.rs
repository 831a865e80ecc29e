//! The Co-design view, in the explore views' wasm module (`explore_module`) that the app loads the
//! first time the view is opened, so that the app's own wasm stays within its budget.
//! It talks to the app through `bridge`: the app hands it the design (its cost tiers and shape)
//! and the question a link carried; it hands back the question as the visitor edits it (for the
//! link) and the design to load into the design view. The search runs a slice per animation frame
//! with a progress bar and Cancel.

use super::browser;
use super::calibrate_panel::CalibratePanel;
use super::chart_canvas::ChartCanvas;
use super::chart_table::data_table;
use super::fields::typed_input;
use super::module_bridge::CODESIGN as bridge;
use crate::charts::codesign_chart::CodesignChart;
use crate::charts::tables::{codesign_ranked_table, codesign_winners_table};
use crate::codesign::{
    CodesignInputs, CodesignResult, CodesignRun, CodesignStart, CustomField, InputField,
    ModelPreset, CALIBRATED, CUSTOM, FLAT, PICKED_SYSTEMS,
};
use crate::form::typed::summary;
use crate::format::usd;
use crate::model::scenario::Scenario;
use leptos::prelude::*;
use std::sync::Arc;

#[derive(Clone, Copy)]
struct Search {
    /// The start under way: the parallelisms' layer lists are built a slice per frame too (a
    /// 10,000-layer model's took half a second at once).
    starting: StoredValue<Option<CodesignStart>>,
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
            starting: StoredValue::new(None),
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
        self.starting.set_value(None);
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
        match inputs.setup(base).and_then(|s| CodesignStart::new(&s)) {
            Err(e) => {
                this.result.set(None);
                this.error.set(Some(e.to_string()));
            }
            Ok(start) => {
                this.error.set(None);
                this.starting.set_value(Some(start));
                this.running.set(true);
                browser::run_in_frames(move || {
                    if this.generation.try_get_value() != Some(generation) {
                        return true;
                    }
                    // The start and the search in frames of their own: a slice of one never
                    // runs on into the other's first (and costlier) piece.
                    let done = if this.starting.with_value(Option::is_some) {
                        browser::work_for_a_frame(|| this.advance_start());
                        false
                    } else {
                        browser::work_for_a_frame(|| this.advance())
                    };
                    if this.starting.with_value(Option::is_none)
                        && this.run.with_value(Option::is_none)
                        && this.error.with_untracked(Option::is_some)
                        && !done
                    {
                        // The start failed: said already.
                        this.running.set(false);
                        return true;
                    }
                    if !done {
                        this.tick.update(|t| *t += 1);
                        return false;
                    }
                    let elapsed = browser::now_ms() - started;
                    // The answer in a frame of its own: what it draws (the tables, the chart)
                    // does not add to the last slice's task.
                    browser::run_in_frames(move || {
                        if this.generation.try_get_value() != Some(generation) {
                            return true;
                        }
                        this.running.set(false);
                        this.elapsed_ms.set(Some(elapsed));
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
                        this.tick.update(|t| *t += 1);
                        true
                    });
                    true
                });
            }
        }
    }

    /// One piece of the start: a parallelism (its layer list); true when the start is over (the
    /// run is ready, or the error is said).
    fn advance_start(&self) -> bool {
        let started = self
            .starting
            .try_update_value(|s| s.as_mut().and_then(|s| s.step(1)))
            .flatten();
        match started {
            Some(Ok(run)) => {
                self.starting.set_value(None);
                self.run.set_value(Some(run));
                true
            }
            Some(Err(e)) => {
                self.starting.set_value(None);
                self.result.set(None);
                self.error.set(Some(e.to_string()));
                true
            }
            None => self.starting.with_value(Option::is_none),
        }
    }

    /// One piece of the search: a candidate (a 10,000-layer model's take milliseconds each);
    /// true when the search is over.
    fn advance(&self) -> bool {
        self.run
            .try_update_value(|r| r.as_mut().is_none_or(|r| r.step(1)))
            .unwrap_or(true)
    }

    fn is_for(&self, inputs: &CodesignInputs, base: &Scenario) -> bool {
        self.of
            .with_value(|o| o.as_ref().is_some_and(|(i, b)| i == inputs && b == base))
    }
}

/// A field of the question, read by the one typed reader as it is typed: a refused text stays
/// as typed, marked with the reason (computed from that text), and travels in the link and the
/// saved state with the rest; a reload right after typing keeps it.
fn input_field(
    inputs: RwSignal<Option<CodesignInputs>>,
    layout: RwSignal<u32>,
    field: InputField,
) -> AnyView {
    typed_input(
        field.label(),
        field.testid(),
        layout.into(),
        move || inputs.with_untracked(|c| c.as_ref().map(|c| c.text(field)).unwrap_or_default()),
        Signal::derive(move || inputs.with(|c| c.as_ref().and_then(|c| c.refusal(field)))),
        move |text| {
            inputs.update(|c| {
                if let Some(c) = c.as_mut() {
                    let _ = c.set(field, &text);
                }
            });
        },
    )
}

/// The System picker: the builder's flat rate, a preset, or the system calibrated below. A choice
/// the view refuses (a calibration not made yet, a name from a hand-edited link) is marked with
/// the reason, as the typed fields are.
fn system_picker(inputs: RwSignal<Option<CodesignInputs>>, layout: RwSignal<u32>) -> AnyView {
    let refusal = move || inputs.with(|c| c.as_ref().and_then(|c| c.refusal(InputField::System)));
    let key = move || {
        inputs.with(|c| {
            c.as_ref()
                .map(|c| c.system_key().to_string())
                .unwrap_or_default()
        })
    };
    view! {
        <label class="field inline">
            <span>"System"</span>
            <select
                data-testid="codesign-system"
                class:invalid=move || refusal().is_some()
                aria-invalid=move || refusal().is_some().to_string()
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    inputs.update(|c| {
                        if let Some(c) = c.as_mut() {
                            let _ = c.set(InputField::System, &v);
                        }
                    });
                    // The HBM field shows the accelerator's.
                    layout.update(|l| *l += 1);
                }
            >
                {[(FLAT, "flat (peak TFLOP/s × efficiency)".to_string())]
                    .into_iter()
                    .chain(PICKED_SYSTEMS.iter().map(|k| {
                        let label = match *k {
                            "dgx-a100" => "dgx-a100 (calibrated on measured A100 runs)".to_string(),
                            k => format!("{k} (public figures)"),
                        };
                        (*k, label)
                    }))
                    .chain([(CALIBRATED, "calibrated (imported)".to_string())])
                    .map(|(k, label)| view! { <option value=k selected=move || key() == k>{label}</option> })
                    .collect_view()}
            </select>
            {move || refusal().map(|e| view! {
                <span class="field-error" role="alert" data-testid="codesign-system-error">{e}</span>
            })}
        </label>
    }
    .into_any()
}

/// The view, mounted in the app's `#codesign-root` by `explore_module`.
#[component]
pub fn CodesignPanel() -> impl IntoView {
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
    bridge.export_results(move || {
        search
            .result
            .get_untracked()
            .map(|r| crate::results::codesign(&r))
    });
    // Bumped when the fields are drawn anew (another tab's question, taken by the visitor).
    let layout = RwSignal::new(0u32);
    bridge.on_restate(move |question: Option<CodesignInputs>| {
        if question.is_some() {
            inputs.set(question);
            layout.update(|l| *l += 1);
        }
    });
    let run_now = move || {
        match (inputs.get_untracked(), base.get_untracked()) {
        // A question whose fields are refused is not searched: the fields say why.
        (Some(i), Some(_)) if !i.refusals().is_empty() => {
            search.cancel();
            search.result.set(None);
            let refused = i.refusals();
            search.error.set(Some(summary(
                &refused
                    .iter()
                    .map(|e| (e.field.label(), e.reason.as_str()))
                    .collect::<Vec<_>>(),
            )));
        }
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
    // The first search starts when the view is first shown (the module may have been loaded
    // by Compare shapes or Landscape, before the app handed this view its design).
    let started = StoredValue::new(false);
    let start_once = move || {
        if !started.get_value() {
            started.set_value(true);
            // The link's question, handed over with the first show.
            if let Some(q) = bridge.state::<CodesignInputs>() {
                if inputs.get_untracked().as_ref() != Some(&q) {
                    inputs.set(Some(q));
                    layout.update(|l| *l += 1);
                }
            }
            run_now();
        }
    };
    if bridge.shown() {
        start_once();
    }
    bridge.on_shown(move |shown| {
        if shown {
            start_once();
        }
    });
    let stale = move || match (inputs.get(), base.get()) {
        (Some(i), Some(sc)) => !search.is_for(&i, &sc),
        _ => false,
    };
    let status = move || {
        search.tick.track();
        let error = search.error.get();
        let preparing = search
            .starting
            .with_value(|s| s.as_ref().map(|s| s.progress()));
        let progress = search.run.with_value(|r| r.as_ref().map(|r| r.progress()));
        let line = match (preparing, progress, search.result.get()) {
            (Some((done, all)), _, _) => format!("preparing: parallelism {done} of {all}…"),
            (None, Some((done, all)), _) => format!("candidate {done} of {all}…"),
            (None, None, Some(r)) => format!(
                "{}{}.",
                r.counts(),
                search
                    .elapsed_ms
                    .get()
                    .map(|v| format!(", in {v:.0} ms"))
                    .unwrap_or_default(),
            ),
            (None, None, None) => String::new(),
        };
        let (done, all) = progress.or(preparing.map(|_| (0, 1))).unwrap_or((1, 1));
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
                // Each design's scenario is built when it is loaded, not all of them here: a
                // 10,000-layer model's took tens of milliseconds each, in the answer's frame.
                let of = search.of.get_value();
                let designs = r.ranked.clone();
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
                                // The options' own values (0-based ranks): anything else is ignored.
                                if let Ok(k) = event_target_value(&ev).parse::<usize>() {
                                    pick.set(k);
                                }
                            }>
                                {(0..count).map(|k| view! { <option value=k.to_string()>{k + 1}</option> }).collect_view()}
                            </select>
                        </label>
                        <button type="button" class="primary" data-testid="codesign-load" on:click=move |_| {
                            let design = designs.get(pick.get_untracked());
                            if let Some(sc) = design.and_then(|d| {
                                of.as_ref().and_then(|(i, b)| i.design_scenario(b, d))
                            }) {
                                bridge.load(&sc);
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
                "Which way of splitting the model (tensor × pipeline × data parallel, with context \
                 parallelism for long sequences and expert parallelism for mixtures of experts, \
                 micro-batch) on which network shape, with which bandwidths, trains fastest for \
                 the money? Every split that fits the HBM (16 bytes per parameter with the \
                 optimizer state sharded over DP, or everything with ZeRO-3; activations with \
                 selective or full recomputation) is laid on every shape within \
                 the cost tiers' limits, or on a picked system's own network (TP innermost, then \
                 CP, then PP and DP in either order; EP carved from a stage's TP, CP and DP \
                 ranks), each with \
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
                {system_picker(inputs, layout)}
                {InputField::ALL.map(|f| input_field(inputs, layout, f)).collect_view()}
                <Show when=move || inputs.with(|i| i.as_ref().is_some_and(|i| i.model == CUSTOM))>
                    {CustomField::ALL
                        .map(|f| input_field(inputs, layout, InputField::Custom(f)))
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
            <p class="hint" data-testid="codesign-system-note">
                {move || inputs.with(|i| i.as_ref().map(CodesignInputs::system_note))}
            </p>
            {status}
            <ChartCanvas chart=CodesignChart data=search.result own_task=true />
            {results}
            <CalibratePanel inputs=inputs layout=layout />
        </section>
    }
}
