//! `libra-studio route` (a routing scenario through one algorithm, measured as docs/routing.md names it)
//! and `libra-studio route-scenario` (the generator).

use super::args::{ArgError, Args};
use super::inputs::choice;
use super::Failure;
use crate::routing::algorithms::{group_order, visit_order};
use crate::routing::annealing::{annealing, DEFAULT_MOVES};
use crate::routing::annealing_authors::{annealing_authors, AUTHORS_SEED};
use crate::routing::edge_coloring::{edge_coloring, max_degree};
use crate::routing::multipath::{
    ecmp_multiflow, fluid_simulated, measure_split, LLAMA3_FLOWS, MAX_FLOWS,
};
use crate::routing::paper_jobs::PaperModel;

/// The most annealing moves `--moves` takes (about a minute natively).
const MAX_MOVES: u64 = 1_000_000_000;
use crate::routing::coupling::{efficiency_of, EtaBasis};
use crate::routing::generate::{generate, Placement};
use crate::routing::{ecmp, greedy, greedy_capacity_aware, measure, Algorithm, RouteScenario};
use serde::Serialize;
use std::ffi::OsString;

/// `route SCENARIO.json --algorithm A`.
pub fn route(args: &[OsString]) -> Result<String, Failure> {
    let args = Args::parse(
        args,
        &[
            "algorithm",
            "objective",
            "node-budget",
            "time-limit",
            "seed",
            "moves",
            "flows",
            "export-ilp",
        ],
        &["timings"],
    )?;
    let file = args.one_file(
        "route needs one scenario file: libra-studio route SCENARIO.json --algorithm ecmp",
    )?;
    let path = super::inputs::shown(file);
    let key = args.one("algorithm")?.unwrap_or("greedy");
    let algorithm = Algorithm::from_key(key).ok_or_else(|| ArgError::Bad {
        option: "algorithm".into(),
        message: format!("expected one of {}, got \"{key}\"", Algorithm::keys()),
    })?;
    let text =
        super::inputs::read_limited(file).map_err(|e| Failure::Input(format!("{path}: {e}")))?;
    let sc = RouteScenario::from_json(&text).map_err(|e| Failure::Input(format!("{path}: {e}")))?;
    let inst = sc
        .instance()
        .map_err(|e| Failure::Input(format!("{path}: {e}")))?;
    if let Some(out) = args.path("export-ilp")? {
        // The paper's ILP for another solver, instead of routing.
        let (lp, size) = crate::routing::ilp::to_lp(&inst)
            .map_err(|e| Failure::Input(format!("{path}: {e}")))?;
        let shown = super::inputs::shown(out);
        std::fs::write(out, lp).map_err(|e| Failure::Input(format!("{shown}: {e}")))?;
        let report = IlpExport {
            exported: shown,
            format: "CPLEX LP",
            objective: "min-max-link-load",
            variables: size.variables,
            constraints: size.constraints,
        };
        return Ok(serde_json::to_string_pretty(&report).expect("json"));
    }
    let given_seed = args.parsed("seed", "a whole number", |_| true)?;
    let seed = given_seed.unwrap_or(1);
    let authors_seed = given_seed.unwrap_or(AUTHORS_SEED);
    let moves = args
        .parsed("moves", &format!("a whole number up to {MAX_MOVES}"), |m| {
            *m <= MAX_MOVES
        })?
        .unwrap_or(DEFAULT_MOVES);
    let flows = args
        .parsed(
            "flows",
            &format!("a whole number from 1 to {MAX_FLOWS}"),
            |k: &u32| (1..=MAX_FLOWS).contains(k),
        )?
        .unwrap_or(LLAMA3_FLOWS);
    let t0 = std::time::Instant::now();
    // Multi-flow ECMP routes (and is measured on) the instance split into sub-flows.
    let mut split = None;
    let routing = match algorithm {
        Algorithm::Ecmp => ecmp(&inst),
        Algorithm::Greedy => greedy(&inst),
        Algorithm::GreedyCapacityAware => greedy_capacity_aware(&inst),
        Algorithm::EdgeColoring => edge_coloring(&inst),
        Algorithm::Annealing => annealing(&inst, seed, moves),
        Algorithm::AnnealingAuthors => annealing_authors(&inst, authors_seed),
        Algorithm::MultiFlowEcmp => {
            let (s, r) = ecmp_multiflow(&inst, flows);
            split = Some(s);
            r
        }
        Algorithm::Optimal => return optimal(&args, &sc, &inst),
    };
    let routing_us = t0.elapsed().as_secs_f64() * 1e6;
    let metrics = match &split {
        Some(s) => measure_split(s, &routing),
        None => measure(&inst, &routing),
    };
    let greedy_family = matches!(
        algorithm,
        Algorithm::Greedy | Algorithm::GreedyCapacityAware
    );
    let groups = greedy_family.then(|| group_order(&inst));
    let report = RouteReport {
        measured: Measured::new(&metrics, algorithm, &sc),
        // Wall time differs from run to run: only on request, so that repeated runs diff clean.
        routing_us: args.flag("timings").then_some(routing_us),
        // König: Δ colours; the least possible largest link load when every flow may use every
        // live spine.
        max_degree: (algorithm == Algorithm::EdgeColoring).then(|| max_degree(&inst)),
        seed: match algorithm {
            Algorithm::Annealing => Some(seed),
            Algorithm::AnnealingAuthors => Some(authors_seed),
            _ => None,
        },
        moves: (algorithm == Algorithm::Annealing).then_some(moves),
        flows_per_ring_edge: split.is_some().then_some(flows),
        fluid_simulated: split.as_ref().map(fluid_simulated),
        visit_order: groups.as_deref().map(visit_order),
        group_order: groups.as_deref(),
    };
    Ok(serde_json::to_string_pretty(&report).expect("json"))
}

