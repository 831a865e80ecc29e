//! The Cluster view's charts (docs/cluster.md): the job completion times of each
//! policy as a distribution, the share of NICs busy over time, the cluster's throughput over
//! time, and a timeline of the jobs under one policy (waiting, then running); with their numbers
//! as tables.

use super::chart::{drawn, Area, Chart};
use super::route_cdf::cdf_points;
use super::tables::DataTable;
use super::{palette, ChartStyle};
use crate::cluster::study::{quantile, ClusterStudy};
use crate::routing::Algorithm;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::sync::Arc;

/// One of the Cluster view's charts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterChart {
    /// The fraction of jobs done within each completion time, per policy.
    Jct,
    /// The share of NICs held by running jobs over time, per policy.
    Busy,
    /// Iterations completed per second over time, per policy.
    Throughput,
    /// Each job's wait and run under one policy.
    Timeline,
}

/// Windows of the throughput chart over the makespan.
pub const THROUGHPUT_WINDOWS: usize = 40;

impl ClusterChart {
    pub const ALL: [ClusterChart; 4] = [
        ClusterChart::Jct,
        ClusterChart::Busy,
        ClusterChart::Throughput,
        ClusterChart::Timeline,
    ];

    pub fn testid(self) -> &'static str {
        match self {
            ClusterChart::Jct => "chart-cluster-jct",
            ClusterChart::Busy => "chart-cluster-busy",
            ClusterChart::Throughput => "chart-cluster-throughput",
            ClusterChart::Timeline => "chart-cluster-timeline",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            ClusterChart::Jct => "Distribution of job completion times per routing policy",
            ClusterChart::Busy => "Share of NICs busy over time per routing policy",
            ClusterChart::Throughput => {
                "Cluster throughput over time (iterations completed per second) per routing policy"
            }
            ClusterChart::Timeline => "Each job's wait and run under one routing policy",
        }
    }

    /// Draw the chart of `study` (the timeline that of `shown`, or of the first policy).
    pub fn draw<DB: DrawingBackend>(
        self,
        area: &DrawingArea<DB, Shift>,
        study: &ClusterStudy,
        shown: Algorithm,
        style: &ChartStyle,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        match self {
            ClusterChart::Jct => draw_jct(area, study, style),
            ClusterChart::Busy => draw_busy(area, study, style),
            ClusterChart::Throughput => draw_throughput(area, study, style),
            ClusterChart::Timeline => draw_timeline(area, study, shown, style),
        }
    }

    /// The numbers the chart draws.
    pub fn table(self, study: &ClusterStudy, shown: Algorithm) -> DataTable {
        match self {
            ClusterChart::Jct => {
                let mut t = DataTable::new(&[
                    "policy",
                    "jobs",
                    "least JCT (s)",
                    "median JCT (s)",
                    "95th percentile JCT (s)",
                    "largest JCT (s)",
                ]);
                for r in &study.results {
                    let j = r.jcts();
                    let at = |q| quantile(&j, q).map_or("–".into(), |v| format!("{v:.2}"));
                    t.rows.push(vec![
                        r.policy.label().into(),
                        j.len().to_string(),
                        at(0.0),
                        at(0.5),
                        at(0.95),
                        at(1.0),
                    ]);
                }
                t
            }
            ClusterChart::Busy => {
                let mut t = DataTable::new(&[
                    "policy",
                    "time (s)",
                    "running jobs",
                    "waiting jobs",
                    "NICs busy (%)",
                ]);
                let hosts = study.trace.hosts().max(1) as f64;
                for r in &study.results {
                    // About 64 samples per policy keep the table readable; the chart draws them all.
                    let step = (r.timeline.len() / 64).max(1);
                    for s in r.timeline.iter().step_by(step) {
                        t.rows.push(vec![
                            r.policy.label().into(),
                            format!("{:.2}", s.t_s),
                            s.running.to_string(),
                            s.waiting.to_string(),
                            format!("{:.1}", 100.0 * s.busy_nics as f64 / hosts),
                        ]);
                    }
                }
                t
            }
            ClusterChart::Throughput => {
                let mut t = DataTable::new(&["policy", "from (s)", "to (s)", "iterations/s"]);
                for r in &study.results {
                    for (a, b, rate) in r.throughput_over_time(THROUGHPUT_WINDOWS) {
                        t.rows.push(vec![
                            r.policy.label().into(),
                            format!("{a:.2}"),
                            format!("{b:.2}"),
                            format!("{rate:.3}"),
                        ]);
                    }
                }
                t
            }
            ClusterChart::Timeline => {
                let mut t = DataTable::new(&[
                    "job",
                    "arrival (s)",
                    "start (s)",
                    "end (s)",
                    "JCT (s)",
                    "slowdown",
                ]);
                if let Some(r) = shown_result(study, shown) {
                    for j in &r.jobs {
                        t.rows.push(vec![
                            format!("job {}", j.id),
                            format!("{:.2}", j.arrival_s),
                            format!("{:.2}", j.start_s),
                            format!("{:.2}", j.end_s),
                            format!("{:.2}", j.jct_s),
                            format!("{:.3}", j.slowdown),
                        ]);
                    }
                }
                t
            }
        }
    }
}

