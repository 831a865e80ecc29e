//! The Leptos app (wasm32 only). Thin: it holds the form's signals, calls the core and draws.

mod chart_canvas;

use crate::charts::{draw_bw_bars, draw_cost_bars, BwBar, ChartStyle, CostBar};
use crate::format::{duration_ns, usd};
use crate::model::scenario::Scenario;
use crate::optimize::{compare, parse_total_bw, Comparison};
use crate::presets;
use chart_canvas::{Area, ChartCanvas};
use leptos::prelude::*;

/// Mount the app on the page's body.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// The scenario with the form's texts applied: the uniform split and the optimum.
fn comparison(base: &Scenario, npus: &[String], total_bw: &str) -> Result<Comparison, String> {
    let mut scenario = base.clone();
    scenario.network = base
        .network
        .with_npus_text(npus)
        .map_err(|e| e.to_string())?;
    let total = parse_total_bw(total_bw).map_err(|e| e.to_string())?;
    compare(&scenario, total).map_err(|e| e.to_string())
}

fn dim_labels(c: &Comparison) -> impl Iterator<Item = String> + '_ {
    c.uniform
        .network
        .dims
        .iter()
        .enumerate()
        .map(|(i, d)| format!("d{} {}", i + 1, d.topology.name()))
}

fn cost_chart(area: &Area, c: &Comparison, style: &ChartStyle) -> Result<(), String> {
    let bars = CostBar::from_cost(&c.uniform.cost, dim_labels(c));
    draw_cost_bars(area, &bars, style).map_err(|e| e.to_string())
}

fn bw_chart(area: &Area, c: &Comparison, style: &ChartStyle) -> Result<(), String> {
    let optimal = c.optimum.as_ref().ok().map(|s| s.bw_gbps.clone());
    let bars: Vec<BwBar> = dim_labels(c)
        .enumerate()
        .map(|(d, label)| BwBar {
            label,
            uniform_gbps: c.uniform.bw_gbps[d],
            optimal_gbps: optimal.as_ref().map(|o| o[d]),
        })
        .collect();
    draw_bw_bars(area, &bars, style).map_err(|e| e.to_string())
}

