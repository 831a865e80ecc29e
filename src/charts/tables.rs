//! Every chart's numbers as a table: the "Show as table" alternative beside each chart, for
//! screen readers and for anyone who would rather read the values than the pixels.

use super::study_charts::StudyChart;
use crate::analysis::landscape::Landscape;
use crate::analysis::shapes::ShapeFront;
use crate::analysis::study::Study;
use crate::format::{duration_ns, usd};
use crate::model::CostComponent;
use crate::routing::study::RouteStudy;

/// A table of strings: a header row and the rows under it.
#[derive(Clone, Debug, PartialEq)]
pub struct DataTable {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl DataTable {
    pub(crate) fn new(headers: &[&str]) -> DataTable {
        DataTable {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// The table as CSV (RFC 4180): a header line, then a line per row; a cell with a comma,
    /// a quote or a line break quoted, its quotes doubled.
    pub fn to_csv(&self) -> String {
        let cell = |c: &str| match c.contains([',', '"', '\n', '\r']) {
            true => format!("\"{}\"", c.replace('"', "\"\"")),
            false => c.to_string(),
        };
        let line = |cells: &[String]| cells.iter().map(|c| cell(c)).collect::<Vec<_>>().join(",");
        let mut out = line(&self.headers);
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
            out.push('\n');
        }
        out
    }
}

fn gbps(v: f64) -> String {
    format!("{v:.2}")
}

#[cfg(test)]
mod csv_tests {
    use super::*;

    #[test]
    fn cells_with_commas_and_quotes_are_quoted() {
        let mut t = DataTable::new(&["shape", "cost"]);
        t.rows
            .push(vec!["Ring 4 × Switch 8".into(), "$1,234".into()]);
        t.rows.push(vec!["say \"hi\"".into(), "2".into()]);
        assert_eq!(
            t.to_csv(),
            "shape,cost\nRing 4 × Switch 8,\"$1,234\"\n\"say \"\"hi\"\"\",2\n"
        );
    }
}

impl StudyChart {
    /// The numbers the chart draws for `study` (and the `pinned` one where the chart shows it).
    pub fn table(self, study: &Study, pinned: Option<&Study>) -> DataTable {
        match self {
            StudyChart::Front => {
                let mut t = DataTable::new(&["design", "budget", "network cost", "training time"]);
                for (k, p) in study.front.iter().flat_map(|f| &f.points).enumerate() {
                    t.rows.push(vec![
                        format!("front point {}", k + 1),
                        usd(p.budget_usd),
                        usd(p.cost_usd),
                        duration_ns(p.time_ns),
                    ]);
                }
                let mut design = |name: &str, ev: &crate::model::scenario::Evaluation| {
                    t.rows.push(vec![
                        name.to_string(),
                        "–".into(),
                        usd(ev.cost_usd),
                        duration_ns(ev.time_ns),
                    ]);
                };
                design("current design (optimum)", &study.evaluation);
                if let Some(u) = &study.uniform {
                    design("uniform split", &u.evaluation);
                }
                if let Some(p) = pinned {
                    design("pinned optimum", &p.evaluation);
                }
                t
            }
            StudyChart::Bandwidth => {
                let mut t = DataTable::new(&["dimension", "uniform GB/s", "optimal GB/s"]);
                for (d, label) in study.dim_labels.iter().enumerate() {
                    t.rows.push(vec![
                        label.clone(),
                        study
                            .uniform
                            .as_ref()
                            .map_or("–".into(), |u| gbps(u.bw_gbps[d])),
                        gbps(study.optimum.bw_gbps[d]),
                    ]);
                }
                t
            }
            StudyChart::TimeBreakdown => {
                let mut headers = vec!["design".to_string(), "compute".to_string()];
                headers.extend(
                    study
                        .dim_labels
                        .iter()
                        .map(|l| format!("{l} communication")),
                );
                headers.push("total".into());
                let mut t = DataTable {
                    headers,
                    rows: Vec::new(),
                };
                let mut row = |name: &str, ev: &crate::model::scenario::Evaluation| {
                    let exposed = ev.exposed_ns();
                    let mut r = vec![name.to_string(), duration_ns(ev.compute_ns)];
                    r.extend(
                        (0..ev.bw_gbps.len())
                            .map(|d| duration_ns(exposed.iter().map(|k| k[d]).sum())),
                    );
                    r.push(duration_ns(ev.time_ns));
                    t.rows.push(r);
                };
                if let Some(u) = &study.uniform {
                    row("uniform split", &u.evaluation);
                }
                if let Some(p) = pinned {
                    row("pinned optimum", &p.evaluation);
                }
                row("optimum", &study.evaluation);
                t
            }
            StudyChart::Traffic => {
                let mut headers = vec!["dimension".to_string()];
                headers.extend(
                    crate::model::workload::Traffic::ALL
                        .iter()
                        .map(|t| t.name().to_string()),
                );
                let mut t = DataTable {
                    headers,
                    rows: Vec::new(),
                };
                for b in super::traffic_bars::traffic_bars(&study.dim_labels, &study.evaluation) {
                    let mut r = vec![b.label];
                    r.extend(b.by_traffic_ns.iter().map(|&v| duration_ns(v)));
                    t.rows.push(r);
                }
                t
            }
            StudyChart::Cost => {
                let mut header = vec!["dimension"];
                header.extend(CostComponent::ALL.map(CostComponent::label));
                header.push("total");
                let mut t = DataTable::new(&header);
                for (d, label) in study.evaluation.cost.dims.iter().zip(&study.dim_labels) {
                    let mut row = vec![label.clone()];
                    row.extend(CostComponent::ALL.map(|c| usd(d.usd(c))));
                    row.push(usd(d.total_usd()));
                    t.rows.push(row);
                }
                t
            }
        }
    }
}

/// The charts of the Routing view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteChart {
    /// Flows per ToR-spine link, up and down, for the algorithm shown.
    Loads,
    /// Least flow rate and makespan per algorithm.
    Compare,
    /// Distribution of flow rates per algorithm.
    Rates,
    /// Makespan against the number of failed spines.
    Failures,
}

impl RouteChart {
    pub const ALL: [RouteChart; 4] = [
        RouteChart::Loads,
        RouteChart::Compare,
        RouteChart::Rates,
        RouteChart::Failures,
    ];

