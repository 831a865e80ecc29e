//! A canvas in device pixels that a chart function draws on, again whenever the signals that the
//! function reads change.

use super::browser;
use crate::charts::dyn_backend::DynBackend;
use crate::charts::ChartStyle;
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use plotters_canvas::CanvasBackend;

/// The drawing area a chart function gets.
pub type Area<'a> = DrawingArea<DynBackend<'a>, Shift>;

/// A chart canvas. `draw` reads signals (tracked) and draws; returning `Err` logs why.
#[component]
pub fn PlotCanvas(
    /// Draws the chart.
    draw: impl Fn(&Area<'_>, &ChartStyle) -> Result<(), String> + 'static,
    /// `data-testid`.
    testid: &'static str,
    /// What it shows, for screen readers.
    label: &'static str,
    /// Extra CSS class.
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let dpr = browser::fit_to_device_pixels(&canvas);
        let style = ChartStyle { scale: dpr };
        if let Some(mut backend) = CanvasBackend::with_canvas_object(canvas) {
            if let Err(e) = draw(&DynBackend(&mut backend).into_drawing_area(), &style) {
                leptos::logging::error!("{testid}: {e}");
            }
        }
    });
    view! {
        <canvas node_ref=canvas_ref class=format!("chart {class}") data-testid=testid role="img" aria-label=label></canvas>
    }
}
