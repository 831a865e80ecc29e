//! The Pareto front: the least training time at each network cost, with the current design and the
//! uniform allocation marked. Cost is on a log axis (the budgets are log-spaced over a wide range);
//! time is on a log axis too when it spans more than a decade, else linear.

use super::{palette, ChartStyle};
use crate::format::duration_ns;
use plotters::coord::combinators::BindKeyPoints;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One design on the chart: network cost ($) and training time (ns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Design {
    pub cost_usd: f64,
    pub time_ns: f64,
}

/// What the front chart shows.
#[derive(Clone, Debug, PartialEq)]
pub struct FrontChart {
    /// The front, by increasing cost.
    pub front: Vec<Design>,
    pub current: Option<Design>,
    pub uniform: Option<Design>,
    /// A point of the front to highlight (hovered).
    pub highlight: Option<usize>,
    /// A pinned scenario's front and design, drawn beside for comparison.
    pub pinned: Option<(Vec<Design>, Option<Design>)>,
}

/// The front point a key moves the keyboard's choice to, among `len` points ordered by budget:
/// Right/Up to the next (dearer, faster), Left/Down to the previous, Home and End to the ends; the
/// first arrow picks the first point. None for other keys (the choice stays).
pub fn point_after(current: Option<usize>, len: usize, key: &str) -> Option<usize> {
    let last = len.checked_sub(1)?;
    Some(match (key, current) {
        ("ArrowRight" | "ArrowUp", Some(i)) => (i + 1).min(last),
        ("ArrowLeft" | "ArrowDown", Some(i)) => i.saturating_sub(1).min(last),
        ("ArrowRight" | "ArrowUp" | "ArrowLeft" | "ArrowDown" | "Home", _) => 0,
        ("End", _) => last,
        _ => return None,
    })
}

/// Short dollars for axis labels: `$2.5M`, `$120k`.
pub fn short_usd(v: f64) -> String {
    let (scaled, suffix) = match v.abs() {
        x if x >= 1e9 => (v / 1e9, "B"),
        x if x >= 1e6 => (v / 1e6, "M"),
        x if x >= 1e3 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    format!("${}{suffix}", trimmed(scaled, 3))
}

/// `v` with at most `digits` decimals and no trailing zeros: `2.500` -> `2.5`, `10.000` -> `10`.
pub fn trimmed(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Axis marks at 1, 2 and 5 times the powers of ten between `lo` and `hi` (only 1s when that would
/// crowd the axis).
pub fn nice_log_points(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return Vec::new();
    }
    let decades = (hi / lo).log10();
    let steps: &[f64] = if decades > 4.0 {
        &[1.0]
    } else if decades > 2.0 {
        &[1.0, 3.0]
    } else {
        &[1.0, 2.0, 5.0]
    };
    let mut out = Vec::new();
    let mut p = 10f64.powf(lo.log10().floor());
    while p <= hi {
        for m in steps {
            let v = p * m;
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
        p *= 10.0;
    }
    out
}

fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    (lo <= hi).then_some((lo, hi))
}

/// Draw the front on `area`; returns the pixel position of each front point (for hit testing).
pub fn draw_front<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &FrontChart,
    style: &ChartStyle,
) -> Result<Vec<(i32, i32)>, DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&WHITE)?;
    let all = || {
        data.front
            .iter()
            .chain(data.current.iter())
            .chain(data.uniform.iter())
            .chain(
                data.pinned
                    .iter()
                    .flat_map(|(f, c)| f.iter().chain(c.iter())),
            )
    };
    let (Some((x0, x1)), Some((y0, y1))) = (
        bounds(all().map(|d| d.cost_usd)),
        bounds(all().map(|d| d.time_ns / 1e6)),
    ) else {
        area.present()?;
        return Ok(Vec::new());
    };
    let (xa, xb) = (x0 / 1.15, x1 * 1.15);
    let x = (xa..xb)
        .log_scale()
        .with_key_points(nice_log_points(xa, xb));
    // One coordinate type for both cases (a log axis; over less than a decade it reads as linear,
    // with evenly spaced marks): half the code in the wasm.
    let y = if y1 / y0 > 10.0 {
        let (ya, yb) = (y0 / 1.1, y1 * 1.1);
        (ya..yb)
            .log_scale()
            .with_key_points(nice_log_points(ya, yb))
    } else {
        let pad = ((y1 - y0) * 0.08).max(y1 * 0.01);
        let (ya, yb) = ((y0 - pad).max(y0 / 2.0), y1 + pad);
        (ya..yb)
            .log_scale()
            .with_key_points(nice_linear_points(ya, yb, 6))
    };
    plot(area, data, style, x, y)
}

