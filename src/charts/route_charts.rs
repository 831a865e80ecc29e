//! The Routing view's charts, generic over the Plotters backend: the per-link load heatmap (ToR x
//! spine, up and down panels), the flow-rate distribution per algorithm, the algorithms side by
//! side (least rate and static makespan against the contention-free time), and the makespan
//! against the number of failed spines.

use super::chart::{drawn, Area, Chart};
use super::tables::{DataTable, RouteChart};
use super::{palette, ChartStyle};
use crate::routing::study::RouteStudy;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::sync::Arc;

type Result<DB> = std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A white-to-blue-to-red ramp for a load ratio in [0, 1] (1 = the heaviest link).
fn heat(x: f64) -> RGBColor {
    let x = x.clamp(0.0, 1.0);
    let lerp =
        |a: u8, b: u8, t: f64| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
    if x < 0.5 {
        let t = x * 2.0;
        RGBColor(
            lerp(0xf2, 0x6b, t),
            lerp(0xf5, 0xa3, t),
            lerp(0xfa, 0xd6, t),
        )
    } else {
        let t = (x - 0.5) * 2.0;
        RGBColor(
            lerp(0x6b, 0xc0, t),
            lerp(0xa3, 0x39, t),
            lerp(0xd6, 0x2b, t),
        )
    }
}

