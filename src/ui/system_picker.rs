//! Lay the design on a real system (docs/systems.md): pick a preset, keep its own bandwidths or
//! let the optimizer choose them; the design's workloads move onto the system's network for the
//! design's NPUs with its tiers and prices. The laying is `systems::lay::on_system`.

use super::outcome_line::OutcomeLine;
use super::studio::Studio;
use crate::systems::lay::{on_system, SystemBandwidths};
use crate::systems::{system_preset, system_presets};
use leptos::prelude::*;

/// The picker.
#[component]
pub fn SystemPicker(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    let chosen = RwSignal::new(String::from("dgx-h100"));
    let keep = RwSignal::new(false);
    let message = RwSignal::new(None::<Result<String, String>>);
    // What the chosen system makes of the design, in words, before it is laid.
    let preview = move || {
        let spec = system_preset(&chosen.get())?;
        let npus = studio
            .parsed
            .with(|p| p.as_ref().ok().and_then(|sc| sc.network.total_npus().ok()))?;
        Some(match spec.network(npus) {
            Ok(net) => format!(
                "{}: {} for the design's {npus} NPUs, on {}'s tiers and prices (accelerator {}).",
                spec.title,
                net.shape_label(),
                spec.name,
                spec.accelerator,
            ),
            Err(e) => e.to_string(),
        })
    };
    let apply = move |_| {
        let Some(spec) = system_preset(&chosen.get_untracked()) else {
            return;
        };
        let mode = if keep.get_untracked() {
            SystemBandwidths::Keep
        } else {
            SystemBandwidths::Optimize
        };
        let laid = studio.parsed.with_untracked(|p| match p {
            Ok(sc) => on_system(sc, &spec, mode).map_err(|e| e.to_string()),
            Err(_) => Err("the design has errors: fix the form first".into()),
        });
        match laid {
            Ok(sc) => {
                let text = format!("laid on {} ({})", spec.name, sc.network.shape_label());
                studio.load(&sc);
                message.set(Some(Ok(text)));
            }
            Err(e) => message.set(Some(Err(e))),
        }
    };
    view! {
        <details class="source" data-testid="system-picker">
            <summary>"Lay the design on a real system"</summary>
            <p class="hint">
                "The design's workloads on a system's network, tiers and prices (each tier within what its links reach, each fabric level at its ratio); "
                "the optimizer chooses the bandwidths for the design's budget (or the system's own cost), or the system's own are kept. "
                "Pin the design first to compare it side by side."
            </p>
            <label class="field inline">
                <span>"System"</span>
                <select data-testid="system-pick" on:change=move |ev| {
                    chosen.set(event_target_value(&ev));
                    message.set(None);
                }>
                    {system_presets()
                        .into_iter()
                        .map(|s| {
                            let name = s.name.clone();
                            let selected = name == chosen.get_untracked();
                            view! { <option value=name.clone() selected=selected>{name.clone()}</option> }
                        })
                        .collect_view()}
                </select>
            </label>
            <label class="field inline">
                <input type="checkbox" data-testid="system-keep" prop:checked=move || keep.get()
                    on:change=move |ev| {
                        keep.set(event_target_checked(&ev));
                        message.set(None);
                    } />
                <span>"keep its own bandwidths"</span>
            </label>
            <p class="hint" data-testid="system-preview">{preview}</p>
            <button type="button" data-testid="system-lay" on:click=apply>
                "Lay the design on it"
            </button>
            <OutcomeLine outcome=message error_testid="system-error" />
        </details>
    }
}