/// Each policy's totals: what the Cluster view's table lists.
pub fn cluster_summary(study: &ClusterStudy) -> DataTable {
    let mut t = DataTable::new(&[
        "policy",
        "mean JCT (s)",
        "median JCT (s)",
        "95th percentile JCT (s)",
        "mean slowdown",
        "makespan (s)",
        "iterations/s",
        "NICs busy (%)",
        "time in All-Reduce (%)",
        "re-routings",
    ]);
    for r in &study.results {
        let j = r.jcts();
        let at = |q| quantile(&j, q).map_or("–".into(), |v| format!("{v:.2}"));
        t.rows.push(vec![
            r.policy.label().into(),
            format!("{:.2}", r.mean_jct_s),
            at(0.5),
            at(0.95),
            format!("{:.3}", r.mean_slowdown()),
            format!("{:.2}", r.makespan_s),
            format!("{:.3}", r.throughput),
            format!("{:.1}", 100.0 * r.busy_fraction),
            format!("{:.1}", 100.0 * r.comm_fraction),
            r.reroutes.to_string(),
        ]);
    }
    t
}

/// The result of `shown`, or the first one when `shown` was not simulated.
pub fn shown_result(study: &ClusterStudy, shown: Algorithm) -> Option<&crate::cluster::SimResult> {
    study
        .results
        .iter()
        .find(|r| r.policy == shown)
        .or(study.results.first())
}

/// A chart over two continuous axes from 0.
type TimeChart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The frame of every Cluster chart: a title and axes from 0 to `x` and `y` with their names.
fn frame<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    title: &str,
    x: (f64, &str),
    y: (f64, &str),
    style: &ChartStyle,
) -> Result<TimeChart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&WHITE)?;
    let positive = |v: f64| if v.is_finite() && v > 0.0 { v } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .margin(style.px(12.0))
        .caption(
            title,
            (
                "sans-serif",
                style.title_font(15.0, title, area.dim_in_pixel().0),
            )
                .into_font()
                .color(&palette::INK),
        )
        .x_label_area_size(style.px(36.0))
        .y_label_area_size(style.px(52.0))
        .build_cartesian_2d(0f64..positive(x.0), 0f64..positive(y.0))?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::INK.mix(0.1))
        .x_desc(x.1)
        .y_desc(y.1)
        .label_style(("sans-serif", style.font(11.0)))
        .draw()?;
    Ok(chart)
}

fn draw_jct<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    study: &ClusterStudy,
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let top = study
        .results
        .iter()
        .flat_map(|r| r.jobs.iter().map(|j| j.jct_s))
        .fold(0.0, f64::max)
        * 1.05;
    let mut chart = frame(
        area,
        // Short enough for a phone's width; the axes say the rest.
        "Job completion times",
        (top, "job completion time (s)"),
        (1.05, "fraction of jobs"),
        style,
    )?;
    for (k, r) in study.results.iter().enumerate() {
        let c = palette::of_algorithm(r.policy);
        let mut j = r.jcts();
        j.sort_by(f64::total_cmp);
        let mut pts = cdf_points(&j);
        if let Some(last) = pts.last().copied() {
            pts.push((top, last.1));
        }
        chart
            .draw_series([PathElement::new(pts, c.stroke_width(style.px(2.0)))])?
            .label(legend_label(
                study,
                k,
                format!("mean {:.1} s", r.mean_jct_s),
            ))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], c.stroke_width(2)));
    }
    super::draw_legend(&mut chart, SeriesLabelPosition::LowerRight, style)?;
    area.present()
}