/// Load of every ToR-spine link under the routing `which` of the study, as `n_e / c_e`, shaded
/// relative to the heaviest; failed links are crossed out, overridden capacities outlined.
pub fn draw_route_loads<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    study: &RouteStudy,
    which: usize,
    style: &ChartStyle,
) -> Result<DB> {
    area.fill(&WHITE)?;
    let Some(routed) = study.routed.get(which) else {
        return area.present();
    };
    let fabric = &study.instance.fabric;
    // From the measured loads by link name: a multi-flow routing is over the split instance.
    let loads: Vec<u32> = (0..fabric.capacity.len())
        .map(|e| match fabric.is_spine_link(e) {
            true => routed
                .metrics
                .link_loads
                .get(&fabric.link_name(e))
                .copied()
                .unwrap_or(0),
            false => 0,
        })
        .collect();
    let ratio = |e: usize| fabric.capacity[e].map(|c| f64::from(loads[e]) / c);
    let top = (0..2 * (fabric.num_tors * fabric.num_spines) as usize)
        .filter_map(ratio)
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    // The colour scale reaches red at the largest load, but never below 3 flows on the fastest
    // link: a routing with every flow alone (the best there is) should not look alarming.
    let fastest = (0..2 * (fabric.num_tors * fabric.num_spines) as usize)
        .filter_map(|e| fabric.capacity[e])
        .fold(0.0f64, f64::max);
    let top = if fastest > 0.0 {
        top.max(3.0 / fastest)
    } else {
        top
    };
    let overridden: Vec<usize> = study
        .scenario
        .network
        .link_capacity_overrides
        .iter()
        .map(|o| match o.kind {
            crate::routing::scenario::LinkKind::Up => fabric.up(o.tor, o.spine),
            crate::routing::scenario::LinkKind::Down => fabric.down(o.tor, o.spine),
        })
        .collect();
    let title = match routed.subflows {
        1 => format!(
            "Flows per ToR-spine link, {} (max {})",
            routed.name, routed.metrics.max_link_load
        ),
        k => format!(
            "Sub-flows (1/{k} of a flow) per ToR-spine link, {} (max {})",
            routed.name, routed.metrics.max_link_load
        ),
    };
    let font = ("sans-serif", style.font(15.0))
        .into_font()
        .color(&palette::INK);
    let (w, h) = area.dim_in_pixel();
    area.draw(&Text::new(
        title,
        (style.px(12.0) as i32, style.px(8.0) as i32),
        font,
    ))?;
    let top_px = style.px(40.0) as i32;
    let panels = area.margin(top_px as u32, style.px(8.0), style.px(8.0), style.px(8.0));
    let halves = panels.split_evenly((1, 2));
    let small = ("sans-serif", style.font(11.0))
        .into_font()
        .color(&palette::INK);
    for (panel, up) in halves.iter().zip([true, false]) {
        let (pw, ph) = panel.dim_in_pixel();
        let label_w = style.px(44.0) as i32;
        let label_h = style.px(18.0) as i32;
        let cols = fabric.num_spines as i32;
        let rows = fabric.num_tors as i32;
        let cell_w = ((pw as i32 - label_w - 8) / cols.max(1)).max(2);
        let cell_h = ((ph as i32 - label_h - 8) / rows.max(1)).clamp(2, 40);
        panel.draw(&Text::new(
            if up {
                "up (ToR → spine)"
            } else {
                "down (spine → ToR)"
            },
            (label_w, 0),
            small.clone(),
        ))?;
        // Every k-th ToR and spine labelled, as many as fit without running together (64
        // ToRs: every 4th or 8th; the last one always).
        let text_px = style.font(11.0).ceil() as i32;
        let every = |need: i32, cell: i32| ((need + cell - 1) / cell.max(1)).max(1);
        let row_step = every(text_px + 2, cell_h);
        for t in 0..rows {
            let y = label_h + t * cell_h;
            if t % row_step == 0 || (t == rows - 1 && t % row_step >= row_step / 2) {
                panel.draw(&Text::new(
                    format!("ToR {t}"),
                    (0, y + (cell_h - text_px) / 2),
                    small.clone(),
                ))?;
                if row_step > 1 {
                    // A tick from the label to its row.
                    panel.draw(&PathElement::new(
                        vec![(label_w - 3, y + cell_h / 2), (label_w - 1, y + cell_h / 2)],
                        palette::INK.stroke_width(1),
                    ))?;
                }
            }
            for s in 0..cols {
                let e = if up {
                    fabric.up(t as u32, s as u32)
                } else {
                    fabric.down(t as u32, s as u32)
                };
                let x = label_w + s * cell_w;
                let rect = [(x, y), (x + cell_w - 1, y + cell_h - 1)];
                match ratio(e) {
                    Some(r) => {
                        panel.draw(&Rectangle::new(rect, heat(r / top).filled()))?;
                        if overridden.contains(&e) {
                            panel.draw(&Rectangle::new(
                                rect,
                                palette::INK.stroke_width(style.px(2.0)),
                            ))?;
                        }
                        if cell_w >= 14 && cell_h >= 12 && loads[e] > 0 {
                            panel.draw(&Text::new(
                                loads[e].to_string(),
                                (x + cell_w / 2 - 3, y + cell_h / 4),
                                small.clone(),
                            ))?;
                        }
                    }
                    None => {
                        panel.draw(&Rectangle::new(rect, RGBColor(0xdd, 0xdd, 0xdd).filled()))?;
                        panel.draw(&PathElement::new(
                            vec![rect[0], rect[1]],
                            palette::INK.mix(0.6).stroke_width(1),
                        ))?;
                        panel.draw(&PathElement::new(
                            vec![(rect[0].0, rect[1].1), (rect[1].0, rect[0].1)],
                            palette::INK.mix(0.6).stroke_width(1),
                        ))?;
                    }
                }
            }
        }
        let widest = (0.62 * f64::from(text_px) * format!("S{}", cols - 1).len() as f64) as i32;
        let col_step = every(widest + 4, cell_w);
        for s in (0..cols).filter(|s| s % col_step == 0) {
            let label = format!("S{s}");
            let half = (0.31 * f64::from(text_px) * label.len() as f64) as i32;
            let x = label_w + s * cell_w + cell_w / 2 - half;
            let y = label_h + rows * cell_h + 2;
            if (y + text_px) as u32 <= ph {
                panel.draw(&Text::new(label, (x.max(label_w), y), small.clone()))?;
            }
        }
    }
    let _ = (w, h);
    area.present()
}