/// Marks for a log axis over `lo..hi`: 1-2-5 per decade, or, under a decade, round values
/// spaced evenly on the log scale (about 6): marks evenly spaced in value would crowd the top and
/// leave the bottom, where the fastest designs lie, without one.
pub fn axis_points(lo: f64, hi: f64) -> Vec<f64> {
    if hi / lo >= 10.0 {
        nice_log_points(lo, hi)
    } else {
        log_spaced_points(lo, hi, 6)
    }
}

/// About `n` round values within `lo..=hi`, each at least `(hi / lo)^(1/n)` times the one
/// before (a log axis under a decade).
pub fn log_spaced_points(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && hi.is_finite() && n > 0) {
        return Vec::new();
    }
    let ratio = (hi / lo).powf(1.0 / n as f64);
    // Round values as fine as the bottom of the axis needs.
    let fine = nice_linear_points(
        lo,
        hi,
        (2.0 * (hi - lo) / (lo * (ratio - 1.0))).ceil() as usize,
    );
    let mut out: Vec<f64> = Vec::new();
    for v in fine {
        if out.last().is_none_or(|last| v >= last * ratio * 0.97) {
            out.push(v);
        }
    }
    out
}

/// About `n` evenly spaced marks at round values (1, 2 or 5 times a power of ten apart) within
/// `lo..=hi`.
pub fn nice_linear_points(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(hi > lo && lo.is_finite() && hi.is_finite() && n > 0) {
        return Vec::new();
    }
    let raw = (hi - lo) / n as f64;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p);
    let mut v = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while v <= hi {
        out.push(v);
        v += step;
    }
    out
}

