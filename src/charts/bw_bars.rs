//! Bandwidth per dimension: the uniform split next to the optimal allocation.

use super::{dimension_frame, finish_with_legend, palette, ChartStyle};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The bars of one dimension, GB/s.
#[derive(Clone, Debug, PartialEq)]
pub struct BwBar {
    pub label: String,
    pub uniform_gbps: f64,
    pub optimal_gbps: Option<f64>,
}

/// Draw the grouped bandwidth bars on `area`.
pub fn draw_bw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    bars: &[BwBar],
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let top = bars
        .iter()
        .map(|b| b.uniform_gbps.max(b.optimal_gbps.unwrap_or(0.0)))
        .fold(0.0, f64::max)
        * 1.15;
    let labels: Vec<String> = bars.iter().map(|b| b.label.clone()).collect();
    let mut chart = dimension_frame(
        area,
        "Bandwidth per NPU, by dimension",
        "GB/s",
        &labels,
        top,
        style,
    )?;
    let swatch = style.px(5.0) as i32;
    // Each dimension's segment holds two bars side by side, each about a third of it wide.
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let seg = plot_w / bars.len().max(1) as f64;
    let (near, far) = ((0.12 * seg).round() as u32, (0.52 * seg).round() as u32);
    let series: [(&str, RGBColor, bool); 2] = [
        ("uniform split", palette::UNIFORM, false),
        ("optimum", palette::LINKS, true),
    ];
    for (name, color, optimal) in series {
        let rects = bars.iter().enumerate().filter_map(move |(i, b)| {
            let v = if optimal {
                b.optimal_gbps?
            } else {
                b.uniform_gbps
            };
            let i = i as u32;
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(i), 0.0),
                    (SegmentValue::Exact(i + 1), v),
                ],
                color.filled(),
            );
            let (left, right) = if optimal { (far, near) } else { (near, far) };
            r.set_margin(0, 0, left, right);
            Some(r)
        });
        chart.draw_series(rects)?.label(name).legend(move |(x, y)| {
            Rectangle::new(
                [(x, y - swatch), (x + 2 * swatch, y + swatch)],
                color.filled(),
            )
        });
    }
    finish_with_legend(chart, SeriesLabelPosition::UpperRight, style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_both_series_in_svg() {
        let bars: Vec<BwBar> = [(338.4, 125.0), (84.6, 125.0), (58.2, 125.0), (18.8, 125.0)]
            .iter()
            .enumerate()
            .map(|(i, (o, u))| BwBar {
                label: format!("d{}", i + 1),
                uniform_gbps: *u,
                optimal_gbps: Some(*o),
            })
            .collect();
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (640, 360)).into_drawing_area();
            draw_bw_bars(&area, &bars, &ChartStyle::default()).unwrap();
        }
        for text in ["GB/s", "optimum", "uniform split", "d4"] {
            assert!(svg.contains(text), "missing {text}");
        }
        let fill = |c: RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        assert!(svg.matches(&fill(palette::UNIFORM)).count() >= 5);
        assert!(svg.matches(&fill(palette::LINKS)).count() >= 5);
    }
}
