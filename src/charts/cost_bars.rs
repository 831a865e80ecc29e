//! Network cost per dimension, stacked by component (links, switches, NICs).

use super::{dimension_frame, finish_with_legend, palette, ChartStyle};
use crate::model::{CostComponent, NetworkCost};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One bar: a dimension's label and its cost by component, in $.
#[derive(Clone, Debug, PartialEq)]
pub struct CostBar {
    pub label: String,
    /// Each component's cost ($), in the order of [`CostComponent::ALL`].
    pub usd: [f64; 3],
}

impl CostBar {
    /// One bar per dimension of `cost`, labelled by `labels`.
    pub fn from_cost(cost: &NetworkCost, labels: impl IntoIterator<Item = String>) -> Vec<CostBar> {
        cost.dims
            .iter()
            .zip(labels)
            .map(|(d, label)| CostBar {
                label,
                usd: CostComponent::ALL.map(|c| d.usd(c)),
            })
            .collect()
    }

    fn total(&self) -> f64 {
        self.usd.iter().sum()
    }
}

/// Draw the stacked cost bars on `area` (costs shown in millions of $).
pub fn draw_cost_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    bars: &[CostBar],
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let millions = 1e-6;
    let top = bars.iter().map(CostBar::total).fold(0.0, f64::max) * millions * 1.12;
    let labels: Vec<String> = bars.iter().map(|b| b.label.clone()).collect();
    let mut chart = dimension_frame(
        area,
        "Network cost per dimension",
        "cost (M$)",
        &labels,
        top,
        style,
    )?;
    let swatch = style.px(5.0) as i32;
    for (k, component) in CostComponent::ALL.into_iter().enumerate() {
        let (name, color) = (component.label(), palette::of_component(component));
        let rects = bars.iter().enumerate().map(move |(i, b)| {
            let parts = b.usd;
            let y0: f64 = parts[..k].iter().sum::<f64>() * millions;
            let y1 = y0 + parts[k] * millions;
            let i = i as u32;
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(i), y0),
                    (SegmentValue::Exact(i + 1), y1),
                ],
                color.filled(),
            );
            r.set_margin(0, 0, style.px(14.0), style.px(14.0));
            r
        });
        chart.draw_series(rects)?.label(name).legend(move |(x, y)| {
            let s = swatch;
            Rectangle::new([(x, y - s), (x + 2 * s, y + s)], color.filled())
        });
    }
    finish_with_legend(chart, SeriesLabelPosition::UpperLeft, style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    fn bars() -> Vec<CostBar> {
        let (net, costs) = (presets::libra_4d_network(), presets::libra_4d_cost_model());
        let cost = costs.network_cost(&net, &[125.0; 4]).unwrap();
        CostBar::from_cost(&cost, (1..=4).map(|d| format!("d{d}")))
    }

    #[test]
    fn svg_has_one_rect_per_nonzero_component_and_the_labels() {
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (640, 360)).into_drawing_area();
            draw_cost_bars(&area, &bars(), &ChartStyle::default()).unwrap();
        }
        for label in ["d1", "d4", "cost (M$)", "links", "NICs"] {
            assert!(svg.contains(label), "missing {label}");
        }
        // Each component series is drawn in its own colour: 4 link bars, one switch and one NIC bar with
        // height, plus zero-height ones, plus the legend swatches.
        let fill = |c: RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        assert!(svg.matches(&fill(palette::LINKS)).count() >= 5);
        assert!(svg.matches(&fill(palette::NICS)).count() >= 2);
    }

    #[test]
    fn empty_input_still_draws_axes() {
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (320, 200)).into_drawing_area();
            draw_cost_bars(&area, &[], &ChartStyle { scale: 2.0 }).unwrap();
        }
        assert!(svg.contains("Network cost per dimension"));
    }
}
