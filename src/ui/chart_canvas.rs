//! The one canvas component for every chart of the app (`charts::Chart`): drawn in device pixels
//! whenever its data changes, with its numbers as a table and PNG and SVG export; a chart with
//! pickable points (the Design view's front) shows a point's values on hover or with the arrow
//! keys, and loads it on click or Enter.

use super::browser;
use super::canvas_text::MeasuredCanvas;
use super::chart_table::ChartTable;
use crate::charts::chart::{points_json, svg, Area};
use crate::charts::dyn_backend::DynBackend;
use crate::charts::tables::DataTable;
use crate::charts::{Chart, ChartStyle, PointInfo};
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use std::sync::Arc;

/// How near (CSS pixels) the pointer must be to a point to pick it.
const PICK_PX: f64 = 14.0;

/// A chart on a canvas, with its table and export buttons.
#[component]
pub fn ChartCanvas<C: Chart>(
    /// Which chart.
    chart: C,
    /// What it shows (None: nothing yet, or the input is invalid: the last drawing stays).
    #[prop(into)]
    data: Signal<Option<C::Data>>,
    /// Lengths and text scaled by this on top of the device pixel ratio (projector, large text).
    #[prop(optional, into)]
    text_scale: Option<Signal<f64>>,
    /// Draw in a task of its own (charts heavy enough that four in one task would be a long task).
    #[prop(optional)]
    own_task: bool,
    /// Greyed out: the data is an earlier input's.
    #[prop(optional, into)]
    stale: Option<Signal<bool>>,
    /// Called with a pickable point the visitor clicked or chose with Enter (None: the points are
    /// not pickable).
    #[prop(default = None)]
    on_pick: Option<Callback<(C::Data, usize)>>,
    /// The points show their tooltip (hover, arrow keys) without being loaded.
    #[prop(optional)]
    hover_only: bool,
    /// Called after each drawing with its milliseconds.
    #[prop(optional)]
    on_drawn: Option<Callback<f64>>,
    /// Called when an export fails, with why.
    #[prop(optional)]
    on_error: Option<Callback<String>>,
    /// Extra CSS class of the canvas.
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    // Only these closures know the chart's type: the component itself is compiled once, not once
    // per chart family (each copy would cost the wasm kilobytes).
    let erased = Erased {
        testid: chart.testid(),
        description: chart.description(),
        file_stem: chart.file_stem(),
        present: Signal::derive(move || data.with(Option::is_some)),
        draw: Arc::new(move |area, highlight, style| {
            data.with_untracked(|d| d.as_ref().map(|d| chart.draw(area, d, highlight, style)))
        }),
        table: Arc::new(move || data.with(|d| d.as_ref().map(|d| chart.table(d)))),
        point: Arc::new(move |i| data.with(|d| d.as_ref().and_then(|d| chart.point(d, i)))),
        svg: Arc::new(move |w, h| data.with_untracked(|d| d.as_ref().map(|d| svg(chart, d, w, h)))),
        pick: on_pick.map(|f| {
            Arc::new(move |i| {
                if let Some(d) = data.get_untracked() {
                    f.run((d, i));
                }
            }) as Arc<dyn Fn(usize) + Send + Sync>
        }),
    };
    erased_canvas(
        erased, text_scale, own_task, stale, on_drawn, on_error, class, hover_only,
    )
}

/// The text scale a chart is drawn at in `canvas`: Large text enlarges a chart only as far as
/// its box has room (on a phone the page's text grows, the chart's stays what fits its 300-odd
/// pixels).
fn within_box(canvas: &web_sys::HtmlCanvasElement, scale: f64) -> f64 {
    scale.min((f64::from(canvas.client_width()) / 420.0).max(1.0))
}

