//! The network: a table of dimensions (add, remove, reorder; NPUs, topology, cost tier, latency,
//! bandwidth bounds), the total NPU count, a small drawing of the shape, and the cost tiers.

use super::fields::{field_input, numbered, numbered_field, FieldMessage};
use super::keyed_rows::keyed_rows;
use super::network_import::NetworkImport;
use super::shape_drawing::ShapeDrawing;
use super::studio::Studio;
use super::system_picker::SystemPicker;
use crate::form::row_id::{position, row_mut};
use crate::form::{DimForm, Field, RowId, TierForm};
use crate::model::network::Topology;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The 1-based position of the dimension `id` (0 once it is gone, until its row is dropped).
fn dim_number(studio: Studio, id: RowId) -> Memo<usize> {
    Memo::new(move |_| {
        studio
            .form
            .with(|f| position(&f.dims, id).map_or(0, |i| i + 1))
    })
}

/// Edit the dimension `id`, if it is still there.
fn edit_dim(studio: Studio, id: RowId, edit: impl FnOnce(&mut DimForm)) {
    studio.edit(|f| {
        if let Some(d) = row_mut(&mut f.dims, id) {
            edit(d);
        }
    });
}

fn topology_select(studio: Studio, id: RowId, n: Memo<usize>, current: Topology) -> impl IntoView {
    view! {
        <select
            data-testid=numbered(n, |n| format!("dim-topology-{n}"))
            aria-label=numbered(n, |n| format!("Topology of dimension {n}"))
            on:change=move |ev| {
                if let Some(t) = Topology::parse(&event_target_value(&ev)) {
                    edit_dim(studio, id, |d| d.topology = t);
                }
            }
        >
            {Topology::ALL
                .into_iter()
                .map(|t| view! { <option value=t.name() selected=t == current>{t.name()}</option> })
                .collect_view()}
        </select>
    }
}

fn tier_select(studio: Studio, id: RowId, n: Memo<usize>) -> impl IntoView {
    let names = Memo::new(move |_| {
        studio
            .form
            .with(|f| f.tiers.iter().map(|t| t.name.clone()).collect::<Vec<_>>())
    });
    let field = numbered_field(n, Field::DimTier);
    view! {
        <select
            data-testid=Signal::derive(move || field.get().testid())
            aria-label=numbered(n, |n| format!("Cost tier of dimension {n}"))
            class:invalid=move || studio.error_of(field.get()).is_some()
            on:change=move |ev| {
                let v = event_target_value(&ev);
                studio.edit(|f| f.set_dim_tier(id, v));
            }
        >
            {move || {
                let current = studio
                    .form
                    .with_untracked(|f| position(&f.dims, id).map(|i| f.dims[i].tier.clone()))
                    .unwrap_or_default();
                let mut names = names.get();
                if !names.contains(&current) {
                    names.insert(0, current.clone());
                }
                names
                    .into_iter()
                    .map(|t| {
                        let selected = t == current;
                        let value = t.clone();
                        view! { <option value=value selected=selected>{t}</option> }
                    })
                    .collect_view()
            }}
        </select>
        <FieldMessage studio field />
    }
}

