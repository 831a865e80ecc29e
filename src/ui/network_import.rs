//! LIBRA's network and cost-model YAML files, picked or pasted, replacing the network's shape and
//! (when given) its cost tiers. Reading is `model::libra_files`; fitting the form is `Form::set_network`.

use super::browser;
use super::outcome_line::OutcomeLine;
use super::studio::Studio;
use crate::model::libra_files::{cost_model_from_yaml, network_from_yaml};
use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// A text area filled by pasting or by picking a file.
#[component]
pub fn TextSource(
    /// The text.
    text: RwSignal<String>,
    /// `data-testid` of the text area.
    testid: &'static str,
    /// Shown while empty.
    placeholder: &'static str,
) -> impl IntoView {
    let picker = NodeRef::<Input>::new();
    let pick = move |_| {
        let Some(input) = picker.get_untracked() else {
            return;
        };
        spawn_local(async move {
            match browser::read_picked(&input).await {
                Ok((_, content)) => text.set(content),
                Err(e) => text.set(format!("# could not read the file: {e}")),
            }
        });
    };
    view! {
        <div class="text-source">
            <label class="button">
                "Choose a file…"
                <input type="file" class="sr-only" accept=".yml,.yaml,.txt" node_ref=picker on:change=pick />
            </label>
            <textarea
                rows="3"
                spellcheck="false"
                data-testid=testid
                placeholder=placeholder
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
            ></textarea>
        </div>
    }
}

/// The importer.
#[component]
pub fn NetworkImport(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    let network = RwSignal::new(String::new());
    let costs = RwSignal::new(String::new());
    let message = RwSignal::new(None::<Result<String, String>>);
    let apply = move |_| {
        let net = match network_from_yaml(&network.get_untracked()) {
            Ok(n) => n,
            Err(e) => {
                message.set(Some(Err(format!("network YAML: {e}"))));
                return;
            }
        };
        let cost_text = costs.get_untracked();
        let tiers = if cost_text.trim().is_empty() {
            None
        } else {
            match cost_model_from_yaml(&cost_text) {
                Ok(c) => Some(c),
                Err(e) => {
                    message.set(Some(Err(format!("cost-model YAML: {e}"))));
                    return;
                }
            }
        };
        let text = format!("network set to {}", net.shape_label());
        studio.restructure(|f| f.set_network(&net, tiers.as_ref()));
        message.set(Some(Ok(text)));
    };
    view! {
        <details class="source" data-testid="network-import">
            <summary>"Import LIBRA's network and cost-model YAML"</summary>
            <p class="hint">"Network (Topology, NpusCount, CostDimension):"</p>
            <TextSource text=network testid="network-yaml" placeholder="Topology: [ Ring, Switch ]" />
            <p class="hint">"Cost model (optional; $ per GB/s per tier):"</p>
            <TextSource text=costs testid="cost-yaml" placeholder="InterPod:\n  Link: 7.8" />
            <button type="button" data-testid="network-import-apply" on:click=apply>
                "Use this network"
            </button>
            <OutcomeLine outcome=message error_testid="network-import-error" />
        </details>
    }
}