    pub fn testid(self) -> &'static str {
        match self {
            RouteChart::Loads => "chart-route-loads",
            RouteChart::Compare => "chart-route-compare",
            RouteChart::Rates => "chart-route-rates",
            RouteChart::Failures => "chart-route-failures",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            RouteChart::Loads => "Flows per ToR-spine link, up and down",
            RouteChart::Compare => "Least flow rate and makespan per algorithm",
            RouteChart::Rates => "Distribution of flow rates per algorithm",
            RouteChart::Failures => "Makespan against the number of failed spines",
        }
    }

    /// The numbers the chart draws for `study`, the loads those of algorithm `which`.
    pub fn table(self, study: &RouteStudy, which: usize) -> DataTable {
        match self {
            RouteChart::Loads => {
                let mut t = DataTable::new(&["link", "flows"]);
                if let Some(r) = study.routed.get(which) {
                    t.rows = r
                        .metrics
                        .link_loads
                        .iter()
                        .map(|(link, n)| vec![link.clone(), n.to_string()])
                        .collect();
                }
                t
            }
            RouteChart::Compare => {
                let mut t = DataTable::new(&[
                    "algorithm",
                    "least flow rate (Gbps)",
                    "makespan (static)",
                    "makespan (fluid)",
                    "max flows on a link",
                ]);
                for r in &study.routed {
                    let m = &r.metrics;
                    t.rows.push(vec![
                        r.name.to_string(),
                        format!("{:.1}", m.min_flow_rate_gbps),
                        duration_ns(m.makespan_static_s * 1e9),
                        duration_ns(m.makespan_fluid_s * 1e9),
                        m.max_link_load.to_string(),
                    ]);
                }
                t
            }
            RouteChart::Rates => {
                let mut t = DataTable::new(&[
                    "algorithm",
                    "flows",
                    "least (Gbps)",
                    "median (Gbps)",
                    "largest (Gbps)",
                ]);
                for r in &study.routed {
                    let s = &r.metrics.flow_rates_sorted_gbps;
                    let at = |q: f64| {
                        s.get(((s.len().saturating_sub(1)) as f64 * q).round() as usize)
                            .map_or("–".into(), |v| format!("{v:.1}"))
                    };
                    t.rows.push(vec![
                        r.name.to_string(),
                        s.len().to_string(),
                        at(0.0),
                        at(0.5),
                        at(1.0),
                    ]);
                }
                t
            }
            RouteChart::Failures => {
                let f = &study.failures;
                let mut t =
                    DataTable::new(&["failed spines", "ECMP", "greedy", "optimal (min makespan)"]);
                for (k, failed) in f.failed.iter().enumerate() {
                    let s = |v: &[f64]| v.get(k).map_or("–".into(), |x| duration_ns(x * 1e9));
                    let proof = if f.optimal_proven.get(k) == Some(&true) {
                        ""
                    } else {
                        " (not proven)"
                    };
                    t.rows.push(vec![
                        failed.to_string(),
                        s(&f.ecmp_s),
                        s(&f.greedy_s),
                        format!("{}{proof}", s(&f.optimal_s)),
                    ]);
                }
                t
            }
        }
    }
}

