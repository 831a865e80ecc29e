//! The Cluster view: a cluster over time (docs/cluster.md). A trace from a preset or a
//! few numbers, simulated under each chosen routing policy on the same jobs (`cluster::study`,
//! a slice per animation frame with progress and Cancel), with the totals side by side, the job
//! completion times as distributions, the NICs busy over time and a timeline of the jobs. It
//! lives in the `routing-view` module with the Routing view; its state travels in the link.

use super::chart_canvas::ChartCanvas;
use super::chart_table::data_table;
use super::fields::typed_input;
use super::module_bridge::CLUSTER;
use super::sliced_runner::SlicedRunner;
use crate::charts::cluster_charts::{cluster_summary, ClusterChart, ClusterShown};
use crate::cluster::placement::Placement;
use crate::cluster::study::{
    ClusterField, ClusterLink, ClusterPreset, ClusterRun, DEFAULT_REROUTE_PERIOD_S,
};
use crate::cluster::Reroute;
use crate::form::typed::summary;
use crate::routing::Algorithm;
use leptos::prelude::*;

/// Events simulated per piece of work (each well under a millisecond natively, but a full
/// re-routing under the optimal policy may take a few).
const EVENTS_PER_STEP: u64 = 4;

/// The Cluster view while the app shows it (leaving it drops the run under way).
#[component]
pub fn ClusterPanel() -> impl IntoView {
    let shown = RwSignal::new(CLUSTER.shown());
    let link = RwSignal::new(CLUSTER.state::<ClusterLink>().unwrap_or_default());
    let layout = RwSignal::new(0u32);
    CLUSTER.on_shown(move |now| {
        if now {
            let linked = CLUSTER.state::<ClusterLink>().unwrap_or_default();
            if link.with_untracked(|l| *l != linked) {
                link.set(linked);
                layout.update(|l| *l += 1);
            }
        }
        shown.set(now);
    });
    // Another tab's state, taken by the visitor: the fields are drawn anew from it.
    CLUSTER.on_restate(move |linked: Option<ClusterLink>| {
        link.set(linked.unwrap_or_default());
        layout.update(|l| *l += 1);
    });
    Effect::new(move |_| link.with(|l| CLUSTER.send_state(l)));
    view! {
        <Show when=move || shown.get()>
            <ClusterView link layout />
        </Show>
    }
}

/// A field of the view, read by the one typed reader: a refused text stays as typed, marked with
/// the reason (computed from that text) and carried by the link; nothing is simulated meanwhile.
fn number_field(link: RwSignal<ClusterLink>, layout: RwSignal<u32>, f: ClusterField) -> AnyView {
    typed_input(
        f.label(),
        f.testid(),
        layout.into(),
        move || link.with_untracked(|l| l.text(f)),
        Signal::derive(move || link.with(|l| l.refusal(f))),
        move |text| {
            link.update(|l| {
                let _ = l.set_text(f, &text);
            });
        },
    )
}

