//! Property test of the command line: every command, given random options with hostile values
//! (negative, zero, NaN, huge, empty, not numbers, repeated, unknown, stray arguments, `--`),
//! answers with exit 0, 1 or 2 and never panics; what it refuses it says on standard error.
//! Each command keeps small sizes first (a seeded generator, so a failure reproduces).

use libra_studio::cli::run;

mod common;
use common::Rng;

/// Options of each command, and the small sizes it starts from (so that an accepted run is quick).
const COMMANDS: &[(&str, &[&str], &[&str])] = &[
    (
        "optimize",
        &[
            "--total-bw",
            "--budget",
            "--min",
            "--max",
            "--constraint",
            "--objective",
            "--gap",
            "--method",
            "--efficiency",
            "--time-target",
            "--timings",
            "--latency",
            "--combine",
        ],
        &[],
    ),
    (
        "pareto",
        &["--budgets", "--total-bw", "--min", "--csv", "--method"],
        &[],
    ),
    (
        "evaluate",
        &["--bw", "--training-loop", "--combine", "--latency"],
        &[],
    ),
    ("scenario", &["--total-bw", "--name"], &[]),
    (
        "route-scenario",
        &[
            "--tors",
            "--spines",
            "--hosts-per-tor",
            "--jobs",
            "--ring-size",
            "--failed-spines",
            "--failed-links",
            "--seed",
            "--chunk-bytes",
            "--models",
        ],
        &[
            "--tors",
            "4",
            "--spines",
            "2",
            "--hosts-per-tor",
            "4",
            "--jobs",
            "2",
        ],
    ),
    (
        "trace",
        &[
            "--tors",
            "--spines",
            "--hosts-per-tor",
            "--jobs",
            "--arrival-rate",
            "--iterations",
            "--compute-s",
            "--ring-size",
            "--chunk-bytes",
            "--mix",
            "--failed-spines",
            "--failed-links",
            "--fail-at",
            "--recover-at",
            "--seed",
            "--link-gbps",
        ],
        &[
            "--tors",
            "4",
            "--spines",
            "2",
            "--hosts-per-tor",
            "8",
            "--jobs",
            "3",
            "--mix",
            "gpt3",
        ],
    ),
    (
        "sweep",
        &[
            "--axis",
            "--policies",
            "--reroute",
            "--placement",
            "--iterations",
            "--seed",
            "--ring-size",
        ],
        &[
            "--tors",
            "4",
            "--spines",
            "2",
            "--hosts-per-tor",
            "4",
            "--jobs",
            "2",
            "--iterations",
            "1",
            "--chunk-bytes",
            "1e6",
            "--policies",
            "ecmp",
        ],
    ),
    (
        "codesign",
        &[
            "--model",
            "--npus",
            "--budget",
            "--budgets",
            "--hbm-gb",
            "--shape",
            "--recompute",
            "--zero3",
            "--timings",
            "--rank-budget",
        ],
        &[
            "--model",
            "custom",
            "--layers",
            "4",
            "--hidden",
            "256",
            "--heads",
            "4",
            "--seq-len",
            "128",
            "--global-batch",
            "8",
            "--npus",
            "8",
            "--shape",
            "R2 x SW4",
        ],
    ),
    ("permalink", &["--decode", "--base-url"], &[]),
    ("network", &[], &[]),
    (
        "route",
        &[
            "--algorithm",
            "--objective",
            "--node-budget",
            "--time-limit",
            "--seed",
            "--moves",
        ],
        &[],
    ),
    (
        "simulate",
        &[
            "--policy",
            "--reroute",
            "--placement",
            "--controller-delay",
            "--timeline",
        ],
        &[],
    ),
];

const VALUES: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "3",
    "1.5",
    "nan",
    "inf",
    "-inf",
    "1e309",
    "1e-320",
    "4294967296",
    "18446744073709551616",
    "",
    " ",
    "abc",
    "1,2",
    "1:2:3",
    "1e6:1e8:3",
    "2=5",
    "9=1",
    "B1 >= B2",
    "B1 + B9 = 4",
    "ecmp",
    "optimal",
    "every:1",
    "every:-1",
    "never",
    "time",
    "cost",
    "projected-gradient",
    "gpt3",
    "gpt3-175b",
    "R2 x SW4",
    "R0 x SW4",
    "#v1=abc",
    "https://h/",
    "\u{feff}",
    "é",
    "--",
    "--help",
];

fn arguments(rng: &mut Rng, command: &str, options: &[&str], base: &[&str]) -> Vec<String> {
    let mut args = vec![command.to_string()];
    args.extend(base.iter().map(|s| s.to_string()));
    // The scenario-reading commands start from LIBRA's GPT-3 4D files.
    if matches!(
        command,
        "optimize" | "pareto" | "evaluate" | "scenario" | "permalink"
    ) && rng.below(4) != 0
    {
        let d = format!("{}/data/libra-inputs", env!("CARGO_MANIFEST_DIR"));
        for (opt, file) in [
            ("--network", "network/4d_network.yml"),
            ("--cost", "cost_model/4d_cost_model.yml"),
            ("--workload", "workload/GPT_3.txt"),
            ("--communicator", "communicator/GPT_3_4d.yml"),
        ] {
            args.push(opt.into());
            args.push(format!("{d}/{file}"));
        }
    }
    if matches!(command, "route" | "simulate") && rng.below(3) != 0 {
        args.push("/nonexistent/input.json".into());
    }
    for _ in 0..rng.below(5) {
        match rng.below(10) {
            0 => args.push(VALUES[rng.below(VALUES.len())].into()),
            1 => args.push("--no-such-option".into()),
            _ if !options.is_empty() => {
                args.push(options[rng.below(options.len())].into());
                args.push(VALUES[rng.below(VALUES.len())].into());
            }
            _ => {}
        }
    }
    args
}

#[test]
fn every_command_answers_hostile_options_without_a_panic() {
    let mut rng = Rng(11);
    let mut codes = [0usize; 3];
    for i in 0..2_400 {
        let (command, options, base) = COMMANDS[i % COMMANDS.len()];
        let args = arguments(&mut rng, command, options, base);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run(&args, &mut out, &mut err)
        }))
        .unwrap_or_else(|_| panic!("{args:?} panicked"));
        assert!((0..=2).contains(&code), "{args:?}: exit {code}");
        codes[code as usize] += 1;
        if code != 0 {
            let err = String::from_utf8_lossy(&err);
            assert!(err.starts_with("libra-studio: "), "{args:?}: {err}");
            assert!(out.is_empty(), "{args:?} printed on failure");
        }
    }
    eprintln!("exit codes 0/1/2: {codes:?}");
    // Every outcome is exercised.
    assert!(codes.iter().all(|&c| c > 20), "exit codes 0/1/2: {codes:?}");
}