/// The landscape's grid: one row per value of the vertical dimension, one column per value of
/// the horizontal one, the least training time in each cell ("–" where no design meets the
/// constraints).
pub fn landscape_table(l: &Landscape, x_name: &str, y_name: &str) -> DataTable {
    let mut headers = vec![format!("{y_name} \\ {x_name} (GB/s)")];
    headers.extend(l.xs.iter().map(|x| format!("{x:.1}")));
    let rows = (0..l.ys.len())
        .rev()
        .map(|iy| {
            std::iter::once(format!("{:.1}", l.ys[iy]))
                .chain((0..l.xs.len()).map(|ix| l.at(ix, iy).map_or("–".into(), duration_ns)))
                .collect()
        })
        .collect();
    DataTable { headers, rows }
}

/// The shape comparison's fronts: one row per shape, its least training time at each budget.
pub fn compare_table(budgets: &[f64], fronts: &[ShapeFront]) -> DataTable {
    let mut headers = vec!["shape".to_string()];
    headers.extend(budgets.iter().map(|b| usd(*b)));
    let rows = fronts
        .iter()
        .map(|f| {
            let mut row = vec![f.network.shape_label()];
            row.extend(budgets.iter().map(|b| {
                f.front
                    .as_ref()
                    .ok()
                    .and_then(|fr| fr.points.iter().find(|p| p.budget_usd == *b))
                    .map_or("–".into(), |p| duration_ns(p.time_ns))
            }));
            row
        })
        .collect();
    DataTable { headers, rows }
}

/// The co-design's fastest designs at its ranking budget, fastest first.
pub fn codesign_ranked_table(result: &crate::codesign::CodesignResult) -> DataTable {
    // Context and expert parallelism get their place when some design uses them.
    let cp = result.ranked.iter().any(|d| d.cp > 1);
    let ep = result.ranked.iter().any(|d| d.ep > 1);
    let degrees = match (cp, ep) {
        (false, false) => "TP × PP × DP",
        (true, false) => "TP × CP × PP × DP",
        (false, true) => "TP × PP × DP, EP",
        (true, true) => "TP × CP × PP × DP, EP",
    };
    let mut t = DataTable::new(&[
        "#",
        degrees,
        "micro-batch",
        "shape",
        "mapping",
        "time / iteration",
        "network cost",
        "GB per NPU",
        "GB/s per dimension",
    ]);
    for (k, d) in result.ranked.iter().enumerate() {
        t.rows.push(vec![
            (k + 1).to_string(),
            match cp {
                true => format!("{} × {} × {} × {}", d.tp, d.cp, d.pp, d.dp),
                false => format!("{} × {} × {}", d.tp, d.pp, d.dp),
            } + &match ep {
                true => format!(", EP {}", d.ep),
                false => String::new(),
            },
            d.micro_batch.to_string(),
            d.shape_label.clone(),
            d.mapping.order.clone(),
            duration_ns(d.time_ns),
            usd(d.cost_usd),
            format!("{:.1}", d.memory_gb),
            d.bw_gbps
                .iter()
                .map(|b| format!("{b:.0}"))
                .collect::<Vec<_>>()
                .join(" / "),
        ]);
    }
    t
}

/// The co-design's winner per budget range.
pub fn codesign_winners_table(result: &crate::codesign::CodesignResult) -> DataTable {
    let mut t = DataTable::new(&["budgets", "parallelism", "shape", "mapping"]);
    for w in &result.winners {
        t.rows.push(vec![
            if w.from_usd == w.to_usd {
                usd(w.from_usd)
            } else {
                format!("{} – {}", usd(w.from_usd), usd(w.to_usd))
            },
            w.design.parallelism_label(),
            w.design.shape_label.clone(),
            w.design.mapping.order.clone(),
        ]);
    }
    t
}

