//! The Co-design view's Calibrate panel (part of the Co-design module only: docs/predict.md "In the
//! app"): a runs CSV picked, pasted or the example, a starting system, the least-squares fit run a
//! piece per animation frame, the fitted parameters beside the start's, the errors, the scatter of
//! predicted against measured, and "Use this system", which makes the fit the System picker's
//! "calibrated (imported)" (it travels in the link and the saved state).

use super::browser;
use super::chart_canvas::ChartCanvas;
use super::chart_table::data_table;
use crate::charts::calibration_chart::{CalibrationChart, CalibrationShown};
use crate::charts::tables::DataTable;
use crate::codesign::{CalibratedSystem, CodesignInputs, CALIBRATION_STARTS};
use crate::predict::calibrate::{
    held, values, weighted, CalibrationRun, MAX_ITERATIONS, PARAMETERS,
};
use crate::predict::measured::read_runs;
use crate::predict::system::{System, HELD_A100};
use crate::predict::validation::{validate, Validation};
use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;

/// vTrain's 41 measured Megatron-DeepSpeed runs (data/measured/README.md), the one-click example.
const EXAMPLE: &str = include_str!("../../data/measured/megatron-a100-visible.csv");

/// A finished calibration.
#[derive(Clone)]
struct Fitted {
    start_key: String,
    start: System,
    /// The fit, or the start when the fit did not converge.
    fitted: System,
    converged: bool,
    /// Levenberg-Marquardt steps taken.
    steps: usize,
    held: [bool; 8],
    shown: Arc<CalibrationShown>,
}

fn pct(v: f64) -> String {
    format!("{:.1}%", 100.0 * v)
}

/// A parameter's value as the table shows it.
fn value_text(i: usize, v: f64) -> String {
    match matches!(i, 0 | 1 | 4 | 6) {
        true => format!("{:.1}%", 100.0 * v),
        false if v >= 100.0 => format!("{v:.0} us"),
        false => format!("{v:.1} us"),
    }
}

fn parameters_table(f: &Fitted) -> DataTable {
    let mut t = DataTable {
        headers: ["parameter", "start", "fitted"].map(String::from).to_vec(),
        rows: Vec::new(),
    };
    let (a, b) = (values(&f.start), values(&f.fitted));
    for (i, name) in PARAMETERS.iter().enumerate() {
        t.rows.push(vec![
            name.to_string(),
            value_text(i, a[i]),
            match f.held[i] {
                true => format!("{} (held)", value_text(i, b[i])),
                false => value_text(i, b[i]),
            },
        ]);
    }
    t
}