#[component]
fn ClusterView(link: RwSignal<ClusterLink>, layout: RwSignal<u32>) -> impl IntoView {
    let runner = SlicedRunner::<ClusterRun>::new();
    // What is simulated: the setup and the policies (the timeline's policy only redraws).
    let question =
        Memo::new(move |_| link.with(|l| (l.setup.clone(), l.policies.clone(), l.typed.clone())));
    // A state whose fields are refused is not simulated: the fields say why.
    let simulate_now = move || {
        let l = link.get_untracked();
        let refused = l.refusals();
        let made = if refused.is_empty() {
            ClusterRun::new(&l).map_err(|e| e.to_string())
        } else {
            Err(summary(
                &refused
                    .iter()
                    .map(|(f, e)| (f.label(), e.as_str()))
                    .collect::<Vec<_>>(),
            ))
        };
        runner.start(made, EVENTS_PER_STEP);
    };
    // Read, not only tracked: a memo that is never read never computes, so never subscribes.
    Effect::new(move |_| {
        question.with(|_| ());
        simulate_now();
    });
    on_cleanup(move || runner.abandon());
    let study = Memo::new(move |_| runner.output.get());
    CLUSTER.export_results(move || {
        runner
            .output
            .get_untracked()
            .map(|s| crate::results::cluster(&s))
    });
    let timeline_policy = Memo::new(move |_| link.with(|l| l.shown));
    let shown = Signal::derive(move || {
        study.get().map(|study| ClusterShown {
            study,
            shown: timeline_policy.get(),
        })
    });
    let setup = Memo::new(move |_| link.with(|l| l.setup.clone()));
    let reroute_key = move || match setup.with(|s| s.reroute) {
        Reroute::Arrival => "arrival",
        Reroute::Every(_) => "every",
        Reroute::Never => "never",
    };
    view! {
        <section class="panel routing" data-testid="cluster-view" aria-labelledby="cluster-title">
            <h2 id="cluster-title">"A cluster over time: jobs arrive, train and leave"</h2>
            <p class="hint">
                "The routing paper's evaluation (arXiv 2503.05324): jobs of GPT-3, BLOOM and LLaMA2-70B arrive "
                "at random (Poisson), wait for free NICs (whole ToRs first), then each iteration computes and runs "
                "its ring All-Reduces at max-min fair rates over the routes of the controller's policy, which "
                "recomputes every route on its trigger; its routes take effect after the controller delay, new jobs' flows "
                "hashed by the switches (ECMP) until then. Failed spines and uplinks go down at \"fail at\" and come back at "
                "\"recover at\". The same jobs under every policy."
            </p>
            <div class="route-form">
                <label class="route-field">
                    "preset"
                    <select
                        data-testid="cluster-preset"
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            if let Some(p) = ClusterPreset::ALL.into_iter().find(|p| p.key() == v) {
                                link.update(|l| {
                                    l.setup = p.setup();
                                    l.typed.clear();
                                });
                                layout.update(|l| *l += 1);
                            }
                        }
                    >
                        {ClusterPreset::ALL
                            .into_iter()
                            .map(|p| view! {
                                <option value=p.key() selected=move || setup.with(ClusterPreset::of) == Some(p)>
                                    {p.label()}
                                </option>
                            })
                            .collect_view()}
                        <option value="custom" disabled=true selected=move || setup.with(ClusterPreset::of).is_none()>
                            "custom (fields edited)"
                        </option>
                    </select>
                </label>
                {[
                    ClusterField::Tors,
                    ClusterField::Spines,
                    ClusterField::HostsPerTor,
                    ClusterField::Gbps,
                    ClusterField::Jobs,
                    ClusterField::ArrivalRate,
                    ClusterField::Iterations,
                    ClusterField::ComputeS,
                    ClusterField::RingSize,
                    ClusterField::FailedSpines,
                    ClusterField::FailedLinks,
                    ClusterField::FailAt,
                    ClusterField::RecoverAt,
                    ClusterField::Seed,
                ]
                    .map(|f| number_field(link, layout, f))
                    .collect_view()}
                <label class="route-field">
                    "re-route"
                    <select
                        data-testid="cluster-reroute"
                        on:change=move |ev| {
                            let r = match event_target_value(&ev).as_str() {
                                "never" => Reroute::Never,
                                "every" => Reroute::Every(DEFAULT_REROUTE_PERIOD_S),
                                _ => Reroute::Arrival,
                            };
                            link.update(|l| {
                                l.setup.reroute = r;
                                l.typed.remove(ClusterField::Every.key());
                            });
                        }
                    >
                        <option value="arrival" selected=move || reroute_key() == "arrival">"at every start and departure"</option>
                        <option value="every" selected=move || reroute_key() == "every">"every T seconds"</option>
                        <option value="never" selected=move || reroute_key() == "never">"never (new jobs only)"</option>
                    </select>
                </label>
                <Show when=move || reroute_key() == "every">
                    {number_field(link, layout, ClusterField::Every)}
                </Show>
                {number_field(link, layout, ClusterField::Delay)}
                <label class="route-field">
                    "placement"
                    <select
                        data-testid="cluster-placement"
                        on:change=move |ev| {
                            let p = Placement::from_key(&event_target_value(&ev)).unwrap_or_default();
                            link.update(|l| l.setup.placement = p);
                        }
                    >
                        <option value="whole-tors" selected=move || setup.with(|s| s.placement == Placement::WholeTors)>"whole ToRs first"</option>
                        <option value="scattered" selected=move || setup.with(|s| s.placement == Placement::Scattered)>"scattered"</option>
                    </select>
                </label>
            </div>
            <fieldset class="policies">
                <legend>"Routing policies compared"</legend>
                {Algorithm::CLUSTER
                    .into_iter()
                    .map(|p| view! {
                        <label>
                            <input
                                type="checkbox"
                                data-testid=format!("cluster-policy-{}", p.key())
                                prop:checked=move || link.with(|l| l.policies.contains(&p))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    link.update(|l| {
                                        l.policies.retain(|&q| q != p);
                                        if on {
                                            l.policies.push(p);
                                            l.policies.sort_by_key(|q| Algorithm::CLUSTER.iter().position(|r| r == q));
                                        }
                                    });
                                }
                            />
                            {p.label()}
                        </label>
                    })
                    .collect_view()}
            </fieldset>
            {move || runner.error.get().map(|e| view! { <p class="error" role="alert" data-testid="cluster-error">{e}</p> })}
            <Show when=move || runner.progress.with(Option::is_some)>
                <div class="progress" aria-live="polite">
                    <progress
                        data-testid="cluster-progress"
                        max="1"
                        value=move || runner.progress.with(|p| p.as_ref().map_or(0.0, |p| p.fraction))
                    ></progress>
                    <span>{move || runner.progress.with(|p| p.as_ref().map(|p| format!("{}…", p.doing)))}</span>
                    <button type="button" data-testid="cluster-cancel" on:click=move |_| runner.cancel()>"Cancel"</button>
                </div>
            </Show>
            <Show when=move || runner.cancelled.get()>
                <p class="stale-note" data-testid="cluster-cancelled">
                    "Cancelled: the results below are those of the last complete simulation. "
                    <button type="button" data-testid="cluster-again" on:click=move |_| simulate_now()>
                        "Simulate this setup"
                    </button>
                </p>
            </Show>
            <div class:stale=move || runner.stale()>
                <p class="headline" data-testid="cluster-headline" aria-live="polite">
                    {move || study.with(|s| s.as_ref().map(|s| s.headline()))}
                </p>
                <p class="hint">
                    "Simulation time "
                    <span
                        data-testid="cluster-ms"
                        data-value=move || runner.compute_ms.get().map(|v| v.to_string()).unwrap_or_default()
                    >
                        {move || runner.compute_ms.get().map_or("…".into(), |v| format!("{v:.0} ms"))}
                    </span>
                    ", every policy, a slice per frame. JCT: a job's completion time from its arrival; "
                    "slowdown: its time from start to end over the same job alone on its NICs."
                </p>
                {move || study.get().map(|s| data_table(cluster_summary(&s), "Each policy's totals", Some("cluster-summary")))}
                <label class="route-field">
                    "timeline of"
                    <select
                        data-testid="cluster-shown"
                        on:change=move |ev| {
                            if let Some(p) = Algorithm::from_key(&event_target_value(&ev)) {
                                link.update(|l| l.shown = p);
                            }
                        }
                    >
                        {Algorithm::CLUSTER
                            .into_iter()
                            .map(|p| view! {
                                <option value=p.key() selected=move || timeline_policy.get() == p>{p.label()}</option>
                            })
                            .collect_view()}
                    </select>
                </label>
                <div class="charts">
                    {ClusterChart::ALL
                        .into_iter()
                        .map(|chart| view! { <ChartCanvas chart data=shown own_task=true /> })
                        .collect_view()}
                </div>
            </div>
        </section>
    }
}