/// The co-design front: the fastest design at each budget.
pub fn codesign_table(front: &[crate::codesign::Design]) -> DataTable {
    let mut t = DataTable::new(&[
        "budget",
        "training time",
        "network cost",
        "parallelism",
        "shape",
        "GB/s per dimension",
    ]);
    for d in front {
        t.rows.push(vec![
            usd(d.budget_usd),
            duration_ns(d.time_ns),
            usd(d.cost_usd),
            d.parallelism_label(),
            d.shape_label.clone(),
            d.bw_gbps
                .iter()
                .map(|b| gbps(*b))
                .collect::<Vec<_>>()
                .join(" / "),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::study::study;
    use crate::presets;
    use crate::routing::study::{route_study, RoutePreset};

    #[test]
    fn each_study_chart_table_holds_the_charts_numbers() {
        let s = study(&presets::default_scenario()).unwrap();
        let front = StudyChart::Front.table(&s, None);
        let points = s.front.as_ref().unwrap().points.len();
        assert_eq!(front.rows.len(), points + 2);
        assert_eq!(
            front.rows[points],
            vec![
                "current design (optimum)".to_string(),
                "–".into(),
                usd(s.evaluation.cost_usd),
                duration_ns(s.evaluation.time_ns)
            ]
        );
        let bw = StudyChart::Bandwidth.table(&s, None);
        assert_eq!(bw.rows.len(), 4);
        assert_eq!(bw.rows[0][2], format!("{:.2}", s.optimum.bw_gbps[0]));
        // The uniform split of LIBRA's total 500 GB/s: 125 each.
        assert!(bw.rows.iter().all(|r| r[1] == "125.00"));
        let time = StudyChart::TimeBreakdown.table(&s, Some(&s));
        assert_eq!(time.headers.len(), 2 + 4 + 1);
        assert_eq!(time.rows.len(), 3);
        assert_eq!(time.rows[2][6], duration_ns(s.evaluation.time_ns));
        let cost = StudyChart::Cost.table(&s, None);
        let total: f64 = s.evaluation.cost.dims.iter().map(|d| d.total_usd()).sum();
        assert!((total - s.evaluation.cost_usd).abs() <= 1e-6 * total);
        assert!(cost.rows.iter().all(|r| r.len() == cost.headers.len()));
    }

    #[test]
    fn each_routing_chart_table_holds_the_charts_numbers() {
        let r = route_study(&RoutePreset::ThreeJobs.setup()).unwrap();
        let loads = RouteChart::Loads.table(&r, 1);
        let flows: u32 = r.routed[1].metrics.link_loads.values().sum();
        let listed: u32 = loads
            .rows
            .iter()
            .map(|row| row[1].parse::<u32>().unwrap())
            .sum();
        assert_eq!(listed, flows);
        let compare = RouteChart::Compare.table(&r, 0);
        assert_eq!(compare.rows.len(), 8);
        assert_eq!(compare.rows[3][0], "optimal (min makespan)");
        let rates = RouteChart::Rates.table(&r, 0);
        assert_eq!(
            rates.rows[0][2],
            format!("{:.1}", r.routed[0].metrics.min_flow_rate_gbps)
        );
        let failures = RouteChart::Failures.table(&r, 0);
        assert_eq!(failures.rows.len(), r.failures.failed.len());
        assert_eq!(failures.rows[0][0], "0");
    }

    #[test]
    fn the_landscape_table_is_its_grid_top_row_first() {
        let s = study(&presets::default_scenario()).unwrap();
        let l = crate::analysis::landscape::landscape(&s, 0, 1, 8).unwrap();
        let t = landscape_table(&l, "d1", "d2");
        assert_eq!(t.headers.len(), l.xs.len() + 1);
        assert_eq!(t.rows.len(), l.ys.len());
        assert_eq!(t.rows[0][0], format!("{:.1}", l.ys[l.ys.len() - 1]));
        let cell = l.at(0, l.ys.len() - 1).map_or("–".into(), duration_ns);
        assert_eq!(t.rows[0][1], cell);
    }
}