/// What every `route` report starts with: the spec's metrics (flattened), the routing efficiency
/// from the static and from the fluid times, the algorithm and the jobs' names.
#[derive(Serialize)]
struct Measured<'a> {
    #[serde(flatten)]
    metrics: &'a crate::routing::Metrics,
    efficiency: f64,
    efficiency_fluid: f64,
    algorithm: Algorithm,
    jobs: Vec<&'a str>,
}

impl<'a> Measured<'a> {
    fn new(
        metrics: &'a crate::routing::Metrics,
        algorithm: Algorithm,
        sc: &'a RouteScenario,
    ) -> Self {
        Measured {
            efficiency: efficiency_of(metrics, EtaBasis::Static),
            efficiency_fluid: efficiency_of(metrics, EtaBasis::Fluid),
            metrics,
            algorithm,
            jobs: sc.jobs.iter().map(|j| j.name.as_str()).collect(),
        }
    }
}

/// What `route` prints for a heuristic: what every report has, and what the algorithm used.
#[derive(Serialize)]
struct RouteReport<'a> {
    #[serde(flatten)]
    measured: Measured<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    routing_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_degree: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<u64>,
    /// Multi-flow ECMP: the sub-flows per ring edge (routing, loads and rates are theirs).
    #[serde(skip_serializing_if = "Option::is_none")]
    flows_per_ring_edge: Option<u32>,
    /// Multi-flow ECMP beyond `multipath::FLUID_LIMIT` sub-flows: false, the fluid times are
    /// the static ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    fluid_simulated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    visit_order: Option<Vec<usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    group_order: Option<&'a [crate::routing::algorithms::Group]>,
}

/// The exact optimizer's default wall-clock limit (`--time-limit`), seconds.
pub const DEFAULT_TIME_LIMIT_S: f64 = 5.0;

