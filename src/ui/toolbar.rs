//! The toolbar: copy the permalink, reset to the defaults, large text for projectors, and the
//! scenario as JSON (export and import) and the front as CSV.

use super::browser;
use super::studio::{Banner, Studio};
use crate::model::scenario::Scenario;
use crate::presets;
use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::time::Duration;

/// The toolbar.
#[component]
pub fn Toolbar(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    let copied = RwSignal::new(None::<String>);
    let copy_link = move |_| {
        let fragment = match studio.link() {
            Some(Ok(fragment)) => fragment,
            Some(Err(e)) => {
                copied.set(Some(e.to_string()));
                return;
            }
            None => {
                copied.set(Some(
                    "Fix the form first: the link holds a valid scenario".into(),
                ));
                return;
            }
        };
        let url = browser::url_with(&fragment);
        spawn_local(async move {
            let message = match browser::copy(&url).await {
                Ok(()) => "Link copied ✓".to_string(),
                Err(_) => "Copy refused by the browser: the address bar holds the link".to_string(),
            };
            copied.set(Some(message));
            set_timeout(move || copied.set(None), Duration::from_millis(2500));
        });
    };
    let export_json = move |_| {
        let Ok(sc) = studio.parsed.get_untracked() else {
            studio.banner.set(Some(Banner::Error(
                "The form has errors: fix them to export the scenario".into(),
            )));
            return;
        };
        if let Err(e) = browser::download(&sc.to_json(), "scenario.json", "application/json") {
            studio
                .banner
                .set(Some(Banner::Error(format!("Export failed: {e}"))));
        }
    };
    // The open view's results: the Design view's here, the others' by the view itself.
    let export_results = move |json: bool| {
        if studio.view.get_untracked() != crate::view::View::Design {
            browser::announce(match json {
                true => browser::RESULTS_JSON_EVENT,
                false => browser::RESULTS_CSV_EVENT,
            });
            return;
        }
        let Some(s) = studio.outcome.with_untracked(|o| o.study.clone()) else {
            studio.banner.set(Some(Banner::Error(
                "No results yet: fix the form first".into(),
            )));
            return;
        };
        let files = crate::results::design(&s);
        if let Err(e) = browser::download_results(&files, json) {
            studio
                .banner
                .set(Some(Banner::Error(format!("Export failed: {e}"))));
        }
    };
    let picker = NodeRef::<Input>::new();
    let import_json = move |_| {
        let Some(input) = picker.get_untracked() else {
            return;
        };
        spawn_local(async move {
            match browser::read_picked(&input).await {
                Ok((name, text)) => match Scenario::from_json(&text) {
                    Ok(sc) => {
                        studio.load(&sc);
                        studio.banner.set(None);
                    }
                    Err(e) => studio.banner.set(Some(Banner::Error(format!(
                        "{name} is not a libra-studio scenario: {e}"
                    )))),
                },
                Err(e) => studio
                    .banner
                    .set(Some(Banner::Error(format!("Import failed: {e}")))),
            }
            input.set_value("");
        });
    };
    view! {
        <nav class="toolbar" aria-label="Scenario">
            <button type="button" class="primary" data-testid="copy-link" on:click=copy_link>
                "Copy link"
            </button>
            <span class="confirm" role="status" data-testid="copy-status">{move || copied.get()}</span>
            <button
                type="button"
                data-testid="reset"
                title="Back to LIBRA's GPT-3 on the 4D network"
                on:click=move |_| studio.load(&presets::default_scenario())
            >
                "Reset"
            </button>
            <button type="button" data-testid="export-json" on:click=export_json>
                "Scenario JSON"
            </button>
            <label class="button" title="Open a scenario exported as JSON">
                "Import JSON"
                <input
                    type="file"
                    accept=".json,application/json"
                    class="sr-only"
                    data-testid="import-json"
                    node_ref=picker
                    on:change=import_json
                />
            </label>
            // The open view's results (every chart also exports its own numbers).
            <button
                type="button"
                data-testid="export-csv"
                title="The open view's results as CSV: its main table, full precision"
                on:click=move |_| export_results(false)
            >
                "Results CSV"
            </button>
            <button
                type="button"
                data-testid="export-results-json"
                title="Everything the open view computed, as JSON"
                on:click=move |_| export_results(true)
            >
                "Results JSON"
            </button>
            <button
                type="button"
                data-testid="pin-scenario"
                title="Keep this scenario beside the one you edit next"
                class:active=move || studio.pinned.with(Option::is_some)
                on:click=move |_| studio.pin()
            >
                {move || if studio.pinned.with(Option::is_some) { "Pin again" } else { "Pin" }}
            </button>
            <button
                type="button"
                class="presenting-keep"
                data-testid="tour-start"
                title="A guided tour: from the uniform split to the optimum, the front and the shapes"
                on:click=move |_| studio.start_tour()
            >
                "Tour"
            </button>
            <label class="switch-label presenting-keep" title="Large type and high contrast for a projector, without the editing panels">
                <input
                    type="checkbox"
                    data-testid="presentation-mode"
                    prop:checked=move || studio.presenting.get()
                    on:change=move |ev| studio.presenting.set(event_target_checked(&ev))
                />
                " Present"
            </label>
            <label class="switch-label presenting-keep">
                <input
                    type="checkbox"
                    data-testid="large-text"
                    prop:checked=move || studio.large_text.get()
                    on:change=move |ev| studio.large_text.set(event_target_checked(&ev))
                />
                " Large text"
            </label>
        </nav>
    }
}