/// The form's inputs are uncontrolled: their text is read on every `input` event and never written
/// back, because writing back a number input's `.value` while the user types (e.g. "-" or "1e") would
/// erase what they typed.
#[component]
fn App() -> impl IntoView {
    let base = presets::default_scenario();
    let npus: Vec<RwSignal<String>> = base
        .network
        .dims
        .iter()
        .map(|d| RwSignal::new(d.npus.to_string()))
        .collect();
    let total_bw = RwSignal::new("500".to_string());

    let evaluation = {
        let (base, npus) = (base.clone(), npus.clone());
        Memo::new(move |_| {
            let texts: Vec<String> = npus.iter().map(|s| s.get()).collect();
            comparison(&base, &texts, &total_bw.get())
        })
    };

    let rows = base
        .network
        .dims
        .iter()
        .zip(npus)
        .enumerate()
        .map(|(i, (d, text))| {
            let d_no = i + 1;
            view! {
                <tr>
                    <td>{format!("d{d_no}")}</td>
                    <td>{d.topology.name()}</td>
                    <td>
                        <input
                            type="number"
                            min="2"
                            step="1"
                            inputmode="numeric"
                            aria-label=format!("NPUs in dimension {d_no}")
                            data-testid=format!("npus-d{d_no}")
                            prop:value=text.get_untracked()
                            on:input=move |ev| text.set(event_target_value(&ev))
                        />
                    </td>
                    <td>{d.tier.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    let workload_names = base
        .workloads
        .iter()
        .map(|w| w.name.clone())
        .collect::<Vec<_>>()
        .join(", ");

    view! {
        <header class="app-header">
            <h1>"libra-studio"</h1>
            <p class="tagline">
                "Design the network that trains your model: cost, time and bandwidth per dimension."
            </p>
        </header>
        <main class="layout">
            <section class="panel inputs" data-testid="input-panel" aria-labelledby="inputs-title">
                <h2 id="inputs-title">"Network"</h2>
                <p class="scenario" data-testid="scenario-name">
                    {base.name.clone()} ": "
                    <span data-testid="scenario-shape">{base.network.shape_label()}</span>
                    {format!(" = {} NPUs", base.network.total_npus().unwrap_or(0))}
                </p>
                <table class="dims">
                    <thead>
                        <tr>
                            <th>"dim"</th>
                            <th>"topology"</th>
                            <th>"NPUs (≥ 2)"</th>
                            <th>"cost tier"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
                <label class="field">
                    <span>"Total bandwidth per NPU (GB/s, > 0)"</span>
                    <input
                        type="number"
                        min="0"
                        step="any"
                        data-testid="total-bw"
                        prop:value=total_bw.get_untracked()
                        on:input=move |ev| total_bw.set(event_target_value(&ev))
                    />
                </label>
                <p class="hint">"Workload: " {workload_names} " (LIBRA's input files)"</p>
            </section>
            <section
                class="panel results"
                data-testid="results-panel"
                aria-labelledby="results-title"
            >
                <h2 id="results-title">"Results"</h2>
                {move || match evaluation.get() {
                    Ok(c) => results_view(&c).into_any(),
                    Err(message) => {
                        view! {
                            <p class="error" role="alert" data-testid="input-error">
                                {message}
                            </p>
                        }
                            .into_any()
                    }
                }}
                <div class="charts">
                    <ChartCanvas
                        data=Signal::derive(move || evaluation.get().ok())
                        draw=bw_chart
                        testid="chart-bw"
                        label="Bandwidth per dimension, uniform split and optimum"
                    />
                    <ChartCanvas
                        data=Signal::derive(move || evaluation.get().ok())
                        draw=cost_chart
                        testid="chart-cost"
                        label="Network cost per dimension at the uniform split, by links, switches and NICs"
                    />
                </div>
            </section>
        </main>
        <footer class="app-footer">
            "Model: LIBRA (arXiv 2109.11762), in its LIBRA-compatible mode. "
            "Optimum: a certified interior-point solve in your browser."
        </footer>
    }
}

fn results_view(c: &Comparison) -> impl IntoView {
    let b = &c.uniform;
    let total_cost = b.cost.total_usd();
    let shape = b.network.shape_label();
    let bw = b.bw_gbps.first().copied().unwrap_or(0.0);
    let time = match &b.evaluation {
        Ok(ev) => {
            let comm = ev.time_ns - ev.compute_ns;
            view! {
                <div>
                    <dt>"Training time, uniform split"</dt>
                    <dd data-testid="uniform-time" data-value=ev.time_ns.to_string()>
                        {duration_ns(ev.time_ns)}
                    </dd>
                    <dd class="hint">
                        {format!(
                            "compute {} + exposed communication {}",
                            duration_ns(ev.compute_ns),
                            duration_ns(comm),
                        )}
                    </dd>
                </div>
            }
            .into_any()
        }
        Err(e) => view! {
            <div>
                <dt>"Training time per iteration"</dt>
                <dd class="error" role="alert" data-testid="time-error">{e.to_string()}</dd>
            </div>
        }
        .into_any(),
    };
    let optimum = match (&c.optimum, c.speedup()) {
        (Ok(s), speedup) => {
            let split = s
                .bw_gbps
                .iter()
                .map(|b| format!("{b:.1}"))
                .collect::<Vec<_>>()
                .join(" / ");
            let speedup_text = speedup.map_or(String::new(), |x| format!("{x:.4}×"));
            view! {
                <div>
                    <dt>"Training time, optimum"</dt>
                    <dd data-testid="optimal-time" data-value=s.time_ns.to_string()>
                        {duration_ns(s.time_ns)}
                    </dd>
                    <dd class="hint" data-testid="optimal-bw" data-value=format!("{:?}", s.bw_gbps)>
                        {format!("{split} GB/s, cost {}", usd(s.cost_usd))}
                    </dd>
                </div>
                <div>
                    <dt>"Speedup over uniform"</dt>
                    <dd data-testid="speedup" data-value=speedup.unwrap_or(0.0).to_string()>
                        {speedup_text}
                    </dd>
                    <dd class="hint" data-testid="gap" data-value=s.gap.to_string()>
                        {if s.gap < 1e-15 {
                            "certified optimal (gap below 1e-15)".to_string()
                        } else {
                            format!("certified optimal to within {:.1e}", s.gap)
                        }}
                    </dd>
                </div>
            }
            .into_any()
        }
        (Err(e), _) => view! {
            <div>
                <dt>"Optimum"</dt>
                <dd class="error" role="alert" data-testid="optimum-error">{e.clone()}</dd>
            </div>
        }
        .into_any(),
    };
    view! {
        <dl class="metrics">
            <div>
                <dt>"Total NPUs"</dt>
                <dd data-testid="total-npus" data-value=b.total_npus.to_string()>
                    {b.total_npus.to_string()}
                </dd>
                <dd class="hint">{shape}</dd>
            </div>
            <div>
                <dt>"Network cost, uniform split"</dt>
                <dd data-testid="uniform-cost" data-value=total_cost.to_string()>
                    {usd(total_cost)}
                </dd>
                <dd class="hint">{format!("{bw:.1} GB/s per NPU in every dimension")}</dd>
            </div>
            {time}
            {optimum}
        </dl>
    }
}
