//! Exposed communication per dimension by kind of traffic (TP, CP, EP all-to-all, PP sends, DP
//! gradients): one stacked bar per dimension at the optimum, so that a class can see which
//! parallelism asks each dimension for its bandwidth.

use super::{dimension_frame, draw_stack_segment, finish_with_legend, palette, ChartStyle};
use crate::model::scenario::Evaluation;
use crate::model::workload::Traffic;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One dimension's exposed communication by traffic kind, ns ([`Traffic::ALL`] order).
#[derive(Clone, Debug, PartialEq)]
pub struct TrafficBar {
    pub label: String,
    pub by_traffic_ns: [f64; 5],
}

/// The bars of `ev`, one per dimension (`labels` name them).
pub fn traffic_bars(labels: &[String], ev: &Evaluation) -> Vec<TrafficBar> {
    let by = ev.exposed_by_traffic();
    labels
        .iter()
        .enumerate()
        .map(|(d, label)| TrafficBar {
            label: label.clone(),
            by_traffic_ns: std::array::from_fn(|k| by[k].get(d).copied().unwrap_or(0.0)),
        })
        .collect()
}

/// A kind of traffic's colour.
fn colour(t: Traffic) -> RGBColor {
    palette::DIMS[t.index() % palette::DIMS.len()]
}

/// Draw the stacked bars on `area` (times in ms); a kind no dimension carries is left out of the
/// legend.
pub fn draw_traffic_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    bars: &[TrafficBar],
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let ms = 1e-6;
    let top = bars
        .iter()
        .map(|b| b.by_traffic_ns.iter().sum::<f64>())
        .fold(0.0, f64::max)
        .max(1e3)
        * ms
        * 1.6;
    let labels: Vec<String> = bars.iter().map(|b| b.label.clone()).collect();
    let mut chart = dimension_frame(
        area,
        "Exposed communication per dimension, by kind of traffic (optimum)",
        "time (ms)",
        &labels,
        top,
        style,
    )?;
    let parts: Vec<Vec<f64>> = bars.iter().map(|b| b.by_traffic_ns.to_vec()).collect();
    for t in Traffic::ALL {
        let k = t.index();
        if bars.iter().all(|b| b.by_traffic_ns[k] == 0.0) {
            continue;
        }
        draw_stack_segment(
            &mut chart,
            &parts,
            (k, ms),
            (t.name().into(), colour(t)),
            style,
        )?;
    }
    finish_with_legend(chart, SeriesLabelPosition::UpperRight, style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn the_bars_add_up_to_each_dimensions_exposed_communication_and_draw() {
        let sc = presets::default_scenario();
        let ev = sc.evaluate(&[125.0; 4]).unwrap();
        let labels: Vec<String> = (1..=4).map(|d| format!("d{d}")).collect();
        let bars = traffic_bars(&labels, &ev);
        let per_dim = ev.exposed_ns();
        for (d, b) in bars.iter().enumerate() {
            let want: f64 = per_dim.iter().map(|k| k[d]).sum();
            let got: f64 = b.by_traffic_ns.iter().sum();
            assert!(
                (got - want).abs() <= 1e-9 * want.max(1.0),
                "d{d}: {got} vs {want}"
            );
        }
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (640, 360)).into_drawing_area();
            draw_traffic_bars(&area, &bars, &ChartStyle::default()).unwrap();
        }
        // LIBRA's GPT-3 is TP and DP only.
        for text in ["TP", "DP gradients", "by kind of traffic"] {
            assert!(svg.contains(text), "missing {text}");
        }
        assert!(!svg.contains("EP all-to-all"));
    }
}
