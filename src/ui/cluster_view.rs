//! The Cluster view: a cluster over time (docs/cluster.md). A trace from a preset or a
//! few numbers, simulated under each chosen routing policy on the same jobs (`cluster::study`,
//! a slice per animation frame with progress and Cancel), with the totals side by side, the job
//! completion times as distributions, the NICs busy over time and a timeline of the jobs. It
//! lives in the `routing-view` module with the Routing view; its state travels in the link.

use super::chart_canvas::ChartCanvas;
use super::chart_table::data_table;
use super::module_bridge::CLUSTER;
use super::sliced_runner::SlicedRunner;
use crate::charts::cluster_charts::{cluster_summary, ClusterChart, ClusterShown};
use crate::cluster::placement::Placement;
use crate::cluster::study::{ClusterLink, ClusterPreset, ClusterRun, ClusterSetup};
use crate::cluster::{Policy, Reroute};
use leptos::prelude::*;
use std::str::FromStr;

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
    Effect::new(move |_| link.with(|l| CLUSTER.send_state(l)));
    view! {
        <Show when=move || shown.get()>
            <ClusterView link layout />
        </Show>
    }
}

/// A text field for one number of the setup; text that is not such a number is marked with the
/// reason and changes nothing.
fn number_field<T: FromStr + ToString + 'static>(
    link: RwSignal<ClusterLink>,
    layout: RwSignal<u32>,
    label: &'static str,
    testid: &'static str,
    hint: &'static str,
    get: fn(&ClusterSetup) -> T,
    set: fn(&mut ClusterSetup, T),
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    view! {
        <label class="route-field">
            {label}
            <input
                type="text"
                inputmode="decimal"
                data-testid=testid
                class:invalid=move || error.with(Option::is_some)
                aria-invalid=move || error.with(Option::is_some).to_string()
                prop:value=move || {
                    layout.track();
                    error.set(None);
                    link.with_untracked(|l| get(&l.setup).to_string())
                }
                on:input=move |ev| {
                    match event_target_value(&ev).trim().parse::<T>() {
                        Ok(v) => {
                            error.set(None);
                            link.update(|l| set(&mut l.setup, v));
                        }
                        Err(_) => error.set(Some(format!("{label}: {hint}"))),
                    }
                }
            />
            {move || error.get().map(|e| view! { <span class="field-error" role="alert">{e}</span> })}
        </label>
    }
}

/// A time that may never come: an empty field.
struct Never(Option<f64>);

impl FromStr for Never {
    type Err = std::num::ParseFloatError;

    fn from_str(text: &str) -> Result<Never, Self::Err> {
        match text.trim() {
            "" | "never" => Ok(Never(None)),
            t => t.parse().map(|v| Never(Some(v))),
        }
    }
}

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(v) => write!(f, "{v}"),
            None => Ok(()),
        }
    }
}

#[component]
fn ClusterView(link: RwSignal<ClusterLink>, layout: RwSignal<u32>) -> impl IntoView {
    let runner = SlicedRunner::<ClusterRun>::new();
    // What is simulated: the setup and the policies (the timeline's policy only redraws).
    let question = Memo::new(move |_| link.with(|l| (l.setup.clone(), l.policies.clone())));
    let simulate_now = move || {
        let l = link.get_untracked();
        runner.start(
            ClusterRun::new(&l).map_err(|e| e.to_string()),
            EVENTS_PER_STEP,
        );
    };
    // Read, not only tracked: a memo that is never read never computes, so never subscribes.
    Effect::new(move |_| {
        question.with(|_| ());
        simulate_now();
    });
    on_cleanup(move || runner.abandon());
    let study = Memo::new(move |_| runner.output.get());
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
                                link.update(|l| l.setup = p.setup());
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
                {number_field(link, layout, "ToRs", "cluster-tors", "a whole number", |s| s.tors, |s, v| s.tors = v)}
                {number_field(link, layout, "spines", "cluster-spines", "a whole number", |s| s.spines, |s, v| s.spines = v)}
                {number_field(link, layout, "hosts per ToR", "cluster-hosts", "a whole number", |s| s.hosts_per_tor, |s, v| s.hosts_per_tor = v)}
                {number_field(link, layout, "link and NIC Gbps", "cluster-gbps", "a number of Gbps", |s| s.gbps, |s, v| s.gbps = v)}
                {number_field(link, layout, "jobs", "cluster-jobs", "a whole number", |s| s.jobs, |s, v| s.jobs = v)}
                {number_field(link, layout, "arrivals per s", "cluster-rate", "a number of jobs per second", |s| s.arrival_rate, |s, v| s.arrival_rate = v)}
                {number_field(link, layout, "iterations", "cluster-iterations", "a whole number", |s| s.iterations, |s, v| s.iterations = v)}
                {number_field(link, layout, "compute s per iteration", "cluster-compute", "a number of seconds", |s| s.compute_s, |s, v| s.compute_s = v)}
                {number_field(link, layout, "ring size", "cluster-ring", "a whole number", |s| s.ring_size, |s, v| s.ring_size = v)}
                {number_field(link, layout, "failed spines", "cluster-failed", "a whole number", |s| s.failed_spines, |s, v| s.failed_spines = v)}
                {number_field(link, layout, "failed uplinks", "cluster-failed-links", "a whole number", |s| s.failed_links, |s, v| s.failed_links = v)}
                {number_field(link, layout, "fail at s", "cluster-fail-at", "a number of seconds", |s| s.fail_at_s, |s, v| s.fail_at_s = v)}
                {number_field(link, layout, "recover at s (empty: never)", "cluster-recover-at", "a number of seconds, or empty for never", |s| Never(s.recover_s), |s, v| s.recover_s = v.0)}
                {number_field(link, layout, "seed", "cluster-seed", "a whole number", |s| s.seed, |s, v| s.seed = v)}
                <label class="route-field">
                    "re-route"
                    <select
                        data-testid="cluster-reroute"
                        on:change=move |ev| {
                            let r = match event_target_value(&ev).as_str() {
                                "never" => Reroute::Never,
                                "every" => Reroute::Every(10.0),
                                _ => Reroute::Arrival,
                            };
                            link.update(|l| l.setup.reroute = r);
                        }
                    >
                        <option value="arrival" selected=move || reroute_key() == "arrival">"at every start and departure"</option>
                        <option value="every" selected=move || reroute_key() == "every">"every T seconds"</option>
                        <option value="never" selected=move || reroute_key() == "never">"never (new jobs only)"</option>
                    </select>
                </label>
                <Show when=move || reroute_key() == "every">
                    {number_field(link, layout, "T (s)", "cluster-every", "a number of seconds", |s| match s.reroute {
                        Reroute::Every(t) => t,
                        _ => 10.0,
                    }, |s, v| s.reroute = Reroute::Every(v))}
                </Show>
                {number_field(link, layout, "controller delay s", "cluster-delay", "a number of seconds (0: routes take effect at once)", |s| s.controller_delay_s, |s, v| s.controller_delay_s = v)}
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
                {Policy::ALL
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
                                            l.policies.sort_by_key(|q| Policy::ALL.iter().position(|r| r == q));
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
                            if let Some(p) = Policy::from_key(&event_target_value(&ev)) {
                                link.update(|l| l.shown = p);
                            }
                        }
                    >
                        {Policy::ALL
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
