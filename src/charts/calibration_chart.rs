//! A calibration's check: every measured run's predicted time against its measured time (log-log),
//! on the fitted system (filled, a colour per model) and on the start (grey rings), with the line
//! where the two are equal and +-10% around it; the legend, short, in the upper left corner that a
//! good fit leaves empty. Each fitted point's tooltip and the table give its
//! error.

use super::chart::{Area, Chart, PointInfo};
use super::front::{nice_log_points, trimmed};
use super::tables::DataTable;
use super::{palette, ChartStyle};
use crate::predict::validation::{RunError, Validation};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::sync::Arc;

/// What the chart shows: the runs predicted by the start and by the fitted system.
#[derive(Clone, Debug, PartialEq)]
pub struct CalibrationShown {
    /// The start's name (a preset).
    pub start_name: String,
    pub start: Validation,
    pub fitted: Validation,
}

fn percent(e: f64) -> String {
    format!("{:+.1}%", 100.0 * e)
}

fn ms(v: f64) -> String {
    format!("{v:.1}")
}

fn run_label(r: &RunError) -> String {
    format!(
        "line {}: {}, TP {} PP {} DP {}, micro-batch {}",
        r.line, r.model, r.tp, r.pp, r.dp, r.micro_batch
    )
}

/// Draw `shown`; returns the fitted points' pixel positions (in the order of its rows).
pub fn draw_calibration<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    shown: &CalibrationShown,
    highlight: Option<usize>,
    style: &ChartStyle,
) -> Result<Vec<(i32, i32)>, DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&WHITE)?;
    let all = shown.fitted.rows.iter().chain(&shown.start.rows);
    let (lo, hi) = all
        .flat_map(|r| [r.measured_ms, r.predicted_ms])
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !(lo.is_finite() && hi >= lo) {
        area.present()?;
        return Ok(Vec::new());
    }
    let (a, b) = (lo / 1.15, hi * 1.15);
    let mut chart = ChartBuilder::on(area)
        .margin(style.px(12.0))
        .caption(
            "Predicted against measured, per run",
            (
                "sans-serif",
                style.title_font(
                    16.0,
                    "Predicted against measured, per run",
                    area.dim_in_pixel().0,
                ),
            )
                .into_font()
                .color(&palette::INK),
        )
        .x_label_area_size(style.px(40.0))
        .y_label_area_size(style.px(64.0))
        .build_cartesian_2d(
            (a..b).log_scale().with_key_points(nice_log_points(a, b)),
            (a..b).log_scale().with_key_points(nice_log_points(a, b)),
        )?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::INK.mix(0.1))
        .x_desc("measured time per iteration (ms, log scale)")
        .y_desc("predicted (ms, log scale)")
        .label_style(("sans-serif", style.font(12.0)))
        .axis_desc_style(("sans-serif", style.font(13.0)))
        .x_label_formatter(&|v| trimmed(*v, 4))
        .y_label_formatter(&|v| trimmed(*v, 4))
        .draw()?;
    chart
        .draw_series([PathElement::new(
            vec![(a, a), (b, b)],
            palette::INK.mix(0.6).stroke_width(style.px(1.5)),
        )])?
        .label("y = x")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], palette::INK.mix(0.6)));
    for f in [0.9, 1.1] {
        let s = chart.draw_series([PathElement::new(
            vec![(a, a * f), (b, b * f)],
            palette::INK.mix(0.25).stroke_width(style.px(1.0)),
        )])?;
        if f > 1.0 {
            s.label("±10%").legend(|(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], palette::INK.mix(0.25))
            });
        }
    }
    let r = style.px(3.5) as i32;
    chart
        .draw_series(shown.start.rows.iter().map(|row| {
            Circle::new(
                (row.measured_ms, row.predicted_ms),
                r,
                palette::UNIFORM_MARK.stroke_width(style.px(1.0)),
            )
        }))?
        .label("start")
        .legend(move |(x, y)| Circle::new((x + 8, y), 4, palette::UNIFORM_MARK));
    for (k, m) in shown.fitted.models.iter().enumerate() {
        let c = palette::DIMS[k % palette::DIMS.len()];
        chart
            .draw_series(
                shown
                    .fitted
                    .rows
                    .iter()
                    .filter(|row| row.model == m.model)
                    .map(|row| Circle::new((row.measured_ms, row.predicted_ms), r, c.filled())),
            )?
            .label(format!("fit {}", m.model))
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, c.filled()));
    }
    let pts: Vec<(f64, f64)> = shown
        .fitted
        .rows
        .iter()
        .map(|row| (row.measured_ms, row.predicted_ms))
        .collect();
    if let Some(p) = highlight.and_then(|i| pts.get(i)) {
        chart.draw_series([Circle::new(
            *p,
            style.px(7.0) as i32,
            palette::CURRENT.stroke_width(style.px(2.0)),
        )])?;
    }
    super::draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, style)?;
    let pixels = pts.iter().map(|p| chart.backend_coord(p)).collect();
    area.present()?;
    Ok(pixels)
}

