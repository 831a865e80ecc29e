//! Constraints and objective: total bandwidth (= or ≤), cost budget, free-text linear constraints,
//! and what to minimize.

use super::fields::{field_input, FieldMessage};
use super::studio::Studio;
use crate::form::{Field, ObjectiveKind, TotalKind};
use crate::optimize::Method;
use leptos::prelude::*;

const TOTAL_KINDS: [(TotalKind, &str, &str); 3] = [
    (TotalKind::Equal, "eq", "sum of B ="),
    (TotalKind::AtMost, "le", "sum of B ≤"),
    (TotalKind::None, "none", "no total"),
];

const OBJECTIVES: [(ObjectiveKind, &str, &str); 3] = [
    (ObjectiveKind::Time, "time", "training time"),
    (
        ObjectiveKind::TimeXCost,
        "time-x-cost",
        "time × cost (LIBRA's PerfPerCost)",
    ),
    (
        ObjectiveKind::Cost,
        "cost",
        "network cost, for a time target",
    ),
];

/// The constraints and objective panel.
#[component]
pub fn ConstraintsPanel(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    move || {
        studio.layout.track();
        let f = studio.form.get_untracked();
        let total_kind = f.total_kind;
        let objective = f.objective;
        view! {
            <section class="panel" aria-labelledby="constraints-title">
                <h2 id="constraints-title">"Constraints and objective"</h2>
                <div class="field-row">
                    <label for="field-total-bw">"Total bandwidth per NPU (GB/s, > 0)"</label>
                    <div class="inline">
                        <select
                            data-testid="total-bw-kind"
                            aria-label="Kind of total-bandwidth constraint"
                            on:change=move |ev| {
                                let v = event_target_value(&ev);
                                if let Some((k, _, _)) = TOTAL_KINDS.iter().find(|t| t.1 == v) {
                                    studio.edit(|f| f.total_kind = *k);
                                }
                            }
                        >
                            {TOTAL_KINDS
                                .iter()
                                .map(|(k, v, text)| {
                                    view! { <option value=*v selected=*k == total_kind>{*text}</option> }
                                })
                                .collect_view()}
                        </select>
                        {field_input(
                            studio,
                            Field::TotalBw,
                            f.total_bw.clone(),
                            "500",
                            "Total bandwidth per NPU, GB/s".to_string(),
                            |f, v| f.total_bw = v,
                        )}
                    </div>
                </div>
                <div class="field-row">
                    <label for="field-budget">"Cost budget ($, > 0; empty for none)"</label>
                    {field_input(
                        studio,
                        Field::Budget,
                        f.budget.clone(),
                        "none",
                        "Cost budget in dollars".to_string(),
                        |f, v| f.budget = v,
                    )}
                </div>
                <div class="field-row">
                    <label for="constraint-text">
                        "Linear constraints, one per line (e.g. B1 >= B2, B3 + B4 = 200)"
                    </label>
                    <textarea
                        id="constraint-text"
                        data-testid="constraint-text"
                        rows="3"
                        spellcheck="false"
                        placeholder="B1 >= 2 B2"
                        prop:value=f.constraints.clone()
                        class:invalid=move || {
                            studio
                                .parsed
                                .with(|p| {
                                    p.as_ref()
                                        .err()
                                        .is_some_and(|e| {
                                            e.iter().any(|e| matches!(e.field, Field::Constraint(_)))
                                        })
                                })
                        }
                        on:input=move |ev| {
                            let v = event_target_value(&ev);
                            studio.edit(|f| f.constraints = v);
                        }
                    ></textarea>
                    {move || {
                        studio
                            .parsed
                            .with(|p| match p {
                                Err(errors) => {
                                    errors
                                        .iter()
                                        .filter(|e| matches!(e.field, Field::Constraint(_)))
                                        .map(|e| {
                                            view! {
                                                <span class="field-error" role="alert" data-testid="constraint-text-error">
                                                    {e.to_string()}
                                                </span>
                                            }
                                        })
                                        .collect_view()
                                        .into_any()
                                }
                                Ok(_) => ().into_any(),
                            })
                    }}
                </div>
                <div class="field-row">
                    <label for="objective">"Minimize"</label>
                    <div class="inline">
                        <select
                            id="objective"
                            data-testid="objective"
                            aria-label="Objective"
                            on:change=move |ev| {
                                let v = event_target_value(&ev);
                                if let Some((k, _, _)) = OBJECTIVES.iter().find(|o| o.1 == v) {
                                    studio.restructure(|f| f.objective = *k);
                                }
                            }
                        >
                            {OBJECTIVES
                                .iter()
                                .map(|(k, v, text)| {
                                    view! { <option value=*v selected=*k == objective>{*text}</option> }
                                })
                                .collect_view()}
                        </select>
                        {(objective == ObjectiveKind::Cost)
                            .then(|| {
                                view! {
                                    <span class="inline">
                                        "time ≤ "
                                        {field_input(
                                            studio,
                                            Field::TimeTarget,
                                            f.time_target.clone(),
                                            "ns",
                                            "Training-time target, ns".to_string(),
                                            |f, v| f.time_target = v,
                                        )}
                                        " ns"
                                    </span>
                                }
                            })}
                    </div>
                </div>
                <div class="field-row">
                    <label for="solve-method">"Method"</label>
                    <select
                        id="solve-method"
                        data-testid="solve-method"
                        title="Both methods stop on the same certificate: the optimum is the same within the gap"
                        on:change=move |ev| {
                            if let Some(m) = Method::from_key(&event_target_value(&ev)) {
                                studio.method.set(m);
                            }
                        }
                    >
                        {Method::ALL
                            .into_iter()
                            .map(|m| {
                                view! {
                                    <option value=m.key() prop:selected=move || studio.method.get() == m>
                                        {m.label()}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </div>
                <label class="inline model-option">
                    <input
                        type="checkbox"
                        data-testid="latency"
                        prop:checked=f.model.latency
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            studio.edit(|f| f.model.latency = on);
                        }
                    />
                    " add each dimension's latency per collective step (off in LIBRA-compatible mode)"
                </label>
                <FieldMessage studio field=Field::Model />
            </section>
        }
    }
}
