//! The shape comparison view: every way to lay the design's NPUs on 2 to 4 dimensions (plus shapes
//! the visitor types), each optimized at every budget, drawn as fronts with their lower envelope,
//! the winner per budget range and a ranking at the design's budget. The work
//! (`analysis::shape_run`) runs a few shapes per animation frame with a progress bar. The view lives
//! in the explore views' module (`explore_module`): the app hands it the design while it is shown.

use super::chart_canvas::ChartCanvas;
use super::module_bridge::SHAPES;
use super::shape_compare::ShapeCompare;
use crate::analysis::shape_run::{
    check_shape, layouts_for, parse_shape, ShapeRun, COMPARE_BUDGETS, MIN_GBPS,
};
use crate::charts::compare_chart::{run_winners, winner_color, CompareChart};
use crate::format::{duration_ns, usd};
use crate::model::scenario::Scenario;
use leptos::prelude::*;

/// Rows of the ranking shown (the design's own shape is always shown too).
const TOP_ROWS: usize = 12;

/// The view, mounted in the app's `#shapes-root` by `explore_module`.
#[component]
pub fn ShapesPanel() -> impl IntoView {
    let cmp = ShapeCompare::new();
    SHAPES.export_results(move || {
        cmp.run
            .with_untracked(|r| r.as_ref().map(|r| crate::results::shapes(&r.fronts)))
    });
    // The design (None while the app's form has errors).
    let base = RwSignal::new(SHAPES.base::<Scenario>());
    SHAPES.on_base(move |sc| base.set(sc));
    let scenario = move || base.get();
    let run_now = move || match base.get_untracked() {
        Some(sc) => cmp.start(&sc),
        None => cmp.error.set(Some(
            "The design has errors: fix the form in the design view first.".into(),
        )),
    };
    // Opening the view compares the design, unless its comparison is already there.
    let open = move || match base.get_untracked() {
        Some(sc) if !cmp.is_for(&sc) => cmp.start(&sc),
        Some(_) => {}
        None => run_now(),
    };
    if SHAPES.shown() {
        open();
    }
    SHAPES.on_shown(move |now| {
        if now {
            open();
        }
    });
    let progress = move || cmp.run.with(|r| r.as_ref().map(|r| r.progress()));
    let stale = move || {
        cmp.run.track();
        scenario().is_some_and(|sc| !cmp.is_for(&sc))
    };
    let typed = RwSignal::new(String::new());
    let typed_error = RwSignal::new(None::<String>);
    let add_shape = move || {
        let Some(sc) = scenario() else { return };
        let shape = parse_shape(&typed.get_untracked(), &layouts_for(&sc))
            .and_then(|n| check_shape(&sc, &n).map(|()| n));
        match shape {
            Ok(n) => {
                cmp.setup.update(|s| s.extra.push(n));
                typed.set(String::new());
                typed_error.set(None);
                cmp.start(&sc);
            }
            Err(e) => typed_error.set(Some(e.to_string())),
        }
    };
    let intro = move || {
        cmp.run.with(|r| {
            r.as_ref().map(|r| {
                let npus = r.shapes.first().map_or(0, |n| n.total_npus().unwrap_or(0));
                format!(
                    "{} shapes of {npus} NPUs on 2 to 4 dimensions ({} of them yours), each optimized at {} \
                     budgets from {} to {}. Every shape runs the design's workloads, remapped with the same \
                     tensor- and data-parallel degrees (TP inside, DP outside), under the budget only (every \
                     B ≥ {MIN_GBPS} GB/s). Only shapes within each cost tier's most NPUs per dimension are \
                     proposed ({}), and every shape is timed with its tiers' latency per collective step (cost \
                     tiers, under Network). The thick line is the lower envelope: the best shape at each budget.",
                    r.shapes.len(),
                    r.user_shapes,
                    COMPARE_BUDGETS + 1,
                    usd(r.budgets[0]),
                    usd(*r.budgets.last().unwrap_or(&0.0)),
                    r.tier_limits(),
                )
            })
        })
    };
    let winners = move || {
        cmp.run.with(|r| {
            let Some(r) = r.as_ref().filter(|r| r.done()) else {
                return Vec::new().into_iter().collect_view();
            };
            run_winners(r)
                .into_iter()
                .enumerate()
                .map(|(k, (lo, hi, shape))| {
                    let c = winner_color(k);
                    let swatch = format!("background: rgb({}, {}, {})", c.0, c.1, c.2);
                    let range = if lo == hi {
                        format!("at {}", usd(lo))
                    } else {
                        format!("{} – {}", usd(lo), usd(hi))
                    };
                    view! {
                        <li>
                            <span class="swatch" style=swatch></span>
                            <span class="num">{range}</span>
                            ": "
                            <strong>{r.shapes[shape].shape_label()}</strong>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    let table = move || cmp.run.with(|r| r.as_ref().map(|r| ranking_table(r)));
    view! {
        <section class="panel shapes" aria-label="Compare network shapes">
            <h2>"Compare network shapes"</h2>
            <p class="hint">
                "Which shape of the same NPUs trains fastest for the money? "
                {intro}
            </p>
            <div class="compare-controls">
                <button type="button" class="primary" data-testid="compare-run" on:click=move |_| run_now()>
                    {move || if stale() { "Compare the current design" } else { "Run the comparison again" }}
                </button>
                <label class="field inline">
                    <span>"Add a shape"</span>
                    <input
                        type="text"
                        data-testid="compare-shape"
                        placeholder="R4 x FC8 x R4 x SW32 (a tier: SW32:InterPod)"
                        prop:value=move || typed.get()
                        on:input=move |ev| typed.set(event_target_value(&ev))
                        on:keydown=move |ev| {
                            if ev.key() == "Enter" {
                                add_shape();
                            }
                        }
                    />
                </label>
                <button type="button" data-testid="compare-add" on:click=move |_| add_shape()>"Add"</button>
                <Show when=move || !cmp.setup.with(|s| s.extra.is_empty())>
                    <button type="button" on:click=move |_| {
                        cmp.setup.update(|s| s.extra.clear());
                        run_now();
                    }>"Remove my shapes"</button>
                </Show>
                <span class="field inline" title="Which numbers of dimensions to enumerate">
                    {[2usize, 3, 4]
                        .into_iter()
                        .map(|n| view! {
                            <label>
                                <input
                                    type="checkbox"
                                    data-testid=format!("compare-dims-{n}")
                                    prop:checked=move || cmp.setup.with(|s| s.dim_counts.contains(&n))
                                    on:change=move |ev| {
                                        let on = event_target_checked(&ev);
                                        cmp.setup.update(|s| {
                                            s.dim_counts.retain(|d| *d != n);
                                            if on {
                                                s.dim_counts.push(n);
                                            }
                                        });
                                        run_now();
                                    }
                                />
                                {format!(" {n}-D")}
                            </label>
                        })
                        .collect_view()}
                </span>
            </div>
            {move || typed_error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || cmp.error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || progress().map(|(done, all)| view! {
                <div class="progress" aria-live="polite">
                    <progress data-testid="compare-progress" max=all value=done data-value=done></progress>
                    <span>{if done < all { format!("optimizing shape {done} of {all}…") } else { format!("{all} shapes optimized") }}</span>
                    <span
                        data-testid="compare-ms"
                        data-value=move || cmp.elapsed_ms.get().map(|v| v.to_string()).unwrap_or_default()
                    >
                        {move || cmp.elapsed_ms.get().map(|v| format!(" in {:.0} ms", v))}
                    </span>
                </div>
            })}
            <Show when=stale>
                <p class="stale-note">"The design changed since this comparison: run it again to compare the current design."</p>
            </Show>
            <ChartCanvas chart=CompareChart data=cmp.run />
            <h3>"The best shape per budget range"</h3>
            <ul class="winners" data-testid="compare-winners">{winners}</ul>
            {table}
        </section>
    }
}

/// The ranking at the run's budget: the fastest shapes and the design's own.
fn ranking_table(run: &ShapeRun) -> impl IntoView {
    let ranking = run.ranking();
    let rows = ranking
        .iter()
        .enumerate()
        .filter(|(k, r)| *k < TOP_ROWS || Some(r.shape) == run.own)
        .map(|(k, r)| {
            let own = Some(r.shape) == run.own;
            let mine = r.shape >= run.shapes.len() - run.user_shapes;
            let bw = r
                .bw_gbps
                .iter()
                .map(|b| format!("{b:.0}"))
                .collect::<Vec<_>>()
                .join(" / ");
            view! {
                <tr class:own=own data-testid="compare-row" data-value=r.time_ns.to_string()>
                    <td class="num">{k + 1}</td>
                    <td>
                        {run.shapes[r.shape].shape_label()}
                        {own.then_some(" (the design)")}
                        {mine.then_some(" (yours)")}
                    </td>
                    <td class="num">{duration_ns(r.time_ns)}</td>
                    <td class="num">{usd(r.cost_usd)}</td>
                    <td class="num">{format!("{:.2}×", r.speedup)}</td>
                    <td class="num">{bw}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>{format!("Ranking at the design's budget, {}", usd(run.budget_usd))}</h3>
        <div class="table-scroll" tabindex="0" role="region" aria-label="Ranking of the shapes at the design's budget">
            <table class="grid" data-testid="compare-table">
                <thead>
                    <tr>
                        <th class="num">"#"</th>
                        <th>"shape"</th>
                        <th class="num">"time / iteration"</th>
                        <th class="num">"network cost"</th>
                        <th class="num" title="the same shape with equal bandwidth on every dimension, at the same cost">"speedup over uniform"</th>
                        <th class="num">"B per dimension (GB/s)"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p class="hint">
            {format!(
                "{} of {} shapes ranked so far; a shape that cannot meet the budget is left out.",
                ranking.len(),
                run.shapes.len()
            )}
        </p>
    }
}