/// The row of dimension `id`: its inputs stay while other rows are added, removed or moved (its
/// number, test ids and labels follow its position).
fn dim_row(studio: Studio, id: RowId) -> AnyView {
    let n = dim_number(studio, id);
    let count = Memo::new(move |_| studio.form.with(|f| f.dims.len()));
    let Some(d) = studio
        .form
        .with_untracked(|f| position(&f.dims, id).map(|i| f.dims[i].clone()))
    else {
        return ().into_any();
    };
    // Move this dimension by `step` places (the form swaps neighbours). Moving a row takes its
    // elements out of the page for a moment, which drops the focus: the button gets it back once
    // the rows are in place, so that a keyboard user can press on.
    let shift = move |ev: web_sys::MouseEvent, step: isize| {
        studio.restructure(|f| {
            if let Some(i) = position(&f.dims, id) {
                match step {
                    -1 if i > 0 => f.move_dim_down(i - 1),
                    1 => f.move_dim_down(i),
                    _ => {}
                }
            }
        });
        let button: Option<web_sys::HtmlElement> =
            ev.current_target().and_then(|t| t.dyn_into().ok());
        if let Some(button) = button {
            set_timeout(
                move || {
                    if !button.matches(":disabled").unwrap_or(true) {
                        let _ = button.focus();
                    }
                },
                std::time::Duration::ZERO,
            );
        }
    };
    view! {
        <tr data-testid="dim-row">
            <th scope="row">{numbered(n, |n| format!("d{n}"))}</th>
            <td data-label="topology">{topology_select(studio, id, n, d.topology)}</td>
            <td class="num" data-label="NPUs">
                {field_input(
                    studio,
                    numbered_field(n, Field::DimNpus),
                    d.npus,
                    "≥ 2",
                    numbered(n, |n| format!("NPUs in dimension {n} (whole number, at least 2)")),
                    move |f, v| if let Some(d) = row_mut(&mut f.dims, id) { d.npus = v },
                )}
            </td>
            <td data-label="cost tier">{tier_select(studio, id, n)}</td>
            <td class="num" data-label="min GB/s">
                {field_input(
                    studio,
                    numbered_field(n, Field::DimMin),
                    d.min,
                    "none",
                    numbered(n, |n| format!("Minimum bandwidth of dimension {n}, GB/s (0 or more; empty for none)")),
                    move |f, v| if let Some(d) = row_mut(&mut f.dims, id) { d.min = v },
                )}
            </td>
            <td class="num" data-label="max GB/s">
                {field_input(
                    studio,
                    numbered_field(n, Field::DimMax),
                    d.max,
                    "none",
                    numbered(n, |n| format!("Maximum bandwidth of dimension {n}, GB/s (more than 0; empty for none)")),
                    move |f, v| if let Some(d) = row_mut(&mut f.dims, id) { d.max = v },
                )}
            </td>
            <td class="num" data-label="latency ns">
                {field_input(
                    studio,
                    numbered_field(n, Field::DimLatency),
                    d.latency,
                    "0",
                    numbered(n, |n| format!("Latency per step of dimension {n}, ns (0 or more; used with the latency option)")),
                    move |f, v| if let Some(d) = row_mut(&mut f.dims, id) { d.latency = v },
                )}
            </td>
            <td class="row-actions">
                <button
                    type="button"
                    class="icon"
                    title="Move this dimension inwards"
                    aria-label=numbered(n, |n| format!("Move dimension {n} up"))
                    data-testid=numbered(n, |n| format!("move-dim-up-{n}"))
                    disabled=Signal::derive(move || n.get() <= 1)
                    on:click=move |ev| shift(ev, -1)
                >
                    "↑"
                </button>
                <button
                    type="button"
                    class="icon"
                    title="Move this dimension outwards"
                    aria-label=numbered(n, |n| format!("Move dimension {n} down"))
                    data-testid=numbered(n, |n| format!("move-dim-down-{n}"))
                    disabled=Signal::derive(move || n.get() == count.get())
                    on:click=move |ev| shift(ev, 1)
                >
                    "↓"
                </button>
                <button
                    type="button"
                    class="icon danger"
                    title="Remove this dimension"
                    aria-label=numbered(n, |n| format!("Remove dimension {n}"))
                    data-testid=numbered(n, |n| format!("remove-dim-{n}"))
                    disabled=Signal::derive(move || count.get() == 1)
                    on:click=move |_| {
                        studio.restructure(|f| {
                            if let Some(i) = position(&f.dims, id) {
                                f.remove_dim(i);
                            }
                        })
                    }
                >
                    "✕"
                </button>
            </td>
        </tr>
    }
    .into_any()
}

/// The row of cost tier `id` (kept while other tiers come and go, as the dimensions' rows are).
fn tier_row(studio: Studio, id: RowId) -> AnyView {
    let n = Memo::new(move |_| {
        studio
            .form
            .with(|f| position(&f.tiers, id).map_or(0, |i| i + 1))
    });
    let Some(t) = studio
        .form
        .with_untracked(|f| position(&f.tiers, id).map(|i| f.tiers[i].clone()))
    else {
        return ().into_any();
    };
    let edit = move |f: &mut crate::form::Form, set: &dyn Fn(&mut TierForm)| {
        if let Some(t) = row_mut(&mut f.tiers, id) {
            set(t);
        }
    };
    view! {
        <tr data-testid="tier-row">
            <td data-label="tier">
                <input
                    type="text"
                    class="name"
                    data-testid=numbered(n, |n| Field::TierName(n).testid())
                    aria-label=numbered(n, |n| format!("Name of tier {n}"))
                    prop:value=t.name
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        studio.edit(|f| {
                            if let Some(i) = position(&f.tiers, id) {
                                f.rename_tier(i, v);
                            }
                        });
                    }
                />
            </td>
            <td class="num" data-label="link">
                {field_input(
                    studio,
                    numbered_field(n, Field::TierLink),
                    t.link,
                    "$/GB/s",
                    numbered(n, |n| format!("Link cost of tier {n}, $ per GB/s")),
                    move |f, v| edit(f, &|t| t.link = v.clone()),
                )}
            </td>
            <td class="num" data-label="switch">
                {field_input(
                    studio,
                    numbered_field(n, Field::TierSwitch),
                    t.switch,
                    "none",
                    numbered(n, |n| format!("Switch cost of tier {n}, $ per GB/s (Switch dimensions need it)")),
                    move |f, v| edit(f, &|t| t.switch = v.clone()),
                )}
            </td>
            <td class="num" data-label="NIC">
                {field_input(
                    studio,
                    numbered_field(n, Field::TierNic),
                    t.nic,
                    "none",
                    numbered(n, |n| format!("NIC cost of tier {n}, $ per GB/s (Switch dimensions need it)")),
                    move |f, v| edit(f, &|t| t.nic = v.clone()),
                )}
            </td>
            <td class="num" data-label="max NPUs">
                {field_input(
                    studio,
                    numbered_field(n, Field::TierMaxNpus),
                    t.max_npus,
                    "no limit",
                    numbered(n, |n| format!("Most NPUs per dimension on tier {n} (the shape comparison and co-design stay within it; empty for no limit)")),
                    move |f, v| edit(f, &|t| t.max_npus = v.clone()),
                )}
            </td>
            <td class="num" data-label="latency ns">
                {field_input(
                    studio,
                    numbered_field(n, Field::TierLatency),
                    t.latency,
                    "0",
                    numbered(n, |n| format!("Latency per collective step on tier {n}, ns (new dimensions and compared shapes take it)")),
                    move |f, v| edit(f, &|t| t.latency = v.clone()),
                )}
            </td>
            <td class="row-actions">
                <button
                    type="button"
                    class="icon danger"
                    title="Remove this tier"
                    aria-label=numbered(n, |n| format!("Remove tier {n}"))
                    on:click=move |_| {
                        studio.restructure(|f| {
                            if let Some(i) = position(&f.tiers, id) {
                                f.remove_tier(i);
                            }
                        })
                    }
                >
                    "✕"
                </button>
            </td>
        </tr>
    }
    .into_any()
}