/// `route --algorithm optimal [--objective O] [--node-budget N] [--time-limit S]`.
fn optimal(
    args: &Args,
    sc: &RouteScenario,
    inst: &crate::routing::Instance,
) -> Result<String, Failure> {
    use crate::routing::exact::{optimize_watched, Objective};
    let objective = choice(
        "objective",
        args.one("objective")?.unwrap_or("flow-lex"),
        &[
            ("flow-lex", Objective::FlowLex),
            ("job-lex", Objective::JobLex),
            ("min-max-link-load", Objective::MinMaxLinkLoad),
            ("min-makespan", Objective::MinMakespan),
        ],
    )?;
    let budget = args
        .parsed("node-budget", "a whole number of nodes", |n: &u64| *n > 0)?
        .unwrap_or(10_000_000);
    let limit_s = args
        .parsed("time-limit", "a positive number of seconds", |s: &f64| {
            s.is_finite() && *s > 0.0
        })?
        .unwrap_or(DEFAULT_TIME_LIMIT_S);
    let t0 = std::time::Instant::now();
    // Progress on stderr about once a second; the time limit stops the search with its best
    // routing and bound, not proven.
    let mut next_report = 1.0;
    let mut watch = |nodes: u64| {
        let s = t0.elapsed().as_secs_f64();
        if s >= next_report {
            eprintln!(
                "route: optimal: {nodes} nodes searched in {s:.1} s (time limit {limit_s} s)"
            );
            next_report = s.floor() + 1.0;
        }
        s < limit_s
    };
    let opt = optimize_watched(inst, objective, budget, &mut watch);
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    if opt.stopped {
        eprintln!(
            "route: optimal: stopped at the time limit of {limit_s} s after {} nodes: the best routing found, not proven",
            opt.nodes
        );
    }
    let metrics = measure(inst, &opt.routing);
    // With the least max link load in flows: the same on the normalized (capacity) load, the
    // paper's ILP objective, and the least flow rate it allows.
    let normalized = (objective == Objective::MinMaxLinkLoad).then(|| {
        let normalized =
            optimize_watched(inst, Objective::MinMaxNormalizedLoad, budget, &mut watch);
        let ratio = normalized
            .routing
            .loads(inst)
            .iter()
            .enumerate()
            .filter(|(e, n)| **n > 0 && inst.fabric.is_spine_link(*e))
            .map(|(e, n)| f64::from(*n) / inst.fabric.capacity[e].unwrap_or(f64::INFINITY))
            .fold(0.0, f64::max);
        let nic = crate::routing::exact::nic_share(inst);
        NormalizedReport {
            min_max_link_load_count: metrics.max_link_load,
            max_normalized_link_load_ilp: ratio,
            best_min_flow_rate_gbps: if ratio > 0.0 {
                nic.min(1.0 / ratio)
            } else {
                nic
            },
            proven: normalized.proven,
        }
    });
    let report = OptimalReport {
        measured: Measured::new(&metrics, Algorithm::Optimal, sc),
        objective: args.one("objective")?.unwrap_or("flow-lex"),
        proven: opt.proven && normalized.as_ref().is_none_or(|n| n.proven),
        bound: opt.bound,
        nodes: opt.nodes,
        stopped_by_time_limit: opt.stopped,
        // Wall time differs from run to run: only on request, so that repeated runs diff clean.
        optimize_ms: args.flag("timings").then_some(ms),
        normalized,
    };
    Ok(serde_json::to_string_pretty(&report).expect("json"))
}

/// What `route --algorithm optimal` prints: what every report has, and the search's proof.
#[derive(Serialize)]
struct OptimalReport<'a> {
    #[serde(flatten)]
    measured: Measured<'a>,
    objective: &'a str,
    /// The optimum is proven (for min-max-link-load, the normalized one too).
    proven: bool,
    bound: f64,
    nodes: u64,
    stopped_by_time_limit: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    optimize_ms: Option<f64>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    normalized: Option<NormalizedReport>,
}

/// The min-max-link-load objective's companion: the least normalized load and what it allows.
#[derive(Serialize)]
struct NormalizedReport {
    min_max_link_load_count: u32,
    max_normalized_link_load_ilp: f64,
    best_min_flow_rate_gbps: f64,
    #[serde(skip)]
    proven: bool,
}

/// What `route --export-ilp FILE` prints: where the paper's ILP went and its size.
#[derive(Serialize)]
struct IlpExport {
    exported: String,
    format: &'static str,
    objective: &'static str,
    variables: usize,
    constraints: usize,
}

fn whole(args: &Args, name: &'static str, default: u32) -> Result<u32, ArgError> {
    Ok(args
        .parsed(name, "a whole number", |_| true)?
        .unwrap_or(default))
}

