//! The guided tour's panel: the step's text (from `tour::tour_steps`, with the study's numbers),
//! back and next, and each step shows its view. The step is part of the link.

use super::studio::Studio;
use crate::tour::tour_steps;
use leptos::prelude::*;

/// Scroll `selector`'s element to the middle of the window, trying `tries` more times 100 ms
/// apart while it is not on the page yet; then mark step `k` framed (`data-tour-framed` on the
/// body, for tools that drive the page).
fn frame_target(k: usize, selector: &'static str, tries: u32) {
    set_timeout(
        move || {
            let found = document().query_selector(selector).ok().flatten();
            match found {
                Some(el) => {
                    let opts = web_sys::ScrollIntoViewOptions::new();
                    opts.set_block(web_sys::ScrollLogicalPosition::Center);
                    el.scroll_into_view_with_scroll_into_view_options(&opts);
                    if let Some(body) = document().body() {
                        let _ = body.set_attribute("data-tour-framed", &k.to_string());
                    }
                }
                None if tries > 0 => frame_target(k, selector, tries - 1),
                None => {}
            }
        },
        std::time::Duration::from_millis(100),
    );
}

#[component]
pub fn TourPanel(studio: Studio) -> impl IntoView {
    // Computed only while the tour is open (not on every edit).
    let open = Memo::new(move |_| studio.tour.get().is_some());
    let steps = Memo::new(move |_| {
        if !open.get() {
            return Vec::new();
        }
        studio
            .outcome
            .with(|o| o.study.as_ref().map(|s| tour_steps(s)).unwrap_or_default())
    });
    // Each step shows its view, and scrolls to what it talks about (a module view may take a
    // moment to mount: looked for again for up to two seconds).
    Effect::new(move |_| {
        let Some(k) = studio.tour.get() else { return };
        if let Some(step) = steps.with_untracked(|s| s.get(k).cloned()) {
            if studio.view.get_untracked() != step.view {
                studio.view.set(step.view);
            }
            frame_target(k, step.target, 20);
        }
    });
    let go = move |k: usize| studio.tour.set(Some(k));
    move || {
        let Some(k) = studio.tour.get() else {
            // On a first visit, the tour is offered in a line above the views.
            return studio.first_visit.get().then(|| {
                view! {
                    <aside class="tour tour-offer" aria-label="Guided tour" data-testid="tour-offer">
                        <p>
                            <strong>"New here? "</strong>
                            "A six-step guided tour of LIBRA's GPT-3 case: from the uniform split to the \
                             optimum, the Pareto front, the landscape, other network shapes, and what \
                             to try next."
                        </p>
                        <div class="tour-nav">
                            <button type="button" data-testid="tour-dismiss" on:click=move |_| studio.first_visit.set(false)>"No thanks"</button>
                            <button type="button" class="primary" data-testid="tour-next" on:click=move |_| studio.start_tour()>
                                "Start the tour →"
                            </button>
                        </div>
                    </aside>
                }
                .into_any()
            });
        };
        let all = steps.get();
        let n = all.len();
        let step = all.get(k.min(n.saturating_sub(1)))?.clone();
        let k = k.min(n - 1);
        Some(view! {
            <aside class="tour" aria-label="Guided tour" data-testid="tour" data-value=k.to_string()>
                <p class="muted">{format!("Guided tour · step {} of {n}", k + 1)}</p>
                <h2 data-testid="tour-title">{step.title}</h2>
                <p>{step.text}</p>
                <div class="tour-nav">
                    <button type="button" data-testid="tour-back" disabled=k == 0 on:click=move |_| go(k.saturating_sub(1))>
                        "← Back"
                    </button>
                    <button type="button" data-testid="tour-close" on:click=move |_| studio.tour.set(None)>
                        "Close"
                    </button>
                    {if k + 1 < n {
                        view! {
                            <button type="button" class="primary" data-testid="tour-next" on:click=move |_| go(k + 1)>
                                "Next →"
                            </button>
                        }.into_any()
                    } else {
                        view! {
                            <button type="button" class="primary" data-testid="tour-next" on:click=move |_| studio.tour.set(None)>
                                "Finish"
                            </button>
                        }.into_any()
                    }}
                </div>
            </aside>
        }.into_any())
    }
}
