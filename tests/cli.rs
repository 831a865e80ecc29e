//! The command-line program, run as a user would: LIBRA's files in, JSON out.

use serde_json::Value;
use std::process::Command;
use std::time::Duration;

mod common;
use common::run_cli;

const BIN: &str = env!("CARGO_BIN_EXE_libra-studio");

fn inputs(dir: &str, file: &str) -> String {
    format!(
        "{}/data/libra-inputs/{dir}/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn libra_files(network: &str, cost: &str, workload: &str, comm: &str) -> Vec<String> {
    vec![
        "--network".into(),
        inputs("network", network),
        "--cost".into(),
        inputs("cost_model", cost),
        "--workload".into(),
        inputs("workload", workload),
        "--communicator".into(),
        inputs("communicator", comm),
    ]
}

fn run(args: &[String]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .output()
        .expect("run libra-studio");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn gpt3_4d() -> Vec<String> {
    libra_files(
        "4d_network.yml",
        "4d_cost_model.yml",
        "GPT_3.txt",
        "GPT_3_4d.yml",
    )
}

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

#[test]
fn evaluate_reproduces_libras_optimum() {
    // libra_reference.json, GPT_3 on 4d_network, total_bw_500gbps, perf: LIBRA + Gurobi's optimum.
    let bw = "338.44967509131254,84.61241877296533,58.15778731512412,18.78011882059802";
    let mut args = vec!["evaluate".to_string()];
    args.extend(gpt3_4d());
    args.extend(["--bw".into(), bw.into()]);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(
        rel(v["time_ns"].as_f64().unwrap(), 722411780.9202211) < 1e-9,
        "{}",
        v["time_ns"]
    );
    assert!(rel(v["compute_ns"].as_f64().unwrap(), 684448242.0) < 1e-12);
    assert!(rel(v["cost_usd"].as_f64().unwrap(), 9527165.214434564) < 1e-9);
    assert_eq!(v["bw_gbps"].as_array().unwrap().len(), 4);
    // The breakdown adds up: compute + exposed communication = time; cost per dimension = cost.
    let exposed: f64 = v["breakdown"]["exposed_comm_per_dim_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .sum();
    assert!(rel(684448242.0 + exposed, v["time_ns"].as_f64().unwrap()) < 1e-12);
    let cost: f64 = v["breakdown"]["cost_per_dim"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["total_usd"].as_f64().unwrap())
        .sum();
    assert!(rel(cost, v["cost_usd"].as_f64().unwrap()) < 1e-12);
    let wg = &v["breakdown"]["exposed_comm_ns"]["WeightGrad"];
    assert_eq!(wg.as_array().unwrap().len(), 4);
}

#[test]
fn scenario_json_evaluates_like_the_files() {
    let mut args = vec!["scenario".to_string()];
    args.extend(gpt3_4d());
    args.extend(["--total-bw".into(), "500".into()]);
    let (code, json, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let path = std::env::temp_dir().join(format!("libra-studio-cli-{}.json", std::process::id()));
    std::fs::write(&path, &json).unwrap();
    // No --bw: the uniform split of the scenario's total bandwidth, 125 GB/s each.
    let (code, out, err) = run(&[
        "evaluate".into(),
        "--scenario".into(),
        path.display().to_string(),
    ]);
    std::fs::remove_file(&path).ok();
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(rel(v["time_ns"].as_f64().unwrap(), 775045208.4) < 1e-9);
    assert!(rel(v["cost_usd"].as_f64().unwrap(), 34508892.160000004) < 1e-12);
}

#[test]
fn errors_name_file_line_and_field() {
    // GPT-3's 3D communicator on the 4D network.
    let mut args = vec!["evaluate".to_string()];
    args.extend(libra_files(
        "4d_network.yml",
        "4d_cost_model.yml",
        "GPT_3.txt",
        "GPT_3_3d.yml",
    ));
    args.extend(["--bw".into(), "1,2,3,4".into()]);
    let (code, out, err) = run(&args);
    assert_eq!(code, 1, "a bad input file is exit 1");
    assert!(out.is_empty());
    assert!(
        err.contains(
            "GPT_3_3d.yml: line 6: Forward: 3 group sizes given for a network of 4 dimensions"
        ),
        "{err}"
    );

    let bad = std::env::temp_dir().join(format!("libra-studio-bad-{}.txt", std::process::id()));
    std::fs::write(&bad, "Q1 -1 9375000 NONE 0\n").unwrap();
    let mut args = vec!["evaluate".to_string()];
    args.extend(gpt3_4d());
    args[6] = bad.display().to_string();
    args.extend(["--bw".into(), "1,2,3,4".into()]);
    let (code, _, err) = run(&args);
    std::fs::remove_file(&bad).ok();
    assert_eq!(code, 1);
    assert!(err.contains("line 1: a layer needs 12 fields"), "{err}");

    let mut args = vec!["evaluate".to_string()];
    args.extend(gpt3_4d());
    args.extend(["--bw".into(), "1,0,3,4".into()]);
    let (code, _, err) = run(&args);
    assert_eq!(
        code, 1,
        "a well-formed value the model refuses is bad input"
    );
    assert!(
        err.contains("dimension 2: bandwidth must be a positive"),
        "{err}"
    );

    let (code, _, err) = run(&["evaluate".into(), "--bogus".into()]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown option --bogus"), "{err}");
}

#[test]
fn optimize_expresses_libras_constraint_sets() {
    // total_bw_500gbps.
    let mut args = vec!["optimize".to_string()];
    args.extend(gpt3_4d());
    args.extend(["--total-bw".into(), "500".into()]);
    // Without --timings the output is the same from run to run (no wall time in it).
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(run(&args).1, out);
    assert!(!out.contains("solve_us"), "{out}");
    args.push("--timings".into());
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["time_ns"].as_f64().unwrap() <= 722411780.9202211 * (1.0 + 1e-6));
    assert!(v["gap"].as_f64().unwrap() <= 1e-6);
    for key in [
        "bw_gbps",
        "cost_usd",
        "objective_value",
        "iterations",
        "solve_us",
    ] {
        assert!(!v[key].is_null(), "{key} missing");
    }
    assert!(v["uniform"]["speedup"].as_f64().unwrap() > 1.07);
    // multiple_constraints.
    let mut args = vec!["optimize".to_string()];
    args.extend(gpt3_4d());
    for a in [
        "--total-bw",
        "1000",
        "--constraint",
        "B1 = 500",
        "--constraint",
        "B1 >= B2",
        "--constraint",
        "B2 >= B3",
        "--constraint",
        "B3 + B4 = 200",
    ] {
        args.push(a.into());
    }
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(rel(v["time_ns"].as_f64().unwrap(), 708438743.3760067) < 1e-9);
}

#[test]
fn optimize_by_projected_gradient_reaches_the_same_certified_optimum() {
    let mut args = vec!["optimize".to_string()];
    args.extend(gpt3_4d());
    args.extend(["--total-bw", "500", "--method", "projected-gradient"].map(String::from));
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["method"], "projected-gradient");
    assert!(v["time_ns"].as_f64().unwrap() <= 722411780.9202211 * (1.0 + 1e-6));
    assert!(v["gap"].as_f64().unwrap() <= 1e-6);
    // Many cheap steps rather than a few Newton steps.
    assert!(v["iterations"].as_u64().unwrap() > 20);
    let bad = run(&args[..args.len() - 1]
        .iter()
        .cloned()
        .chain(["newton".to_string()])
        .collect::<Vec<_>>());
    assert_eq!(bad.0, 2);
    assert!(
        bad.2
            .contains("unknown method 'newton': interior-point, projected-gradient"),
        "{}",
        bad.2
    );
}

#[test]
fn optimize_names_conflicting_constraints_with_exit_1() {
    let mut args = vec!["optimize".to_string()];
    args.extend(gpt3_4d());
    for a in [
        "--total-bw",
        "100",
        "--min",
        "1=60",
        "--constraint",
        "B2 >= 50",
        "--max",
        "3=7",
    ] {
        args.push(a.into());
    }
    let (code, out, err) = run(&args);
    assert_eq!(code, 1, "an infeasible problem is exit 1");
    assert!(out.is_empty());
    assert!(
        err.contains("the constraints conflict: total bandwidth = 100 GB/s; B1 >= 60; B2 >= 50"),
        "{err}"
    );
    assert!(!err.contains("B3 <= 7"), "{err}");
}

#[test]
fn pareto_prints_a_monotone_front() {
    let mut args = vec!["pareto".to_string()];
    args.extend(gpt3_4d());
    for a in [
        "--budgets",
        "8e6:8e7:8",
        "--min",
        "1=1",
        "--min",
        "2=1",
        "--min",
        "3=1",
        "--min",
        "4=1",
    ] {
        args.push(a.into());
    }
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let times: Vec<f64> = v["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["time_ns"].as_f64().unwrap())
        .collect();
    assert_eq!(times.len(), 8);
    assert!(times.windows(2).all(|w| w[1] <= w[0]));
    args.push("--csv".into());
    let (code, out, _) = run(&args);
    assert_eq!(code, 0);
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("budget_usd,time_ns,cost_usd,gap,bw1_gbps,bw2_gbps,bw3_gbps,bw4_gbps")
    );
    assert_eq!(lines.count(), 8);
}

#[test]
fn routing_efficiency_scales_a_dimensions_bandwidth_in_time_not_in_cost() {
    // eta = 0.5 on the Switch dimension (the model's side is checked in src/routing/coupling.rs).
    let mut opt = vec!["optimize".to_string()];
    opt.extend(gpt3_4d());
    opt.extend(["--total-bw".into(), "500".into()]);
    let (_, plain, _) = run(&opt);
    opt.extend(["--efficiency".into(), "4=0.5".into()]);
    let (code, halved, err) = run(&opt);
    assert_eq!(code, 0, "{err}");
    let (p, h): (Value, Value) = (
        serde_json::from_str(&plain).unwrap(),
        serde_json::from_str(&halved).unwrap(),
    );
    // Less effective bandwidth on dimension 4: more of the total goes there, and the time grows.
    assert!(h["bw_gbps"][3].as_f64().unwrap() > p["bw_gbps"][3].as_f64().unwrap());
    assert!(h["time_ns"].as_f64().unwrap() > p["time_ns"].as_f64().unwrap());
    assert!(h["gap"].as_f64().unwrap() <= 1e-6);
    opt.push("--efficiency".into());
    opt.push("4=1.5".into());
    let (code, _, err) = run(&opt);
    assert_eq!(code, 1);
    assert!(
        err.contains("routing efficiency must be in (0, 1]"),
        "{err}"
    );
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn codesign_candidates_are_reproduced_by_scenario_and_optimize() {
    // A fixed shape keeps this quick; the held-out checks brute-force the same way.
    let shape = "R4 x FC8 x R4 x SW32";
    let search = args(&[
        "codesign",
        "--model",
        "llama2-70b",
        "--npus",
        "4096",
        "--hbm-gb",
        "80",
        "--budget",
        "2e7",
        "--shape",
        shape,
    ]);
    let (code, out, err) = run(&search);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    for key in ["best", "front", "ranked", "evaluated", "pruned", "winners"] {
        assert!(v.get(key).is_some(), "{key} missing");
    }
    assert!(v.get("search_ms").is_none(), "timings only with --timings");
    let mut timed = search.clone();
    timed.push("--timings".into());
    let (code, timed, err) = run(&timed);
    assert_eq!(code, 0, "{err}");
    let mut timed: Value = serde_json::from_str(&timed).unwrap();
    let ms = timed
        .as_object_mut()
        .unwrap()
        .remove("search_ms")
        .and_then(|v| v.as_f64());
    assert!(ms.is_some_and(|ms| ms > 0.0), "{ms:?}");
    assert_eq!(timed, v, "--timings adds the wall time and nothing else");
    let ranked = v["ranked"].as_array().unwrap();
    assert!(ranked.len() >= 5);
    assert_eq!(ranked[0], v["best"]);
    // Ranked fastest first; each design reproduced through its Scenario JSON.
    let mut last = 0.0;
    for d in ranked.iter().take(5) {
        let t = d["time_ns"].as_f64().unwrap();
        assert!(t >= last);
        last = t;
        assert_eq!(d["shape"].as_array().unwrap().len(), 4);
        assert!(d["memory_gb"].as_f64().unwrap() <= 80.0);
        assert_reproduced(d, "llama2-70b", "4096", shape, "2e7", &[]);
    }
}

/// Design `d` of a co-design of `model` on `npus` NPUs and `shape` at `budget`, rebuilt by
/// `scenario` (with `extra` options) and solved by `optimize`: the same time.
fn assert_reproduced(
    d: &Value,
    model: &str,
    npus: &str,
    shape: &str,
    budget: &str,
    extra: &[&str],
) {
    let n = |k: &str| d[k].as_u64().unwrap().to_string();
    let mut line = vec![
        "scenario",
        "--model",
        model,
        "--npus",
        npus,
        "--shape",
        shape,
        "--budget",
        budget,
        "--mapping",
        d["mapping"]["order"].as_str().unwrap(),
    ];
    line.extend(extra);
    let mut line = args(&line);
    for k in ["tp", "pp", "dp", "micro_batch"] {
        line.push(format!("--{}", k.replace('_', "-")));
        line.push(n(k));
    }
    // Written only when not 1.
    for k in ["cp", "ep", "virtual_stages"] {
        if d.get(k).is_some() {
            line.push(format!("--{}", k.replace('_', "-")));
            line.push(n(k));
        }
    }
    let (code, sc, err) = run(&line);
    assert_eq!(code, 0, "{err}");
    let path = std::env::temp_dir().join(format!(
        "codesign-{}-{}-{}.json",
        std::process::id(),
        extra.join(""),
        n("tp") + &n("pp") + &n("micro_batch") + d["mapping"]["order"].as_str().unwrap()
    ));
    std::fs::write(&path, sc).unwrap();
    let (code, opt, err) = run(&args(&["optimize", "--scenario", path.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    let o: Value = serde_json::from_str(&opt).unwrap();
    let t = d["time_ns"].as_f64().unwrap();
    assert!(
        rel(o["time_ns"].as_f64().unwrap(), t) < 1e-6,
        "{} vs {t}",
        o["time_ns"]
    );
    std::fs::remove_file(path).ok();
}

#[test]
fn codesign_says_which_limit_fails() {
    // Exit 1: the problem has no answer; exit 2: the options are wrong.
    for (list, needle, want) in [
        (
            vec![
                "codesign",
                "--model",
                "gpt3-175b",
                "--npus",
                "16",
                "--budget",
                "1e7",
            ],
            "no parallelism of GPT-3 175B on 16 NPUs fits 80 GB of HBM",
            1,
        ),
        (
            vec![
                "codesign",
                "--model",
                "gpt3-175b",
                "--npus",
                "4099",
                "--budget",
                "1e7",
            ],
            "4099 NPUs have no shape of 2 to 4 dimensions within the tier limits",
            1,
        ),
        (
            vec![
                "codesign", "--model", "gpt5", "--npus", "64", "--budget", "1e7",
            ],
            "unknown model \"gpt5\"",
            2,
        ),
        (
            vec![
                "codesign",
                "--model",
                "gpt3-175b",
                "--npus",
                "4096",
                "--budget",
                "1e7",
                "--budgets",
                "1:2:3",
            ],
            "not both",
            2,
        ),
        (
            vec![
                "codesign", "--model", "custom", "--npus", "64", "--budget", "1e7", "--layers", "8",
            ],
            "a custom model needs --hidden",
            2,
        ),
        (
            vec![
                "scenario",
                "--model",
                "gpt3-175b",
                "--npus",
                "4096",
                "--tp",
                "8",
                "--pp",
                "8",
                "--dp",
                "8",
                "--shape",
                "R4 x SW1024",
            ],
            "--tp x --cp x --pp x --dp = 512, but --npus is 4096",
            2,
        ),
    ] {
        let (code, out, err) = run(&args(&list));
        assert_eq!(code, want, "{list:?}: {out}");
        assert!(err.contains(needle), "{list:?}: {err}");
    }
    // A custom model that fits.
    let (code, out, err) = run(&args(&[
        "codesign",
        "--model",
        "custom",
        "--npus",
        "64",
        "--budget",
        "1e6",
        "--layers",
        "24",
        "--hidden",
        "2048",
        "--heads",
        "16",
        "--seq-len",
        "2048",
        "--global-batch",
        "512",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["model"], "custom");
    assert!(v["best"]["time_ns"].as_f64().unwrap() > 0.0);
}

#[test]
fn trace_and_simulate_a_cluster_over_time() {
    let dir = std::env::temp_dir().join(format!("libra-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("trace.json");
    let (code, out, err) = run(&args(&[
        "trace",
        "--tors",
        "8",
        "--spines",
        "8",
        "--hosts-per-tor",
        "32",
        "--jobs",
        "6",
        "--arrival-rate",
        "1",
        "--iterations",
        "2",
        "--compute-s",
        "0.5",
        "--ring-size",
        "2",
        "--mix",
        "gpt3,bloom",
        "--seed",
        "5",
    ]));
    assert_eq!(code, 0, "{err}");
    std::fs::write(&path, &out).unwrap();
    let file = path.to_str().unwrap();
    let mut means = Vec::new();
    for policy in ["ecmp", "edge-coloring"] {
        let (code, out, err) = run(&args(&[
            "simulate",
            file,
            "--policy",
            policy,
            "--reroute",
            "every:2",
        ]));
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        let jobs = v["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 6);
        for j in jobs {
            for key in ["id", "arrival_s", "start_s", "end_s", "jct_s"] {
                assert!(!j[key].is_null(), "{key}");
            }
            let jct = j["jct_s"].as_f64().unwrap();
            let span = j["end_s"].as_f64().unwrap() - j["arrival_s"].as_f64().unwrap();
            assert!((jct - span).abs() < 1e-9);
        }
        for key in ["mean_jct_s", "makespan_s", "throughput", "reroutes"] {
            assert!(!v[key].is_null(), "{key}");
        }
        assert!(v.get("timeline").is_none());
        means.push(v["mean_jct_s"].as_f64().unwrap());
        // The same trace and policy: the same jobs.
        let (_, again, _) = run(&args(&[
            "simulate",
            file,
            "--policy",
            policy,
            "--reroute",
            "every:2",
        ]));
        let w: Value = serde_json::from_str(&again).unwrap();
        assert_eq!(v["jobs"], w["jobs"]);
    }
    assert!(means[1] <= means[0] * (1.0 + 1e-9), "{means:?}");
    // Uplinks that fail and recover, and a controller that takes 0.5 s to answer.
    let (code, faulty, err) = run(&args(&[
        "trace",
        "--tors",
        "8",
        "--spines",
        "8",
        "--jobs",
        "3",
        "--mix",
        "gpt3",
        "--failed-links",
        "3",
        "--fail-at",
        "1",
        "--recover-at",
        "4",
    ]));
    assert_eq!(code, 0, "{err}");
    let f: Value = serde_json::from_str(&faulty).unwrap();
    let failures = f["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 3);
    assert_eq!(
        failures[0],
        serde_json::json!({"link": {"kind": "up", "tor": 0, "spine": 7}, "at_s": 1.0, "recover_s": 4.0})
    );
    let faulty_path = dir.join("faulty.json");
    std::fs::write(&faulty_path, &faulty).unwrap();
    let faulty_file = faulty_path.to_str().unwrap();
    let (code, _, err) = run(&args(&[
        "simulate",
        faulty_file,
        "--policy",
        "greedy",
        "--controller-delay",
        "0.5",
    ]));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&args(&[
        "simulate",
        faulty_file,
        "--controller-delay",
        "-1",
    ]));
    assert_ne!(code, 0);
    assert!(err.contains("controller delay -1"), "{err}");
    // Bad input: usage errors and a trace entry named.
    let (code, _, err) = run(&args(&["simulate", file, "--policy", "fastest"]));
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown policy \"fastest\": ecmp, greedy, edge-coloring, annealing, optimal"),
        "{err}"
    );
    let (code, _, err) = run(&args(&["simulate", file, "--reroute", "every:-1"]));
    assert_eq!(code, 2);
    assert!(err.contains("every:SECONDS"), "{err}");
    let mut t: Value = serde_json::from_str(&out).unwrap();
    t["jobs"][3]["id"] = t["jobs"][1]["id"].clone();
    std::fs::write(&path, t.to_string()).unwrap();
    let (code, _, err) = run(&args(&["simulate", file]));
    assert_eq!(code, 1);
    assert!(
        err.contains("jobs[3]: id 1 is used twice (first by jobs[1])"),
        "{err}"
    );
    let (code, _, err) = run(&args(&[
        "trace",
        "--tors",
        "2",
        "--hosts-per-tor",
        "4",
        "--mix",
        "gpt3",
    ]));
    assert_eq!(code, 1);
    assert!(err.contains("needs 256 NICs; the cluster has 8"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sweep_runs_the_papers_axes_for_every_policy() {
    let (code, out, err) = run(&args(&[
        "sweep",
        "--axis",
        "ring-size",
        "--policies",
        "ecmp,edge-coloring",
        "--tors",
        "32",
        "--jobs",
        "4",
        "--iterations",
        "2",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["axis"], "ring-size");
    let rows = v["rows"].as_array().unwrap();
    let seen: Vec<(u64, &str)> = rows
        .iter()
        .map(|r| (r["value"].as_u64().unwrap(), r["policy"].as_str().unwrap()))
        .collect();
    assert_eq!(
        seen,
        vec![
            (2, "ecmp"),
            (2, "edge-coloring"),
            (4, "ecmp"),
            (4, "edge-coloring"),
            (8, "ecmp"),
            (8, "edge-coloring")
        ]
    );
    // Edge colouring with as many spines as NICs per ToR: no contention.
    for r in rows.iter().filter(|r| r["policy"] == "edge-coloring") {
        assert!(
            (r["mean_slowdown"].as_f64().unwrap() - 1.0).abs() < 1e-9,
            "{r}"
        );
    }
    let (code, _, err) = run(&args(&["sweep", "--axis", "spines"]));
    assert_eq!(code, 2);
    assert!(
        err.contains("not failed-spines, ring-size or concurrent-jobs"),
        "{err}"
    );
}

#[test]
fn the_command_line_follows_the_conventions() {
    let dir = std::env::temp_dir().join(format!("libra-conventions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut evaluate = vec!["evaluate".to_string()];
    evaluate.extend(gpt3_4d());
    evaluate.extend(["--bw".into(), "200,100,50,150".into()]);
    let (code, want, err) = run(&evaluate);
    assert_eq!(code, 0, "{err}");

    // `-` reads standard input, wherever a file is read; only one input can be `-`.
    let network = std::fs::read_to_string(inputs("network", "4d_network.yml")).unwrap();
    let mut piped = evaluate.clone();
    let at = piped.iter().position(|a| a == "--network").unwrap() + 1;
    piped[at] = "-".into();
    let (code, out, err) = run_cli(&piped, Some(&network), Duration::from_secs(60));
    assert_eq!(code, 0, "{err}");
    let unnamed = |text: &str| {
        let mut v: Value = serde_json::from_str(text).unwrap();
        v.as_object_mut().unwrap().remove("scenario");
        v
    };
    assert_eq!(unnamed(&out), unnamed(&want));
    assert!(out.contains("\"GPT_3 on stdin\""), "{out}");
    let at = piped.iter().position(|a| a == "--cost").unwrap() + 1;
    piped[at] = "-".into();
    let (code, _, err) = run_cli(&piped, Some(&network), Duration::from_secs(60));
    assert_eq!(code, 1);
    assert!(err.contains("only one input can be `-`"), "{err}");

    // A scenario JSON from standard input, saved on Windows (byte order mark, CRLF).
    let (_, scenario, _) = run(&{
        let mut a = vec!["scenario".to_string()];
        a.extend(gpt3_4d());
        a
    });
    let windows = format!("\u{feff}{}", scenario.replace('\n', "\r\n"));
    let (code, out, err) = run_cli(
        &args(&["evaluate", "--scenario", "-", "--bw", "200,100,50,150"]),
        Some(&windows),
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, want);

    // Wall time only with --timings, so that repeated runs diff clean.
    let (code, scenario_json, _) = run(&args(&["route-scenario", "--seed", "4"]));
    assert_eq!(code, 0);
    let route = dir.join("--odd name.json");
    std::fs::write(&route, &scenario_json).unwrap();
    let route = route.to_str().unwrap();
    // `--` ends the options: a file whose name starts with `--` is read as a file.
    let plain = args(&["route", "--algorithm", "edge-coloring", "--", route]);
    let (code, first, err) = run(&plain);
    assert_eq!(code, 0, "{err}");
    assert!(!first.contains("routing_us"), "{first}");
    assert_eq!(run(&plain).1, first);
    let (code, timed, err) = run(&args(&[
        "route",
        "--algorithm",
        "edge-coloring",
        "--timings",
        "--",
        route,
    ]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&timed).unwrap();
    assert!(v["routing_us"].as_f64().unwrap() >= 0.0);
    assert_eq!(v["algorithm"], "edge-coloring");

    // The paper's ILP for another solver: the file, and a summary of it on stdout.
    let lp = dir.join("fabric.lp");
    let (code, out, err) = run(&args(&[
        "route",
        "--export-ilp",
        lp.to_str().unwrap(),
        route,
    ]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "CPLEX LP");
    assert_eq!(v["objective"], "min-max-link-load");
    assert_eq!(v["exported"], lp.to_str().unwrap());
    let written = std::fs::read_to_string(&lp).unwrap();
    assert!(v["variables"].as_u64().unwrap() > 0);
    assert!(written.contains("Subject To"), "{written:.200}");
    // Typed option values name what they expect (exit 2).
    let (code, _, err) = run(&args(&[
        "route",
        "--algorithm",
        "annealing",
        "--moves",
        "many",
        route,
    ]));
    assert_eq!(code, 2);
    assert!(
        err.contains("--moves: expected a whole number up to"),
        "{err}"
    );
    let (code, _, err) = run(&args(&[
        "route",
        "--algorithm",
        "optimal",
        "--time-limit",
        "0",
        route,
    ]));
    assert_eq!(code, 2);
    assert!(
        err.contains("--time-limit: expected a positive number of seconds, got \"0\""),
        "{err}"
    );

    // Extra positional arguments are refused (exit 2), naming them.
    let mut extra = evaluate.clone();
    extra.push("stray.yml".into());
    let (code, _, err) = run(&extra);
    assert_eq!(code, 2);
    assert!(err.contains("unexpected argument \"stray.yml\""), "{err}");
    let (code, _, err) = run(&args(&["route", route, route]));
    assert_eq!(code, 2, "{err}");

    // A file name that is not UTF-8 is read, and named (its stray byte replaced) when missing.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let odd = dir.join(std::ffi::OsStr::from_bytes(b"sc\xe9nario.json"));
        std::fs::write(&odd, &scenario).unwrap();
        let out = Command::new(BIN)
            .arg("evaluate")
            .arg("--scenario")
            .arg(&odd)
            .args(["--bw", "200,100,50,150"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{:?}", out);
        assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
        std::fs::remove_file(&odd).unwrap();
        let out = Command::new(BIN)
            .arg("simulate")
            .arg(&odd)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("sc\u{fffd}nario.json"), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn predict_prints_an_iteration_with_its_parts_and_refuses_runs_that_do_not_fit() {
    let args = |extra: &[&str]| {
        let mut a: Vec<String> = [
            "predict",
            "--system",
            "dgx-a100",
            "--model",
            "custom",
            "--layers",
            "40",
            "--hidden",
            "6144",
            "--heads",
            "48",
            "--seq-len",
            "2048",
            "--global-batch",
            "1024",
            "--micro-batch",
            "8",
            "--npus",
            "256",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let (code, out, err) = run_cli(
        &args(&["--tp", "8", "--pp", "1", "--dp", "32"]),
        None,
        std::time::Duration::from_secs(30),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in [
        "time_ns",
        "compute_ns",
        "exposed_comm_ns",
        "tflops_per_npu",
        "mfu",
        "memory_gb",
    ] {
        assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {out}");
    }
    // The measured run (data/measured, line 28): 9,603.6 ms; the calibration is within 10%.
    let ms = v["time_ns"].as_f64().unwrap() / 1e6;
    assert!((ms / 9603.6 - 1.0).abs() < 0.10, "{ms} ms");
    for (extra, says) in [
        (
            vec!["--tp", "8", "--pp", "1", "--dp", "16"],
            "TP x CP x PP x DP = 8 x 1 x 1 x 16 = 128, not the 256 NPUs",
        ),
        (
            vec!["--tp", "32", "--pp", "1", "--dp", "8"],
            "the 48 attention heads are not divisible by TP 32",
        ),
        (
            vec!["--tp", "8", "--pp", "3", "--dp", "32"],
            "TP x CP x PP x DP",
        ),
        (
            vec![
                "--tp",
                "8",
                "--pp",
                "1",
                "--dp",
                "32",
                "--recompute",
                "some",
            ],
            "\"some\" is not none, selective or full",
        ),
    ] {
        let (code, _, err) = run_cli(&args(&extra), None, std::time::Duration::from_secs(30));
        assert!(matches!(code, 1 | 2), "{extra:?}");
        assert!(err.contains(says), "{extra:?}: {err}");
    }
    let (code, _, err) = run_cli(
        &[
            "predict",
            "--system",
            "tpu-v9",
            "--model",
            "gpt3-175b",
            "--micro-batch",
            "1",
            "--npus",
            "8",
            "--tp",
            "8",
            "--pp",
            "1",
            "--dp",
            "1",
        ]
        .map(String::from),
        None,
        std::time::Duration::from_secs(30),
    );
    assert_eq!(code, 2);
    assert!(err.contains("unknown system \"tpu-v9\""), "{err}");
}

#[test]
fn calibrate_fits_a_system_every_command_takes_and_names_bad_rows() {
    let dir = std::env::temp_dir().join(format!("libra-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let visible = format!(
        "{}/data/measured/megatron-a100-visible.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let (code, out, err) = run_cli(
        &[
            "calibrate",
            "--system",
            "dgx-a100-uncalibrated",
            "--runs",
            &visible,
        ]
        .map(String::from),
        None,
        std::time::Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
    // The fit's error per row on standard error, the system on standard output.
    assert!(err.contains("41 runs: mean"), "{err}");
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("18.4B") && l.contains('%'))
            .count(),
        16
    );
    let system = dir.join("mine.json");
    std::fs::write(&system, &out).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["calibration"]["rows"], 41);
    assert!(v["calibration"]["mean_abs_error"].as_f64().unwrap() < 0.08);
    // The file is a system `predict` and `validate` take.
    let (code, _, err) = run_cli(
        &[
            "validate",
            "--system",
            system.to_str().unwrap(),
            "--runs",
            &visible,
        ]
        .map(String::from),
        None,
        std::time::Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
    // A row that cannot be laid on the system.
    let bad = dir.join("bad.csv");
    let text = std::fs::read_to_string(&visible).unwrap();
    std::fs::write(
        &bad,
        text.replacen(
            "3.6,64,512,8,3072,32,30,2048,1,64,1",
            "3.6,64,512,8,3072,32,30,2048,3,64,1",
            1,
        ),
    )
    .unwrap();
    let (code, _, err) = run_cli(
        &[
            "calibrate",
            "--system",
            "dgx-a100",
            "--runs",
            bad.to_str().unwrap(),
        ]
        .map(String::from),
        None,
        std::time::Duration::from_secs(60),
    );
    assert_eq!(code, 1);
    assert!(err.contains("line 2: the run cannot be laid on dgx-a100: TP x CP x PP x DP = 3 x 1 x 1 x 64 = 192, not the 64 NPUs"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_candidates_scenario_takes_its_compute_from_a_system_when_asked() {
    let base = [
        "scenario",
        "--model",
        "gpt3-175b",
        "--npus",
        "1024",
        "--tp",
        "8",
        "--pp",
        "16",
        "--dp",
        "8",
        "--micro-batch",
        "1",
        "--shape",
        "FC8 x SW128",
        "--recompute",
        "full",
    ];
    let dir = std::env::temp_dir().join(format!("libra-scenario-system-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut with_system: Vec<String> = base.iter().map(|s| s.to_string()).collect();
    with_system.extend(["--system".to_string(), "dgx-a100".to_string()]);
    let (code, out, err) = run_cli(&with_system, None, Duration::from_secs(60));
    assert_eq!(code, 0, "{err}");
    let path = dir.join("s.json");
    std::fs::write(&path, &out).unwrap();
    let (code, out, err) = run_cli(
        &[
            "evaluate",
            "--scenario",
            path.to_str().unwrap(),
            "--bw",
            "300,25",
        ]
        .map(String::from),
        None,
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
    let compute = serde_json::from_str::<Value>(&out).unwrap()["compute_ns"]
        .as_f64()
        .unwrap();
    let (code, out, err) = run_cli(
        &[
            "predict",
            "--system",
            "dgx-a100",
            "--model",
            "gpt3-175b",
            "--npus",
            "1024",
            "--tp",
            "8",
            "--pp",
            "16",
            "--dp",
            "8",
            "--micro-batch",
            "1",
        ]
        .map(String::from),
        None,
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
    let p: Value = serde_json::from_str(&out).unwrap();
    // The builder pays the layers on every one of the m + p - 1 = 192 + 15 slots (LIBRA's model
    // has no separate bubble); the step model counts the bubble apart. Adam joins both.
    let layers = p["breakdown"]["layers_ns"].as_f64().unwrap() * 207.0 / 192.0;
    assert!(
        (compute / layers - 1.0).abs() < 0.01,
        "scenario compute {compute}, step model {layers}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn codesign_on_a_real_system_is_reproduced_by_scenario_with_that_system() {
    // The co-design times every candidate's compute with dgx-a100's step model; the candidates'
    // scenarios built by `scenario --system dgx-a100` must give the same optimal times.
    let shape = "R4 x FC8 x R4 x SW32";
    let (code, out, err) = run(&args(&[
        "codesign",
        "--model",
        "gpt3-175b",
        "--npus",
        "4096",
        "--budget",
        "3e7",
        "--shape",
        shape,
        "--system",
        "dgx-a100",
        "--recompute",
        "full",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let (_, flat, _) = run(&args(&[
        "codesign",
        "--model",
        "gpt3-175b",
        "--npus",
        "4096",
        "--budget",
        "3e7",
        "--shape",
        shape,
        "--recompute",
        "full",
    ]));
    let flat: Value = serde_json::from_str(&flat).unwrap();
    assert_ne!(
        v["best"]["time_ns"], flat["best"]["time_ns"],
        "the system changes the times"
    );
    for d in v["ranked"].as_array().unwrap().iter().take(3) {
        assert_reproduced(
            d,
            "gpt3-175b",
            "4096",
            shape,
            "3e7",
            &["--system", "dgx-a100", "--recompute", "full"],
        );
    }
}

#[test]
fn systems_lists_the_presets_and_lays_one_for_n_accelerators() {
    let (code, out, err) = run(&args(&["systems"]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "dgx-a100",
            "dgx-h100",
            "dgx-b200",
            "gb200-nvl72",
            "tpu-v4",
            "tpu-v5p",
            "trn2-ultraserver",
            "meta-roce-24k",
            "hgx-h800"
        ]
    );
    for s in v.as_array().unwrap() {
        // Every figure sourced, every price said where it comes from.
        assert!(!s["accelerator_figures"]["sources"]
            .as_array()
            .unwrap()
            .is_empty());
        for t in s["tiers"].as_array().unwrap() {
            assert!(!t["source"].as_str().unwrap().is_empty(), "{}", t["name"]);
            assert!(!t["price"].as_str().unwrap().is_empty(), "{}", t["name"]);
        }
    }
    let (code, out, err) = run(&args(&["systems", "dgx-h100", "--npus", "4096"]));
    assert_eq!(code, 0, "{err}");
    let at = &serde_json::from_str::<Value>(&out).unwrap()[0]["at"];
    assert_eq!(at["shape"], "SW8:nvlink4 x SW512:ib-ndr");
    // Per GPU: NVLink 450 GB/s x ($4 + $13) + NDR 50 GB/s x ($51.2 + $33.75 + $31.6).
    let cost = at["network_cost_usd"].as_f64().unwrap();
    assert!(
        rel(cost, 4096.0 * (450.0 * 17.0 + 50.0 * 116.55)) < 1e-12,
        "{cost}"
    );
    for (line, says) in [
        (vec!["systems", "dgx-h9000"], "unknown system \"dgx-h9000\""),
        (
            vec!["systems", "dgx-h100", "--npus", "12"],
            "12 accelerators do not fill its dimensions",
        ),
        (
            vec!["systems", "meta-roce-24k", "--npus", "49152"],
            "built for 2 to 24576",
        ),
    ] {
        let (code, _, err) = run(&args(&line));
        assert!(matches!(code, 1 | 2), "{line:?}");
        assert!(err.contains(says), "{line:?}: {err}");
    }
}

#[test]
fn codesign_on_dgx_h100_keeps_tp_in_the_nvlink_domain_and_is_reproduced() {
    // GPT-3 175B on 4,096 H100s at about the SuperPOD's own network cost ($55 M at 450 and
    // 50 GB/s): the winner lays TP within the 8-GPU NVLink domain, as practice does, and never
    // buys more NVLink than the chip has nor more InfiniBand than its NICs reach.
    let on_h100 = |npus: &str, extra: &[&str]| {
        let mut line = vec![
            "codesign",
            "--system",
            "dgx-h100",
            "--model",
            "gpt3-175b",
            "--npus",
            npus,
            "--budget",
            "6e7",
        ];
        line.extend(extra);
        run(&args(&line))
    };
    let (code, out, err) = on_h100("4096", &["--recompute", "full"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let best = &v["best"];
    assert_eq!(best["shape_label"], "Switch 8 × Switch 512");
    assert!(best["tp"].as_u64().unwrap() <= 8, "{best}");
    assert_eq!(
        best["mapping"]["tp"][1], -1,
        "TP stays inside a node: {best}"
    );
    for d in v["ranked"].as_array().unwrap() {
        assert!(
            d["bw_gbps"][0].as_f64().unwrap() <= 450.0 * (1.0 + 1e-9)
                && d["bw_gbps"][1].as_f64().unwrap() <= 50.0 * (1.0 + 1e-9),
            "{d}"
        );
    }
    // Its HBM is the H100's 80 GB.
    assert_eq!(v["hbm_gb"], 80.0);
    for d in v["ranked"].as_array().unwrap().iter().take(2) {
        assert_reproduced(
            d,
            "gpt3-175b",
            "4096",
            "SW8:nvlink4 x SW512:ib-ndr",
            "6e7",
            &["--system", "dgx-h100", "--recompute", "full"],
        );
    }
    // A tier the system does not have, and a size it cannot lay, are refused by name.
    let (code, _, err) = on_h100("4096", &["--shape", "SW8:nvlink9 x SW512:ib-ndr"]);
    assert!(matches!(code, 1 | 2));
    assert!(err.contains("unknown cost tier \"nvlink9\""), "{err}");
    let (code, _, err) = on_h100("4100", &[]);
    assert!(matches!(code, 1 | 2));
    assert!(
        err.contains("--npus") && err.contains("do not fill"),
        "{err}"
    );
}

#[test]
fn codesign_on_metas_cluster_keeps_its_fabric_levels_at_their_ratios() {
    // The pod level is full bisection above the racks and the aggregation level 1:7 above the
    // pods (Llama 3, section 3.3.1): every design keeps B2 = B3 = 7 B4.
    let (code, out, err) = run(&args(&[
        "codesign",
        "--system",
        "meta-roce-24k",
        "--model",
        "gpt3-175b",
        "--npus",
        "24576",
        "--budget",
        "4e8",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    for d in v["ranked"].as_array().unwrap() {
        let b: Vec<f64> = d["bw_gbps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(
            rel(b[1], b[2]) < 1e-6 && rel(b[2], 7.0 * b[3]) < 1e-6,
            "{b:?}"
        );
        assert!(b[0] <= 450.0 * (1.0 + 1e-9), "{b:?}");
    }
}

#[test]
fn in_network_reduction_and_a_users_own_system_file() {
    let dir = std::env::temp_dir().join(format!("libra-systems-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // NVLink SHARP and InfiniBand SHARP: the same network, each All-Reduce moving m instead of
    // 2 m (g-1)/g on the reducing dimensions, so the optimum at the same budget is faster.
    let time_on = |shape: &str| {
        let (code, sc, err) = run(&args(&[
            "scenario",
            "--system",
            "dgx-h100",
            "--model",
            "gpt3-175b",
            "--npus",
            "4096",
            "--tp",
            "8",
            "--pp",
            "8",
            "--dp",
            "64",
            "--shape",
            shape,
            "--budget",
            "6e7",
        ]));
        assert_eq!(code, 0, "{err}");
        let path = dir.join("s.json");
        std::fs::write(&path, sc).unwrap();
        let (code, out, err) = run(&args(&["optimize", "--scenario", path.to_str().unwrap()]));
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<Value>(&out).unwrap()["time_ns"]
            .as_f64()
            .unwrap()
    };
    let plain = time_on("SW8:nvlink4 x SW512:ib-ndr");
    let nvls = time_on("SW8:nvlink4-sharp x SW512:ib-ndr");
    let both = time_on("SW8:nvlink4-sharp x SW512:ib-ndr-sharp");
    assert!(both < nvls && nvls < plain, "{plain} {nvls} {both}");
    // What `systems NAME` prints is a system file; edited, it is the user's own system, and a
    // bad figure in it is refused naming the tier and the field.
    let (_, listed, _) = run(&args(&["systems", "meta-roce-24k"]));
    let own = dir.join("own.json");
    std::fs::write(&own, &listed).unwrap();
    let (code, out, err) = run(&args(&[
        "codesign",
        "--system",
        own.to_str().unwrap(),
        "--model",
        "gpt3-175b",
        "--npus",
        "24576",
        "--budget",
        "4e8",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("roce-agg"));
    for (from, to, says) in [
        (
            "\"oversubscription\": 7.0",
            "\"oversubscription\": 0.5",
            "tier \"roce-agg\": oversubscription must be at least 1",
        ),
        (
            "\"link_usd\": 25.6",
            "\"link_usd\": -1.0",
            "tier \"roce-rack\": link_usd must be a positive finite number",
        ),
        (
            "\"tier\": \"roce-pod\"",
            "\"tier\": \"roce-pods\"",
            "names tier \"roce-pods\", which the system does not have",
        ),
    ] {
        assert!(listed.contains(from), "{from}");
        std::fs::write(&own, listed.replacen(from, to, 1)).unwrap();
        let (code, _, err) = run(&args(&[
            "predict",
            "--system",
            own.to_str().unwrap(),
            "--model",
            "gpt3-175b",
            "--npus",
            "8",
            "--tp",
            "8",
            "--pp",
            "1",
            "--dp",
            "1",
            "--micro-batch",
            "1",
        ]));
        assert_eq!(code, 1, "{to}");
        assert!(err.contains(says), "{to}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn predict_takes_llama_3_with_grouped_query_attention_swiglu_and_an_uneven_pipeline() {
    // Llama 3 405B as Meta trained it on 8,192 H100s (arXiv 2407.21783, Table 4: TP 8, PP 16,
    // DP 64, 8K context, 16M tokens per batch; about 430 TFLOP/s per GPU measured): 126 layers
    // on 16 stages, 8 key-value heads, SwiGLU. The step model is not fitted to that number.
    let line = |extra: &[&str]| {
        let mut l = vec![
            "predict",
            "--system",
            "dgx-h100",
            "--model",
            "llama3-405b",
            "--npus",
            "8192",
            "--tp",
            "8",
            "--pp",
            "16",
            "--dp",
            "64",
            "--micro-batch",
            "1",
            "--recompute",
            "none",
        ];
        l.extend(extra);
        args(&l)
    };
    let (code, out, err) = run(&line(&[]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["run"]["kv_heads"], 8);
    assert_eq!(v["run"]["mlp"], "swiglu");
    assert_eq!(v["run"]["ffn"], 53248);
    let flat = v["tflops_per_npu"].as_f64().unwrap();
    // Interleaving 4 chunks per stage shrinks the 1F1B bubble (uneven chunks are laid).
    let (code, out, err) = run(&line(&["--virtual-stages", "4"]));
    assert_eq!(code, 0, "{err}");
    let interleaved = serde_json::from_str::<Value>(&out).unwrap()["tflops_per_npu"]
        .as_f64()
        .unwrap();
    assert!(interleaved > flat && flat > 0.0, "{flat} {interleaved}");
    // A fused attention core and sequence parallelism, as Meta ran it: faster, and the
    // activations without the s x s scores and sharded over TP.
    let (code, out, err) = run(&line(&["--flash-attention", "--sequence-parallel"]));
    assert_eq!(code, 0, "{err}");
    let fused: Value = serde_json::from_str(&out).unwrap();
    let fused_tflops = fused["tflops_per_npu"].as_f64().unwrap();
    assert!(fused_tflops > flat, "{flat} {fused_tflops}");
    assert!(fused["memory_gb"].as_f64().unwrap() < v["memory_gb"].as_f64().unwrap() / 3.0);
    // ZeRO 1, 2 and 3 shard the 12 bytes of Adam states, then the 2 of gradients, then the 2
    // of weights per parameter over DP: the memory falls in steps of 12 : 2 : 2.
    let memory = |zero: &str| {
        let (code, out, err) = run(&line(&[
            "--flash-attention",
            "--sequence-parallel",
            "--zero",
            zero,
        ]));
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        (
            v["memory_gb"].as_f64().unwrap(),
            v["fits"].as_bool().unwrap(),
        )
    };
    let [m0, m1, m2, m3] = ["0", "1", "2", "3"].map(memory);
    assert!(
        rel((m0.0 - m1.0) / (m1.0 - m2.0), 6.0) < 1e-9,
        "{m0:?} {m1:?} {m2:?}"
    );
    assert!(rel(m1.0 - m2.0, m2.0 - m3.0) < 1e-9, "{m1:?} {m2:?} {m3:?}");
    // Without recomputation 16 micro-batches of 8 layers' activations (SwiGLU keeps its
    // gate and up outputs and the down projection's input, `6 f` bytes a token) stay about
    // 80 GB: the weights and states fall from 57 GB to 2 with ZeRO-3.
    assert!(!m0.1 && m0.0 - m3.0 > 50.0, "{m0:?} {m3:?}");
    eprintln!("Llama 3 405B on 8,192 H100s: {flat:.0} TFLOP/s per GPU, {interleaved:.0} with 4 chunks per stage, {fused_tflops:.0} with FlashAttention and sequence parallelism (measured: about 430)");
    for (extra, says) in [
        (
            vec!["--kv-heads", "12"],
            "the 128 attention heads are not divisible by the 12 key-value heads",
        ),
        (vec!["--mlp", "relu"], "\"relu\" is not gelu or swiglu"),
    ] {
        let (code, _, err) = run(&line(&extra));
        assert!(matches!(code, 1 | 2), "{extra:?}");
        assert!(err.contains(says), "{extra:?}: {err}");
    }
}

#[test]
fn published_runs_and_a_mixture_of_experts_are_predicted_from_the_command_line() {
    let (code, out, err) = run_cli(
        &["published".to_string()],
        None,
        std::time::Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
    let checks: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(checks.as_array().unwrap().len(), 18);
    assert!(err.contains("18 runs: mean absolute error"), "{err}");
    // DeepSeek-V3 on DeepSeek's cluster: its experts' all-to-alls show, by kind.
    let line = [
        "predict",
        "--system",
        "hgx-h800",
        "--model",
        "deepseek-v3",
        "--npus",
        "2048",
        "--tp",
        "1",
        "--pp",
        "16",
        "--ep",
        "64",
        "--dp",
        "128",
        "--micro-batch",
        "1",
        "--flash-attention",
        "--dtype",
        "fp8",
        "--zero",
        "1",
    ]
    .map(String::from);
    let (code, out, err) = run_cli(&line, None, std::time::Duration::from_secs(30));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let b = &v["breakdown"];
    assert!(b["ep_comm_ns"].as_f64().unwrap() > 0.0);
    assert_eq!(b["tp_comm_ns"].as_f64().unwrap(), 0.0);
    let tokens = v["tokens_per_s_per_npu"].as_f64().unwrap();
    // Model FLOPs per token of the 37 B active weights and MLA's core: about 6 x 37e9.
    let per_token = v["tflops_per_npu"].as_f64().unwrap() * 1e12 / tokens;
    assert!(
        per_token > 6.0 * 37e9 && per_token < 6.0 * 48e9,
        "{per_token}"
    );
    assert_eq!(v["run"]["moe"]["experts"], 256);
    // Bad input names its rule.
    for (extra, says) in [
        (
            vec!["--ep", "48", "--dp", "48", "--npus", "768"],
            "not divisible by EP 48",
        ),
        (
            vec!["--top-k", "300"],
            "top-k 300 is more than the 256 experts",
        ),
        (vec!["--moe-layers", "most"], "is not all, after:K, every:N"),
        (vec!["--dtype", "fp4"], "\"fp4\" is not bf16 or fp8"),
    ] {
        let mut a: Vec<String> = line.to_vec();
        for pair in extra.chunks(2) {
            match a.iter().position(|x| x == pair[0]) {
                Some(i) => a[i + 1] = pair[1].to_string(),
                None => a.extend(pair.iter().map(|s| s.to_string())),
            }
        }
        let (code, _, err) = run_cli(&a, None, std::time::Duration::from_secs(30));
        assert!(matches!(code, 1 | 2), "{extra:?}");
        assert!(err.contains(says), "{extra:?}: {err}");
    }
}

#[test]
fn scenario_builds_a_mixture_of_experts_that_optimize_solves() {
    // Mixtral 8x7B on 64 H100s (8 x 8), TP 1 x PP 4 x DP 16 with EP 8, 256 sequences: experts
    // over 8 ranks (2 in a node, 4 nodes), its all-to-alls on both tiers; the optimizer
    // certifies the bandwidths for the budget.
    let with_ep = |ep: &str, extra: &[&str]| {
        let mut line = vec![
            "scenario",
            "--model",
            "mixtral-8x7b",
            "--npus",
            "64",
            "--tp",
            "1",
            "--pp",
            "4",
            "--dp",
            "16",
            "--ep",
            ep,
            "--global-batch",
            "256",
        ];
        line.extend(extra);
        run(&args(&line))
    };
    let mixtral = |extra: &[&str]| with_ep("8", &[&["--system"], extra].concat());
    let (code, out, err) = mixtral(&[
        "dgx-h100",
        "--shape",
        "SW8:nvlink4 x SW8:ib-ndr",
        "--budget",
        "2e6",
    ]);
    assert_eq!(code, 0, "{err}");
    let sc: Value = serde_json::from_str(&out).unwrap();
    let c = &sc["workloads"][0]["communicator"];
    assert_eq!(c["expert"], serde_json::json!([2, 4]));
    let path = std::env::temp_dir().join(format!("mixtral-{}.json", std::process::id()));
    std::fs::write(&path, &out).unwrap();
    let (code, out, err) = run(&args(&["optimize", "--scenario", path.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["gap"].as_f64().unwrap() <= 1e-6);
    let labels: Vec<String> = v["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap().to_string())
        .collect();
    assert!(
        labels.iter().any(|l| l.ends_with("AllToAll over expert")),
        "{labels:?}"
    );
    std::fs::remove_file(&path).ok();
    // Interleaved: two chunks per stage send twice per slot; 9 chunks would leave a chunk
    // without a layer (32 layers < 4 stages x 9), refused by name.
    let interleaved = |v: &str| {
        mixtral(&[
            "dgx-h100",
            "--shape",
            "SW8:nvlink4 x SW8:ib-ndr",
            "--virtual-stages",
            v,
        ])
    };
    let (code, two, err) = interleaved("2");
    assert_eq!(code, 0, "{err}");
    let sends = |text: &str| -> f64 {
        let sc: Value = serde_json::from_str(text).unwrap();
        let layers = sc["workloads"][0]["workload"]["layers"]
            .as_array()
            .unwrap()
            .clone();
        let last = layers.last().unwrap();
        assert_eq!(last["name"], "pipeline_sendrecv");
        last["forward"]["size_bytes"].as_f64().unwrap()
    };
    let (_, one, _) = interleaved("1");
    // 16 micro-batches: 16 + 3/2 slots of two sends against 16 + 3 of one.
    let ratio = sends(&two) / sends(&one);
    assert!((ratio - 2.0 * 17.5 / 19.0).abs() < 1e-12, "{ratio}");
    let (code, _, err) = interleaved("9");
    assert_eq!(code, 1);
    assert!(err.contains("interleaving 9 chunks per stage"), "{err}");
    // ZeRO-3 gathers each layer's weights twice; FP8 needs an accelerator with FP8.
    let (code, out, err) = mixtral(&["dgx-a100", "--zero", "3"]);
    assert_eq!(code, 0, "{err}");
    let sc: Value = serde_json::from_str(&out).unwrap();
    let gather = sc["workloads"][0]["workload"]["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "attention1_allgather")
        .cloned()
        .unwrap();
    assert_eq!(gather["weight_grad"]["count"], 2);
    let (code, _, err) = mixtral(&["dgx-a100", "--zero", "3", "--dtype", "fp8"]);
    assert_eq!(code, 1);
    assert!(err.contains("has no FP8 tensor cores"), "{err}");
    let (code, _, err) = mixtral(&["dgx-a100", "--zero", "4"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--zero") && err.contains("0, 1, 2 or 3"),
        "{err}"
    );
    // The co-design searches EP with the rest.
    let (code, out, err) = run(&args(&[
        "codesign",
        "--model",
        "mixtral-8x7b",
        "--npus",
        "64",
        "--global-batch",
        "256",
        "--system",
        "dgx-h100",
        "--budgets",
        "1e6:4e6:3",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let best = &v["best"];
    let ep = best.get("ep").and_then(Value::as_u64).unwrap_or(1);
    assert!(
        8 % ep == 0 && best["time_ns"].as_f64().unwrap() > 0.0,
        "{best}"
    );
    // EP must carve the stage's ranks.
    let (code, _, err) = with_ep("3", &["--shape", "SW8 x SW8"]);
    assert_eq!(code, 1);
    assert!(err.contains("not divisible by EP 3"), "{err}");
}
