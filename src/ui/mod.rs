//! The Leptos app (wasm32 only). Thin: it holds the form in signals, calls the core and draws.

mod banners;
mod browser;
mod calibrate_panel;
mod canvas_text;
mod chart_canvas;
mod chart_table;
mod cluster_view;
mod codesign_module;
mod constraints_panel;
mod design_charts;
pub mod explore_module;
mod fields;
mod keyed_rows;
mod landscape_view;
mod module_bridge;
mod network_import;
mod network_panel;
mod outcome_line;
mod results_panel;
pub mod routing_module;
mod routing_view;
mod shape_compare;
mod shape_drawing;
mod shapes_view;
mod side_by_side_panel;
mod sliced_runner;
mod studio;
mod system_picker;
mod term;
mod toolbar;
mod tour_panel;
mod workload_panel;
mod workload_sources;

use crate::analysis::routing_savings::SwitchDesign;
use crate::routing::study::RouteLink;
use crate::view::View;
use banners::Banners;
use constraints_panel::ConstraintsPanel;
use design_charts::DesignCharts;
use leptos::prelude::*;
use network_panel::NetworkPanel;
use results_panel::{ExplainPanel, ResultsPanel};
use side_by_side_panel::SideBySidePanel;
use studio::Studio;
use toolbar::Toolbar;
use tour_panel::TourPanel;
use workload_panel::WorkloadPanel;

/// Mount the app on the page's body. A panic leaves a message on the page (never a blank page)
/// and the start-in-progress mark in place, so that the next visit opens the defaults; once the
/// page has drawn, the mark is cleared.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        browser::show_crash_notice();
    }));
    leptos::mount::mount_to_body(App);
    leptos::prelude::request_animation_frame(|| browser::remove(crate::session::STARTING_KEY));
}

/// Keep the URL and the saved scenario in step with the form and the view: the URL fragment is
/// replaced (no history entry per keystroke) and the parts this tab changed saved, except that a shared
/// scenario viewed unedited is not saved and a bad link stays in the address bar. An invalid form
/// leaves both at the last valid scenario. The writing waits for the task after the edit's (the
/// link's encoding and `replaceState` took 1.5-8 ms here, before the charts could redraw); edits
/// in between are written once, as they stand then.
fn sync_url_and_storage(studio: Studio) {
    let pending = StoredValue::new(false);
    Effect::new(move |_| {
        studio.parsed.with(Result::is_ok);
        studio.track_link_state();
        studio.viewing_shared.track();
        if !pending.get_value() {
            pending.set_value(true);
            set_timeout(
                move || {
                    pending.set_value(false);
                    write_url_and_storage(studio);
                },
                std::time::Duration::ZERO,
            );
        }
    });
}

fn write_url_and_storage(studio: Studio) {
    let valid = studio.parsed.with_untracked(Result::is_ok);
    let shared = studio.viewing_shared.get_untracked();
    let bad_link = studio
        .banner
        .with_untracked(|b| matches!(b, Some(studio::Banner::BadLink { .. })));
    if !valid || (shared && bad_link) {
        return;
    }
    // The address bar gets the link only when it opens anywhere; the saved scenario is kept
    // whatever its size. Either refusal is said in a banner (never a silent loss).
    let link = studio.link();
    let problem = match &link {
        Some(Ok(link)) => {
            browser::replace_fragment(link);
            None
        }
        Some(Err(e)) => Some(format!(
            "{e}. The address bar keeps the last link that fits."
        )),
        None => None,
    };
    // Each part under its own key, and only the parts this tab changed: another tab's edits of
    // other parts are never overwritten (session::SaveSync).
    let unsaved = !shared && !studio.save_parts();
    let problem = match (problem, unsaved) {
        (p, false) => p,
        (p, true) => Some(format!(
            "{}This browser refused to save the scenario (storage full or private mode): use Scenario JSON to keep it.",
            p.map(|p| p + " ").unwrap_or_default()
        )),
    };
    if let Some(message) = problem {
        if studio
            .banner
            .with_untracked(|b| b.as_ref() != Some(&studio::Banner::Error(message.clone())))
        {
            studio.banner.set(Some(studio::Banner::Error(message)));
        }
    }
}