fn errors_table(start: &Validation, fitted: &Validation) -> DataTable {
    let mut t = DataTable {
        headers: [
            "runs",
            "start: mean",
            "median",
            "worst",
            "Spearman",
            "fitted: mean",
            "median",
            "worst",
            "Spearman",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    t.rows.push(vec![
        format!("all {} runs", fitted.runs),
        pct(start.mean_abs_error),
        pct(start.median_abs_error),
        pct(start.worst_abs_error),
        String::new(),
        pct(fitted.mean_abs_error),
        pct(fitted.median_abs_error),
        pct(fitted.worst_abs_error),
        String::new(),
    ]);
    for (s, m) in start.models.iter().zip(&fitted.models) {
        t.rows.push(vec![
            format!("{}: {} runs", m.model, m.runs),
            pct(s.mean_abs_error),
            String::new(),
            pct(s.worst_abs_error),
            format!("{:.3}", s.spearman),
            pct(m.mean_abs_error),
            String::new(),
            pct(m.worst_abs_error),
            format!("{:.3}", m.spearman),
        ]);
    }
    t
}

/// The panel; "Use this system" writes into `inputs` (and redraws the view's fields by `layout`).
#[component]
pub fn CalibratePanel(
    inputs: RwSignal<Option<CodesignInputs>>,
    layout: RwSignal<u32>,
) -> impl IntoView {
    let csv = RwSignal::new(String::new());
    let start_key = RwSignal::new(CALIBRATION_STARTS[0].to_string());
    let hold = RwSignal::new(true);
    let run = StoredValue::new(None::<CalibrationRun>);
    let generation = StoredValue::new(0u64);
    let progress = RwSignal::new(None::<(usize, usize)>);
    let error = RwSignal::new(None::<String>);
    let result = RwSignal::new(None::<Fitted>);
    let shown = RwSignal::new(None::<Arc<CalibrationShown>>);
    let used = RwSignal::new(false);
    let elapsed = RwSignal::new(None::<f64>);
    let picker = NodeRef::<Input>::new();
    let pick = move |_| {
        let Some(input) = picker.get_untracked() else {
            return;
        };
        spawn_local(async move {
            match browser::read_picked(&input).await {
                Ok((_, content)) => csv.set(content),
                Err(e) => error.set(Some(format!("could not read the file: {e}"))),
            }
        });
    };
    let cancel = move || {
        generation.update_value(|g| *g += 1);
        run.set_value(None);
        progress.set(None);
    };
    let start_calibration = move || {
        let key = start_key.get_untracked();
        let start = match System::preset(&key) {
            Ok(s) => s,
            Err(e) => return error.set(Some(e.to_string())),
        };
        // Every row checked on the start: a bad one is named by its line and rule.
        let runs = match read_runs(&csv.get_untracked(), &start) {
            Ok(r) => r,
            Err(e) => return error.set(Some(format!("The runs: {e}"))),
        };
        let held = match hold.get_untracked() {
            true => held(&HELD_A100).unwrap_or([false; 8]),
            false => [false; 8],
        };
        let (runs, weights) = weighted(vec![runs]);
        let started = browser::now_ms();
        let g = generation.get_value();
        progress.set(Some((1, MAX_ITERATIONS)));
        let mut outcome = None;
        // The run starts in the first frame: it predicts every run once (after the task that
        // read and checked the runs; together, 51 ms on a slow machine).
        let mut fit = None;
        let mut weights = Some(weights);
        browser::run_in_frames(move || {
            if generation.try_get_value() != Some(g) {
                return true;
            }
            let Some(fit) = fit.as_mut() else {
                let w = weights.take().unwrap_or_default();
                match CalibrationRun::new(&start, runs.clone(), w, held) {
                    Ok(f) => {
                        progress.set(Some(f.progress()));
                        fit = Some(f);
                        return false;
                    }
                    Err(e) => {
                        error.set(Some(e.to_string()));
                        progress.set(None);
                        return true;
                    }
                }
            };
            // A piece predicts every run once: sub-millisecond for the example's 41.
            let done = browser::work_for_a_frame(|| {
                outcome = fit.step();
                outcome.is_some()
            });
            if !done {
                progress.set(Some(fit.progress()));
                return false;
            }
            let steps = fit.progress().0;
            let (fitted, converged) = match outcome.take() {
                Some(Ok(f)) => (f.system, true),
                Some(Err(e)) => {
                    error.set(Some(e.to_string()));
                    (start.clone(), false)
                }
                None => (start.clone(), false),
            };
            // The errors of the start and of the fit a frame each (1,440 runs predicted twice
            // made a task of 61 ms on a slow machine), then the table.
            let (start, runs, key) = (start.clone(), runs.clone(), key.clone());
            let (mut before, mut after) = (None, None);
            browser::run_in_frames(move || {
                if generation.try_get_value() != Some(g) {
                    return true;
                }
                if before.is_none() {
                    before = Some(validate(&start, &runs));
                    return false;
                }
                if after.is_none() {
                    after = Some(validate(&fitted, &runs));
                    return false;
                }
                let (Some(before), Some(after)) = (before.take(), after.take()) else {
                    return true;
                };
                let s = Arc::new(CalibrationShown {
                    start_name: key.clone(),
                    start: before,
                    fitted: after,
                });
                elapsed.set(Some(browser::now_ms() - started));
                progress.set(None);
                shown.set(Some(s.clone()));
                result.set(Some(Fitted {
                    start_key: key.clone(),
                    start: start.clone(),
                    fitted: fitted.clone(),
                    converged,
                    steps,
                    held,
                    shown: s,
                }));
                true
            });
            true
        });
    };
    // The click only clears the last answer; the runs are read in a task of their own (the
    // 1,440 runs of vTrain's file take 27 ms to read and check, which with the frame the click
    // redraws made a 63 ms frame on a slow machine).
    let calibrate = move |_| {
        cancel();
        error.set(None);
        used.set(false);
        let clicked = generation.get_value();
        leptos::prelude::set_timeout(
            move || {
                if generation.try_get_value() == Some(clicked) {
                    start_calibration();
                }
            },
            std::time::Duration::ZERO,
        );
    };
    let use_it = move |_| {
        if let Some(f) = result.get_untracked().filter(|f| f.converged) {
            inputs.update(|c| {
                if let Some(c) = c.as_mut() {
                    c.use_calibrated(CalibratedSystem::of(&f.start_key, &f.fitted));
                }
            });
            layout.update(|l| *l += 1);
            used.set(true);
        }
    };
    let status = move || {
        let line = match (progress.get(), result.get()) {
            (Some((k, most)), _) => format!("fitting: step {k} (at most {most})…"),
            (None, Some(f)) => format!(
                "{} {} runs, starting from {}: {} steps{}.",
                if f.converged {
                    "Fitted to"
                } else {
                    "Not fitted (the start is kept) on"
                },
                f.shown.fitted.runs,
                f.start_key,
                f.steps,
                elapsed
                    .get()
                    .map(|v| format!(", {v:.0} ms"))
                    .unwrap_or_default()
            ),
            _ => String::new(),
        };
        view! {
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="calibrate-error">{e}</p> })}
            <p class="progress" aria-live="polite">
                <span data-testid="calibrate-status" data-value=elapsed.get().map(|v| v.to_string()).unwrap_or_default()>{line}</span>
            </p>
        }
    };
    let results = move || {
        result.get().map(|f| {
            let converged = f.converged;
            view! {
                <div class="calibrate-results">
                    <div>
                        <h4>"Parameters"</h4>
                        {data_table(parameters_table(&f), "The start's and the fitted parameters", Some("calibrate-parameters"))}
                    </div>
                    <div>
                        <h4>"Absolute errors, and rank correlation within each model"</h4>
                        {data_table(errors_table(&f.shown.start, &f.shown.fitted), "The errors of the start and of the fit", Some("calibrate-errors"))}
                        <p class="compare-controls">
                            <button
                                type="button"
                                class="primary"
                                data-testid="calibrate-use"
                                disabled=!converged
                                on:click=use_it
                            >
                                "Use this system"
                            </button>
                            {move || used.get().then(|| view! {
                                <span class="muted" data-testid="calibrate-used">
                                    "Chosen as the System above (\"calibrated (imported)\"), kept in the link: press Search."
                                </span>
                            })}
                        </p>
                    </div>
                </div>
            }
        })
    };
    view! {
        <section class="calibrate" aria-label="Calibrate a system on measured runs" data-testid="calibrate-panel">
            <h3>"Calibrate a system on your measured runs"</h3>
            <p class="hint">
                "A CSV of measured Megatron-style training runs, one per line after a header, with \
                 the columns of data/measured/megatron-a100-visible.csv: parameters (billion, \
                 optional), GPUs, global batch, micro batch, hidden size, attention heads, layers, \
                 sequence length, tensor, data and pipeline parallelism, iteration time (ms). The \
                 fit (least squares on the log of predicted over measured, docs/predict.md) sets \
                 the start's compute efficiencies, host time and each tier's efficiency and latency."
            </p>
            <div class="text-source">
                <div class="compare-controls">
                    <label class="button">
                        "Choose a CSV…"
                        <input type="file" class="sr-only" accept=".csv,.txt" node_ref=picker on:change=pick data-testid="calibrate-file" />
                    </label>
                    <button type="button" data-testid="calibrate-example" on:click=move |_| csv.set(EXAMPLE.to_string())>
                        "Example: vTrain's 41 A100 runs"
                    </button>
                </div>
                <textarea
                    rows="4"
                    spellcheck="false"
                    aria-label="Runs CSV"
                    data-testid="calibrate-csv"
                    placeholder="Paste a runs CSV here, or choose a file"
                    prop:value=move || csv.get()
                    on:input=move |ev| csv.set(event_target_value(&ev))
                ></textarea>
            </div>
            <div class="compare-controls">
                <label class="field inline">
                    <span>"Start from"</span>
                    <select data-testid="calibrate-start" on:change=move |ev| start_key.set(event_target_value(&ev))>
                        {CALIBRATION_STARTS
                            .map(|k| view! { <option value=k selected=move || start_key.get() == k>{k}</option> })
                            .collect_view()}
                    </select>
                </label>
                <label class="field inline">
                    <input
                        type="checkbox"
                        data-testid="calibrate-hold"
                        prop:checked=move || hold.get()
                        on:change=move |ev| hold.set(event_target_checked(&ev))
                    />
                    " hold the NVLink tier (vTrain measured its all-reduce on its own)"
                </label>
                <button type="button" class="primary" data-testid="calibrate-run" on:click=calibrate>"Calibrate"</button>
                <Show when=move || progress.with(Option::is_some)>
                    <button type="button" data-testid="calibrate-cancel" on:click=move |_| cancel()>"Cancel"</button>
                </Show>
            </div>
            {status}
            // Drawn once there is a calibration (no empty frame before).
            <Show when=move || shown.with(Option::is_some)>
                <ChartCanvas chart=CalibrationChart data=shown own_task=true hover_only=true />
            </Show>
            {results}
        </section>
    }
}