/// The network panel.
#[component]
pub fn NetworkPanel(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    let total = Memo::new(move |_| {
        studio.parsed.with(|p| match p {
            Ok(sc) => sc.network.total_npus().ok(),
            Err(_) => None,
        })
    });
    let network = Memo::new(move |_| {
        studio
            .parsed
            .with(|p| p.as_ref().ok().map(|s| s.network.clone()))
    });
    view! {
        <section class="panel" aria-labelledby="network-title" data-testid="network-panel">
            <h2 id="network-title">"Network"</h2>
            <div class="shape-line">
                <ShapeDrawing network />
                <p class="total">
                    <span class="muted">"Total NPUs "</span>
                    <strong
                        data-testid="total-npus"
                        data-value=move || total.get().map(|t| t.to_string()).unwrap_or_default()
                    >
                        {move || total.get().map_or("—".to_string(), |t| t.to_string())}
                    </strong>
                </p>
            </div>
            <FieldMessage studio field=Field::Network />
            <ul class="notes" data-testid="tier-limit-notes">
                {move || {
                    studio
                        .parsed
                        .with(|p| match p {
                            Ok(sc) => sc.costs.limit_notes(&sc.network),
                            Err(_) => Vec::new(),
                        })
                        .into_iter()
                        .map(|note| view! { <li class="warn">{format!("{note}: a shape beyond what is built today")}</li> })
                        .collect_view()
                }}
            </ul>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Dimensions of the network">
                <table class="grid cards" data-testid="dims">
                    <thead>
                        <tr>
                            <th>"dim"</th>
                            <th>"topology"</th>
                            <th title="NPUs along this dimension, a whole number ≥ 2">{super::term::term("npu", "NPUs")}</th>
                            <th>"cost tier"</th>
                            <th title="Lower bound on the bandwidth per NPU, GB/s">"min GB/s"</th>
                            <th title="Upper bound on the bandwidth per NPU, GB/s">"max GB/s"</th>
                            <th title="Latency per collective step, ns (used when the latency option is on)">
                                "latency ns"
                            </th>
                            <th><span class="sr-only">"actions"</span></th>
                        </tr>
                    </thead>
                    <tbody>
                        {keyed_rows(studio, |f| f.dims.iter().map(|d| d.id).collect(), dim_row)}
                    </tbody>
                </table>
            </div>
            <button
                type="button"
                data-testid="add-dim"
                on:click=move |_| studio.restructure(|f| f.add_dim())
            >
                "+ Add a dimension"
            </button>
            <p class="hint">
                "Dimension 1 is the innermost (e.g. chiplets); the last is the outermost (e.g. pods). "
                "Bandwidths are per NPU, in GB/s; empty bounds mean none."
            </p>
            <SystemPicker studio />
            <NetworkImport studio />
            <details class="tiers">
                <summary>"Cost tiers ($ per GB/s: LIBRA's, or a system's once laid on one; physical limits, README)"</summary>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Cost tiers">
                    <table class="grid cards">
                        <thead>
                            <tr>
                                <th>{super::term::term("tier", "tier")}</th>
                                <th>"link"</th>
                                <th>"switch"</th>
                                <th>"NIC"</th>
                                <th title="The most NPUs one dimension of this tier joins">"max NPUs"</th>
                                <th title="Latency per collective step, ns">"latency ns"</th>
                                <th><span class="sr-only">"actions"</span></th>
                            </tr>
                        </thead>
                        <tbody>
                            {keyed_rows(studio, |f| f.tiers.iter().map(|t| t.id).collect(), tier_row)}
                        </tbody>
                    </table>
                </div>
                <button type="button" on:click=move |_| studio.restructure(|f| f.add_tier())>
                    "+ Add a tier"
                </button>
            </details>
        </section>
    }
}