fn draw_busy<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    study: &ClusterStudy,
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let hosts = study.trace.hosts().max(1) as f64;
    let end = time_axis_end(study);
    // The lines fill the plot from 0 to 100 %: the legend goes beside it (under it on a
    // phone), never over the data.
    let entries: Vec<(String, RGBColor)> = study
        .results
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let numbers = format!(
                "{:.0} % busy, {:.2} iterations/s",
                100.0 * r.busy_fraction,
                r.throughput
            );
            (
                legend_label(study, k, numbers),
                palette::of_algorithm(r.policy),
            )
        })
        .collect();
    let main = super::legend_beside(area, &entries, style)?;
    let mut chart = frame(
        &main,
        "NICs busy over time",
        (end, "time (s)"),
        (105.0, "NICs held by running jobs (%)"),
        style,
    )?;
    for r in &study.results {
        let c = palette::of_algorithm(r.policy);
        // A step line: each sample holds until the next.
        let mut pts = Vec::with_capacity(2 * r.timeline.len());
        let mut last = 0.0;
        for s in &r.timeline {
            pts.push((s.t_s, last));
            last = 100.0 * s.busy_nics as f64 / hosts;
            pts.push((s.t_s, last));
        }
        chart.draw_series([PathElement::new(pts, c.stroke_width(style.px(2.0)))])?;
    }
    area.present()
}

/// The end of the time axis shared by every policy's line: the latest makespan, with a margin.
fn time_axis_end(study: &ClusterStudy) -> f64 {
    study
        .results
        .iter()
        .map(|r| r.makespan_s)
        .fold(0.0, f64::max)
        * 1.02
}

/// A policy's legend entry: its numbers, or which earlier policy it coincides with (drawn last,
/// its line covers that one's; its numbers are that one's, so they are not repeated, which keeps
/// the legend narrow enough for a phone).
fn legend_label(study: &ClusterStudy, k: usize, numbers: String) -> String {
    let label = study.results[k].policy.label();
    match study.twin(k) {
        Some(p) => format!("{label} (same as {})", p.label()),
        None => format!("{label} ({numbers})"),
    }
}

fn draw_throughput<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    study: &ClusterStudy,
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let series: Vec<_> = study
        .results
        .iter()
        .map(|r| (r, r.throughput_over_time(THROUGHPUT_WINDOWS)))
        .collect();
    let end = time_axis_end(study);
    let top = series
        .iter()
        .flat_map(|(_, s)| s.iter().map(|w| w.2))
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.1;
    let mut chart = frame(
        area,
        "Cluster throughput over time",
        (end, "time (s)"),
        (top, "iterations completed per second"),
        style,
    )?;
    for (k, (r, windows)) in series.iter().enumerate() {
        let c = palette::of_algorithm(r.policy);
        // A step line: each window's rate across the window.
        let pts: Vec<(f64, f64)> = windows
            .iter()
            .flat_map(|&(a, b, rate)| [(a, rate), (b, rate)])
            .collect();
        chart
            .draw_series([PathElement::new(pts, c.stroke_width(style.px(2.0)))])?
            .label(legend_label(
                study,
                k,
                format!("{:.2} iterations/s overall", r.throughput),
            ))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], c.stroke_width(2)));
    }
    super::draw_legend(&mut chart, SeriesLabelPosition::UpperRight, style)?;
    area.present()
}

