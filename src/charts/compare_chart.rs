//! The shape comparison: every shape's Pareto front in grey, the design's own shape in red, and the
//! lower envelope (the best shape at each budget) drawn thick, one colour per winning shape, with
//! the ranking budget marked.

use super::chart::{drawn, Area, Chart};
use super::front::{axis_points, nice_log_points, short_usd, trimmed};
use super::tables::DataTable;
use super::{palette, ChartStyle};
use crate::analysis::shape_run::ShapeRun;
use crate::analysis::shapes::{envelope, winners};
use plotters::coord::combinators::{BindKeyPoints, LogCoord, WithKeyPoints};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::sync::Arc;

/// Both axes on a log scale with chosen key points.
type LogLog = Cartesian2d<WithKeyPoints<LogCoord<f64>>, WithKeyPoints<LogCoord<f64>>>;

/// A chart of training time (ms) against money ($), both on log scales, its mesh drawn: the frame
/// of the shape comparison and of the co-design front.
pub(super) fn money_time_frame<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    caption: &str,
    x_desc: &str,
    (xa, xb): (f64, f64),
    (ya, yb): (f64, f64),
    style: &ChartStyle,
) -> Result<ChartContext<'a, DB, LogLog>, DrawingAreaErrorKind<DB::ErrorType>> {
    let mut chart = ChartBuilder::on(area)
        .margin(style.px(12.0))
        .caption(
            caption,
            (
                "sans-serif",
                style.title_font(16.0, caption, area.dim_in_pixel().0),
            )
                .into_font()
                .color(&palette::INK),
        )
        .x_label_area_size(style.px(40.0))
        .y_label_area_size(style.px(64.0))
        .build_cartesian_2d(
            (xa..xb).log_scale().with_key_points(thinned(
                nice_log_points(xa, xb),
                (area.dim_in_pixel().0 / style.px(72.0)).max(2) as usize,
            )),
            (ya..yb).log_scale().with_key_points(axis_points(ya, yb)),
        )?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::INK.mix(0.1))
        .x_desc(x_desc)
        .y_desc("training time per iteration (ms, log scale)")
        .label_style(("sans-serif", style.font(12.0)))
        .axis_desc_style(("sans-serif", style.font(13.0)))
        .x_label_formatter(&|v| short_usd(*v))
        .y_label_formatter(&|v| trimmed(*v, 4))
        .draw()?;
    Ok(chart)
}

/// At most `most` of `points`, evenly kept (ticks that would run into each other on a narrow
/// chart), the first always.
pub(super) fn thinned(points: Vec<f64>, most: usize) -> Vec<f64> {
    let step = points.len().div_ceil(most.max(1)).max(1);
    points.into_iter().step_by(step).collect()
}

/// The colour of the `k`-th winning shape (in order of budget).
pub fn winner_color(k: usize) -> RGBColor {
    palette::DIMS[k % palette::DIMS.len()]
}

/// The winners of a run's envelope as (first budget, last budget, shape), in budget order.
pub fn run_winners(run: &ShapeRun) -> Vec<(f64, f64, usize)> {
    winners(&envelope(&run.fronts))
}

