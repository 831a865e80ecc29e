//! The adversarial inputs of issue 14, replayed through the command line: each must give a right
//! answer or an error that names what is wrong, quickly, never a panic, a hang or a silent `null`.

use serde_json::Value;
mod common;
use common::run_cli;
use std::time::{Duration, Instant};

fn gpt3_4d() -> Vec<String> {
    let file =
        |dir: &str, f: &str| format!("{}/data/libra-inputs/{dir}/{f}", env!("CARGO_MANIFEST_DIR"));
    vec![
        "--network".into(),
        file("network", "4d_network.yml"),
        "--cost".into(),
        file("cost_model", "4d_cost_model.yml"),
        "--workload".into(),
        file("workload", "GPT_3.txt"),
        "--communicator".into(),
        file("communicator", "GPT_3_4d.yml"),
    ]
}

fn run(args: &[&str]) -> (i32, String, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    run_cli(&args, None, Duration::from_secs(30))
}

fn with_files(cmd: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![cmd.to_string()];
    args.extend(gpt3_4d());
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Refused as the command line's conventions say: 1 for input the model refuses, 2 for a
/// malformed command line (tests/cli.rs checks which is which); never 0, never a crash.
fn refused(code: i32) -> bool {
    matches!(code, 1 | 2)
}

#[test]
fn a_far_budget_or_bound_is_not_mistaken_for_a_forced_zero() {
    // Both said "the constraints force B1 to 0" for a feasible problem (finding 5).
    let base = {
        let (code, out, err) = run_cli(
            &with_files("optimize", &["--total-bw", "500"]),
            None,
            Duration::from_secs(30),
        );
        assert_eq!(code, 0, "{err}");
        json(&out)["time_ns"].as_f64().unwrap()
    };
    for extra in [["--budget", "5e11"], ["--max", "1=1e12"]] {
        let mut a = vec!["--total-bw", "500"];
        a.extend(extra);
        let (code, out, err) = run_cli(&with_files("optimize", &a), None, Duration::from_secs(30));
        assert_eq!(code, 0, "{extra:?}: {err}");
        let t = json(&out)["time_ns"].as_f64().unwrap();
        assert!((t / base - 1.0).abs() < 1e-6, "{extra:?}: {t} vs {base}");
    }
}

#[test]
fn the_least_cost_for_a_far_target_is_not_80_times_too_high() {
    // Without latency or constraints the least cost is K / (target - compute) (finding 5).
    let cost_at = |target: &str| {
        let (code, out, err) = run_cli(
            &with_files(
                "optimize",
                &["--objective", "cost", "--time-target", target],
            ),
            None,
            Duration::from_secs(30),
        );
        assert_eq!(code, 0, "{err}");
        let v = json(&out);
        let c = v["cost_usd"].as_f64().unwrap();
        assert!(v["gap"].as_f64().unwrap() <= 1e-6);
        assert!(v["lower_bound"].as_f64().unwrap() <= c);
        c
    };
    let compute = 684_448_242.0;
    let k = cost_at("1e12") * (1e12 - compute);
    let c = cost_at("1e20");
    assert!((c * (1e20 - compute) / k - 1.0).abs() < 1e-5, "{c}");
}

#[test]
fn a_front_over_a_huge_range_has_log_spaced_budgets_and_never_prints_null() {
    // Finding 5: `--budgets 1e-160:1e160:5` printed null budgets and an empty front with exit 0.
    let (code, out, err) = run_cli(
        &with_files("pareto", &["--budgets", "1e-20:1e80:5"]),
        None,
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("null"), "{out}");
    let v = json(&out);
    let budgets: Vec<f64> = v["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["budget_usd"].as_f64().unwrap())
        .collect();
    assert_eq!(budgets.len(), 5, "{out}");
    for (b, want) in budgets.iter().zip([1e-20, 1e5, 1e30, 1e55, 1e80]) {
        assert!((b / want - 1.0).abs() < 1e-9, "{b} vs {want}");
    }
    // Solved in closed form (one budget row, each dimension owned by one pattern) however far
    // the range: the communication time is homogeneous of degree -1 in the budget, so it times
    // the budget is the same at 1e-160 and 1e-80 as at 1 $.
    let (code, out, err) = run_cli(
        &with_files("pareto", &["--budgets", "1e-160:1e160:5"]),
        None,
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let points = v["points"].as_array().unwrap();
    let at = |i: usize, key: &str| points[i][key].as_f64().unwrap();
    // The compute time: all that is left at the largest budget.
    let comm = |i: usize| at(i, "time_ns") - at(4, "time_ns");
    let per_dollar = comm(2) * at(2, "budget_usd");
    for i in [0, 1] {
        let rel = comm(i) * at(i, "budget_usd") / per_dollar - 1.0;
        assert!(rel.abs() < 1e-9, "point {i}: {rel:e}");
    }
    // With a second row the general method runs, and where it cannot represent the problem it
    // says so naming the budget, never an empty front.
    let (code, out, err) = run_cli(
        &with_files(
            "pareto",
            &["--budgets", "1e-160:1e160:5", "--constraint", "B1 >= B2"],
        ),
        None,
        Duration::from_secs(30),
    );
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("at the budget 1e-160 $"), "{err}");
}

#[test]
fn a_time_beyond_f64_is_an_error_naming_the_overflow() {
    let (code, out, err) = run(&with_files("evaluate", &["--bw", "1e-300,1,1,1"])
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    assert_ne!(code, 0, "{out}");
    assert!(!out.contains("null"));
    assert!(err.contains("training time (ns) overflows"), "{err}");
}

#[test]
fn routing_sizes_are_refused_by_name_before_any_allocation() {
    // Finding 5: 65537 x 65536 overflowed u32 and put every host on ToR 0 with exit 0. Finding 3:
    // a million failed links ran for 15 minutes; 4294967295 spines tried to allocate 17-137 GB.
    for (args, says) in [
        (
            vec![
                "route-scenario",
                "--tors",
                "65537",
                "--hosts-per-tor",
                "65536",
            ],
            "tors: 65537 is more than the limit of 4096 ToRs",
        ),
        (
            vec![
                "route-scenario",
                "--tors",
                "4096",
                "--hosts-per-tor",
                "65536",
            ],
            "tors x hosts-per-tor: 268435456 is more than the limit of 131072 hosts",
        ),
        (
            vec!["route-scenario", "--spines", "4294967295"],
            "spines: 4294967295 is more than the limit of 1024 spines",
        ),
        (
            vec![
                "route-scenario",
                "--tors",
                "64",
                "--spines",
                "32",
                "--failed-links",
                "1000000",
            ],
            "failed-links: 1000000 is more than the limit of 2048 failed links",
        ),
        (
            vec!["route-scenario", "--chunk-bytes", "5e-324"],
            "chunk-bytes must be between 1 and 1e18, got 5e-324",
        ),
    ] {
        let (code, out, err) = run(&args);
        assert!(refused(code), "{args:?}: {out}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // The same sizes inside a route JSON.
    let (code, text, err) = run(&["route-scenario"]);
    assert_eq!(code, 0, "{err}");
    let base: Value = json(&text);
    let dir = std::env::temp_dir().join(format!("libra-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (edit, says) in [
        (
            &(|v: &mut Value| v["network"]["num_tors"] = 4294967295u64.into())
                as &dyn Fn(&mut Value),
            "network.num_tors: 4294967295 is more than the limit of 4096 ToRs",
        ),
        (
            &|v: &mut Value| v["network"]["num_spines"] = 4294967295u64.into(),
            "network.num_spines: 4294967295 is more than the limit of 1024 spines",
        ),
        (
            &|v: &mut Value| v["jobs"][0]["chunk_bytes"] = 1e-310.into(),
            "jobs[0].chunk_bytes must be between 1 and 1e18, got 1e-310",
        ),
    ] {
        let mut v = base.clone();
        edit(&mut v);
        let path = dir.join("route.json");
        std::fs::write(&path, v.to_string()).unwrap();
        for algorithm in ["greedy", "ecmp"] {
            let (code, _, err) = run(&["route", path.to_str().unwrap(), "--algorithm", algorithm]);
            assert!(refused(code));
            assert!(err.contains(says), "{err}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_exact_optimizer_stops_at_its_time_limit_with_progress() {
    // Finding 3: `route --algorithm optimal` at 64 x 32 had a 10 M-node budget (~2.5 h) and no
    // time limit or progress.
    let dir = std::env::temp_dir().join(format!("libra-optimal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (code, text, err) = run(&[
        "route-scenario",
        "--tors",
        "64",
        "--spines",
        "32",
        "--hosts-per-tor",
        "32",
        "--jobs",
        "5",
        "--ring-size",
        "8",
        // Failed single links: no bound proves flow-lex at once (without them edge colouring
        // proves it at the root).
        "--failed-links",
        "200",
    ]);
    assert_eq!(code, 0, "{err}");
    let path = dir.join("paper.json");
    std::fs::write(&path, text).unwrap();
    let args: Vec<String> = [
        "route",
        path.to_str().unwrap(),
        "--algorithm",
        "optimal",
        "--objective",
        "flow-lex",
        "--time-limit",
        "1.5",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let t0 = Instant::now();
    let (code, out, err) = run_cli(&args, None, Duration::from_secs(60));
    let took = t0.elapsed().as_secs_f64();
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["stopped_by_time_limit"], Value::Bool(true), "{out}");
    assert_eq!(v["proven"], Value::Bool(false));
    assert!(
        err.contains("searched in") && err.contains("stopped at the time limit of 1.5 s"),
        "{err}"
    );
    // The limit, plus measuring the routing found (the fluid simulation), with room for a loaded
    // machine.
    assert!(took < 20.0, "{took} s");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_codesign_refuses_what_would_run_for_minutes_and_names_it() {
    let (code, _, err) = run(&[
        "codesign",
        "--model",
        "gpt3-175b",
        "--npus",
        "4096",
        "--budgets",
        "1e6:1e8:10000",
    ]);
    assert!(refused(code));
    assert!(
        err.contains("the number of budgets must be from 1 to 64, got 10000"),
        "{err}"
    );
    // Sizes at the edge of u32 answer at once, naming the limit that fails.
    let (code, _, err) = run(&[
        "codesign",
        "--model",
        "gpt3-175b",
        "--npus",
        "4294967295",
        "--budget",
        "1e7",
    ]);
    assert!(refused(code));
    assert!(err.contains("4294967295 NPUs"), "{err}");
    let (code, _, err) = run(&[
        "codesign",
        "--model",
        "custom",
        "--npus",
        "64",
        "--budget",
        "1e7",
        "--layers",
        "4000000000",
        "--hidden",
        "4000000000",
        "--heads",
        "1",
        "--seq-len",
        "1",
        "--global-batch",
        "1",
    ]);
    assert!(refused(code), "{err}");
}

/// Traces at and beyond their limits: refused by name, quickly.
#[test]
fn hostile_traces_are_refused_by_name() {
    for (args, says) in [
        (
            vec!["trace", "--jobs", "4000000000"],
            "more than the 10000 a trace holds",
        ),
        (
            vec!["trace", "--tors", "0"],
            "network.tors: 0 must be at least 1",
        ),
        (
            vec!["trace", "--tors", "100000", "--hosts-per-tor", "100000"],
            "beyond the limit",
        ),
        (
            vec!["trace", "--arrival-rate", "0"],
            "arrival_rate 0 must be a positive rate",
        ),
        (
            vec!["trace", "--iterations", "0"],
            "iterations 0 must be from 1 to 100,000",
        ),
        (
            vec!["trace", "--ring-size", "1"],
            "ring_size 1 must be at least 2",
        ),
        (
            vec!["trace", "--chunk-bytes", "nan"],
            "chunk_bytes NaN must be from 1 to 1e18",
        ),
        (
            vec!["trace", "--mix", "gpt5"],
            "\"gpt5\" is not one of the paper's models",
        ),
        (vec!["simulate"], "simulate needs one trace file"),
        (
            vec!["simulate", "/nonexistent/trace.json"],
            "/nonexistent/trace.json",
        ),
    ] {
        let (code, out, err) = run(&args);
        assert!(refused(code), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // Mangled traces: every spine down, a failure on a spine that is not there, a bad JSON.
    let dir = std::env::temp_dir().join(format!("libra-hostile-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.json");
    let (_, out, _) = run(&[
        "trace",
        "--tors",
        "4",
        "--spines",
        "2",
        "--jobs",
        "3",
        "--mix",
        "bloom",
        "--ring-size",
        "2",
    ]);
    let mut t: Value = serde_json::from_str(&out).unwrap();
    t["failures"] = serde_json::json!([{"spine": 0, "at_s": 0}, {"spine": 1, "at_s": 0}]);
    std::fs::write(&path, t.to_string()).unwrap();
    let file = path.to_str().unwrap();
    let (code, _, err) = run(&["simulate", file]);
    assert!(refused(code));
    assert!(err.contains("cannot finish"), "{err}");
    t["failures"] = serde_json::json!([{"spine": 9, "at_s": 0}]);
    std::fs::write(&path, t.to_string()).unwrap();
    let (code, _, err) = run(&["simulate", file]);
    assert!(refused(code));
    assert!(
        err.contains("failures[0]: spine 9 is not among the 2 spines"),
        "{err}"
    );
    std::fs::write(&path, "{\"network\": 3}").unwrap();
    let (code, _, err) = run(&["simulate", file]);
    assert!(refused(code));
    assert!(err.contains(file), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

// Issue 32: hangs, crashes, wrong answers and misleading messages found by an adversarial user.

/// A scratch directory of this test process, removed by the caller.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("libra-32-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small generated trace (4 ToRs x 2 spines x 32 NICs, `jobs` BLOOM jobs in rings of 2, one
/// at a time: each holds 96 NICs).
fn small_trace(jobs: u32) -> Value {
    let jobs = jobs.to_string();
    let (code, out, err) = run(&[
        "trace",
        "--tors",
        "4",
        "--spines",
        "2",
        "--jobs",
        &jobs,
        "--mix",
        "bloom",
        "--ring-size",
        "2",
        "--iterations",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    json(&out)
}

fn simulate_json(dir: &std::path::Path, trace: &Value, extra: &[&str]) -> (i32, String, String) {
    let path = dir.join("trace.json");
    std::fs::write(&path, trace.to_string()).unwrap();
    let mut args = vec!["simulate", path.to_str().unwrap()];
    args.extend(extra);
    run(&args)
}

#[test]
fn a_rerouting_period_not_exact_in_binary_still_advances_the_clock() {
    // Finding 1: the next timer was floor(t/s)*s + s, which rounds back to t for s = 0.1 at
    // t = 0.3: `simulate --reroute every:0.1` never finished, even with one job.
    let dir = scratch("reroute");
    let trace = small_trace(1);
    for period in ["0.1", "0.2", "0.3", "0.7", "1.1"] {
        let reroute = format!("every:{period}");
        let (code, out, err) = simulate_json(&dir, &trace, &["--reroute", &reroute]);
        assert_eq!(code, 0, "{reroute}: {err}");
        let r = json(&out);
        let makespan = r["makespan_s"].as_f64().unwrap();
        let s: f64 = period.parse().unwrap();
        // One full recomputation per period while the job runs.
        let reroutes = r["reroutes"].as_f64().unwrap();
        assert!(
            (reroutes - (makespan / s).floor()).abs() <= 2.0,
            "{reroute}: {reroutes} reroutes in {makespan} s"
        );
    }
    // Periods the simulation cannot keep are refused, naming the least and the most.
    for bad in [
        "every:0.0001",
        "every:1e-300",
        "every:-1",
        "every:1e300",
        "every:nan",
    ] {
        let (code, out, err) = simulate_json(&dir, &trace, &["--reroute", bad]);
        assert_eq!(code, 2, "{bad}: {out}");
        assert!(err.contains("a period from 0.001 to 1e9 s"), "{bad}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_outage_that_ends_is_simulated_through() {
    // Finding 5: every spine down at 2 s and back at 10 s was refused as "the simulation
    // cannot finish" for every policy; the jobs' flows wait at rate 0 and go on at 10 s.
    let dir = scratch("outage");
    let mut trace = small_trace(3);
    trace["failures"] = serde_json::json!([
        {"spine": 0, "at_s": 2.0, "recover_s": 10.0},
        {"spine": 1, "at_s": 2.0, "recover_s": 10.0},
    ]);
    let (_, healthy, _) = {
        let mut t = trace.clone();
        t["failures"] = serde_json::json!([]);
        simulate_json(&dir, &t, &["--policy", "ecmp"])
    };
    let healthy = json(&healthy)["makespan_s"].as_f64().unwrap();
    assert!(healthy > 2.0, "the jobs must be running at 2 s: {healthy}");
    for policy in ["ecmp", "greedy", "edge-coloring", "annealing", "optimal"] {
        let (code, out, err) = simulate_json(&dir, &trace, &["--policy", policy]);
        assert_eq!(code, 0, "{policy}: {err}");
        let r = json(&out);
        let makespan = r["makespan_s"].as_f64().unwrap();
        // Nothing crosses the fabric from 2 s to 10 s: the run ends at least 8 s later, less
        // what was computed meanwhile.
        assert!(makespan > 10.0, "{policy}: makespan {makespan}");
        assert!(
            makespan < healthy + 8.0 + 1e-9,
            "{policy}: makespan {makespan}"
        );
    }
    // Never recovering is still refused, saying so.
    trace["failures"] = serde_json::json!([{"spine": 0, "at_s": 2.0}, {"spine": 1, "at_s": 2.0}]);
    let (code, _, err) = simulate_json(&dir, &trace, &[]);
    assert!(refused(code));
    assert!(err.contains("none recovers"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn times_past_the_simulated_clocks_limit_are_refused_naming_it() {
    // Finding 5: arrivals at 1e300 s lost their durations to rounding (JCT 0, slowdown 0,
    // throughput 1.35e308).
    let dir = scratch("times");
    let mut trace = small_trace(2);
    trace["jobs"][1]["arrival_s"] = serde_json::json!(1e300);
    let (code, out, err) = simulate_json(&dir, &trace, &[]);
    assert!(refused(code), "{out}");
    assert!(
        err.contains("arrival_s 1e300 must be a time from 0 to 1e9 s"),
        "{err}"
    );
    // At the limit, durations are kept: a job arriving at 1e9 s has its own JCT.
    trace["jobs"][1]["arrival_s"] = serde_json::json!(1e9);
    let (code, out, err) = simulate_json(&dir, &trace, &[]);
    assert_eq!(code, 0, "{err}");
    let r = json(&out);
    let jcts: Vec<f64> = r["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jct_s"].as_f64().unwrap())
        .collect();
    assert!(
        (jcts[1] - jcts[0]).abs() < 1e-6 * jcts[0],
        "the same job alone at 0 and at 1e9 s: {jcts:?}"
    );
    // A generated trace whose rate puts arrivals past the limit says so.
    let (code, _, err) = run(&["trace", "--arrival-rate", "1e-300"]);
    assert!(refused(code));
    assert!(err.contains("arrival_rate 1e-300"), "{err}");
    assert!(err.contains("1e9 s"), "{err}");
    // A link so slow that the run passes the limit stops there, saying so.
    let mut slow = small_trace(1);
    slow["network"]["link_gbps"] = serde_json::json!(1e-6);
    slow["network"]["nic_gbps"] = serde_json::json!(1e-6);
    slow["jobs"][0]["chunk_bytes"] = serde_json::json!(1e12);
    let (code, _, err) = simulate_json(&dir, &slow, &[]);
    assert!(refused(code));
    assert!(err.contains("passed 1e10 s"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unknown_fields_of_our_formats_are_refused_by_name() {
    // Finding 5: "recover_at" (for recover_s) never recovered and "failed_spinez" failed
    // nothing, with exit 0.
    let dir = scratch("fields");
    let mut trace = small_trace(1);
    trace["failures"] = serde_json::json!([{"spine": 0, "at_s": 1.0, "recover_at": 5.0}]);
    let (code, _, err) = simulate_json(&dir, &trace, &[]);
    assert!(refused(code));
    assert!(err.contains("recover_at"), "{err}");
    let (code, out, err) = run(&[
        "route-scenario",
        "--tors",
        "4",
        "--spines",
        "2",
        "--hosts-per-tor",
        "4",
        "--jobs",
        "1",
        "--ring-size",
        "4",
    ]);
    assert_eq!(code, 0, "{err}");
    let mut sc = json(&out);
    sc["network"]["failed_spinez"] = serde_json::json!([0]);
    let path = dir.join("scenario.json");
    std::fs::write(&path, sc.to_string()).unwrap();
    let (code, _, err) = run(&["route", path.to_str().unwrap()]);
    assert!(refused(code));
    assert!(err.contains("failed_spinez"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_trace_written_by_trace_is_read_by_simulate_and_an_empty_one_prints_no_negative_zero() {
    let dir = scratch("roundtrip");
    // Failed spines and links with a recovery, as `trace` writes them.
    let (code, out, err) = run(&[
        "trace",
        "--tors",
        "4",
        "--spines",
        "4",
        "--jobs",
        "3",
        "--mix",
        "bloom",
        "--ring-size",
        "2",
        "--failed-spines",
        "1",
        "--failed-links",
        "2",
        "--fail-at",
        "1",
        "--recover-at",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    let path = dir.join("t.json");
    std::fs::write(&path, &out).unwrap();
    let (code, _, err) = run(&["simulate", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut empty = json(&out);
    empty["jobs"] = serde_json::json!([]);
    empty["failures"] = serde_json::json!([]);
    let (code, out, err) = simulate_json(&dir, &empty, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("-0.0"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn small_command_line_messages_say_what_is_wrong() {
    for (args, says) in [
        (
            vec![
                "codesign",
                "--model",
                "gpt3-175b",
                "--npus",
                "64",
                "--budget",
                "1e7",
                "--vocab",
                "4294967296",
            ],
            "at most 4294967295 here",
        ),
        (
            vec!["trace", "--seed", "-1"],
            "--seed: expected a whole number, got \"-1\" (it cannot be negative)",
        ),
        (
            vec!["trace", "--spines", "32", "--failed-spines", "33"],
            "33 failed spines asked for, but the fabric has 32",
        ),
        (
            vec![
                "trace",
                "--tors",
                "2",
                "--spines",
                "2",
                "--failed-links",
                "5",
            ],
            "5 failed ToR-spine uplinks asked for, but the fabric has 4",
        ),
        (
            vec!["sweep", "--axis", "ring-size", "--policies", ""],
            "--policies: unknown policy \"\"",
        ),
        (
            vec![
                "codesign",
                "--model",
                "gpt3-175b",
                "--npus",
                "64",
                "--budgets",
                "1e8:1e7:4",
            ],
            "HI must be at least LO",
        ),
    ] {
        let (code, out, err) = run(&args);
        assert!(refused(code), "{args:?}: {out}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn codesign_takes_a_cost_files_own_tiers_and_names_why_nothing_was_solved() {
    // Finding 5: a cost file whose tiers have their own names never found a shape and blamed
    // the tier limits. Finding 6: a compile failure was counted as "cannot be laid".
    let dir = scratch("codesign-cost");
    let own = dir.join("own.yml");
    std::fs::write(
        &own,
        "nvlink:\n  Link: 4\n\nib:\n  Link: 8\n  Switch: 18\n  Nic: 30\n",
    )
    .unwrap();
    let base = [
        "codesign",
        "--model",
        "gpt3-175b",
        "--npus",
        "256",
        "--budget",
        "1e8",
        "--cost",
    ];
    let mut args: Vec<&str> = base.to_vec();
    args.push(own.to_str().unwrap());
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let r = json(&out);
    let best = r["best"].to_string();
    assert!(best.contains("nvlink") && best.contains("ib"), "{best}");
    // A Switch needs switch and NIC costs: LIBRA's tiers with the pod's taken away.
    let unpriced = dir.join("unpriced.yml");
    std::fs::write(
        &unpriced,
        "InterChiplet:\n  Link: 2\nInterPackage:\n  Link: 4\nInterNode:\n  Link: 4\nInterPod:\n  Link: 7.8\n",
    )
    .unwrap();
    let mut args: Vec<&str> = base.to_vec();
    args.push(unpriced.to_str().unwrap());
    let (code, _, err) = run(&args);
    assert!(refused(code));
    assert!(err.contains("could not be priced or compiled"), "{err}");
    assert!(err.contains("no switch cost"), "{err}");
    assert!(!err.contains("can be laid onto a shape within"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn yaml_with_old_mac_line_ends_or_text_after_a_flow_sequence_is_read_or_named() {
    // Finding 6: CR-only line ends were read as one comment line ("missing key Topology");
    // `]#c` was reported as an unclosed flow sequence.
    let net = common::read("network", "4d_network.yml");
    let dir = scratch("yaml");
    // The same file name in two folders: the scenario is named after it.
    let (cr, lf) = (dir.join("cr/net.yml"), dir.join("lf/net.yml"));
    std::fs::create_dir_all(dir.join("cr")).unwrap();
    std::fs::create_dir_all(dir.join("lf")).unwrap();
    std::fs::write(&cr, net.replace("\r\n", "\n").replace('\n', "\r")).unwrap();
    std::fs::write(&lf, &net).unwrap();
    let evaluate = |network: &std::path::Path| {
        let mut args = with_files("evaluate", &["--bw", "100,100,100,100"]);
        let at = args.iter().position(|a| a == "--network").unwrap();
        args[at + 1] = network.to_str().unwrap().to_string();
        run_cli(&args, None, Duration::from_secs(30))
    };
    let (code, from_cr, err) = evaluate(&cr);
    assert_eq!(code, 0, "{err}");
    assert_eq!(from_cr, evaluate(&lf).1);
    let flow = dir.join("flow.yml");
    let bad = net.replacen(']', "]#c", 1);
    assert_ne!(bad, net, "the network file has a flow sequence");
    std::fs::write(&flow, bad).unwrap();
    let (code, _, err) = evaluate(&flow);
    assert!(refused(code));
    assert!(err.contains("text after the flow sequence's ]"), "{err}");
    assert!(err.contains("a comment needs a space before #"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