fn plot<DB, X, Y>(
    area: &DrawingArea<DB, Shift>,
    data: &FrontChart,
    style: &ChartStyle,
    x: X,
    y: Y,
) -> Result<Vec<(i32, i32)>, DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area)
        .margin(style.px(12.0))
        .caption(
            "Pareto front: least training time at each network cost",
            (
                "sans-serif",
                style.title_font(
                    16.0,
                    "Pareto front: least training time at each network cost",
                    area.dim_in_pixel().0,
                ),
            )
                .into_font()
                .color(&palette::INK),
        )
        .x_label_area_size(style.px(40.0))
        .y_label_area_size(style.px(64.0))
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::INK.mix(0.1))
        .x_desc("network cost ($, log scale)")
        .y_desc("training time per iteration (ms)")
        .label_style(("sans-serif", style.font(12.0)))
        .axis_desc_style(("sans-serif", style.font(13.0)))
        .x_label_formatter(&|v| short_usd(*v))
        .y_label_formatter(&|v| trimmed(*v, 4))
        .x_labels((area.dim_in_pixel().0 / style.px(72.0)).clamp(2, 30) as usize)
        .y_labels(6)
        .draw()?;
    let pts: Vec<(f64, f64)> = data
        .front
        .iter()
        .map(|d| (d.cost_usd, d.time_ns / 1e6))
        .collect();
    let r = style.px(3.0) as i32;
    chart
        .draw_series([PathElement::new(
            pts.clone(),
            palette::LINKS.stroke_width(style.px(2.0)),
        )])?
        .label("optimal designs (front)")
        .legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 4 * r, y)], palette::LINKS.stroke_width(2))
        });
    chart.draw_series(
        pts.iter()
            .map(|p| Circle::new(*p, r, palette::LINKS.filled())),
    )?;
    let big = style.px(7.0) as i32;
    if let Some((front, design)) = &data.pinned {
        let pinned: Vec<(f64, f64)> = front
            .iter()
            .map(|d| (d.cost_usd, d.time_ns / 1e6))
            .collect();
        let c = palette::PINNED;
        chart
            .draw_series([PathElement::new(
                pinned.clone(),
                c.mix(0.8).stroke_width(style.px(2.0)),
            )])?
            .label("pinned scenario's front")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 4 * r, y)], c.stroke_width(2))
            });
        let sq = style.px(2.5) as i32;
        chart.draw_series(
            pinned
                .iter()
                .map(|p| EmptyElement::at(*p) + Rectangle::new([(-sq, -sq), (sq, sq)], c.filled())),
        )?;
        if let Some(d) = design {
            let p = (d.cost_usd, d.time_ns / 1e6);
            chart.draw_series([EmptyElement::at(p)
                + Rectangle::new([(-big, -big), (big, big)], c.filled())
                + Text::new(
                    format!("pinned: {}", duration_ns(d.time_ns)),
                    (big + 4, big),
                    ("sans-serif", style.font(12.0)).into_font().color(&c),
                )])?;
        }
    }
    let marks: [(Option<Design>, &str, RGBColor); 2] = [
        (data.uniform, "uniform split", palette::UNIFORM_MARK),
        (data.current, "current design", palette::CURRENT),
    ];
    let right = chart.plotting_area().get_pixel_range().0.end;
    for (design, name, color) in marks {
        if let Some(d) = design {
            let p = (d.cost_usd, d.time_ns / 1e6);
            let text = format!("{name}: {}", duration_ns(d.time_ns));
            let font = ("sans-serif", style.font(12.0)).into_font().color(&color);
            // Right of the mark, or left of it where the text would leave the plot (a costly
            // uniform split at the right edge, on a projector in large text).
            let width = area
                .estimate_text_size(&text, &font)
                .map_or(0, |(w, _)| w as i32);
            let dx = if chart.backend_coord(&p).0 + big + 4 + width > right {
                -big - 4 - width
            } else {
                big + 4
            };
            chart
                .draw_series([EmptyElement::at(p)
                    + Circle::new((0, 0), big, color.filled())
                    + Circle::new((0, 0), big, WHITE.stroke_width(style.px(2.0)))
                    + Text::new(text, (dx, -big - style.px(10.0) as i32), font)])?
                .label(name)
                .legend(move |(x, y)| Circle::new((x + 2 * r, y), r + 2, color.filled()));
        }
    }
    if let Some(p) = data.highlight.and_then(|i| pts.get(i)) {
        chart.draw_series([Circle::new(
            *p,
            big,
            palette::INK.stroke_width(style.px(2.0)),
        )])?;
    }
    super::draw_legend(&mut chart, SeriesLabelPosition::LowerLeft, style)?;
    let pixels = pts.iter().map(|p| chart.backend_coord(p)).collect();
    area.present()?;
    Ok(pixels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_axis_under_a_decade_has_marks_where_the_fastest_designs_lie() {
        // The shape comparison's times: 640 ms to 2.2 s. Evenly spaced marks (1000, 1500,
        // 2000) left the envelope, at 650-900 ms, without one.
        let p = axis_points(640.0, 2200.0);
        assert!(p.iter().filter(|v| **v < 1000.0).count() >= 2, "{p:?}");
        assert!(p.len() >= 4 && p.len() <= 8, "{p:?}");
        // Evenly spaced on the log scale: no two marks closer than the 6th root of the range.
        let r = (2200.0f64 / 640.0).powf(1.0 / 6.0);
        assert!(p.windows(2).all(|w| w[1] / w[0] >= r * 0.97), "{p:?}");
        assert!(p.iter().all(|v| (640.0..=2200.0).contains(v)));
        // Round values.
        assert_eq!(p, [700.0, 900.0, 1100.0, 1400.0, 1700.0, 2100.0]);
    }

    #[test]
    fn arrows_walk_the_front_and_stop_at_its_ends() {
        assert_eq!(point_after(None, 5, "ArrowRight"), Some(0));
        assert_eq!(point_after(Some(0), 5, "ArrowRight"), Some(1));
        assert_eq!(point_after(Some(4), 5, "ArrowRight"), Some(4));
        assert_eq!(point_after(Some(0), 5, "ArrowLeft"), Some(0));
        assert_eq!(point_after(Some(3), 5, "ArrowDown"), Some(2));
        assert_eq!(point_after(Some(2), 5, "End"), Some(4));
        assert_eq!(point_after(Some(2), 5, "Home"), Some(0));
        assert_eq!(point_after(Some(2), 5, "a"), None);
        assert_eq!(point_after(None, 0, "ArrowRight"), None);
        // A choice beyond a front that shrank comes back onto it.
        assert_eq!(point_after(Some(9), 3, "ArrowLeft"), Some(2));
    }

    fn data() -> FrontChart {
        FrontChart {
            front: (0..20)
                .map(|i| {
                    let c = 2e6 * 1.2f64.powi(i);
                    Design {
                        cost_usd: c,
                        time_ns: 6e8 + 4e15 / c,
                    }
                })
                .collect(),
            current: Some(Design {
                cost_usd: 9.5e6,
                time_ns: 7.22e8,
            }),
            uniform: Some(Design {
                cost_usd: 3.45e7,
                time_ns: 7.75e8,
            }),
            highlight: Some(3),
            pinned: None,
        }
    }

    #[test]
    fn draws_the_front_and_both_marks_in_svg() {
        let mut svg = String::new();
        let pixels = {
            let area = SVGBackend::with_string(&mut svg, (800, 400)).into_drawing_area();
            draw_front(&area, &data(), &ChartStyle::default()).unwrap()
        };
        for text in [
            "network cost",
            "uniform split: 775.00 ms",
            "current design",
            "$10M",
        ] {
            assert!(svg.contains(text), "missing {text}");
        }
        // Points go right with cost and down with time, inside the canvas.
        assert_eq!(pixels.len(), 20);
        for w in pixels.windows(2) {
            assert!(w[1].0 > w[0].0 && w[1].1 >= w[0].1 - 1);
        }
        assert!(pixels
            .iter()
            .all(|p| p.0 > 0 && p.0 < 800 && p.1 > 0 && p.1 < 400));
    }

    #[test]
    fn a_mark_at_the_right_edge_is_labelled_on_its_left() {
        // The uniform split as costly as the front's last design: its mark sits at the plot's
        // right edge, and its label is drawn left of it, inside the chart.
        let last = 2e6 * 1.2f64.powi(19);
        let mut d = data();
        d.uniform = Some(Design {
            cost_usd: last,
            time_ns: 7.75e8,
        });
        let label_x = |d: &FrontChart, width: u32| {
            let mut svg = String::new();
            let pixels = {
                let area = SVGBackend::with_string(&mut svg, (width, 300)).into_drawing_area();
                draw_front(&area, d, &ChartStyle::default()).unwrap()
            };
            let at = svg.find("uniform split: 775.00 ms").unwrap();
            let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
            let x: i32 = tag
                .split("x=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            (x, pixels.iter().map(|p| p.0).collect::<Vec<i32>>())
        };
        let (x, pixels) = label_x(&d, 600);
        let mark = pixels[19];
        assert!(x < mark, "label at {x}, mark at {mark}");
        // "uniform split: 775.00 ms" is 24 characters of 12 px text: well inside 600 px.
        assert!(x > 300, "label at {x}");
        // Away from the edge (1,200 px) it stays on the right of its mark, which lies between the
        // front's designs 15 ($30.8M) and 16 ($37.0M); at 600 px it would not fit there.
        let (x, pixels) = label_x(&data(), 1200);
        assert!(x > pixels[15], "label at {x}, design 15 at {}", pixels[15]);
        let (x, pixels) = label_x(&data(), 600);
        assert!(x < pixels[15], "label at {x}, design 15 at {}", pixels[15]);
    }

    #[test]
    fn an_empty_front_draws_a_blank_chart() {
        let mut svg = String::new();
        let area = SVGBackend::with_string(&mut svg, (400, 200)).into_drawing_area();
        let empty = FrontChart {
            front: vec![],
            current: None,
            uniform: None,
            highlight: None,
            pinned: None,
        };
        assert!(draw_front(&area, &empty, &ChartStyle::default())
            .unwrap()
            .is_empty());
    }

    #[test]
    fn log_axis_marks() {
        assert_eq!(nice_log_points(2.1e6, 1.5e8), vec![5e6, 1e7, 2e7, 5e7, 1e8]);
        assert_eq!(
            nice_log_points(1e6, 5e8),
            vec![1e6, 3e6, 1e7, 3e7, 1e8, 3e8]
        );
        assert_eq!(nice_log_points(1.5e6, 1.1e7), vec![2e6, 5e6, 1e7]);
        assert!(nice_log_points(0.0, 1.0).is_empty());
    }

    #[test]
    fn linear_axis_marks() {
        assert_eq!(
            nice_linear_points(700.0, 790.0, 6),
            vec![700.0, 720.0, 740.0, 760.0, 780.0]
        );
        assert_eq!(nice_linear_points(0.0, 1.0, 4), vec![0.0, 0.5, 1.0]);
        assert!(nice_linear_points(5.0, 5.0, 4).is_empty());
    }

    #[test]
    fn short_dollars() {
        assert_eq!(short_usd(2.5e6), "$2.5M");
        assert_eq!(short_usd(1e7), "$10M");
        assert_eq!(short_usd(120e3), "$120k");
        assert_eq!(short_usd(1.25e9), "$1.25B");
        assert_eq!(short_usd(40.0), "$40");
    }
}