/// The algorithms side by side: least flow rate (Gbps) and static makespan (ms), with the
/// contention-free makespan as a line.
pub fn draw_route_compare<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    study: &RouteStudy,
    style: &ChartStyle,
) -> Result<DB> {
    area.fill(&WHITE)?;
    let halves = area.split_evenly((1, 2));
    let names: Vec<String> = study
        .routed
        .iter()
        .map(|r| match r.proven {
            Some(false) => format!("{} (bounded)", r.name),
            _ => r.name.to_string(),
        })
        .collect();
    let series: [(&str, &str, Vec<f64>); 2] = [
        (
            "Least flow rate",
            "Gbps",
            study
                .routed
                .iter()
                .map(|r| r.metrics.min_flow_rate_gbps)
                .collect(),
        ),
        (
            "Static makespan",
            "ms",
            study
                .routed
                .iter()
                .map(|r| r.metrics.makespan_static_s * 1e3)
                .collect(),
        ),
    ];
    let cf_ms = study
        .routed
        .first()
        .map(|r| {
            r.metrics
                .contention_free_allreduce_time_s
                .iter()
                .copied()
                .fold(0.0, f64::max)
                * 1e3
        })
        .unwrap_or(0.0);
    // Bars too narrow for the full names get the short ones (a star for a bounded optimum).
    let bar_px = f64::from(halves[0].dim_in_pixel().0) / names.len().max(1) as f64;
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0) as f64;
    let names: Vec<String> = match 0.6 * style.font(10.0) * longest > 0.9 * bar_px {
        false => names,
        true => study
            .routed
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let short = crate::routing::Algorithm::ALL
                    .get(k)
                    .map_or(r.name, |a| a.short());
                match r.proven {
                    Some(false) => format!("{short}*"),
                    _ => short.to_string(),
                }
            })
            .collect(),
    };
    for (panel, (title, unit, values)) in halves.iter().zip(series) {
        let top = values
            .iter()
            .copied()
            .fold(0.0f64, f64::max)
            .max(cf_ms * (unit == "ms") as u8 as f64)
            * 1.2;
        let last = names.len().saturating_sub(1) as u32;
        let mut chart = ChartBuilder::on(panel)
            .margin(style.px(10.0))
            .caption(
                title,
                (
                    "sans-serif",
                    style.title_font(14.0, title, panel.dim_in_pixel().0),
                )
                    .into_font()
                    .color(&palette::INK),
            )
            .x_label_area_size(style.px(40.0))
            .y_label_area_size(style.px(64.0))
            .build_cartesian_2d((0u32..last).into_segmented(), 0f64..top.max(1e-9))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(palette::INK.mix(0.1))
            .y_desc(unit)
            .label_style(("sans-serif", style.font(10.0)))
            // "12000", not "12000.0": the axis name keeps clear of the ticks.
            .y_label_formatter(&|v| super::front::trimmed(*v, 1))
            .x_label_formatter(&|x| match x {
                SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .draw()?;
        chart.draw_series(values.iter().enumerate().map(|(i, v)| {
            let i = i as u32;
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(i), 0.0),
                    (SegmentValue::Exact(i + 1), *v),
                ],
                crate::routing::Algorithm::ALL
                    .get(i as usize)
                    .map_or(palette::INK, |a| palette::of_algorithm(*a))
                    .filled(),
            );
            r.set_margin(0, 0, style.px(8.0), style.px(8.0));
            r
        }))?;
        if unit == "ms" && cf_ms > 0.0 {
            chart
                .draw_series([PathElement::new(
                    vec![
                        (SegmentValue::Exact(0), cf_ms),
                        (SegmentValue::Exact(last + 1), cf_ms),
                    ],
                    palette::INK.stroke_width(style.px(1.5)),
                )])?
                .label("contention-free")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], palette::INK));
            super::draw_legend(&mut chart, SeriesLabelPosition::UpperRight, style)?;
        }
    }
    area.present()
}

