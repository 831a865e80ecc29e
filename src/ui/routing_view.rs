//! The Routing view: a Clos fabric and jobs set by a preset and a few numbers, routed by ECMP,
//! greedy, capacity-aware greedy and the exact optimizer, with the per-link load heatmap, the
//! algorithms side by side and the makespan against failed spines. The computation is
//! `routing::study`; this view holds the form and draws. It lives in the `routing-view` module
//! (`routing_module`), which the app loads the first time the view is opened.

use super::chart_canvas::ChartCanvas;
use super::fields::typed_input;
use super::module_bridge::ROUTING;
use super::sliced_runner::SlicedRunner;
use crate::analysis::routing_savings::{savings, SwitchDesign};
use crate::charts::route_charts::RouteShown;
use crate::charts::tables::RouteChart;
use crate::form::typed::summary;
use crate::format::duration_ns;
use crate::format::usd;
use crate::routing::multipath::FLUID_LIMIT;
use crate::routing::study::{
    study_label, RouteField, RouteLink, RoutePreset, RouteSetup, RouteStudy, RouteStudyRun,
};
use crate::routing::Algorithm;

/// Nodes of an exact search per piece of work (a few milliseconds natively).
const NODES_PER_STEP: u64 = 256;
use leptos::prelude::*;

/// What each algorithm's efficiency costs on the design's outermost Switch dimension: the bandwidth
/// to provision for the design's optimal effective bandwidth, its cost, and the saving against ECMP.
fn savings_table(design: &SwitchDesign, routed: &RouteStudy) -> impl IntoView {
    let rows = savings(design, &routed.routed)
        .into_iter()
        .map(|r| {
            view! {
                <tr>
                    <td>{r.algorithm}</td>
                    <td class="num">{format!("{:.3}", r.efficiency)}</td>
                    <td class="num">{format!("{:.3}", r.efficiency_fluid)}</td>
                    <td class="num">{format!("{:.2}", r.provisioned_gbps)}</td>
                    <td class="num">{usd(r.cost_usd)}</td>
                    <td class="num" data-value=r.saved_usd.to_string()>{usd(r.saved_usd)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" data-testid="route-savings" tabindex="0" role="region" aria-label="What routing saves">
            <p class="hint">
                {format!(
                    "On the design's {} (optimal effective bandwidth {:.2} GB/s per NPU), routing \
                     efficiency η (contention-free over static All-Reduce time) means provisioning B/η: what \
                     each algorithm costs and saves against ECMP. η fluid uses the fluid simulation's times instead.",
                    design.label, design.target_gbps
                )}
            </p>
            <table class="grid">
                <thead>
                    <tr>
                        <th>"algorithm"</th>
                        <th class="num" title="contention-free over static All-Reduce time">"η"</th>
                        <th class="num" title="contention-free over fluid-simulated All-Reduce time (informational)">"η fluid"</th>
                        <th class="num">"provisioned GB/s"</th>
                        <th class="num">"dimension cost"</th>
                        <th class="num">"saved vs ECMP"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// The Routing view while the app shows it (leaving it drops the run under way), with its state
/// from the link and the design's Switch dimension from the app.
#[component]
pub fn RoutingPanel() -> impl IntoView {
    let shown = RwSignal::new(ROUTING.shown());
    let route = RwSignal::new(ROUTING.state::<RouteLink>().unwrap_or_default());
    let layout = RwSignal::new(0u32);
    ROUTING.on_shown(move |now| {
        // A link opened meanwhile may carry another state.
        if now {
            let linked = ROUTING.state::<RouteLink>().unwrap_or_default();
            if route.with_untracked(|r| *r != linked) {
                route.set(linked);
                layout.update(|l| *l += 1);
            }
        }
        shown.set(now);
    });
    // Another tab's state, taken by the visitor: the fields are drawn anew from it.
    ROUTING.on_restate(move |linked: Option<RouteLink>| {
        route.set(linked.unwrap_or_default());
        layout.update(|l| *l += 1);
    });
    let design = RwSignal::new(ROUTING.base::<SwitchDesign>());
    ROUTING.on_base(move |d| design.set(d));
    // The state travels in the app's link.
    Effect::new(move |_| route.with(|r| ROUTING.send_state(r)));
    view! {
        <Show when=move || shown.get()>
            <RoutingView route layout design />
        </Show>
    }
}

/// The Routing view.
#[component]
fn RoutingView(
    /// The view's state (it travels in the link).
    route: RwSignal<RouteLink>,
    /// Bumped when the fields are drawn anew (a preset picked).
    layout: RwSignal<u32>,
    /// The design's Switch dimension that the savings are priced on (None: no Switch, or the
    /// design has errors).
    design: RwSignal<Option<SwitchDesign>>,
) -> impl IntoView {
    let setup = Memo::new(move |_| route.with(|r| r.setup.clone()));
    let algorithm = Memo::new(move |_| route.with(|r| r.algorithm));
    let which = Memo::new(move |_| algorithm.get().index());
    let runner = SlicedRunner::<RouteStudyRun>::new();
    let study_now = move |s: &RouteSetup| {
        let refused = s.refusals();
        let made = if refused.is_empty() {
            RouteStudyRun::new(s).map_err(|e| e.to_string())
        } else {
            Err(summary(
                &refused
                    .iter()
                    .map(|(f, e)| (f.label(), e.as_str()))
                    .collect::<Vec<_>>(),
            ))
        };
        runner.start(made, NODES_PER_STEP)
    };
    // Every new setup is studied across animation frames; leaving the view drops the run.
    Effect::new(move |_| setup.with(study_now));
    on_cleanup(move || runner.abandon());
    let study = Memo::new(move |_| runner.output.get());
    ROUTING.export_results(move || {
        runner
            .output
            .get_untracked()
            .map(|s| crate::results::routing(&s))
    });
    let shown = Signal::derive(move || {
        study.get().map(|study| RouteShown {
            study,
            which: which.get(),
        })
    });
    // The study shown is not the current setup's while one runs, after a cancel or with errors.
    let stale = move || runner.stale();
    // Every field through the one typed reader: a refused text stays as typed, marked with the
    // reason (computed from that text), and carried by the link; nothing is studied meanwhile.
    let field = move |f: RouteField, testid: &'static str| {
        let error = Signal::derive(move || route.with(|r| r.setup.refusal(f)));
        typed_input(
            f.label(),
            testid,
            layout.into(),
            move || route.with_untracked(|r| r.setup.text(f)),
            error,
            move |text| {
                route.update(|r| {
                    let _ = r.setup.set_text(f, &text);
                });
            },
        )
    };
    let chosen =
        move || study.with(|s| s.as_ref().and_then(|s| s.routed.get(which.get()).cloned()));
    view! {
        <section class="panel routing" data-testid="routing-view" aria-labelledby="routing-title">
            <h2 id="routing-title">"Routing the training traffic over a Clos fabric"</h2>
            <p class="hint">
                "Each job's data-parallel rings send one chunk per step to their successor (ring All-Reduce). "
                "ECMP hashes flows onto spines; the paper's greedy spreads them by counting flows per link, "
                "edge colouring gives each spine a matching of the flows (the fewest flows per link there can be "
                "when every flow may use every spine), annealing improves random moves "
                "(arXiv 2503.05324); what practice does instead is ECMP over 16 flows per ring edge "
                "(Llama 3). How each one routes is under the charts. "
                <span data-testid="route-fabric">{move || setup.with(RouteSetup::fabric_summary)}</span>
            </p>
            <div class="route-form">
                <label class="route-field">
                    "preset"
                    <select
                        data-testid="route-preset"
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            if let Some(p) = RoutePreset::ALL.into_iter().find(|p| p.key() == v) {
                                route.update(|r| r.setup = p.setup());
                                layout.update(|l| *l += 1);
                            }
                        }
                    >
                        // The preset the setup is, or "custom" once a field is edited.
                        {RoutePreset::ALL
                            .into_iter()
                            .map(|p| view! {
                                <option value=p.key() selected=move || setup.with(RoutePreset::of) == Some(p)>
                                    {p.label()}
                                </option>
                            })
                            .collect_view()}
                        <option value="custom" disabled=true selected=move || setup.with(RoutePreset::of).is_none()>
                            "custom (fields edited)"
                        </option>
                    </select>
                </label>
                <label class="route-field">
                    "fabric of a system"
                    <select
                        data-testid="route-system"
                        title="One plane of the system's leaf-spine fabric: its leaves, spines and link rate"
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            let Some(spec) = crate::systems::system_preset(&v) else { return };
                            match route.with_untracked(|r| r.setup.on_system(&spec)) {
                                Ok(next) => {
                                    route.update(|r| r.setup = next);
                                    layout.update(|l| *l += 1);
                                }
                                Err(e) => runner.error.set(Some(e.to_string())),
                            }
                        }
                    >
                        <option value="" selected=move || setup.with(|s| s.system.is_none())>
                            "none (the fields below)"
                        </option>
                        {crate::systems::system_presets()
                            .into_iter()
                            .filter(|s| s.fabric.is_some())
                            .map(|s| {
                                let name = s.name.clone();
                                view! {
                                    <option
                                        value=s.name.clone()
                                        selected=move || setup.with(|x| x.system.as_deref() == Some(name.as_str()))
                                    >
                                        {s.name.clone()}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
                {field(RouteField::Tors, "route-tors")}
                {field(RouteField::Spines, "route-spines")}
                {field(RouteField::HostsPerTor, "route-hosts")}
                {field(RouteField::LinkGbps, "route-gbps")}
                {field(RouteField::NicGbps, "route-nic")}
                {field(RouteField::Jobs, "route-jobs")}
                {field(RouteField::RingSize, "route-ring")}
                {field(RouteField::FailedSpines, "route-failed")}
                <label class="route-field">
                    "algorithm"
                    <select
                        data-testid="route-algorithm"
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            if let Some(a) = Algorithm::from_key(&v) {
                                route.update(|r| r.algorithm = a);
                            }
                        }
                    >
                        {Algorithm::ALL
                            .into_iter()
                            .enumerate()
                            .map(|(i, a)| {
                                view! {
                                    <option value=a.key() selected=move || algorithm.get() == a>
                                        {study_label(i)}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
            </div>
            {move || runner.error.get().map(|e| view! { <p class="error" role="alert" data-testid="route-error">{e}</p> })}
            <Show when=move || runner.progress.with(Option::is_some)>
                <div class="progress" aria-live="polite">
                    <progress
                        data-testid="route-progress"
                        max="1"
                        value=move || runner.progress.with(|p| p.as_ref().map_or(0.0, |p| p.fraction))
                    ></progress>
                    <span>{move || runner.progress.with(|p| p.as_ref().map(|p| format!("{}…", p.doing)))}</span>
                    <button type="button" data-testid="route-cancel" on:click=move |_| runner.cancel()>"Cancel"</button>
                </div>
            </Show>
            <Show when=move || runner.cancelled.get()>
                <p class="stale-note" data-testid="route-cancelled">
                    "Cancelled: the results below are those of the last complete study. "
                    <button type="button" data-testid="route-again" on:click=move |_| setup.with_untracked(study_now)>
                        "Route this setup"
                    </button>
                </p>
            </Show>
            <dl class="metrics" class:stale=stale>
                <div class="metric">
                    <dt>"Least flow rate"</dt>
                    <dd data-testid="route-min-rate" data-value=move || chosen().map(|r| r.metrics.min_flow_rate_gbps.to_string()).unwrap_or_default()>
                        {move || chosen().map_or("—".into(), |r| format!("{:.1} Gbps", r.metrics.min_flow_rate_gbps))}
                    </dd>
                    <dd class="hint">{move || chosen().map(|r| match r.subflows {
                        1 => format!(
                            "max {} flow{} on a link; routing efficiency η = {:.3}",
                            r.metrics.max_link_load,
                            if r.metrics.max_link_load == 1 { "" } else { "s" },
                            r.efficiency
                        ),
                        k => format!(
                            "per sub-flow (1/{k} of a flow); max {} sub-flows on a link; routing efficiency η = {:.3}",
                            r.metrics.max_link_load,
                            r.efficiency
                        ),
                    })}</dd>
                </div>
                <div class="metric">
                    <dt>"All-Reduce " {super::term::term("makespan", "makespan")} " (static)"</dt>
                    <dd data-testid="route-makespan" data-value=move || chosen().map(|r| r.metrics.makespan_static_s.to_string()).unwrap_or_default()>
                        {move || chosen().map_or("—".into(), |r| duration_ns(r.metrics.makespan_static_s * 1e9))}
                    </dd>
                    <dd class="hint">
                        {move || chosen().map(|r| {
                            let cf = r.metrics.contention_free_allreduce_time_s.iter().copied().fold(0.0, f64::max);
                            let proof = match r.proven {
                                Some(true) => " · proven optimal",
                                Some(false) => " · best found within the node budget (not proven)",
                                None => "",
                            };
                            let fluid = match r.fluid_simulated {
                                true => format!("fluid {}", duration_ns(r.metrics.makespan_fluid_s * 1e9)),
                                false => format!("fluid not simulated beyond {FLUID_LIMIT} sub-flows"),
                            };
                            format!("{fluid} · contention-free {}{proof}", duration_ns(cf * 1e9))
                        })}
                    </dd>
                </div>
                <div class="metric">
                    <dt>"Routing time"</dt>
                    <dd data-testid="route-ms" data-value=move || runner.compute_ms.get().map(|v| v.to_string()).unwrap_or_default()>
                        {move || runner.compute_ms.get().map_or("…".into(), |v| format!("{v:.1} ms"))}
                    </dd>
                    <dd class="hint">{format!("all {} algorithms, rates, fluid simulation and the failure sweep, a slice per frame", Algorithm::ALL.len())}</dd>
                </div>
            </dl>
            {move || {
                let design = design.get()?;
                let routed = study.get()?;
                Some(savings_table(&design, &routed))
            }}
            <div class="charts" class:stale=stale>
                {RouteChart::ALL
                    .into_iter()
                    .map(|chart| {
                        // Each chart draws in a task of its own: at the paper's scale the four
                        // together (and the table beside them) would make one long task.
                        view! { <ChartCanvas chart data=shown own_task=true /> }
                    })
                    .collect_view()}
            </div>
            <details class="algorithm-definitions" data-testid="route-definitions">
                <summary>"How each algorithm routes, beside the paper's authors' code"</summary>
                <dl>
                    {Algorithm::ALL
                        .into_iter()
                        .map(|a| view! { <dt>{a.label()}</dt><dd>{a.definition()}</dd> })
                        .collect_view()}
                </dl>
            </details>
        </section>
    }
}