fn draw_timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    study: &ClusterStudy,
    shown: Algorithm,
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let Some(r) = shown_result(study, shown) else {
        area.fill(&WHITE)?;
        return area.present();
    };
    let n = r.jobs.len().max(1) as f64;
    let end = r.makespan_s.max(1e-9) * 1.02;
    let title = format!("Jobs under {}", r.policy.label());
    let mut chart = frame(
        area,
        &title,
        (end, "time (s): waiting (light), then running"),
        (n, "job (in order of arrival)"),
        style,
    )?;
    let c = palette::of_algorithm(r.policy);
    let mut jobs: Vec<_> = r.jobs.iter().collect();
    jobs.sort_by(|a, b| a.arrival_s.total_cmp(&b.arrival_s).then(a.id.cmp(&b.id)));
    let row = |k: usize| (k as f64 + 0.1, k as f64 + 0.9);
    chart.draw_series(
        jobs.iter()
            .enumerate()
            .filter(|(_, j)| j.start_s > j.arrival_s)
            .map(|(k, j)| {
                let (lo, hi) = row(k);
                Rectangle::new(
                    [(j.arrival_s, lo), (j.start_s, hi)],
                    palette::INK.mix(0.18).filled(),
                )
            }),
    )?;
    chart.draw_series(jobs.iter().enumerate().map(|(k, j)| {
        let (lo, hi) = row(k);
        Rectangle::new([(j.start_s, lo), (j.end_s, hi)], c.mix(0.85).filled())
    }))?;
    area.present()
}

/// What the Cluster view's charts show: the study, and the policy whose timeline is drawn.
#[derive(Clone, Debug)]
pub struct ClusterShown {
    pub study: Arc<ClusterStudy>,
    pub shown: Algorithm,
}

impl Chart for ClusterChart {
    type Data = ClusterShown;

    fn testid(self) -> &'static str {
        ClusterChart::testid(self)
    }

    fn description(self) -> &'static str {
        ClusterChart::description(self)
    }

    fn draw(
        self,
        area: &Area<'_>,
        data: &ClusterShown,
        _highlight: Option<usize>,
        style: &ChartStyle,
    ) -> Result<Vec<(i32, i32)>, String> {
        drawn(ClusterChart::draw(
            self,
            area,
            &data.study,
            data.shown,
            style,
        ))
    }

    fn table(self, data: &ClusterShown) -> DataTable {
        ClusterChart::table(self, &data.study, data.shown)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_routing_algorithm_has_its_own_colour() {
        // A policy is drawn in its algorithm's colour in the Cluster and the Routing views.
        let all = Algorithm::ALL;
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(
                    palette::of_algorithm(*a),
                    palette::of_algorithm(*b),
                    "{} and {}",
                    a.key(),
                    b.key()
                );
            }
        }
    }

    use super::*;
    use crate::cluster::study::{cluster_study, ClusterLink};

    #[test]
    fn every_chart_draws_and_tabulates_the_study() {
        let link = ClusterLink {
            policies: vec![Algorithm::Ecmp, Algorithm::EdgeColoring],
            ..ClusterLink::default()
        };
        let study = cluster_study(&link).unwrap();
        let shown = ClusterShown {
            study: Arc::new(study.clone()),
            shown: Algorithm::EdgeColoring,
        };
        for chart in ClusterChart::ALL {
            let svg = crate::charts::chart::svg(chart, &shown, 700, 380).unwrap();
            assert!(svg.contains("<svg"), "{chart:?}");
            let t = Chart::table(chart, &shown);
            assert!(!t.rows.is_empty(), "{chart:?}");
        }
        let jct = ClusterChart::Jct.table(&study, Algorithm::Ecmp);
        assert_eq!(jct.rows.len(), 2);
        assert_eq!(jct.rows[0][1], link.setup.jobs.to_string());
        let throughput = ClusterChart::Throughput.table(&study, Algorithm::Ecmp);
        assert_eq!(throughput.rows.len(), 2 * THROUGHPUT_WINDOWS);
        let timeline = ClusterChart::Timeline.table(&study, Algorithm::EdgeColoring);
        assert_eq!(timeline.rows.len(), link.setup.jobs as usize);
        // The median JCT in the table is the study's own.
        let median = quantile(&study.results[1].jcts(), 0.5).unwrap();
        assert_eq!(jct.rows[1][3], format!("{median:.2}"));
    }
}
