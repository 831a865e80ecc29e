//! The app's four charts of a [`Study`], named so that the page, the PNG/SVG export and the tests
//! draw them with one function each, on any Plotters backend; and the front as CSV.

use super::chart::{Area, Chart, PointInfo};
use super::tables::DataTable;
use super::traffic_bars::{draw_traffic_bars, traffic_bars};
use super::{
    draw_bw_bars, draw_cost_bars, draw_front, draw_time_bars, BwBar, ChartStyle, CostBar, Design,
    FrontChart, TimeBar,
};
use crate::analysis::study::Study;
use crate::format::{duration_ns, usd};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use std::sync::Arc;

/// What the Design view's charts show: the study of the design, and a pinned one beside it.
#[derive(Clone, Debug)]
pub struct StudyShown {
    pub study: Arc<Study>,
    pub pinned: Option<Arc<Study>>,
}

/// One chart of the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StudyChart {
    /// Cost against training time: the front, the current design, the uniform design.
    Front,
    /// Bandwidth per dimension: uniform and optimal.
    Bandwidth,
    /// Training time: compute and exposed communication per dimension, uniform and optimal.
    TimeBreakdown,
    /// Network cost of the optimum per dimension and component.
    Cost,
    /// Exposed communication of the optimum per dimension, by kind of traffic.
    Traffic,
}

impl StudyChart {
    pub const ALL: [StudyChart; 5] = [
        StudyChart::Front,
        StudyChart::TimeBreakdown,
        StudyChart::Bandwidth,
        StudyChart::Cost,
        StudyChart::Traffic,
    ];

    /// The canvas's `data-testid`.
    pub fn testid(self) -> &'static str {
        match self {
            StudyChart::Front => "chart-pareto",
            StudyChart::Bandwidth => "chart-bw",
            StudyChart::TimeBreakdown => "chart-breakdown",
            StudyChart::Cost => "chart-cost",
            StudyChart::Traffic => "chart-traffic",
        }
    }

    /// The exported file's name, without extension.
    pub fn file_stem(self) -> &'static str {
        match self {
            StudyChart::Front => "pareto-front",
            StudyChart::Bandwidth => "bandwidth",
            StudyChart::TimeBreakdown => "time-breakdown",
            StudyChart::Cost => "cost-breakdown",
            StudyChart::Traffic => "traffic-breakdown",
        }
    }

    /// What the chart shows, in words (for screen readers and the export menu).
    pub fn description(self) -> &'static str {
        match self {
            StudyChart::Front => "Pareto front of network cost against training time, with the current design and the uniform split marked",
            StudyChart::Bandwidth => "Bandwidth per NPU in each dimension, uniform split and optimum",
            StudyChart::TimeBreakdown => "Training time per iteration, compute and exposed communication per dimension, uniform split and optimum",
            StudyChart::Cost => "Network cost of the optimum per dimension, by links, switches and NICs",
            StudyChart::Traffic => "Exposed communication of the optimum per dimension, by kind of traffic: tensor, context and pipeline parallelism, expert all-to-alls and data-parallel gradients",
        }
    }

    /// Draw the chart of `study` on `area`, with a `pinned` study beside it (its front and design
    /// on the front chart, its optimum on the time breakdown); `highlight` marks one front point.
    /// Returns the pixel positions of the front's points (empty for the other charts).
    pub fn draw<DB: DrawingBackend>(
        self,
        area: &DrawingArea<DB, Shift>,
        study: &Study,
        pinned: Option<&Study>,
        highlight: Option<usize>,
        style: &ChartStyle,
    ) -> Result<Vec<(i32, i32)>, String> {
        let err = |e: plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let labels = study.dim_labels.iter().cloned();
        match self {
            StudyChart::Front => {
                let mut data = front_chart(study, highlight);
                if let Some(p) = pinned {
                    let other = front_chart(p, None);
                    data.pinned = Some((other.front, other.current));
                }
                draw_front(area, &data, style).map_err(err)
            }
            StudyChart::Bandwidth => {
                let bars: Vec<BwBar> = labels
                    .enumerate()
                    .map(|(d, label)| BwBar {
                        label,
                        uniform_gbps: study.uniform.as_ref().map_or(0.0, |u| u.bw_gbps[d]),
                        optimal_gbps: Some(study.optimum.bw_gbps[d]),
                    })
                    .collect();
                draw_bw_bars(area, &bars, style)
                    .map(|_| Vec::new())
                    .map_err(err)
            }
            StudyChart::TimeBreakdown => {
                let mut bars = Vec::new();
                if let Some(u) = &study.uniform {
                    bars.push(TimeBar::from_evaluation("uniform split", &u.evaluation));
                }
                if let Some(p) = pinned {
                    bars.push(TimeBar::from_evaluation("pinned optimum", &p.evaluation));
                }
                bars.push(TimeBar::from_evaluation("optimum", &study.evaluation));
                draw_time_bars(area, &bars, style)
                    .map(|_| Vec::new())
                    .map_err(err)
            }
            StudyChart::Cost => {
                let bars = CostBar::from_cost(&study.evaluation.cost, labels);
                draw_cost_bars(area, &bars, style)
                    .map(|_| Vec::new())
                    .map_err(err)
            }
            StudyChart::Traffic => {
                let bars = traffic_bars(&study.dim_labels, &study.evaluation);
                draw_traffic_bars(area, &bars, style)
                    .map(|_| Vec::new())
                    .map_err(err)
            }
        }
    }
}