/// `route-scenario [--tors T] [--spines S] [--hosts-per-tor H] [--jobs K] [--ring-size N]
/// [--failed-spines F] [--failed-links L] [--seed X] [--models gpt3,bloom,llama2]`: a generated
/// scenario as JSON. With `--models`, the paper's jobs on the paper's fabric by default (64 ToRs x
/// 32 spines, 32 NICs per ToR).
pub fn route_scenario(args: &[OsString]) -> Result<String, Failure> {
    let names = [
        "tors",
        "spines",
        "hosts-per-tor",
        "jobs",
        "ring-size",
        "failed-spines",
        "failed-links",
        "seed",
        "chunk-bytes",
        "link-gbps",
        "nic-gbps",
        "models",
        "system",
    ];
    let args = Args::parse(args, &names, &[])?;
    let models = match args.one("models")? {
        None => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|m| {
                PaperModel::parse(m).ok_or_else(|| ArgError::Bad {
                    option: "models".into(),
                    message: format!(
                        "\"{}\" is not one of the paper's models ({})",
                        m.trim(),
                        PaperModel::ALL.map(|m| m.key()).join(", ")
                    ),
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    let mut d = if models.is_empty() {
        Placement::default()
    } else {
        // The paper's fabric: 64 ToRs x 32 spines, 32 NICs per ToR (four 8-NIC hosts).
        Placement::paper(Placement::default().jobs, 8, 0)
    };
    if let Some(chosen) = super::systems::chosen(&args)? {
        // One plane of the system's fabric, whole (the CLI has the generator's limits only).
        let spec = chosen.spec.ok_or_else(|| {
            Failure::Input("a calibrated step-model file has no fabric; give a system".into())
        })?;
        let f = spec
            .route_fabric(u64::MAX, u64::MAX)
            .map_err(|e| Failure::Input(e.to_string()))?;
        (d.tors, d.spines, d.hosts_per_tor, d.link_gbps) =
            (f.tors, f.spines, f.hosts_per_tor, f.link_gbps);
    }
    let p = Placement {
        tors: whole(&args, "tors", d.tors)?,
        spines: whole(&args, "spines", d.spines)?,
        hosts_per_tor: whole(&args, "hosts-per-tor", d.hosts_per_tor)?,
        jobs: whole(&args, "jobs", d.jobs)?,
        ring_size: whole(&args, "ring-size", d.ring_size)?,
        failed_spines: whole(&args, "failed-spines", d.failed_spines)?,
        failed_links: whole(&args, "failed-links", d.failed_links)?,
        seed: u64::from(whole(&args, "seed", 1)?),
        chunk_bytes: args
            .parsed("chunk-bytes", "a number of bytes", |_| true)?
            .unwrap_or(d.chunk_bytes),
        link_gbps: args
            .parsed("link-gbps", "a rate in Gb/s", |v: &f64| {
                *v > 0.0 && v.is_finite()
            })?
            .unwrap_or(d.link_gbps),
        nic_gbps: args.parsed("nic-gbps", "a rate in Gb/s", |v: &f64| {
            *v > 0.0 && v.is_finite()
        })?,
        models,
    };
    let sc = generate(&p).map_err(Failure::input)?;
    Ok(serde_json::to_string_pretty(&sc).expect("json"))
}

#[cfg(test)]
mod tests {
    use super::super::tests::run_with;

    fn temp(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("libra-route-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn generate_then_route_prints_the_specs_fields() {
        let (code, sc, err) = run_with(&["route-scenario", "--jobs", "2", "--seed", "5"]);
        assert_eq!(code, 0, "{err}");
        let path = temp("gen.json", &sc);
        for algorithm in [
            "ecmp",
            "greedy",
            "greedy-capacity-aware",
            "edge-coloring",
            "annealing",
        ] {
            let (code, out, err) = run_with(&["route", &path, "--algorithm", algorithm]);
            assert_eq!(code, 0, "{err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            for field in [
                "routing",
                "link_loads",
                "max_link_load",
                "flow_rates_gbps",
                "flow_rates_sorted_gbps",
                "min_flow_rate_gbps",
                "total_throughput_gbps",
                "job_bottleneck_rates_gbps",
                "job_allreduce_time_static_s",
                "job_allreduce_time_fluid_s",
                "makespan_static_s",
                "makespan_fluid_s",
                "contention_free_allreduce_time_s",
            ] {
                assert!(v.get(field).is_some(), "{algorithm}: no {field}");
            }
            let eta = v["efficiency"].as_f64().unwrap();
            assert!(eta > 0.0 && eta <= 1.0, "{algorithm}: eta {eta}");
        }
        // Multi-flow ECMP: the routing per sub-flow, the fluid simulation run (small), the
        // same contention-free time; --flows out of 1..=64 refused.
        let (_, one, _) = run_with(&["route", &path, "--algorithm", "ecmp"]);
        let one: serde_json::Value = serde_json::from_str(&one).unwrap();
        let (code, out, err) = run_with(&[
            "route",
            &path,
            "--algorithm",
            "multi-flow-ecmp",
            "--flows",
            "4",
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["flows_per_ring_edge"], 4);
        assert_eq!(v["fluid_simulated"], true);
        assert_eq!(
            v["flow_rates_gbps"].as_array().unwrap().len(),
            4 * one["flow_rates_gbps"].as_array().unwrap().len()
        );
        assert_eq!(
            v["contention_free_allreduce_time_s"],
            one["contention_free_allreduce_time_s"]
        );
        for bad in ["0", "65", "x"] {
            let (code, _, err) = run_with(&[
                "route",
                &path,
                "--algorithm",
                "multi-flow-ecmp",
                "--flows",
                bad,
            ]);
            assert_eq!(code, 2, "{bad}: {err}");
            assert!(err.contains("--flows"), "{err}");
        }
    }

    #[test]
    fn optimal_reports_proof_bound_and_nodes() {
        let (_, sc, _) = run_with(&[
            "route-scenario",
            "--tors",
            "4",
            "--spines",
            "4",
            "--hosts-per-tor",
            "6",
            "--jobs",
            "3",
            "--failed-spines",
            "1",
        ]);
        let path = temp("opt.json", &sc);
        let (code, greedy, _) = run_with(&["route", &path, "--algorithm", "greedy"]);
        assert_eq!(code, 0);
        let greedy: serde_json::Value = serde_json::from_str(&greedy).unwrap();
        for objective in ["flow-lex", "job-lex", "min-max-link-load", "min-makespan"] {
            let (code, out, err) = run_with(&[
                "route",
                &path,
                "--algorithm",
                "optimal",
                "--objective",
                objective,
            ]);
            assert_eq!(code, 0, "{err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["proven"], true, "{objective}");
            assert!(v["nodes"].as_u64().is_some() && v["bound"].as_f64().is_some());
            // Never worse than greedy on its own objective.
            let (o, g) = (&v, &greedy);
            match objective {
                "min-max-link-load" => {
                    assert!(o["max_link_load"].as_u64() <= g["max_link_load"].as_u64());
                    assert_eq!(o["min_max_link_load_count"], o["max_link_load"]);
                    assert!(
                        o["best_min_flow_rate_gbps"].as_f64().unwrap()
                            >= g["min_flow_rate_gbps"].as_f64().unwrap() - 1e-9
                    );
                }
                "min-makespan" => assert!(
                    o["makespan_static_s"].as_f64().unwrap()
                        <= g["makespan_static_s"].as_f64().unwrap() * (1.0 + 1e-9)
                ),
                _ => assert!(
                    o["min_flow_rate_gbps"].as_f64().unwrap()
                        >= g["min_flow_rate_gbps"].as_f64().unwrap() * (1.0 - 1e-9)
                ),
            }
        }
        // A budget too small to finish: the best found, not claimed optimal.
        let (_, big, _) = run_with(&[
            "route-scenario",
            "--tors",
            "4",
            "--spines",
            "8",
            "--hosts-per-tor",
            "16",
            "--jobs",
            "3",
            "--failed-links",
            "3",
        ]);
        let path = temp("big.json", &big);
        let (code, out, _) = run_with(&[
            "route",
            &path,
            "--algorithm",
            "optimal",
            "--objective",
            "job-lex",
            "--node-budget",
            "50",
        ]);
        assert_eq!(code, 0);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["proven"], false);
        assert!(v["bound"].as_f64().unwrap() >= v["min_flow_rate_gbps"].as_f64().unwrap());
    }

    #[test]
    fn bad_scenarios_exit_1_naming_the_field_and_bad_options_exit_2() {
        let path = temp(
            "bad.json",
            r#"{"network": {"num_spines": 2, "num_tors": 2, "link_gbps": 100, "nic_gbps": 100},
                "hosts": [{"id": 0, "tor": 0}, {"id": 1, "tor": 3}],
                "jobs": [{"name": "j", "chunk_bytes": 1e6, "rings": [[0, 1]]}]}"#,
        );
        let (code, _, err) = run_with(&["route", &path, "--algorithm", "greedy"]);
        assert_eq!(code, 1);
        assert!(err.contains("hosts[1].tor: ToR 3 does not exist"), "{err}");
        let (code, _, err) = run_with(&["route", &path, "--algorithm", "magic"]);
        assert_eq!(code, 2);
        assert!(
            err.contains("--algorithm: expected one of ecmp, greedy, greedy-capacity-aware, optimal, edge-coloring, annealing, multi-flow-ecmp, annealing-authors, got \"magic\""),
            "{err}"
        );
        let (code, _, err) = run_with(&["route", &path, &path]);
        assert_eq!(code, 2);
        assert!(err.contains("unexpected argument"), "{err}");
    }

    #[test]
    fn the_papers_jobs_on_the_papers_fabric_route_contention_free_by_edge_colouring() {
        let (code, out, err) = run_with(&["route-scenario", "--models", "gpt3,bloom,llama2"]);
        assert_eq!(code, 0, "{err}");
        let path = temp("paper.json", &out);
        let sc: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(sc["network"]["num_tors"], 64);
        assert_eq!(sc["jobs"].as_array().unwrap().len(), 3);
        let (code, out, err) = run_with(&["route", &path, "--algorithm", "edge-coloring"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        // Every ToR sends and receives at most 32 flows over 32 spines: one flow per link.
        assert_eq!(v["max_link_load"], 1);
        assert_eq!(v["max_degree"], 32);
        assert_eq!(v["efficiency"], 1.0);
        let (code, _, err) = run_with(&["route-scenario", "--models", "gpt3,gpt5"]);
        assert_eq!(code, 2);
        assert!(
            err.contains("\"gpt5\" is not one of the paper's models"),
            "{err}"
        );
    }

    #[test]
    fn a_systems_fabric_is_generated_as_one_plane_at_its_link_rate() {
        let (code, out, err) =
            run_with(&["route-scenario", "--system", "dgx-h100", "--ring-size", "8"]);
        assert_eq!(code, 0, "{err}");
        let sc: serde_json::Value = serde_json::from_str(&out).unwrap();
        let n = &sc["network"];
        assert_eq!(
            (n["num_tors"].as_u64(), n["num_spines"].as_u64()),
            (Some(64), Some(32))
        );
        assert_eq!(n["link_gbps"], 400.0);
        assert_eq!(sc["hosts"].as_array().unwrap().len(), 2048);
        // The options still change the plane's fields.
        let (code, out, _) =
            run_with(&["route-scenario", "--system", "meta-roce-24k", "--tors", "4"]);
        assert_eq!(code, 0);
        let sc: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(sc["network"]["num_tors"], 4);
        assert_eq!(sc["network"]["num_spines"], 16);
        assert_eq!(sc["hosts"].as_array().unwrap().len(), 64);
        let (code, _, err) = run_with(&["route-scenario", "--system", "tpu-v5p"]);
        assert_eq!(code, 1);
        assert!(err.contains("no leaf-spine fabric"), "{err}");
        let (code, _, err) = run_with(&["route-scenario", "--link-gbps", "0"]);
        assert_eq!(code, 2);
        assert!(err.contains("--link-gbps"), "{err}");
    }
}
