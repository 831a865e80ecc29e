//! The flow-rate distribution of each routing algorithm: the fraction of flows at or below each
//! rate (a step CDF), with the NIC rate and the best least rate marked.

use super::{palette, ChartStyle};
use crate::routing::study::RouteStudy;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The step points of the CDF of `sorted` (ascending) rates: (rate, fraction at or below), one
/// step per distinct rate (the paper's 32,640 sub-flows have 1,769 rates: a point per flow made
/// the chart's path 65,280 points long, the same line drawn in many times the time).
pub fn cdf_points(sorted: &[f64]) -> Vec<(f64, f64)> {
    let n = sorted.len() as f64;
    let mut pts = Vec::new();
    let mut below = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let r = sorted[i];
        while i < sorted.len() && sorted[i] == r {
            i += 1;
        }
        pts.push((r, below));
        below = i as f64 / n;
        pts.push((r, below));
    }
    pts
}

/// Draw the CDFs of every algorithm of `study`.
pub fn draw_rate_cdf<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    study: &RouteStudy,
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&WHITE)?;
    let nic = study.instance.fabric.nic_gbps;
    let top = study
        .routed
        .iter()
        .flat_map(|r| r.metrics.flow_rates_sorted_gbps.last().copied())
        .fold(nic, f64::max)
        * 1.08;
    let mut chart = ChartBuilder::on(area)
        .margin(style.px(12.0))
        .caption(
            "Flow rates: fraction of flows at or below each rate",
            (
                "sans-serif",
                style.title_font(
                    15.0,
                    "Flow rates: fraction of flows at or below each rate",
                    area.dim_in_pixel().0,
                ),
            )
                .into_font()
                .color(&palette::INK),
        )
        .x_label_area_size(style.px(36.0))
        .y_label_area_size(style.px(48.0))
        .build_cartesian_2d(0f64..top, 0f64..1.05)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::INK.mix(0.1))
        .x_desc("flow rate (Gbps)")
        .y_desc("fraction of flows")
        .label_style(("sans-serif", style.font(11.0)))
        .draw()?;
    for (i, r) in study.routed.iter().enumerate() {
        let color = palette::DIMS[i % palette::DIMS.len()];
        let mut pts = cdf_points(&r.metrics.flow_rates_sorted_gbps);
        if let Some(last) = pts.last().copied() {
            pts.push((top, last.1));
        }
        chart
            .draw_series([PathElement::new(pts, color.stroke_width(style.px(2.0)))])?
            .label(r.name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 14, y)], color.stroke_width(2))
            });
    }
    chart
        .draw_series([PathElement::new(
            vec![(nic, 0.0), (nic, 1.05)],
            palette::INK.mix(0.5).stroke_width(style.px(1.0)),
        )])?
        .label(format!("NIC {nic} Gbps"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], palette::INK.mix(0.5)));
    super::draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, style)?;
    area.present()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::study::{route_study, RoutePreset};

    #[test]
    fn cdf_steps_and_svg() {
        assert_eq!(
            cdf_points(&[25.0, 50.0, 50.0, 100.0]),
            vec![
                (25.0, 0.0),
                (25.0, 0.25),
                (50.0, 0.25),
                (50.0, 0.75),
                (100.0, 0.75),
                (100.0, 1.0)
            ]
        );
        // Every rate's fraction at or below it, as one point per flow gave it.
        let rates = [3.0, 1.0, 1.0, 2.0, 3.0, 3.0, 0.5];
        let mut sorted = rates.to_vec();
        sorted.sort_by(f64::total_cmp);
        let pts = cdf_points(&sorted);
        for r in rates {
            let at_or_below = rates.iter().filter(|x| **x <= r).count() as f64 / 7.0;
            let top = pts
                .iter()
                .filter(|p| p.0 == r)
                .map(|p| p.1)
                .fold(0.0, f64::max);
            assert_eq!(top, at_or_below, "{r}");
        }
        assert_eq!(pts.len(), 2 * 4);
        let s = route_study(&RoutePreset::ThreeJobs.setup()).unwrap();
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (700, 360)).into_drawing_area();
            draw_rate_cdf(&area, &s, &ChartStyle::default()).unwrap();
        }
        assert!(
            svg.contains("fraction of flows")
                && svg.contains("NIC 100 Gbps")
                && svg.contains("ECMP")
        );
    }
}
