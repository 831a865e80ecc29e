//! The Leptos app (wasm32 only). Thin: it holds the form's signals, calls the core and draws.

mod cost_chart;

use crate::format::usd;
use crate::model::{CostModel, Network, NetworkCost};
use crate::optimize::uniform_split;
use crate::presets;
use cost_chart::CostChart;
use leptos::prelude::*;

/// Mount the app on the page's body.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// What the results panel shows for a valid form.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub network: Network,
    pub total_npus: u32,
    pub bw_gbps: Vec<f64>,
    pub cost: NetworkCost,
}

fn evaluate(
    base: &Network,
    costs: &CostModel,
    npus: &[String],
    total_bw: &str,
) -> Result<Evaluation, String> {
    let network = base.with_npus_text(npus).map_err(|e| e.to_string())?;
    let total: f64 = total_bw.trim().parse().map_err(|_| {
        format!("total bandwidth must be a number of GB/s greater than 0, got \"{total_bw}\"")
    })?;
    let bw_gbps = uniform_split(network.dims.len(), total).map_err(|e| e.to_string())?;
    let cost = costs
        .network_cost(&network, &bw_gbps)
        .map_err(|e| e.to_string())?;
    let total_npus = network.total_npus().map_err(|e| e.to_string())?;
    Ok(Evaluation {
        network,
        total_npus,
        bw_gbps,
        cost,
    })
}

/// The form's inputs are uncontrolled: their text is read on every `input` event and never written
/// back, because writing back a number input's `.value` while the user types (e.g. "-" or "1e") would
/// erase what they typed.
#[component]
fn App() -> impl IntoView {
    let base = presets::libra_4d_network();
    let costs = presets::libra_4d_cost_model();
    let npus: Vec<RwSignal<String>> = base
        .dims
        .iter()
        .map(|d| RwSignal::new(d.npus.to_string()))
        .collect();
    let total_bw = RwSignal::new("500".to_string());

    let evaluation = {
        let (base, npus) = (base.clone(), npus.clone());
        Memo::new(move |_| {
            let texts: Vec<String> = npus.iter().map(|s| s.get()).collect();
            evaluate(&base, &costs, &texts, &total_bw.get())
        })
    };

    let rows = base
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

    view! {
        <header class="app-header">
            <h1>"libra-studio"</h1>
            <p class="tagline">"Design the network that trains your model: cost, time and bandwidth per dimension."</p>
        </header>
        <main class="layout">
            <section class="panel inputs" data-testid="input-panel" aria-labelledby="inputs-title">
                <h2 id="inputs-title">"Network"</h2>
                <p class="scenario" data-testid="scenario-name">
                    {presets::DEFAULT_SCENARIO_NAME} ": "
                    <span data-testid="scenario-shape">{base.shape_label()}</span>
                    {format!(" = {} NPUs", base.total_npus().unwrap_or(0))}
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
            </section>
            <section class="panel results" data-testid="results-panel" aria-labelledby="results-title">
                <h2 id="results-title">"Results"</h2>
                {move || match evaluation.get() {
                    Ok(ev) => results_view(&ev).into_any(),
                    Err(message) => view! {
                        <p class="error" role="alert" data-testid="input-error">{message}</p>
                    }
                    .into_any(),
                }}
                <CostChart evaluation=evaluation />
            </section>
        </main>
        <footer class="app-footer">
            "Model: LIBRA (arXiv 2109.11762). Uniform split shown; the optimizer arrives next."
        </footer>
    }
}

fn results_view(ev: &Evaluation) -> impl IntoView {
    let total_cost = ev.cost.total_usd();
    let shape = ev.network.shape_label();
    let bw = ev.bw_gbps.first().copied().unwrap_or(0.0);
    view! {
        <dl class="metrics">
            <div>
                <dt>"Total NPUs"</dt>
                <dd data-testid="total-npus" data-value=ev.total_npus.to_string()>
                    {ev.total_npus.to_string()}
                </dd>
                <dd class="hint">{shape}</dd>
            </div>
            <div>
                <dt>"Network cost, uniform split"</dt>
                <dd data-testid="uniform-cost" data-value=total_cost.to_string()>{usd(total_cost)}</dd>
                <dd class="hint">{format!("{bw:.1} GB/s per NPU in every dimension")}</dd>
            </div>
        </dl>
    }
}
