//! Training time per iteration, one stacked bar per design (uniform split, optimum): compute, then
//! the exposed communication of each dimension.

use super::{dimension_frame, draw_stack_segment, finish_with_legend, palette, ChartStyle};
use crate::model::scenario::Evaluation;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One design's time, ns: compute and exposed communication per dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeBar {
    pub label: String,
    pub compute_ns: f64,
    pub comm_per_dim_ns: Vec<f64>,
}

impl TimeBar {
    pub fn from_evaluation(label: impl Into<String>, ev: &Evaluation) -> TimeBar {
        let exposed = ev.exposed_ns();
        TimeBar {
            label: label.into(),
            compute_ns: ev.compute_ns,
            comm_per_dim_ns: (0..ev.bw_gbps.len())
                .map(|d| exposed.iter().map(|k| k[d]).sum())
                .collect(),
        }
    }

    fn parts(&self) -> impl Iterator<Item = f64> + '_ {
        std::iter::once(self.compute_ns).chain(self.comm_per_dim_ns.iter().copied())
    }
}

/// Draw the stacked time bars on `area` (times in ms).
pub fn draw_time_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    bars: &[TimeBar],
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let ms = 1e-6;
    let top = bars
        .iter()
        .map(|b| b.parts().sum::<f64>())
        .fold(0.0, f64::max)
        * ms
        * 1.6;
    let labels: Vec<String> = bars.iter().map(|b| b.label.clone()).collect();
    let mut chart = dimension_frame(
        area,
        "Training time per iteration: compute and exposed communication",
        "time (ms)",
        &labels,
        top,
        style,
    )?;
    let dims = bars
        .iter()
        .map(|b| b.comm_per_dim_ns.len())
        .max()
        .unwrap_or(0);
    let parts: Vec<Vec<f64>> = bars.iter().map(|b| b.parts().collect()).collect();
    for k in 0..=dims {
        let named = match k {
            0 => ("compute".to_string(), palette::COMPUTE),
            _ => (
                format!("dim {k} communication"),
                palette::DIMS[(k - 1) % palette::DIMS.len()],
            ),
        };
        draw_stack_segment(&mut chart, &parts, (k, ms), named, style)?;
    }
    finish_with_legend(chart, SeriesLabelPosition::UpperRight, style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn the_bars_add_up_to_the_time_and_draw() {
        let sc = presets::default_scenario();
        let ev = sc.evaluate(&[125.0; 4]).unwrap();
        let bar = TimeBar::from_evaluation("uniform", &ev);
        let total: f64 = bar.parts().sum();
        assert!((total - ev.time_ns).abs() < 1e-6 * ev.time_ns);
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (640, 360)).into_drawing_area();
            draw_time_bars(&area, &[bar.clone(), bar], &ChartStyle::default()).unwrap();
        }
        for text in ["compute", "dim 4 communication", "time (ms)", "uniform"] {
            assert!(svg.contains(text), "missing {text}");
        }
    }
}