/// The front chart's data of a study.
pub fn front_chart(study: &Study, highlight: Option<usize>) -> FrontChart {
    let design = |ev: &crate::model::scenario::Evaluation| Design {
        cost_usd: ev.cost_usd,
        time_ns: ev.time_ns,
    };
    FrontChart {
        front: study
            .front
            .as_ref()
            .map(|f| {
                f.points
                    .iter()
                    .map(|p| Design {
                        cost_usd: p.cost_usd,
                        time_ns: p.time_ns,
                    })
                    .collect()
            })
            .unwrap_or_default(),
        current: Some(design(&study.evaluation)),
        uniform: study.uniform.as_ref().map(|u| design(&u.evaluation)),
        highlight,
        pinned: None,
    }
}

/// The front as CSV (see `Front::to_csv`); only the header when the front could not be computed.
pub fn front_csv(study: &Study) -> String {
    match &study.front {
        Ok(front) => front.to_csv(study.problem.dims),
        Err(_) => crate::optimize::sweep::Front::default().to_csv(study.problem.dims),
    }
}

impl Chart for StudyChart {
    type Data = StudyShown;

    fn testid(self) -> &'static str {
        StudyChart::testid(self)
    }

    fn description(self) -> &'static str {
        StudyChart::description(self)
    }

    fn file_stem(self) -> &'static str {
        StudyChart::file_stem(self)
    }

    fn draw(
        self,
        area: &Area<'_>,
        data: &StudyShown,
        highlight: Option<usize>,
        style: &ChartStyle,
    ) -> Result<Vec<(i32, i32)>, String> {
        StudyChart::draw(
            self,
            area,
            &data.study,
            data.pinned.as_deref(),
            highlight,
            style,
        )
    }

    fn table(self, data: &StudyShown) -> DataTable {
        StudyChart::table(self, &data.study, data.pinned.as_deref())
    }

    /// The front's points: budget, time and cost, and the bandwidths.
    fn point(self, data: &StudyShown, i: usize) -> Option<PointInfo> {
        if self != StudyChart::Front {
            return None;
        }
        let p = data.study.front.as_ref().ok()?.points.get(i)?;
        let bw: Vec<String> = p.bw_gbps.iter().map(|b| format!("{b:.1}")).collect();
        Some(PointInfo {
            title: format!("budget {}", usd(p.budget_usd)),
            lines: vec![
                format!("time {} · cost {}", duration_ns(p.time_ns), usd(p.cost_usd)),
                format!("B = {} GB/s", bw.join(" / ")),
            ],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::study::{study, FRONT_POINTS};
    use crate::charts::chart::svg;
    use crate::presets;

    fn chart_svg(
        chart: StudyChart,
        study: &Study,
        pinned: Option<&Study>,
        width: u32,
        height: u32,
    ) -> Result<String, String> {
        let shown = StudyShown {
            study: Arc::new(study.clone()),
            pinned: pinned.map(|p| Arc::new(p.clone())),
        };
        svg(chart, &shown, width, height)
    }

    #[test]
    fn only_the_fronts_points_are_pickable_and_read_as_the_front_says() {
        let s = Arc::new(study(&presets::default_scenario()).unwrap());
        let shown = StudyShown {
            study: s.clone(),
            pinned: None,
        };
        let front = s.front.as_ref().unwrap();
        let last = front.points.len() - 1;
        let p = &front.points[last];
        let info = Chart::point(StudyChart::Front, &shown, last).unwrap();
        assert_eq!(info.title, format!("budget {}", usd(p.budget_usd)));
        assert_eq!(
            info.lines[0],
            format!("time {} · cost {}", duration_ns(p.time_ns), usd(p.cost_usd))
        );
        assert_eq!(info.lines[1].matches(" / ").count(), p.bw_gbps.len() - 1);
        assert!(Chart::point(StudyChart::Front, &shown, last + 1).is_none());
        for chart in [
            StudyChart::Bandwidth,
            StudyChart::TimeBreakdown,
            StudyChart::Cost,
        ] {
            assert!(Chart::point(chart, &shown, 0).is_none());
        }
        // The pixel positions drawn are one per point.
        let mut out = String::new();
        let mut backend = plotters::prelude::SVGBackend::with_string(&mut out, (800, 400));
        let area = plotters::prelude::IntoDrawingArea::into_drawing_area(
            crate::charts::dyn_backend::DynBackend(&mut backend),
        );
        let drawn = Chart::draw(
            StudyChart::Front,
            &area,
            &shown,
            None,
            &ChartStyle::default(),
        );
        assert_eq!(drawn.unwrap().len(), front.points.len());
    }

    #[test]
    fn every_chart_of_the_default_study_draws_as_svg() {
        let s = study(&presets::default_scenario()).unwrap();
        for chart in StudyChart::ALL {
            let svg = chart_svg(chart, &s, None, 800, 400).unwrap();
            assert!(svg.starts_with("<svg"), "{}", chart.testid());
            assert!(svg.len() > 2_000, "{} is nearly empty", chart.testid());
        }
        let front = chart_svg(StudyChart::Front, &s, None, 800, 400).unwrap();
        assert!(front.contains("current design: 722.41 ms"));
        assert!(front.contains("uniform split: 775.05 ms"));
        // A pinned scenario adds its front and design to the front, and a bar to the breakdown.
        let mut other = presets::default_scenario();
        other.constraints.total_bw = None;
        other.constraints.budget_usd = Some(2e8);
        let p = study(&other).unwrap();
        let both = chart_svg(StudyChart::Front, &s, Some(&p), 800, 400).unwrap();
        assert!(
            both.contains("pinned scenario&apos;s front")
                || both.contains("pinned scenario's front")
        );
        assert!(both.contains("pinned: "));
        let bars = chart_svg(StudyChart::TimeBreakdown, &s, Some(&p), 800, 400).unwrap();
        assert!(bars.contains("pinned optimum"));
    }

    #[test]
    fn the_front_csv_has_a_row_per_point() {
        let s = study(&presets::default_scenario()).unwrap();
        let csv = front_csv(&s);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "budget_usd,time_ns,cost_usd,gap,bw1_gbps,bw2_gbps,bw3_gbps,bw4_gbps"
        );
        assert_eq!(lines.len(), FRONT_POINTS + 1);
        let first: Vec<f64> = lines[1].split(',').map(|v| v.parse().unwrap()).collect();
        assert_eq!(first.len(), 8);
        // The design costs no more than its budget.
        assert!(first[2] <= first[0] * (1.0 + 1e-9));
    }
}
