//! The Design view's charts of the study ([`StudyChart::ALL`]), with the pinned study beside it: text enlarged in
//! large-text and presentation modes, greyed while the input is invalid, the front's points
//! loadable, and an edit's time measured to the last chart redrawn (`redraw-ms`).

use super::browser;
use super::chart_canvas::ChartCanvas;
use super::studio::{Banner, Studio};
use crate::charts::{StudyChart, StudyShown};
use leptos::prelude::*;

#[component]
pub fn DesignCharts(studio: Studio) -> impl IntoView {
    let study = Memo::new(move |_| studio.outcome.with(|o| o.study.clone()));
    let data = Signal::derive(move || {
        study.get().map(|study| StudyShown {
            study,
            pinned: studio.pinned_study.get(),
        })
    });
    let text_scale = Signal::derive(move || {
        if studio.large_text.get() || studio.presenting.get() {
            1.5
        } else {
            1.0
        }
    });
    let stale = Signal::derive(move || studio.outcome.with(|o| o.stale));
    // An edit's time runs to the last of the charts redrawn.
    let on_drawn = Callback::new(move |_ms: f64| {
        if let Some(t0) = studio.edited_at.get_value() {
            let drawn = studio.charts_drawn.get_value() + 1;
            studio.charts_drawn.set_value(drawn);
            if drawn >= StudyChart::ALL.len() {
                studio.edited_at.set_value(None);
                studio.redraw_ms.set(Some(browser::now_ms() - t0));
            }
        }
    });
    let on_pick = Callback::new(move |(shown, i): (StudyShown, usize)| {
        let budget = shown
            .study
            .front
            .as_ref()
            .ok()
            .and_then(|f| f.points.get(i))
            .map(|p| p.budget_usd);
        if let Some(budget) = budget {
            studio.restructure(|f| f.load_front_point(budget));
        }
    });
    let on_error = Callback::new(move |e: String| studio.banner.set(Some(Banner::Error(e))));
    view! {
        <section class="panel charts" aria-label="Charts">
            {StudyChart::ALL
                .into_iter()
                .map(|chart| {
                    view! {
                        <ChartCanvas
                            chart
                            data
                            text_scale
                            stale
                            on_drawn
                            on_error
                            on_pick=(chart == StudyChart::Front).then_some(on_pick)
                        />
                    }
                })
                .collect_view()}
        </section>
    }
}
