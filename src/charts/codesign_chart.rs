//! The co-design front: the least training time at each budget over every parallelism, shape and
//! mapping searched, one colour per winning design, with the ranked table's budget marked.

use super::chart::{drawn, Area, Chart};
use super::compare_chart::{money_time_frame, winner_color};
use super::front::short_usd;
use super::tables::DataTable;
use super::{palette, ChartStyle};
use crate::codesign::CodesignResult;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::sync::Arc;

/// Draw the front found so far.
pub fn draw_codesign<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    run: &CodesignResult,
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&WHITE)?;
    let front = &run.front;
    let (y0, y1) = front.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), d| {
        (lo.min(d.time_ns / 1e6), hi.max(d.time_ns / 1e6))
    });
    let (x0, x1) = (
        run.budgets.first().copied().unwrap_or(1.0),
        run.budgets.last().copied().unwrap_or(10.0),
    );
    if !(y0.is_finite() && y0 > 0.0 && y1 >= y0 && x1 >= x0 && x0 > 0.0) {
        area.present()?;
        return Ok(());
    }
    let (ya, yb) = (y0 / 1.1, y1 * 1.1);
    let (xa, xb) = (x0 / 1.3, x1 * 1.3);
    let mut chart = money_time_frame(
        area,
        "The fastest design at each budget",
        "network budget ($, log scale)",
        (xa, xb),
        (ya, yb),
        style,
    )?;
    // One colour per distinct winning design (a design may win two separate ranges).
    let label = |d: &crate::codesign::Design| {
        format!(
            "{}, {} ({})",
            d.parallelism_label(),
            d.shape_label,
            d.mapping.order
        )
    };
    let mut labels: Vec<String> = Vec::new();
    for w in &run.winners {
        let text = label(&w.design);
        let seen = labels.iter().position(|l| *l == text);
        let k = seen.unwrap_or(labels.len());
        if seen.is_none() {
            labels.push(text.clone());
        }
        let pts: Vec<(f64, f64)> = front
            .iter()
            .filter(|d| d.budget_usd >= w.from_usd && d.budget_usd <= w.to_usd)
            .map(|d| (d.budget_usd, d.time_ns / 1e6))
            .collect();
        let c = winner_color(k);
        let series =
            chart.draw_series([PathElement::new(pts.clone(), c.stroke_width(style.px(3.0)))])?;
        if seen.is_none() {
            series.label(text).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(3))
            });
        }
        chart.draw_series(
            pts.iter()
                .map(|p| Circle::new(*p, style.px(3.5) as i32, c.filled())),
        )?;
    }
    let b = run.rank_budget_usd;
    chart
        .draw_series([PathElement::new(
            vec![(b, ya), (b, yb)],
            palette::INK.mix(0.5).stroke_width(style.px(1.0)),
        )])?
        .label(format!("ranked table at {}", short_usd(b)))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], palette::INK.mix(0.5)));
    super::draw_legend(&mut chart, SeriesLabelPosition::UpperRight, style)?;
    area.present()
}

/// The Co-design view's chart: the front of its search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodesignChart;

impl Chart for CodesignChart {
    type Data = Arc<CodesignResult>;

    fn testid(self) -> &'static str {
        "chart-codesign"
    }

    fn description(self) -> &'static str {
        "The fastest design at each budget"
    }

    fn draw(
        self,
        area: &Area<'_>,
        data: &Arc<CodesignResult>,
        _highlight: Option<usize>,
        style: &ChartStyle,
    ) -> Result<Vec<(i32, i32)>, String> {
        drawn(draw_codesign(area, data, style))
    }

    fn table(self, data: &Arc<CodesignResult>) -> DataTable {
        super::tables::codesign_table(&data.front)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codesign::{CodesignInputs, CodesignRun};
    use crate::presets;

    #[test]
    fn draws_an_empty_and_a_finished_search() {
        let base = presets::default_scenario();
        let mut inputs = CodesignInputs::around(&base, 1e7);
        inputs.budgets = 4;
        inputs.own_shape = true;
        let mut run = CodesignRun::new(&inputs.setup(&base).unwrap()).unwrap();
        let draw = |run: &CodesignResult| {
            let mut svg = String::new();
            {
                let area = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
                draw_codesign(&area, run, &ChartStyle::default()).unwrap();
            }
            svg
        };
        let empty = draw(&run.result());
        while !run.step(64) {}
        let full = draw(&run.result());
        assert!(full.len() > empty.len() * 4);
        assert!(full.contains("ranked table at"));
        assert!(full.contains("TP "));
    }
}