/// Draw the fronts of the shapes done so far.
pub fn draw_compare<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    run: &ShapeRun,
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&WHITE)?;
    let fronts: Vec<(usize, Vec<(f64, f64)>)> = run
        .fronts
        .iter()
        .enumerate()
        .filter_map(|(i, sf)| {
            let f = sf.front.as_ref().ok()?;
            Some((
                i,
                f.points
                    .iter()
                    .map(|p| (p.cost_usd, p.time_ns / 1e6))
                    .filter(|(c, t)| *c > 0.0 && *t > 0.0 && t.is_finite())
                    .collect(),
            ))
        })
        .collect();
    let env = envelope(&run.fronts);
    // The y range: the envelope and the design's own front, with room above (the worst shapes are
    // clipped rather than squeezing the interesting part).
    let own: Option<&Vec<(f64, f64)>> = run
        .own
        .and_then(|o| fronts.iter().find(|(i, _)| *i == o).map(|(_, p)| p));
    let ys = env
        .iter()
        .map(|e| e.time_ns / 1e6)
        .chain(own.into_iter().flatten().map(|p| p.1));
    let (y0, y1) = ys.fold((f64::INFINITY, 0.0f64), |(lo, hi), y| {
        (lo.min(y), hi.max(y))
    });
    let (x0, x1) = (
        run.budgets.first().copied().unwrap_or(1.0),
        run.budgets.last().copied().unwrap_or(10.0),
    );
    if !(y0.is_finite() && y1 >= y0 && y0 > 0.0 && x1 > x0 && x0 > 0.0) {
        area.present()?;
        return Ok(());
    }
    let (ya, yb) = (y0 / 1.2, (y1 * 2.0).max(y0 * 3.0));
    let (xa, xb) = (x0 / 1.2, x1 * 1.2);
    let mut chart = money_time_frame(
        area,
        "Every shape's front, and the best shape at each budget",
        "network cost ($, log scale)",
        (xa, xb),
        (ya, yb),
        style,
    )?;
    let clip = |p: &(f64, f64)| p.1 <= yb && p.1 >= ya;
    for (i, pts) in &fronts {
        if Some(*i) == run.own {
            continue;
        }
        let pts: Vec<(f64, f64)> = pts.iter().copied().filter(clip).collect();
        chart.draw_series([PathElement::new(
            pts,
            palette::INK.mix(0.12).stroke_width(style.px(1.0)),
        )])?;
    }
    if let Some(pts) = own {
        let pts: Vec<(f64, f64)> = pts.iter().copied().filter(clip).collect();
        chart
            .draw_series([PathElement::new(
                pts,
                palette::CURRENT.stroke_width(style.px(2.0)),
            )])?
            .label("the design's own shape")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], palette::CURRENT));
    }
    // The envelope, one colour per winning range (ranges share their end points).
    for (k, (lo, hi, _)) in winners(&env).iter().enumerate() {
        let pts: Vec<(f64, f64)> = env
            .iter()
            .filter(|e| e.budget_usd >= *lo && e.budget_usd <= *hi)
            .map(|e| (e.budget_usd, e.time_ns / 1e6))
            .collect();
        let c = winner_color(k);
        let series =
            chart.draw_series([PathElement::new(pts.clone(), c.stroke_width(style.px(4.0)))])?;
        if k == 0 {
            series
                .label("best shape per budget (envelope)")
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(4))
                });
        }
        chart.draw_series(
            pts.iter()
                .map(|p| Circle::new(*p, style.px(3.5) as i32, c.filled())),
        )?;
    }
    let b = run.budget_usd;
    chart
        .draw_series([PathElement::new(
            vec![(b, ya), (b, yb)],
            palette::INK.mix(0.5).stroke_width(style.px(1.0)),
        )])?
        .label(format!("ranking budget {}", short_usd(b)))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], palette::INK.mix(0.5)));
    super::draw_legend(&mut chart, SeriesLabelPosition::UpperRight, style)?;
    area.present()
}

/// The shape comparison's chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompareChart;

impl Chart for CompareChart {
    type Data = Arc<ShapeRun>;

    fn testid(self) -> &'static str {
        "chart-compare"
    }

    fn description(self) -> &'static str {
        "Pareto fronts of every network shape with the lower envelope"
    }

    fn draw(
        self,
        area: &Area<'_>,
        data: &Arc<ShapeRun>,
        _highlight: Option<usize>,
        style: &ChartStyle,
    ) -> Result<Vec<(i32, i32)>, String> {
        drawn(draw_compare(area, data, style))
    }

    fn table(self, data: &Arc<ShapeRun>) -> DataTable {
        super::tables::compare_table(&data.budgets, &data.fronts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn draws_a_partial_and_a_finished_run() {
        let mut run = ShapeRun::new(
            &presets::default_scenario(),
            &crate::analysis::shape_run::CompareSetup::default(),
        )
        .unwrap();
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
            draw_compare(&area, &run, &ChartStyle::default()).unwrap();
        }
        run.step(300);
        let mut full = String::new();
        {
            let area = SVGBackend::with_string(&mut full, (800, 500)).into_drawing_area();
            draw_compare(&area, &run, &ChartStyle::default()).unwrap();
        }
        assert!(full.len() > svg.len() * 4);
        assert!(full.contains("ranking budget"));
        assert!(full.contains("the design&apos;s own shape") || full.contains("own shape"));
    }
}