#[component]
fn App() -> impl IntoView {
    let studio = Studio::new();
    sync_url_and_storage(studio);
    // The tab, the history and a shared link's preview name the scenario (the last valid one).
    Effect::new(move |_| {
        if let Some(title) = studio.parsed.with(|p| p.as_ref().ok().map(|sc| sc.title())) {
            document().set_title(&title);
        }
    });
    let view = studio.view;
    // The Co-design view is a module of its own, loaded when first opened; it gets the design
    // (whenever the view is shown) and gives back its question (for the link) and designs to load.
    module_bridge::CODESIGN.listen_app(
        move |json| studio.codesign.set(Some(json)),
        move |json| {
            if let Ok(sc) = crate::model::scenario::Scenario::from_json(&json) {
                studio.load(&sc);
                studio.view.set(View::Design);
            }
        },
    );
    Effect::new(move |_| {
        let codesign = module_bridge::CODESIGN;
        let shown = view.get() == View::Codesign;
        if shown {
            codesign.set_state(studio.codesign.get_untracked().as_deref());
            studio.parsed.with(|p| codesign.set_base(p.as_ref().ok()));
            codesign.load_module();
        }
        codesign.set_shown(shown);
    });
    // The Routing view is in a module of its own too: it gets its state from the link and whether
    // it is shown, and the design's Switch dimension to price its savings on.
    module_bridge::ROUTING.listen_app(
        move |json| {
            if let Ok(link) = serde_json::from_slice::<RouteLink>(json.as_bytes()) {
                if studio.route.with_untracked(|r| *r != link) {
                    studio.edit_route(|r| *r = link);
                }
            }
        },
        |_| {},
    );
    Effect::new(move |_| {
        let routing = module_bridge::ROUTING;
        let shown = view.get() == View::Routing;
        if shown {
            routing.set_state(
                serde_json::to_string(&studio.route.get_untracked())
                    .ok()
                    .as_deref(),
            );
            let design = studio.parsed.with(|p| {
                let sc = p.as_ref().ok()?;
                studio
                    .outcome
                    .with(|o| o.study.as_ref().and_then(|s| SwitchDesign::of(sc, s)))
            });
            routing.set_base(design.as_ref());
            routing.load_module();
        }
        routing.set_shown(shown);
    });
    // The Cluster view shares the Routing view's module; the app carries its state unread.
    module_bridge::CLUSTER.listen_app(
        move |json| {
            if studio
                .cluster
                .with_untracked(|c| c.as_deref() != Some(json.as_str()))
            {
                studio.cluster.set(Some(json));
            }
        },
        |_| {},
    );
    Effect::new(move |_| {
        let cluster = module_bridge::CLUSTER;
        let shown = view.get() == View::Cluster;
        if shown {
            cluster.set_state(studio.cluster.get_untracked().as_deref());
            cluster.load_module();
        }
        cluster.set_shown(shown);
    });
    // Compare shapes and Landscape share the Co-design view's module: each gets the design while
    // it is shown; the Landscape gets the pair a link carried and gives back the pair picked.
    Effect::new(move |_| {
        let shapes = module_bridge::SHAPES;
        let shown = view.get() == View::Shapes;
        if shown {
            studio.parsed.with(|p| shapes.set_base(p.as_ref().ok()));
            shapes.load_module();
        }
        shapes.set_shown(shown);
    });
    module_bridge::LANDSCAPE.listen_app(
        move |json| {
            if let Ok(pair) = serde_json::from_slice::<Option<(usize, usize)>>(json.as_bytes()) {
                if studio.landscape.get_untracked() != pair {
                    studio.landscape.set(pair);
                }
            }
        },
        |_| {},
    );
    Effect::new(move |_| {
        let pair = serde_json::to_string(&studio.landscape.get()).unwrap_or_default();
        module_bridge::LANDSCAPE.push_state(&pair);
    });
    Effect::new(move |_| {
        let landscape = module_bridge::LANDSCAPE;
        let shown = view.get() == View::Landscape;
        if shown {
            let method = studio.method.get();
            studio
                .parsed
                .with(|p| landscape.set_base(p.as_ref().ok().map(|sc| (sc, method)).as_ref()));
            landscape.load_module();
        }
        landscape.set_shown(shown);
    });
    // Another tab saved a part: said in a banner when this tab shows it differently (never
    // overwritten silently either way).
    let _ = window_event_listener(leptos::ev::storage, move |ev| {
        if let Some(key) = ev.key() {
            studio.saved_elsewhere(&key, ev.new_value());
        }
    });
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
    // Every chart, in every view and module, redraws at the page's new text scale.
    Effect::new(move |first: Option<()>| {
        studio.large_text.track();
        studio.presenting.track();
        if first.is_some() {
            // After the class reaches the page.
            request_animation_frame(browser::announce_text_scale);
        }
    });
    view! {
        <div
            class="app"
            class:large-text=move || studio.large_text.get()
            class:presenting=move || studio.presenting.get()
            data-tour-step=move || studio.tour.get().map(|k| k.to_string())
        >
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
            <TourPanel studio />
            <nav class="views" aria-label="Views">
                // The tabs pattern: the selected tab is the one in the tab order, arrows move along.
                <div role="tablist" aria-label="Views" class="tabs" on:keydown=move |ev| {
                    if let Some(next) = crate::view::tab_after(view.get_untracked(), &ev.key()) {
                        ev.prevent_default();
                        view.set(next);
                        browser::focus(&format!("[data-testid={}]", next.testid()));
                    }
                }>
                    {View::ALL
                        .into_iter()
                        .map(|v| view! {
                            <button
                                type="button"
                                role="tab"
                                data-testid=v.testid()
                                class:active=move || view.get() == v
                                aria-selected=move || (view.get() == v).to_string()
                                tabindex=move || if view.get() == v { "0" } else { "-1" }
                                on:click=move |_| view.set(v)
                            >
                                {v.label()}
                            </button>
                        })
                        .collect_view()}
                </div>
            </nav>
            <main class="routing-layout" hidden=move || view.get() != View::Routing>
                {module_bridge::ROUTING.placeholder()}
            </main>
            <main class="routing-layout" hidden=move || view.get() != View::Cluster>
                {module_bridge::CLUSTER.placeholder()}
            </main>
            <main class="wide-layout" hidden=move || view.get() != View::Shapes>
                {module_bridge::SHAPES.placeholder()}
            </main>
            <main class="wide-layout" hidden=move || view.get() != View::Landscape>
                {module_bridge::LANDSCAPE.placeholder()}
            </main>
            <main class="wide-layout" hidden=move || view.get() != View::Codesign>
                {module_bridge::CODESIGN.placeholder()}
            </main>
            <main class="layout" class:hidden=move || view.get() != View::Design>
                <div class="inputs" data-testid="input-panel">
                    <NetworkPanel studio />
                    <WorkloadPanel studio />
                    <ConstraintsPanel studio />
                </div>
                <div class="outputs" data-testid="results-panel">
                    <ResultsPanel studio />
                    <SideBySidePanel studio />
                    <DesignCharts studio />
                    <ExplainPanel studio />
                    <Show when=move || view.get() == View::Design>
                        <section class="panel explore" aria-label="Explore further">
                            <h2>"Explore further"</h2>
                            <p class="hint">
                                "Is this the best shape for these NPUs? How flat is the optimum? How is the traffic routed, and what does routing do to jobs over time?"
                            </p>
                            <div class="compare-controls">
                                // The Shapes view compares the design when it opens (unless it has).
                                <button type="button" class="primary" data-testid="compare-run" on:click=move |_| view.set(View::Shapes)>
                                    "Compare network shapes"
                                </button>
                                <button type="button" data-testid="open-landscape" on:click=move |_| view.set(View::Landscape)>
                                    "Open the landscape"
                                </button>
                                <button type="button" on:click=move |_| view.set(View::Routing)>
                                    "Route the traffic"
                                </button>
                                <button type="button" data-testid="open-cluster" on:click=move |_| view.set(View::Cluster)>
                                    "Simulate a cluster over time"
                                </button>
                                <button type="button" data-testid="open-codesign" on:click=move |_| view.set(View::Codesign)>
                                    "Co-design parallelism and network"
                                </button>
                            </div>
                        </section>
                    </Show>
                </div>
            </main>
            <details class="glossary panel" data-testid="glossary">
                <summary>"Glossary and sources"</summary>
                <dl>
                    {crate::glossary::TERMS
                        .iter()
                        .map(|t| view! {
                            <dt id=t.anchor()>{t.term}</dt>
                            <dd>{t.meaning}</dd>
                        })
                        .collect_view()}
                </dl>
                <p>"Sources, and the project's documentation (Markdown):"</p>
                <ul>
                    {crate::glossary::SOURCES
                        .iter()
                        .chain(crate::glossary::DOCS.iter())
                        .map(|(title, url)| view! {
                            <li><a href=*url target="_blank" rel="noopener">{*title}</a></li>
                        })
                        .collect_view()}
                </ul>
            </details>
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
                    " · edit to all charts redrawn "
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
