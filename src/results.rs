//! Each view's results as files a paper can use: JSON of everything the view computed, with full
//! precision and the field names of the command line's output, and CSV of its main table, one
//! row per design, shape, algorithm or job. The header's "Results" buttons export the open view's
//! (`ui::toolbar`); each chart still exports its own table.

use crate::analysis::landscape::Landscape;
use crate::analysis::shapes::ShapeFront;
use crate::analysis::study::Study;
use crate::cluster::study::ClusterStudy;
use crate::codesign::CodesignResult;
use crate::routing::study::RouteStudy;
use serde_json::{json, Value};

/// A view's results as the two files.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultFiles {
    /// The file names' stem, e.g. "routing-results".
    pub stem: &'static str,
    pub json: String,
    pub csv: String,
}

/// Full precision (the shortest text that reads back to the same number).
fn num(v: f64) -> String {
    v.to_string()
}

fn csv(headers: &[&str], rows: Vec<Vec<String>>) -> String {
    crate::charts::tables::DataTable {
        headers: headers.iter().map(|h| h.to_string()).collect(),
        rows,
    }
    .to_csv()
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// The Design view: the optimum with its certificate, the uniform split it is compared with
/// (the speedup's baseline) and the front; CSV: the front.
pub fn design(study: &Study) -> ResultFiles {
    let o = &study.optimum;
    let v = json!({
        "dimensions": study.dim_labels,
        "method": study.method.key(),
        "optimum": {
            "bw_gbps": o.bw_gbps,
            "time_ns": o.time_ns,
            "cost_usd": o.cost_usd,
            "lower_bound": o.lower_bound,
            "gap": o.gap,
            "compute_ns": study.evaluation.compute_ns,
        },
        "uniform": study.uniform.as_ref().map(|u| json!({
            "bw_gbps": u.bw_gbps,
            "time_ns": u.evaluation.time_ns,
            "cost_usd": u.evaluation.cost_usd,
        })),
        "speedup_over_uniform": study.speedup(),
        "front": study.front.as_ref().ok().map(|f| {
            f.points
                .iter()
                .map(|p| json!([p.budget_usd, p.time_ns, p.cost_usd, p.gap, p.bw_gbps]))
                .collect::<Vec<_>>()
        }),
        "front_columns": ["budget_usd", "time_ns", "cost_usd", "gap", "bw_gbps"],
        "front_error": study.front.as_ref().err().map(ToString::to_string),
    });
    ResultFiles {
        stem: "design-results",
        json: pretty(&v),
        csv: crate::charts::front_csv(study),
    }
}

/// Compare shapes: each shape's front (or why it has none); CSV: a row per shape and budget.
pub fn shapes(fronts: &[ShapeFront]) -> ResultFiles {
    let v: Vec<Value> = fronts
        .iter()
        .map(|s| {
            json!({
                "shape": s.network.shape_label(),
                "network": s.network,
                "front": s.front.as_ref().ok(),
                "error": s.front.as_ref().err().map(ToString::to_string),
            })
        })
        .collect();
    let mut rows = Vec::new();
    for s in fronts {
        if let Ok(f) = &s.front {
            for p in &f.points {
                rows.push(vec![
                    s.network.shape_label(),
                    num(p.budget_usd),
                    num(p.time_ns),
                    num(p.cost_usd),
                    num(p.gap),
                    p.bw_gbps
                        .iter()
                        .map(|b| num(*b))
                        .collect::<Vec<_>>()
                        .join(" "),
                ]);
            }
        }
    }
    ResultFiles {
        stem: "shapes-results",
        json: pretty(&Value::Array(v)),
        csv: csv(
            &[
                "shape",
                "budget_usd",
                "time_ns",
                "cost_usd",
                "gap",
                "bw_gbps",
            ],
            rows,
        ),
    }
}

/// The Landscape: the grid of least times, the optimum, the uniform point and each method's
/// path; CSV: a row per grid point.
pub fn landscape(l: &Landscape) -> ResultFiles {
    let paths: Vec<Value> = l
        .paths
        .iter()
        .map(|p| {
            json!({
                "method": p.method.key(),
                "steps": p.steps,
                "time_ns": p.time_ns,
                "points": p.points,
            })
        })
        .collect();
    let v = json!({
        "dims": [l.dims.0 + 1, l.dims.1 + 1],
        "xs_gbps": l.xs,
        "ys_gbps": l.ys,
        "time_ns": l.time_ns,
        "cost_usd": l.cost_usd,
        "coloured_by": l.score_name(),
        "optimum_gbps": [l.optimum.0, l.optimum.1],
        "optimum_score": l.optimum_score,
        "optimum_time_ns": l.optimum_time_ns,
        "uniform_gbps": l.uniform.map(|u| [u.0, u.1]),
        "paths": paths,
        "slice": l.slice,
    });
    let mut rows = Vec::new();
    for (iy, y) in l.ys.iter().enumerate() {
        for (ix, x) in l.xs.iter().enumerate() {
            let k = iy * l.xs.len() + ix;
            let cell = |v: Option<f64>| v.map_or_else(String::new, num);
            rows.push(vec![
                num(*x),
                num(*y),
                cell(l.time_ns[k]),
                cell(l.cost_usd[k]),
                cell(l.score(ix, iy)),
            ]);
        }
    }
    let (i, j) = (l.dims.0 + 1, l.dims.1 + 1);
    let (bi, bj) = (format!("b{i}_gbps"), format!("b{j}_gbps"));
    ResultFiles {
        stem: "landscape-results",
        json: pretty(&v),
        csv: csv(&[&bi, &bj, "time_ns", "cost_usd", "score"], rows),
    }
}

/// The Co-design: the whole result as `codesign` prints it; CSV: the ranked designs.
pub fn codesign(r: &CodesignResult) -> ResultFiles {
    let rows = r
        .ranked
        .iter()
        .enumerate()
        .map(|(k, d)| {
            vec![
                (k + 1).to_string(),
                d.tp.to_string(),
                d.cp.to_string(),
                d.pp.to_string(),
                d.dp.to_string(),
                d.ep.to_string(),
                d.virtual_stages.to_string(),
                d.micro_batch.to_string(),
                d.shape_label.clone(),
                d.mapping.order.clone(),
                num(d.time_ns),
                num(d.cost_usd),
                num(d.budget_usd),
                d.bw_gbps
                    .iter()
                    .map(|b| num(*b))
                    .collect::<Vec<_>>()
                    .join(" "),
                num(d.memory_gb),
            ]
        })
        .collect();
    ResultFiles {
        stem: "codesign-results",
        json: serde_json::to_string_pretty(r).unwrap_or_default(),
        csv: csv(
            &[
                "rank",
                "tp",
                "cp",
                "pp",
                "dp",
                "ep",
                "virtual_stages",
                "micro_batch",
                "shape",
                "order",
                "time_ns",
                "cost_usd",
                "budget_usd",
                "bw_gbps",
                "memory_gb",
            ],
            rows,
        ),
    }
}

/// The Routing view: the scenario, each algorithm's metrics (the spec's names) and the failure
/// sweep; CSV: a row per algorithm.
pub fn routing(study: &RouteStudy) -> ResultFiles {
    let algorithms: Vec<Value> = study
        .routed
        .iter()
        .map(|r| {
            json!({
                "algorithm": r.name,
                "efficiency": r.efficiency,
                "efficiency_fluid": r.efficiency_fluid,
                "proven": r.proven,
                "metrics": r.metrics,
            })
        })
        .collect();
    let f = &study.failures;
    let v = json!({
        "scenario": study.scenario,
        "algorithms": algorithms,
        "failures": {
            "failed_spines": f.failed,
            "ecmp_makespan_s": f.ecmp_s,
            "greedy_makespan_s": f.greedy_s,
            "optimal_makespan_s": f.optimal_s,
            "optimal_proven": f.optimal_proven,
        },
    });
    let rows = study
        .routed
        .iter()
        .map(|r| {
            let m = &r.metrics;
            vec![
                r.name.to_string(),
                m.max_link_load.to_string(),
                num(m.min_flow_rate_gbps),
                num(m.total_throughput_gbps),
                num(m.makespan_static_s),
                num(m.makespan_fluid_s),
                num(r.efficiency),
                num(r.efficiency_fluid),
                r.proven.map_or_else(String::new, |p| p.to_string()),
            ]
        })
        .collect();
    ResultFiles {
        stem: "routing-results",
        json: pretty(&v),
        csv: csv(
            &[
                "algorithm",
                "max_link_load",
                "min_flow_rate_gbps",
                "total_throughput_gbps",
                "makespan_static_s",
                "makespan_fluid_s",
                "efficiency",
                "efficiency_fluid",
                "proven",
            ],
            rows,
        ),
    }
}

/// The Cluster view: the trace and each policy's simulation; CSV: a row per policy and job
/// (its completion time and slowdown).
pub fn cluster(study: &ClusterStudy) -> ResultFiles {
    let v = json!({
        "trace": study.trace,
        "results": study.results,
    });
    let mut rows = Vec::new();
    for r in &study.results {
        for j in &r.jobs {
            rows.push(vec![
                r.policy.key().to_string(),
                j.id.to_string(),
                num(j.arrival_s),
                num(j.start_s),
                num(j.end_s),
                num(j.jct_s),
                num(j.comm_s),
                num(j.contention_free_s),
                num(j.slowdown),
            ]);
        }
    }
    ResultFiles {
        stem: "cluster-results",
        json: pretty(&v),
        csv: csv(
            &[
                "policy",
                "job",
                "arrival_s",
                "start_s",
                "end_s",
                "jct_s",
                "comm_s",
                "contention_free_s",
                "slowdown",
            ],
            rows,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::study::study;
    use crate::presets;

    fn lines(csv: &str) -> usize {
        csv.lines().count()
    }

    #[test]
    fn the_design_views_files_hold_its_optimum_baseline_and_front() {
        let s = study(&presets::default_scenario()).unwrap();
        let f = design(&s);
        let v: Value = serde_json::from_str(&f.json).unwrap();
        assert_eq!(v["optimum"]["time_ns"].as_f64(), Some(s.optimum.time_ns));
        assert_eq!(
            v["optimum"]["bw_gbps"][3].as_f64(),
            Some(s.optimum.bw_gbps[3])
        );
        let u = s.uniform.as_ref().unwrap();
        assert_eq!(v["uniform"]["time_ns"].as_f64(), Some(u.evaluation.time_ns));
        let points = &s.front.as_ref().unwrap().points;
        assert_eq!(v["front"].as_array().unwrap().len(), points.len());
        assert_eq!(v["front"][0][1].as_f64(), Some(points[0].time_ns));
        assert_eq!(v["speedup_over_uniform"].as_f64(), s.speedup());
        let front = s.front.as_ref().unwrap();
        assert_eq!(f.csv, front.to_csv(4));
        assert_eq!(lines(&f.csv), front.points.len() + 1);
    }

    #[test]
    fn the_routing_views_files_hold_every_algorithms_metrics_in_full() {
        use crate::routing::study::{route_study, RoutePreset};
        let st = route_study(&RoutePreset::ThreeJobs.setup()).unwrap();
        let f = routing(&st);
        let v: Value = serde_json::from_str(&f.json).unwrap();
        let algos = v["algorithms"].as_array().unwrap();
        assert_eq!(algos.len(), st.routed.len());
        for (a, r) in algos.iter().zip(&st.routed) {
            assert_eq!(a["algorithm"], r.name);
            assert_eq!(
                a["metrics"]["makespan_static_s"].as_f64(),
                Some(r.metrics.makespan_static_s)
            );
            assert_eq!(
                a["metrics"]["max_link_load"].as_u64(),
                Some(u64::from(r.metrics.max_link_load))
            );
        }
        assert_eq!(lines(&f.csv), st.routed.len() + 1);
        // Numbers at full precision: each reads back to the same f64.
        let row: Vec<&str> = f.csv.lines().nth(1).unwrap().split(',').collect();
        assert_eq!(
            row[4].parse::<f64>().unwrap(),
            st.routed[0].metrics.makespan_static_s
        );
    }

    #[test]
    fn the_cluster_views_files_hold_the_trace_and_every_job_of_every_policy() {
        use crate::cluster::study::{cluster_study, ClusterLink};
        let st = cluster_study(&ClusterLink::default()).unwrap();
        let f = cluster(&st);
        let v: Value = serde_json::from_str(&f.json).unwrap();
        assert_eq!(v["results"].as_array().unwrap().len(), st.results.len());
        assert_eq!(
            v["results"][0]["mean_jct_s"].as_f64(),
            Some(st.results[0].mean_jct_s)
        );
        let jobs: usize = st.results.iter().map(|r| r.jobs.len()).sum();
        assert_eq!(lines(&f.csv), jobs + 1);
        assert!(f.csv.starts_with("policy,job,arrival_s"));
    }

    #[test]
    fn the_codesign_and_landscape_files_read_back() {
        use crate::analysis::landscape::landscape as land;
        use crate::codesign::{CodesignRun, CodesignSetup, ModelPreset, ShapeSpace};
        let setup = CodesignSetup::of_preset(
            ModelPreset::Gpt3,
            4096,
            presets::libra_4d_cost_model(),
            ShapeSpace::Fixed(presets::libra_4d_network()),
            vec![1e7, 3e7],
        );
        let r = CodesignRun::new(&setup).unwrap().run().result();
        let f = codesign(&r);
        let back: CodesignResult = serde_json::from_str(&f.json).unwrap();
        assert_eq!(back, r);
        assert_eq!(lines(&f.csv), r.ranked.len() + 1);
        let s = study(&presets::default_scenario()).unwrap();
        let l = land(&s, 0, 1, 6).unwrap();
        let f = landscape(&l);
        assert_eq!(lines(&f.csv), 37);
        assert!(f
            .csv
            .starts_with("b1_gbps,b2_gbps,time_ns,cost_usd,score\n"));
        let v: Value = serde_json::from_str(&f.json).unwrap();
        assert_eq!(v["optimum_time_ns"].as_f64(), Some(l.optimum_time_ns));
        assert_eq!(v["time_ns"].as_array().unwrap().len(), 36);
    }

    #[test]
    fn the_shapes_files_have_a_row_per_shape_and_budget() {
        use crate::analysis::shapes::compare;
        let base = presets::default_scenario();
        let nets = vec![presets::libra_4d_network(), {
            let mut n = presets::libra_4d_network();
            n.dims[0].npus = 8;
            n.dims[1].npus = 4;
            n
        }];
        let fronts = compare(&base, &nets, &[1e7, 3e7], 1.0, &Default::default());
        let f = shapes(&fronts);
        let rows: usize = fronts
            .iter()
            .map(|s| s.front.as_ref().map_or(0, |f| f.points.len()))
            .sum();
        assert!(rows >= 2);
        assert_eq!(lines(&f.csv), rows + 1);
        let v: Value = serde_json::from_str(&f.json).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 2);
    }
}