/// Static makespan against the number of failed spines, ECMP and greedy.
pub fn draw_route_failures<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    study: &RouteStudy,
    style: &ChartStyle,
) -> Result<DB> {
    area.fill(&WHITE)?;
    let f = &study.failures;
    let top = f
        .ecmp_s
        .iter()
        .chain(&f.greedy_s)
        .chain(&f.optimal_s)
        .copied()
        .fold(0.0f64, f64::max)
        * 1e3
        * 1.2;
    let last = f.failed.last().copied().unwrap_or(0).max(1);
    let mut chart = ChartBuilder::on(area)
        .margin(style.px(12.0))
        .caption(
            "Static makespan against failed spines",
            (
                "sans-serif",
                style.title_font(
                    15.0,
                    "Static makespan against failed spines",
                    area.dim_in_pixel().0,
                ),
            )
                .into_font()
                .color(&palette::INK),
        )
        .x_label_area_size(style.px(36.0))
        .y_label_area_size(style.px(52.0))
        .build_cartesian_2d(0f64..f64::from(last), 0f64..top.max(1e-9))?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::INK.mix(0.1))
        .x_desc("failed spines")
        .y_desc("makespan (ms)")
        .x_labels((last + 1) as usize)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .label_style(("sans-serif", style.font(11.0)))
        .draw()?;
    use crate::routing::Algorithm;
    for (name, values, color) in [
        ("ECMP", &f.ecmp_s, palette::of_algorithm(Algorithm::Ecmp)),
        (
            "greedy",
            &f.greedy_s,
            palette::of_algorithm(Algorithm::Greedy),
        ),
        (
            "optimal (min makespan)",
            &f.optimal_s,
            palette::of_algorithm(Algorithm::Optimal),
        ),
    ] {
        let pts: Vec<(f64, f64)> = f
            .failed
            .iter()
            .zip(values.iter())
            .map(|(x, y)| (f64::from(*x), y * 1e3))
            .collect();
        chart
            .draw_series([PathElement::new(
                pts.clone(),
                color.stroke_width(style.px(2.0)),
            )])?
            .label(name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 14, y)], color.stroke_width(2))
            });
        chart.draw_series(
            pts.iter()
                .map(|p| Circle::new(*p, style.px(3.0) as i32, color.filled())),
        )?;
    }
    super::draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, style)?;
    area.present()
}

/// What the Routing view's charts show: the study, and which algorithm's loads the heatmap shows.
#[derive(Clone, Debug)]
pub struct RouteShown {
    pub study: Arc<RouteStudy>,
    /// The index of the algorithm in `study.routed`.
    pub which: usize,
}

impl Chart for RouteChart {
    type Data = RouteShown;

    fn testid(self) -> &'static str {
        RouteChart::testid(self)
    }

    fn description(self) -> &'static str {
        RouteChart::description(self)
    }

    fn draw(
        self,
        area: &Area<'_>,
        data: &RouteShown,
        _highlight: Option<usize>,
        style: &ChartStyle,
    ) -> std::result::Result<Vec<(i32, i32)>, String> {
        let s = &data.study;
        drawn(match self {
            RouteChart::Loads => draw_route_loads(area, s, data.which, style),
            RouteChart::Compare => draw_route_compare(area, s, style),
            RouteChart::Rates => super::route_cdf::draw_rate_cdf(area, s, style),
            RouteChart::Failures => draw_route_failures(area, s, style),
        })
    }

    fn table(self, data: &RouteShown) -> DataTable {
        RouteChart::table(self, &data.study, data.which)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::study::{route_study, RoutePreset};

    #[test]
    fn the_routing_charts_draw_as_svg() {
        let s = route_study(&RoutePreset::DegradedLink.setup()).unwrap();
        let shown = RouteShown {
            study: Arc::new(s),
            which: 1,
        };
        let texts: Vec<String> = RouteChart::ALL
            .into_iter()
            .map(|chart| crate::charts::chart::svg_as_drawn(chart, &shown, 800, 360).unwrap())
            .collect();
        assert!(texts[0].contains("Flows per ToR-spine link, greedy"));
        assert!(texts[0].contains("ToR 7") && texts[0].contains("S3"));
        assert!(texts[1].contains("contention-free") && texts[1].contains("ECMP"));
        assert!(texts[2].contains("<svg") && texts[2].contains("ECMP"));
        assert!(texts[3].contains("failed spines") && texts[3].contains("greedy"));
        // The heatmap follows the algorithm shown, and so does its table.
        let ecmp = RouteShown {
            which: 0,
            ..shown.clone()
        };
        let svg = crate::charts::chart::svg_as_drawn(RouteChart::Loads, &ecmp, 800, 360).unwrap();
        assert!(svg.contains("Flows per ToR-spine link, ECMP"));
        assert_eq!(
            Chart::table(RouteChart::Loads, &ecmp),
            RouteChart::table(RouteChart::Loads, &shown.study, 0)
        );
    }
}
