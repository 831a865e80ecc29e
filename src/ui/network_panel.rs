//! The network: a table of dimensions (add, remove, reorder; NPUs, topology, cost tier, latency,
//! bandwidth bounds), the total NPU count, a small drawing of the shape, and the cost tiers.

use super::fields::{field_input, FieldMessage};
use super::network_import::NetworkImport;
use super::shape_drawing::ShapeDrawing;
use super::studio::Studio;
use crate::form::Field;
use crate::model::network::Topology;
use leptos::prelude::*;

fn topology_select(studio: Studio, i: usize, current: Topology) -> impl IntoView {
    let n = i + 1;
    view! {
        <select
            data-testid=format!("dim-topology-{n}")
            aria-label=format!("Topology of dimension {n}")
            on:change=move |ev| {
                let v = event_target_value(&ev);
                if let Some(t) = Topology::parse(&v) {
                    studio.edit(|f| f.dims[i].topology = t);
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

fn tier_select(studio: Studio, i: usize, current: String) -> impl IntoView {
    let n = i + 1;
    let names = Memo::new(move |_| {
        studio
            .form
            .with(|f| f.tiers.iter().map(|t| t.name.clone()).collect::<Vec<_>>())
    });
    let field = Field::DimTier(n);
    view! {
        <select
            data-testid=field.testid()
            aria-label=format!("Cost tier of dimension {n}")
            class:invalid=move || studio.error_of(field).is_some()
            on:change=move |ev| {
                let v = event_target_value(&ev);
                studio.edit(|f| f.dims[i].tier = v);
            }
        >
            {move || {
                let current = studio.form.with_untracked(|f| f.dims.get(i).map(|d| d.tier.clone()))
                    .unwrap_or_else(|| current.clone());
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

fn dim_row(studio: Studio, i: usize, count: usize) -> impl IntoView {
    let n = i + 1;
    let d = studio.form.with_untracked(|f| f.dims[i].clone());
    view! {
        <tr data-testid="dim-row">
            <th scope="row">{format!("d{n}")}</th>
            <td data-label="topology">{topology_select(studio, i, d.topology)}</td>
            <td class="num" data-label="NPUs">
                {field_input(
                    studio,
                    Field::DimNpus(n),
                    d.npus,
                    "≥ 2",
                    format!("NPUs in dimension {n} (whole number, at least 2)"),
                    move |f, v| f.dims[i].npus = v,
                )}
            </td>
            <td data-label="cost tier">{tier_select(studio, i, d.tier)}</td>
            <td class="num" data-label="min GB/s">
                {field_input(
                    studio,
                    Field::DimMin(n),
                    d.min,
                    "none",
                    format!("Minimum bandwidth of dimension {n}, GB/s (0 or more; empty for none)"),
                    move |f, v| f.dims[i].min = v,
                )}
            </td>
            <td class="num" data-label="max GB/s">
                {field_input(
                    studio,
                    Field::DimMax(n),
                    d.max,
                    "none",
                    format!("Maximum bandwidth of dimension {n}, GB/s (more than 0; empty for none)"),
                    move |f, v| f.dims[i].max = v,
                )}
            </td>
            <td class="num" data-label="latency ns">
                {field_input(
                    studio,
                    Field::DimLatency(n),
                    d.latency,
                    "0",
                    format!("Latency per step of dimension {n}, ns (0 or more; used with the latency option)"),
                    move |f, v| f.dims[i].latency = v,
                )}
            </td>
            <td class="row-actions">
                <button
                    type="button"
                    class="icon"
                    title="Move this dimension inwards"
                    aria-label=format!("Move dimension {n} up")
                    data-testid=format!("move-dim-up-{n}")
                    disabled=i == 0
                    on:click=move |_| studio.restructure(|f| f.move_dim_down(i - 1))
                >
                    "↑"
                </button>
                <button
                    type="button"
                    class="icon"
                    title="Move this dimension outwards"
                    aria-label=format!("Move dimension {n} down")
                    data-testid=format!("move-dim-down-{n}")
                    disabled=n == count
                    on:click=move |_| studio.restructure(|f| f.move_dim_down(i))
                >
                    "↓"
                </button>
                <button
                    type="button"
                    class="icon danger"
                    title="Remove this dimension"
                    aria-label=format!("Remove dimension {n}")
                    data-testid=format!("remove-dim-{n}")
                    disabled=count == 1
                    on:click=move |_| studio.restructure(|f| f.remove_dim(i))
                >
                    "✕"
                </button>
            </td>
        </tr>
    }
}

fn tier_row(studio: Studio, i: usize) -> impl IntoView {
    let n = i + 1;
    let t = studio.form.with_untracked(|f| f.tiers[i].clone());
    let name_field = Field::TierName(n);
    view! {
        <tr data-testid="tier-row">
            <td data-label="tier">
                <input
                    type="text"
                    class="name"
                    data-testid=name_field.testid()
                    aria-label=format!("Name of tier {n}")
                    prop:value=t.name
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        studio.edit(|f| f.rename_tier(i, v));
                    }
                />
            </td>
            <td class="num" data-label="link">
                {field_input(
                    studio,
                    Field::TierLink(n),
                    t.link,
                    "$/GB/s",
                    format!("Link cost of tier {n}, $ per GB/s"),
                    move |f, v| f.tiers[i].link = v,
                )}
            </td>
            <td class="num" data-label="switch">
                {field_input(
                    studio,
                    Field::TierSwitch(n),
                    t.switch,
                    "none",
                    format!("Switch cost of tier {n}, $ per GB/s (Switch dimensions need it)"),
                    move |f, v| f.tiers[i].switch = v,
                )}
            </td>
            <td class="num" data-label="NIC">
                {field_input(
                    studio,
                    Field::TierNic(n),
                    t.nic,
                    "none",
                    format!("NIC cost of tier {n}, $ per GB/s (Switch dimensions need it)"),
                    move |f, v| f.tiers[i].nic = v,
                )}
            </td>
            <td class="num" data-label="max NPUs">
                {field_input(
                    studio,
                    Field::TierMaxNpus(n),
                    t.max_npus,
                    "no limit",
                    format!("Most NPUs per dimension on tier {n} (the shape comparison and co-design stay within it; empty for no limit)"),
                    move |f, v| f.tiers[i].max_npus = v,
                )}
            </td>
            <td class="num" data-label="latency ns">
                {field_input(
                    studio,
                    Field::TierLatency(n),
                    t.latency,
                    "0",
                    format!("Latency per collective step on tier {n}, ns (new dimensions and compared shapes take it)"),
                    move |f, v| f.tiers[i].latency = v,
                )}
            </td>
            <td class="row-actions">
                <button
                    type="button"
                    class="icon danger"
                    title="Remove this tier"
                    aria-label=format!("Remove tier {n}")
                    on:click=move |_| studio.restructure(|f| f.remove_tier(i))
                >
                    "✕"
                </button>
            </td>
        </tr>
    }
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
        <section class="panel" aria-labelledby="network-title">
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
                            <th title="NPUs along this dimension, a whole number ≥ 2">"NPUs"</th>
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
                        {move || {
                            studio.layout.track();
                            let count = studio.form.with_untracked(|f| f.dims.len());
                            (0..count).map(|i| dim_row(studio, i, count)).collect_view()
                        }}
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
            <NetworkImport studio />
            <details class="tiers">
                <summary>"Cost tiers ($ per GB/s, LIBRA's; physical limits from public systems, README)"</summary>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Cost tiers">
                    <table class="grid cards">
                        <thead>
                            <tr>
                                <th>"tier"</th>
                                <th>"link"</th>
                                <th>"switch"</th>
                                <th>"NIC"</th>
                                <th title="The most NPUs one dimension of this tier joins">"max NPUs"</th>
                                <th title="Latency per collective step, ns">"latency ns"</th>
                                <th><span class="sr-only">"actions"</span></th>
                            </tr>
                        </thead>
                        <tbody>
                            {move || {
                                studio.layout.track();
                                let count = studio.form.with_untracked(|f| f.tiers.len());
                                (0..count).map(|i| tier_row(studio, i)).collect_view()
                            }}
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
