//! The workloads: each one of LIBRA's presets (its communicator fitted to the network), with a
//! weight; several workloads are optimized together (objective = sum of weight x time).

use super::browser;
use super::fields::{field_input, numbered, numbered_field, FieldMessage};
use super::keyed_rows::keyed_rows;
use super::studio::Studio;
use super::workload_sources::{TransformerBuilder, WorkloadImport};
use crate::form::row_id::{position, row_mut};
use crate::form::{Field, Form, RowId, WorkloadForm};
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

/// The test id of the preset menu of the `n`th workload (1-based).
fn preset_testid(n: usize) -> String {
    if n == 1 {
        "workload-preset".to_string()
    } else {
        format!("workload-preset-{n}")
    }
}

/// The row of workload `id`: kept while other workloads come and go; its number, preset and
/// description follow the form (the communicators change with the network's dimensions).
fn workload_row(studio: Studio, id: RowId) -> AnyView {
    let at = move |f: &Form| position(&f.workloads, id);
    let n = Memo::new(move |_| studio.form.with(|f| at(f).map_or(0, |i| i + 1)));
    let count = Memo::new(move |_| studio.form.with(|f| f.workloads.len()));
    let preset = Memo::new(move |_| studio.form.with(|f| at(f).and_then(|i| f.preset_of(i))));
    let name = Memo::new(move |_| {
        studio
            .form
            .with(|f| at(f).map(|i| f.workloads[i].spec.name.clone()))
            .unwrap_or_default()
    });
    let description = Memo::new(move |_| {
        studio
            .form
            .with(|f| at(f).map(|i| describe(&f.workloads[i])))
            .unwrap_or_default()
    });
    let weight = studio
        .form
        .with_untracked(|f| at(f).map(|i| f.workloads[i].weight.clone()))
        .unwrap_or_default();
    view! {
        <li class="workload" data-testid="workload-row">
            <div class="workload-head">
                <select
                    data-testid=numbered(n, preset_testid)
                    aria-label=numbered(n, |n| format!("Workload {n}"))
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if let Some(p) = LibraWorkload::parse(&v) {
                            let menu = format!("[data-testid=\"{}\"]", preset_testid(n.get_untracked()));
                            studio.restructure(|f| {
                                if let Some(i) = at(f) {
                                    f.set_preset_workload(i, p);
                                }
                            });
                            // The row is replaced (its texts changed): the focus goes back to the
                            // menu at its place once the new row is drawn.
                            set_timeout(move || browser::focus(&menu), std::time::Duration::ZERO);
                        }
                    }
                >
                    {move || {
                        let preset = preset.get();
                        let custom = preset
                            .is_none()
                            .then(|| view! { <option value="" selected=true>{name.get()}</option> });
                        let presets = LibraWorkload::ALL
                            .into_iter()
                            .map(|p| {
                                view! {
                                    <option value=p.name() selected=preset == Some(p)>
                                        {p.name()}
                                    </option>
                                }
                            })
                            .collect_view();
                        (custom, presets)
                    }}
                </select>
                <label class="inline">
                    "weight "
                    {field_input(
                        studio,
                        numbered_field(n, Field::WorkloadWeight),
                        weight,
                        "1",
                        numbered(n, |n| format!("Weight of workload {n} in the objective (more than 0)")),
                        move |f, v| if let Some(w) = row_mut(&mut f.workloads, id) { w.weight = v },
                    )}
                </label>
                <button
                    type="button"
                    class="icon danger"
                    title="Remove this workload"
                    aria-label=numbered(n, |n| format!("Remove workload {n}"))
                    disabled=Signal::derive(move || count.get() == 1)
                    on:click=move |_| {
                        studio.restructure(|f| {
                            if let Some(i) = at(f) {
                                f.remove_workload(i);
                            }
                        })
                    }
                >
                    "✕"
                </button>
            </div>
            <p class="hint">{description}</p>
            <FieldMessage studio field=numbered_field(n, Field::Workload) />
            <FieldMessage studio field=numbered_field(n, Field::WorkloadCommunicator) />
        </li>
    }
    .into_any()
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
                {keyed_rows(studio, |f| f.workloads.iter().map(|w| w.id).collect(), workload_row)}
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
