//! The adversarial inputs of issue 14, replayed through the command line: each must give a right
//! answer or an error that names what is wrong, quickly, never a panic, a hang or a silent `null`.

use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_libra-studio");

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

/// Run the CLI with `args` (and `stdin`), killed after `limit`: (exit code, stdout, stderr).
fn run_within(args: &[String], stdin: Option<&str>, limit: Duration) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run libra-studio");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{args:?} ran longer than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn run(args: &[&str]) -> (i32, String, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    run_within(&args, None, Duration::from_secs(30))
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

#[test]
fn a_far_budget_or_bound_is_not_mistaken_for_a_forced_zero() {
    // Both said "the constraints force B1 to 0" for a feasible problem (finding 5).
    let base = {
        let (code, out, err) = run_within(
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
        let (code, out, err) =
            run_within(&with_files("optimize", &a), None, Duration::from_secs(30));
        assert_eq!(code, 0, "{extra:?}: {err}");
        let t = json(&out)["time_ns"].as_f64().unwrap();
        assert!((t / base - 1.0).abs() < 1e-6, "{extra:?}: {t} vs {base}");
    }
}

#[test]
fn the_least_cost_for_a_far_target_is_not_80_times_too_high() {
    // Without latency or constraints the least cost is K / (target - compute) (finding 5).
    let cost_at = |target: &str| {
        let (code, out, err) = run_within(
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
    let (code, out, err) = run_within(
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
    // Beyond what the solver can represent: an error naming the budget, not an empty front.
    let (code, out, err) = run_within(
        &with_files("pareto", &["--budgets", "1e-160:1e160:5"]),
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
