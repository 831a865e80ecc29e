//! The results of the current scenario: training time and its breakdown, network cost and its
//! breakdown, the optimal bandwidth of every dimension next to the uniform split, the speedup and
//! the certified optimality gap. Numbers carry their raw value in `data-value`.

use super::studio::Studio;
use crate::analysis::explain::{
    explain_dimensions, explain_results, headline_metrics, Explanation, Metric,
};
use crate::analysis::outcome::Outcome;
use crate::analysis::study::Study;
use crate::format::{duration_ns, usd};
use leptos::prelude::*;

fn metric(m: Metric) -> impl IntoView {
    view! {
        <div class="metric">
            <dt>
                {match m.term {
                    Some(key) => super::term::term(key, m.title).into_any(),
                    None => m.title.into_any(),
                }}
            </dt>
            <dd data-testid=m.testid data-value=m.value.to_string()>{m.shown}</dd>
            <dd class="hint">{m.detail}</dd>
        </div>
    }
}

fn metrics(s: &Study) -> impl IntoView {
    view! {
        <dl class="metrics">{headline_metrics(s).map(metric).into_iter().collect_view()}</dl>
    }
}

fn per_dim_table(s: &Study) -> impl IntoView {
    let exposed = s.evaluation.exposed_ns();
    let rows = s
        .dim_labels
        .iter()
        .enumerate()
        .map(|(d, label)| {
            let n = d + 1;
            let bw = s.optimum.bw_gbps[d];
            let uniform = s.uniform.as_ref().map(|u| u.bw_gbps[d]);
            let comm: f64 = exposed.iter().map(|k| k[d]).sum();
            let c = &s.evaluation.cost.dims[d];
            let idle = s.optimum.idle_dims.contains(&d);
            view! {
                <tr>
                    <th scope="row">{label.clone()}</th>
                    <td class="num" data-testid=format!("result-bw-{n}") data-value=bw.to_string()>
                        {format!("{bw:.2}")}
                        {idle.then(|| view! { <span class="tag" title="No traffic: the least bandwidth its constraints allow">"idle"</span> })}
                    </td>
                    <td class="num muted">{uniform.map_or("—".to_string(), |u| format!("{u:.2}"))}</td>
                    <td class="num">{duration_ns(comm)}</td>
                    <td class="num">{usd(c.total_usd())}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="Bandwidth, exposed communication and cost per dimension">
            <table class="grid results-table">
                <thead>
                    <tr>
                        <th>"dimension"</th>
                        <th class="num">"optimal GB/s"</th>
                        <th class="num">"uniform GB/s"</th>
                        <th class="num" title="Communication time not hidden behind compute, at the optimum">
                            "exposed comm."
                        </th>
                        <th class="num">"cost"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

fn patterns_table(s: &Study) -> impl IntoView {
    let rows = s
        .problem
        .patterns
        .iter()
        .map(|p| {
            let tied = p.bounding(&s.optimum.bw_gbps);
            let names: Vec<String> = tied.iter().map(|&d| s.dim_labels[d].clone()).collect();
            let bound = match names.len() {
                0 => "—".to_string(),
                1 => names[0].clone(),
                _ => format!("{} (tied)", names.join(" = ")),
            };
            let time = p.time(&s.optimum.bw_gbps).0 * p.weight;
            view! {
                <tr>
                    <td>{p.label.clone()}</td>
                    <td>{bound}</td>
                    <td class="num">{duration_ns(time)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <details class="patterns" open>
            <summary>"Which dimension bounds each collective pattern"</summary>
            <table class="grid">
                <thead>
                    <tr>
                        <th>"pattern (phases with the same per-dimension traffic)"</th>
                        <th>"bounded by"</th>
                        <th class="num">"time at the optimum"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </details>
    }
}

/// The explanations of the results, under the charts.
#[component]
pub fn ExplainPanel(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    move || {
        studio.outcome.with(|o| {
            o.study.as_ref().map(|s| {
                view! {
                    <section class="panel" class:stale=o.stale aria-label="Why these numbers">
                        {explanations(s)}
                    </section>
                }
            })
        })
    }
}

fn explanations(s: &Study) -> impl IntoView {
    let item = |e: Explanation| {
        view! {
            <li>
                <strong>{e.title}</strong>
                " "
                {e.text}
                {(!e.formula.is_empty()).then(|| view! { <br /><code>{e.formula}</code> })}
            </li>
        }
    };
    view! {
        <details class="explain" open data-testid="explain">
            <summary>"Why these numbers"</summary>
            <ul class="explain-list">{explain_results(s).into_iter().map(item).collect_view()}</ul>
            <h3>"Why each dimension gets its bandwidth"</h3>
            <ul class="explain-list" data-testid="explain-dims">
                {explain_dimensions(s).into_iter().map(item).collect_view()}
            </ul>
        </details>
    }
}

/// The results panel.
#[component]
pub fn ResultsPanel(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    view! {
        <section class="panel results" aria-labelledby="results-title">
            <h2 id="results-title">"Results"</h2>
            // What a screen reader announces after each recompute: one sentence, not the panel.
            <p class="sr-only" role="status" data-testid="results-announcement">
                {move || studio.outcome.with(|o| match (&o.problem, &o.study) {
                    (Some(p), _) => p.to_string(),
                    (None, Some(s)) => crate::analysis::explain::summary(s),
                    (None, None) => String::new(),
                })}
            </p>
            {move || {
                let o: Outcome = studio.outcome.get();
                let problem = o.problem.as_ref().map(|p| {
                    view! {
                        <p class="error" role="alert" data-testid="input-error">
                            {p.to_string()}
                            {o.stale.then_some(" The results below are those of the last valid input.")}
                        </p>
                    }
                });
                let body = o.study.as_ref().map(|s| {
                    view! {
                        <div class:stale=o.stale data-testid="results-body">
                            {metrics(s)}
                            {per_dim_table(s)}
                            {patterns_table(s)}
                        </div>
                    }
                });
                view! { {problem} {body} }
            }}
        </section>
    }
}