type DrawFn = dyn Fn(&Area<'_>, Option<usize>, &ChartStyle) -> Option<Result<Vec<(i32, i32)>, String>>
    + Send
    + Sync;

type SvgFn = dyn Fn(u32, u32) -> Option<Result<String, String>> + Send + Sync;

/// A chart with its data, its type forgotten.
struct Erased {
    testid: &'static str,
    description: &'static str,
    file_stem: &'static str,
    /// Whether there is data (tracked: what the drawing follows).
    present: Signal<bool>,
    /// Draws the data now (None: there is none); untracked.
    draw: Arc<DrawFn>,
    /// The table of the data (tracked).
    table: Arc<dyn Fn() -> Option<DataTable> + Send + Sync>,
    /// A pickable point's tooltip (tracked).
    point: Arc<dyn Fn(usize) -> Option<PointInfo> + Send + Sync>,
    /// The chart as SVG of a size; untracked.
    svg: Arc<SvgFn>,
    /// Loads a picked point (None: points are not pickable).
    pick: Option<Arc<dyn Fn(usize) + Send + Sync>>,
}

// Compiled once for every chart family: its options as plain arguments.
#[allow(clippy::too_many_arguments)]
fn erased_canvas(
    erased: Erased,
    text_scale: Option<Signal<f64>>,
    own_task: bool,
    stale: Option<Signal<bool>>,
    on_drawn: Option<Callback<f64>>,
    on_error: Option<Callback<String>>,
    class: &'static str,
    hover_only: bool,
) -> impl IntoView {
    let Erased {
        testid,
        description,
        file_stem,
        present,
        draw: draw_data,
        table,
        point,
        svg,
        pick: pick_fn,
    } = erased;
    let canvas_ref = NodeRef::<Canvas>::new();
    let hover = RwSignal::new(None::<usize>);
    // Pixel positions of the pickable points (device pixels), from the last drawing.
    let points = StoredValue::new(Vec::<(i32, i32)>::new());
    // Points with tooltips; `loads`: a click or Enter loads the point.
    let loads = pick_fn.is_some();
    let pickable = loads || hover_only;
    // Handles, so that every closure below can copy them.
    let (draw_data, table, point, svg, pick_fn) = (
        StoredValue::new(draw_data),
        StoredValue::new(table),
        StoredValue::new(point),
        StoredValue::new(svg),
        StoredValue::new(pick_fn),
    );
    let draw = move |highlight: Option<usize>, scale: f64| {
        let Some(canvas) = canvas_ref.try_get_untracked().flatten() else {
            return;
        };
        // A chart in a hidden view is drawn when it is shown (its box then changes, and the
        // backing store emptied here never fits it): hidden redraws cost frames for nothing.
        if canvas.client_width() == 0 {
            canvas.set_width(0);
            return;
        }
        let started = browser::now_ms();
        let dpr = browser::fit_to_device_pixels(&canvas);
        let style = ChartStyle {
            scale: dpr * within_box(&canvas, scale),
        };
        let canvas_el: web_sys::HtmlCanvasElement = canvas.clone();
        let Some(mut backend) = MeasuredCanvas::new(canvas) else {
            return;
        };
        let area = DynBackend(&mut backend).into_drawing_area();
        let Some(drawn) = draw_data.with_value(|f| f(&area, highlight, &style)) else {
            return;
        };
        match drawn {
            Ok(p) => {
                // The points in CSS pixels, for tests and tools that drive the page.
                if !p.is_empty() {
                    let _ = canvas_el.set_attribute("data-points", &points_json(&p, dpr));
                }
                points.set_value(p);
            }
            Err(e) => leptos::logging::error!("{testid}: {e}"),
        }
        // How long this chart took to draw, for the browser tests to break a redraw down.
        let ms = browser::now_ms() - started;
        let _ = canvas_el.set_attribute("data-draw-ms", &format!("{ms:.2}"));
        if let Some(f) = on_drawn {
            f.run(ms);
        }
    };
    // Redrawn when the canvas's box changes (a wider window, a projector, Large text, Present,
    // print) or the page's text scale does: the backing store always matches the box.
    let refits = RwSignal::new(0u32);
    // The latest draw asked of the task to come (own_task charts).
    let wanted = std::rc::Rc::new(std::cell::Cell::new(None::<(Option<usize>, f64)>));
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let el: web_sys::HtmlCanvasElement = canvas.clone();
        let watch = browser::on_resize(&canvas, move || {
            if browser::needs_refit(&el) {
                refits.update(|n| *n += 1);
            }
        });
        let rescale = browser::on_window_event(browser::TEXT_SCALE_EVENT, move || {
            refits.update(|n| *n += 1)
        });
        // Dropped (and so ended) with the component.
        StoredValue::new_local((watch, rescale));
    });
    Effect::new(move |_| {
        refits.track();
        let scale = match text_scale {
            Some(s) => s.get(),
            None => canvas_ref
                .get_untracked()
                .map_or(1.0, |c| browser::page_text_scale(&c)),
        };
        let highlight = hover.get();
        if !present.get() {
            return;
        }
        if !own_task {
            return draw(highlight, scale);
        }
        // Requests made before the task runs coalesce into one draw of the latest (new data and
        // the resize it causes drew a 1,440-run chart twice in one frame).
        if wanted.replace(Some((highlight, scale))).is_none() {
            let wanted = wanted.clone();
            set_timeout(
                move || {
                    if let Some((h, s)) = wanted.take() {
                        draw(h, s);
                    }
                },
                std::time::Duration::ZERO,
            );
        }
    });
    let nearest = move |ev: &web_sys::MouseEvent| -> Option<usize> {
        let canvas = canvas_ref.get_untracked()?;
        let rect = canvas.get_bounding_client_rect();
        let dpr = window().device_pixel_ratio().max(1.0);
        let (x, y) = (
            (f64::from(ev.client_x()) - rect.left()) * dpr,
            (f64::from(ev.client_y()) - rect.top()) * dpr,
        );
        points.with_value(|pts| {
            pts.iter()
                .enumerate()
                .map(|(i, p)| (i, (f64::from(p.0) - x).hypot(f64::from(p.1) - y)))
                .filter(|(_, d)| *d <= PICK_PX * dpr)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| i)
        })
    };
    let pick = move |i: usize| {
        if let Some(f) = pick_fn.with_value(Clone::clone) {
            hover.set(None);
            f(i);
        }
    };
    let tooltip = move || {
        let i = hover.get()?;
        let p = point.with_value(|f| f(i))?;
        Some(view! {
            <div class="tooltip" data-testid="pareto-tooltip" role="status">
                <strong>{p.title}</strong>
                {p.lines.into_iter().map(|l| view! { <span>{l}</span> }).collect_view()}
                {loads.then(|| view! { <span class="muted">"click or Enter to load this design"</span> })}
            </div>
        })
    };
    let failed = move |what: &str, e: String| match on_error {
        Some(f) => f.run(format!("{what} export failed: {e}")),
        None => leptos::logging::error!("{what} export failed: {e}"),
    };
    // PNG at 1, 2 or 3 times the chart's displayed size (the text as shown: Large text and
    // Present included), drawn afresh on a canvas of that size rather than scaled.
    let png_scale = RwSignal::new(2u32);
    let export_png = move |_| {
        let Some(c) = canvas_ref.get_untracked() else {
            return;
        };
        let k = png_scale.get_untracked();
        let scale = match text_scale {
            Some(s) => s.get_untracked(),
            None => browser::page_text_scale(&c),
        };
        let (w, h) = (
            c.client_width().max(200) as u32,
            c.client_height().max(150) as u32,
        );
        let result = browser::offscreen_canvas(w * k, h * k).and_then(|off| {
            let style = ChartStyle {
                scale: f64::from(k) * within_box(&c, scale),
            };
            let mut backend = MeasuredCanvas::new(off.clone()).ok_or("no 2D context")?;
            let area = DynBackend(&mut backend).into_drawing_area();
            match draw_data.with_value(|f| f(&area, None, &style)) {
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => return Err("nothing to draw yet".into()),
            }
            drop(area);
            browser::download_png(&off, &format!("{file_stem}.png"))
        });
        if let Err(e) = result {
            failed("PNG", e);
        }
    };
    let export_svg = move |_| {
        let (w, h) = canvas_ref.get_untracked().map_or((900, 420), |c| {
            (
                c.client_width().max(200) as u32,
                c.client_height().max(150) as u32,
            )
        });
        let Some(result) = svg.with_value(|f| f(w, h)) else {
            return;
        };
        let result = result
            .and_then(|svg| browser::download(&svg, &format!("{file_stem}.svg"), "image/svg+xml"));
        if let Err(e) = result {
            failed("SVG", e);
        }
    };
    // The chart's numbers (its table) as CSV, for a paper's own plots.
    let export_csv = move |_| {
        let Some(t) = table.with_value(|f| f()) else {
            return;
        };
        if let Err(e) = browser::download(&t.to_csv(), &format!("{file_stem}.csv"), "text/csv") {
            failed("CSV", e);
        }
    };
    let stale = move || stale.is_some_and(|s| s.get());
    let has_data = move || present.get();
    view! {
        <figure class="chart-box" class:front=pickable>
            <canvas
                node_ref=canvas_ref
                class=format!("chart {class}")
                class:stale=stale
                class:pickable=move || loads && hover.get().is_some()
                data-testid=testid
                role="img"
                aria-label=if loads {
                    format!("{description}. Arrow keys choose a point, Enter loads it.")
                } else if pickable {
                    format!("{description}. Arrow keys choose a point.")
                } else {
                    description.to_string()
                }
                on:mousemove=move |ev| {
                    if pickable {
                        let n = nearest(&ev);
                        if hover.get_untracked() != n {
                            hover.set(n);
                        }
                    }
                }
                on:mouseleave=move |_| {
                    if hover.get_untracked().is_some() {
                        hover.set(None);
                    }
                }
                tabindex=pickable.then_some("0")
                on:keydown=move |ev| {
                    if !pickable {
                        return;
                    }
                    let len = points.with_value(Vec::len);
                    let key = ev.key();
                    if let Some(i) = crate::charts::front::point_after(hover.get_untracked(), len, &key) {
                        ev.prevent_default();
                        hover.set(Some(i));
                    } else if key == "Enter" || key == " " {
                        if let Some(i) = hover.get_untracked() {
                            ev.prevent_default();
                            pick(i);
                        }
                    } else if key == "Escape" {
                        hover.set(None);
                    }
                }
                on:blur=move |_| {
                    if hover.get_untracked().is_some() {
                        hover.set(None);
                    }
                }
                on:click=move |ev| {
                    if let Some(i) = nearest(&ev) {
                        pick(i);
                    }
                }
            ></canvas>
            {move || pickable.then(tooltip)}
            <ChartTable
                testid=testid
                table=Callback::new(move |()| table.with_value(|f| f()))
            />
            <figcaption class="chart-tools" class:hidden=move || !has_data()>
                <span class="muted">{description}</span>
                <button type="button" data-testid=format!("{testid}-png") on:click=export_png>
                    "PNG"
                </button>
                <select
                    class="png-scale"
                    data-testid=format!("{testid}-png-scale")
                    aria-label="PNG resolution: times the displayed size"
                    on:change=move |ev| {
                        png_scale.set(event_target_value(&ev).parse().unwrap_or(2));
                    }
                >
                    <option value="1">"1×"</option>
                    <option value="2" selected=true>"2×"</option>
                    <option value="3">"3×"</option>
                </select>
                <button type="button" data-testid=format!("{testid}-svg") on:click=export_svg>
                    "SVG"
                </button>
                <button type="button" data-testid=format!("{testid}-csv") on:click=export_csv>
                    "CSV"
                </button>
            </figcaption>
        </figure>
    }
}
