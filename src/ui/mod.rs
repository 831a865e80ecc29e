//! The Leptos app (wasm32 only). Thin: it holds the form in signals, calls the core and draws.

mod banners;
mod browser;
mod chart_canvas;
mod constraints_panel;
mod fields;
mod network_import;
mod network_panel;
mod results_panel;
mod routing_view;
mod shape_drawing;
mod studio;
mod toolbar;
mod workload_panel;
mod workload_sources;

use crate::charts::StudyChart;
use banners::Banners;
use chart_canvas::ChartCanvas;
use constraints_panel::ConstraintsPanel;
use leptos::prelude::*;
use network_panel::NetworkPanel;
use results_panel::ResultsPanel;
use routing_view::RoutingView;
use studio::Studio;
use toolbar::Toolbar;
use workload_panel::WorkloadPanel;

/// Mount the app on the page's body.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// Keep the URL and the saved scenario in step with the form: the URL fragment is replaced (no
/// history entry per keystroke) and the scenario saved, except while a shared scenario is viewed
/// unedited. An invalid form leaves both at the last valid scenario.
fn sync_url_and_storage(studio: Studio) {
    Effect::new(move |_| {
        let valid = studio.parsed.with(Result::is_ok);
        studio.route.track();
        if !valid || studio.viewing_shared.get() {
            return;
        }
        if let Some(fragment) = studio.fragment() {
            browser::replace_fragment(&fragment);
            browser::save(crate::session::SAVED_KEY, &fragment);
        }
    });
}

#[component]
fn App() -> impl IntoView {
    let studio = Studio::new();
    sync_url_and_storage(studio);
    // Which view is shown: the network design or the routing view (part of the link).
    let routing = Memo::new(move |_| studio.route.with(|r| r.open));
    let show = move |open: bool| studio.route.update(|r| r.open = open);
    // A link opened in this tab (the address bar edited, a link followed): shown as any link is.
    // Our own `replaceState` writes fire no `hashchange`, so this is never our own edit.
    let _ = window_event_listener(leptos::ev::hashchange, move |_| {
        let now = browser::fragment();
        let ours = studio
            .fragment()
            .map(|f| f.trim_start_matches('#').to_string());
        if ours.as_deref() != Some(now.as_str()) {
            studio.open_link(&now);
        }
    });
    view! {
        <div class="app" class:large-text=move || studio.large_text.get()>
            <header class="app-header">
                <div class="brand">
                    <h1>"libra-studio"</h1>
                    <p class="tagline">
                        "Design the network that trains your model: the bandwidth of every dimension, "
                        "its cost and the training time, optimized in your browser."
                    </p>
                </div>
                <Toolbar studio />
            </header>
            <Banners studio />
            <nav class="views" aria-label="Views">
                <button
                    type="button"
                    data-testid="view-design"
                    class:active=move || !routing.get()
                    on:click=move |_| show(false)
                >
                    "Network design"
                </button>
                <button
                    type="button"
                    data-testid="view-routing"
                    class:active=move || routing.get()
                    on:click=move |_| show(true)
                >
                    "Routing"
                </button>
            </nav>
            <Show when=move || routing.get()>
                <main class="routing-layout">
                    <RoutingView studio />
                </main>
            </Show>
            <main class="layout" class:hidden=move || routing.get()>
                <div class="inputs" data-testid="input-panel">
                    <NetworkPanel studio />
                    <WorkloadPanel studio />
                    <ConstraintsPanel studio />
                </div>
                <div class="outputs" data-testid="results-panel">
                    <ResultsPanel studio />
                    <section class="panel charts" aria-label="Charts">
                        {StudyChart::ALL
                            .into_iter()
                            .map(|chart| view! { <ChartCanvas studio chart /> })
                            .collect_view()}
                    </section>
                </div>
            </main>
            <footer class="app-footer">
                <span>
                    "Model: LIBRA (arXiv 2109.11762), LIBRA-compatible mode. Optimum: a certified "
                    "interior-point solve, in your browser."
                </span>
                <span class="timings">
                    "solve "
                    <span
                        data-testid="solve-ms"
                        data-value=move || studio.outcome.with(|o| o.solve_ms.map(|v| v.to_string()).unwrap_or_default())
                    >
                        {move || studio.outcome.with(|o| o.solve_ms.map_or("—".into(), |v| format!("{v:.1} ms")))}
                    </span>
                    " · edit to redraw "
                    <span
                        data-testid="redraw-ms"
                        data-value=move || studio.redraw_ms.get().map(|v| v.to_string()).unwrap_or_default()
                    >
                        {move || studio.redraw_ms.get().map_or("—".into(), |v| format!("{v:.1} ms"))}
                    </span>
                </span>
            </footer>
        </div>
    }
}
