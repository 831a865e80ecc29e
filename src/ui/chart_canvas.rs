//! One chart of the results on a canvas sized in device pixels, redrawn when the study changes,
//! with PNG and SVG export; on the front, hovering a point shows its values and clicking loads it.

use super::browser;
use super::chart_table::ChartTable;
use super::studio::Studio;
use crate::charts::dyn_backend::DynBackend;
use crate::charts::{chart_svg, ChartStyle, StudyChart};
use crate::format::{duration_ns, usd};
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

/// How near (CSS pixels) the pointer must be to a front point to pick it.
const PICK_PX: f64 = 14.0;

/// A chart of the current study.
#[component]
pub fn ChartCanvas(
    /// The app state.
    studio: Studio,
    /// Which chart.
    chart: StudyChart,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    let hover = RwSignal::new(None::<usize>);
    // Pixel positions of the front's points (device pixels), from the last drawing.
    let points = StoredValue::new(Vec::<(i32, i32)>::new());
    let study = Memo::new(move |_| studio.outcome.with(|o| o.study.clone()));
    let stale = move || studio.outcome.with(|o| o.stale);
    Effect::new(move |_| {
        let large = studio.large_text.get() || studio.presenting.get();
        let highlight = hover.get();
        let Some(s) = study.get() else { return };
        let pinned = studio.pinned_study.get();
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let drawing_started = browser::now_ms();
        let dpr = browser::fit_to_device_pixels(&canvas);
        let style = ChartStyle {
            scale: dpr * if large { 1.5 } else { 1.0 },
        };
        let canvas_el: web_sys::HtmlCanvasElement = canvas.clone();
        if let Some(mut backend) = CanvasBackend::with_canvas_object(canvas) {
            match chart.draw(
                &DynBackend(&mut backend).into_drawing_area(),
                &s,
                pinned.as_deref(),
                highlight,
                &style,
            ) {
                Ok(p) => {
                    // The points in CSS pixels, for tests and tools that drive the page.
                    if !p.is_empty() {
                        let css: Vec<String> = p
                            .iter()
                            .map(|(x, y)| {
                                format!("[{:.1},{:.1}]", f64::from(*x) / dpr, f64::from(*y) / dpr)
                            })
                            .collect();
                        let _ =
                            canvas_el.set_attribute("data-points", &format!("[{}]", css.join(",")));
                    }
                    points.set_value(p)
                }
                Err(e) => leptos::logging::error!("{}: {e}", chart.testid()),
            }
            // How long this chart took to draw, for the browser tests to break a redraw down.
            let ms = browser::now_ms() - drawing_started;
            let _ = canvas_el.set_attribute("data-draw-ms", &format!("{ms:.2}"));
        }
        // An edit's time runs to the last of the charts redrawn.
        if let Some(t0) = studio.edited_at.get_value() {
            let drawn = studio.charts_drawn.get_value() + 1;
            studio.charts_drawn.set_value(drawn);
            if drawn >= StudyChart::ALL.len() {
                studio.edited_at.set_value(None);
                studio.redraw_ms.set(Some(browser::now_ms() - t0));
            }
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
    let tooltip = move || {
        let i = hover.get()?;
        let s = study.get()?;
        let p = s.front.as_ref().ok()?.points.get(i)?.clone();
        let bw: Vec<String> = p.bw_gbps.iter().map(|b| format!("{b:.1}")).collect();
        Some(view! {
            <div class="tooltip" data-testid="pareto-tooltip" role="status">
                <strong>{format!("budget {}", usd(p.budget_usd))}</strong>
                <span>{format!("time {} · cost {}", duration_ns(p.time_ns), usd(p.cost_usd))}</span>
                <span>{format!("B = {} GB/s", bw.join(" / "))}</span>
                <span class="muted">"click or Enter to load this design"</span>
            </div>
        })
    };
    let export_png = move |_| {
        if let Some(c) = canvas_ref.get_untracked() {
            if let Err(e) = browser::download_png(&c, &format!("{}.png", chart.file_stem())) {
                studio.banner.set(Some(super::studio::Banner::Error(format!(
                    "PNG export failed: {e}"
                ))));
            }
        }
    };
    let export_svg = move |_| {
        let Some(s) = study.get_untracked() else {
            return;
        };
        let (w, h) = canvas_ref.get_untracked().map_or((900, 420), |c| {
            (
                c.client_width().max(200) as u32,
                c.client_height().max(150) as u32,
            )
        });
        let pinned = studio.pinned_study.get_untracked();
        let result = chart_svg(chart, &s, pinned.as_deref(), w, h).and_then(|svg| {
            browser::download(&svg, &format!("{}.svg", chart.file_stem()), "image/svg+xml")
        });
        if let Err(e) = result {
            studio.banner.set(Some(super::studio::Banner::Error(format!(
                "SVG export failed: {e}"
            ))));
        }
    };
    let is_front = chart == StudyChart::Front;
    view! {
        <figure class="chart-box" class:front=is_front>
            <canvas
                node_ref=canvas_ref
                class="chart"
                class:stale=stale
                class:pickable=move || is_front && hover.get().is_some()
                data-testid=chart.testid()
                role="img"
                aria-label=if is_front {
                    format!("{}. Arrow keys choose a point, Enter loads it.", chart.description())
                } else {
                    chart.description().to_string()
                }
                on:mousemove=move |ev| {
                    if is_front {
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
                tabindex=is_front.then_some("0")
                on:keydown=move |ev| {
                    if !is_front {
                        return;
                    }
                    let len = study.with_untracked(|s| {
                        s.as_ref().and_then(|s| s.front.as_ref().ok()).map_or(0, |f| f.points.len())
                    });
                    let key = ev.key();
                    if let Some(i) = crate::charts::front::point_after(hover.get_untracked(), len, &key) {
                        ev.prevent_default();
                        hover.set(Some(i));
                    } else if key == "Enter" || key == " " {
                        let picked = hover.get_untracked().and_then(|i| {
                            study.get_untracked()?.front.as_ref().ok()?.points.get(i).map(|p| p.budget_usd)
                        });
                        if let Some(budget) = picked {
                            ev.prevent_default();
                            hover.set(None);
                            studio.restructure(|f| f.load_front_point(budget));
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
                    if !is_front {
                        return;
                    }
                    let picked = nearest(&ev).and_then(|i| {
                        study.get_untracked()?.front.as_ref().ok()?.points.get(i).map(|p| p.budget_usd)
                    });
                    if let Some(budget) = picked {
                        hover.set(None);
                        studio.restructure(|f| f.load_front_point(budget));
                    }
                }
            ></canvas>
            {move || is_front.then(tooltip)}
            <ChartTable
                testid=chart.testid()
                table=Callback::new(move |()| {
                    let s = study.get()?;
                    let pinned = studio.pinned_study.get();
                    Some(chart.table(&s, pinned.as_deref()))
                })
            />
            <figcaption class="chart-tools">
                <span class="muted">{chart.description()}</span>
                <button type="button" data-testid=format!("{}-png", chart.testid()) on:click=export_png>
                    "PNG"
                </button>
                <button type="button" data-testid=format!("{}-svg", chart.testid()) on:click=export_svg>
                    "SVG"
                </button>
            </figcaption>
        </figure>
    }
}