/// The Co-design view's calibration chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CalibrationChart;

impl Chart for CalibrationChart {
    type Data = Arc<CalibrationShown>;

    fn testid(self) -> &'static str {
        "chart-calibration"
    }

    fn description(self) -> &'static str {
        "Predicted against measured time per iteration, for every run"
    }

    fn draw(
        self,
        area: &Area<'_>,
        data: &Arc<CalibrationShown>,
        highlight: Option<usize>,
        style: &ChartStyle,
    ) -> Result<Vec<(i32, i32)>, String> {
        draw_calibration(area, data, highlight, style).map_err(|e| e.to_string())
    }

    fn table(self, data: &Arc<CalibrationShown>) -> DataTable {
        calibration_table(data)
    }

    fn point(self, data: &Arc<CalibrationShown>, i: usize) -> Option<PointInfo> {
        let r = data.fitted.rows.get(i)?;
        let s = data.start.rows.get(i);
        Some(PointInfo {
            title: run_label(r),
            lines: [
                Some(format!("measured {} ms", ms(r.measured_ms))),
                Some(format!(
                    "fitted: {} ms, error {}",
                    ms(r.predicted_ms),
                    percent(r.error)
                )),
                s.map(|s| {
                    format!(
                        "start: {} ms, error {}",
                        ms(s.predicted_ms),
                        percent(s.error)
                    )
                }),
            ]
            .into_iter()
            .flatten()
            .collect(),
        })
    }
}

/// Every run: measured, predicted by the fitted system and by the start, with their errors.
pub fn calibration_table(shown: &CalibrationShown) -> DataTable {
    let mut t = DataTable::new(&[
        "line",
        "model",
        "TP",
        "PP",
        "DP",
        "micro-batch",
        "measured (ms)",
        "fitted (ms)",
        "fitted error",
        "start (ms)",
        "start error",
    ]);
    for (i, r) in shown.fitted.rows.iter().enumerate() {
        let s = shown.start.rows.get(i);
        t.rows.push(vec![
            r.line.to_string(),
            r.model.clone(),
            r.tp.to_string(),
            r.pp.to_string(),
            r.dp.to_string(),
            r.micro_batch.to_string(),
            ms(r.measured_ms),
            ms(r.predicted_ms),
            percent(r.error),
            s.map_or(String::new(), |s| ms(s.predicted_ms)),
            s.map_or(String::new(), |s| percent(s.error)),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::measured::read_runs;
    use crate::predict::system::System;
    use crate::predict::validation::validate;

    #[test]
    fn the_scatter_has_a_pickable_point_per_run_and_its_table_the_errors() {
        let start = System::dgx_a100_uncalibrated();
        let fitted = System::dgx_a100();
        let runs = read_runs(
            include_str!("../../data/measured/megatron-a100-visible.csv"),
            &start,
        )
        .unwrap();
        let shown = CalibrationShown {
            start_name: "dgx-a100-uncalibrated".into(),
            start: validate(&start, &runs),
            fitted: validate(&fitted, &runs),
        };
        let mut svg = String::new();
        let pts = {
            let area = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
            draw_calibration(&area, &shown, Some(15), &ChartStyle::default()).unwrap()
        };
        assert_eq!(pts.len(), 41);
        assert!(svg.contains("y = x") && svg.contains("fit 18.4B"));
        let t = calibration_table(&shown);
        assert_eq!(t.rows.len(), 41);
        // Line 17 of the file: the run the model misses most (docs/predict.md).
        assert_eq!(t.rows[15][0], "17");
        assert_eq!(t.rows[15][8], "-45.7%");
        let p = CalibrationChart.point(&Arc::new(shown), 15).unwrap();
        assert_eq!(p.title, "line 17: 3.6B, TP 8 PP 1 DP 8, micro-batch 64");
        assert_eq!(p.lines[1], "fitted: 5342.3 ms, error -45.7%");
    }
}
