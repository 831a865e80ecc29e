//! A Plotters chart on a canvas sized in device pixels; redrawn whenever its data changes.

use crate::charts::ChartStyle;
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use plotters_canvas::CanvasBackend;

/// What a chart function draws with.
pub type Area = DrawingArea<CanvasBackend, Shift>;

/// A canvas that draws `data` with `draw`; while `data` is None it keeps its last drawing, dimmed.
#[component]
pub fn ChartCanvas<T>(
    /// The chart's data, or None while the form is invalid.
    data: Signal<Option<T>>,
    /// Draws the data on the canvas; returns an error text on failure.
    draw: fn(&Area, &T, &ChartStyle) -> Result<(), String>,
    /// `data-testid` of the canvas.
    testid: &'static str,
    /// What the chart shows, for screen readers.
    label: &'static str,
) -> impl IntoView
where
    T: Clone + Send + Sync + 'static,
{
    let canvas_ref = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        let Some(value) = data.get() else { return };
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
        if let Some(backend) = CanvasBackend::with_canvas_object(canvas) {
            let area = backend.into_drawing_area();
            if let Err(e) = draw(&area, &value, &ChartStyle { scale }) {
                leptos::logging::error!("{testid}: {e}");
            }
        }
    });
    view! {
        <canvas
            node_ref=canvas_ref
            class="chart"
            class:stale=move || data.with(Option::is_none)
            data-testid=testid
            role="img"
            aria-label=label
            title=move || {
                if data.with(Option::is_none) {
                    "Showing the last valid input: fix the form to update"
                } else {
                    ""
                }
            }
        ></canvas>
    }
}
