//! The cost-per-dimension chart on a canvas, sized in device pixels.

use crate::charts::{draw_cost_bars, ChartStyle, CostBar};
use crate::optimize::Baseline;
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

/// The stacked cost bars of the current evaluation; the last valid drawing stays while the form is invalid.
#[component]
pub fn CostChart(
    /// The evaluation of the form, or the message of what is wrong with it.
    evaluation: Memo<Result<Baseline, String>>,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        let Ok(ev) = evaluation.get() else { return };
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let scale = window().device_pixel_ratio().max(1.0);
        let (css_w, css_h) = (
            canvas.client_width().max(200),
            canvas.client_height().max(150),
        );
        canvas.set_width((f64::from(css_w) * scale).round() as u32);
        canvas.set_height((f64::from(css_h) * scale).round() as u32);
        let labels = ev
            .network
            .dims
            .iter()
            .enumerate()
            .map(|(i, d)| format!("d{} {}", i + 1, d.topology.name()));
        let bars = CostBar::from_cost(&ev.cost, labels);
        if let Some(backend) = CanvasBackend::with_canvas_object(canvas) {
            let area = backend.into_drawing_area();
            if let Err(e) = draw_cost_bars(&area, &bars, &ChartStyle { scale }) {
                leptos::logging::error!("cost chart: {e}");
            }
        }
    });
    view! {
        <canvas
            node_ref=canvas_ref
            class="chart"
            class:stale=move || evaluation.with(Result::is_err)
            title=move || {
                if evaluation.with(Result::is_err) {
                    "Showing the last valid input: fix the form to update"
                } else {
                    ""
                }
            }
            data-testid="chart-cost"
            role="img"
            aria-label="Network cost per dimension, stacked by links, switches and NICs"
        ></canvas>
    }
}
