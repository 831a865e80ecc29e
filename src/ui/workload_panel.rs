//! The workloads: each one of LIBRA's presets (its communicator fitted to the network), with a
//! weight; several workloads are optimized together (objective = sum of weight x time).

use super::fields::{field_input, FieldMessage};
use super::studio::Studio;
use super::workload_sources::{TransformerBuilder, WorkloadImport};
use crate::form::{Field, WorkloadForm};
use crate::model::communicator::Groups;
use crate::model::PhaseKind;
use crate::presets::LibraWorkload;
use leptos::prelude::*;

fn groups_text(g: &Groups) -> String {
    let parts: Vec<String> = g
        .iter()
        .map(|v| v.map_or("–".to_string(), |n| n.to_string()))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// "96 layers; groups per dimension: Forward [4, 4, –, –] ..." for one workload.
fn describe(w: &WorkloadForm) -> String {
    let c = &w.spec.communicator;
    let mut kinds: Vec<String> = PhaseKind::ALL
        .iter()
        .map(|k| format!("{} {}", k.name(), groups_text(c.groups(*k))))
        .collect();
    if !c.pipeline.is_empty() {
        kinds.push(format!("pipeline sends {}", groups_text(&c.pipeline)));
    }
    format!(
        "{} layers; group size per dimension (– unused): {}",
        w.spec.workload.layers.len(),
        kinds.join(", ")
    )
}

fn workload_row(studio: Studio, i: usize, count: usize) -> impl IntoView {
    let n = i + 1;
    let w = studio.form.with_untracked(|f| f.workloads[i].clone());
    let preset = studio.form.with_untracked(|f| f.preset_of(i));
    let testid = if i == 0 {
        "workload-preset".to_string()
    } else {
        format!("workload-preset-{n}")
    };
    let name = w.spec.name.clone();
    view! {
        <li class="workload" data-testid="workload-row">
            <div class="workload-head">
                <select
                    data-testid=testid
                    aria-label=format!("Workload {n}")
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if let Some(p) = LibraWorkload::parse(&v) {
                            studio.restructure(|f| f.set_preset_workload(i, p));
                        }
                    }
                >
                    {preset
                        .is_none()
                        .then(|| view! { <option value="" selected=true>{name.clone()}</option> })}
                    {LibraWorkload::ALL
                        .into_iter()
                        .map(|p| {
                            view! {
                                <option value=p.name() selected=preset == Some(p)>
                                    {p.name()}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
                <label class="inline">
                    "weight "
                    {field_input(
                        studio,
                        Field::WorkloadWeight(n),
                        w.weight.clone(),
                        "1",
                        format!("Weight of workload {n} in the objective (more than 0)"),
                        move |f, v| f.workloads[i].weight = v,
                    )}
                </label>
                <button
                    type="button"
                    class="icon danger"
                    title="Remove this workload"
                    aria-label=format!("Remove workload {n}")
                    disabled=count == 1
                    on:click=move |_| studio.restructure(|f| f.remove_workload(i))
                >
                    "✕"
                </button>
            </div>
            <p class="hint">{describe(&w)}</p>
            <FieldMessage studio field=Field::Workload(n) />
            <FieldMessage studio field=Field::WorkloadCommunicator(n) />
        </li>
    }
}

/// The workloads panel.
#[component]
pub fn WorkloadPanel(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    view! {
        <section class="panel" aria-labelledby="workloads-title">
            <h2 id="workloads-title">"Workloads"</h2>
            <ul class="workloads">
                {move || {
                    studio.layout.track();
                    let count = studio.form.with_untracked(|f| f.workloads.len());
                    (0..count).map(|i| workload_row(studio, i, count)).collect_view()
                }}
            </ul>
            <FieldMessage studio field=Field::Workloads />
            <button
                type="button"
                data-testid="add-workload"
                on:click=move |_| studio.restructure(|f| f.add_workload(LibraWorkload::Gpt3))
            >
                "+ Add a workload"
            </button>
            <TransformerBuilder studio />
            <WorkloadImport studio />
            <p class="hint">
                "LIBRA's workloads (ASTRA-sim text files). On another network shape, a preset keeps "
                "its tensor- and data-parallel degrees, laid innermost and outermost."
            </p>
        </section>
    }
}
