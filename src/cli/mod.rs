//! The native command line, on the same core as the app.

mod args;
mod cluster;
mod codesign;
mod evaluate;
mod inputs;
mod optimize;
mod permalink;
mod route;

use crate::presets;
use std::io::Write;

const HELP: &str = "\
libra-studio: design the networks that train large AI models (LIBRA cost and time model)

Usage: libra-studio <command> [options]

Commands:
  evaluate   time and cost of a scenario at given bandwidths, as JSON
  optimize   the optimal bandwidth of every dimension, with a certified optimality gap, as JSON
  pareto     the front of cost against training time over a range of budgets, as JSON or CSV
  scenario   the Scenario JSON equivalent to LIBRA's input files; with --model, one co-design
             candidate: --model M --npus N --tp --pp --dp [--micro-batch B] --shape S
             [--mapping tp-pp-dp|tp-dp-pp] [--budget USD] (optimize --scenario gives its time)
  codesign   which parallelism, network shape and bandwidths train a transformer fastest per
             budget: --model gpt3-175b|llama2-70b|bloom-176b|mt-nlg-530b|custom --npus N
             [--hbm-gb 80] --budget USD | --budgets LO:HI:N [--rank-budget USD]
             [--shape \"R4 x FC8 x R4 x SW32\"] [--cost COST.yml] [--recompute selective|full]
             [--zero3] [--timings]; custom: --layers --hidden --heads --seq-len --global-batch
             [--ffn --vocab --peak-tflops --efficiency]. JSON with best, front, winners,
             ranked, evaluated, pruned
  route      route a Clos scenario (JSON, see docs/routing.md) with --algorithm ecmp|greedy|
             greedy-capacity-aware|edge-coloring|annealing|optimal, and print its link loads, max-min
             rates and All-Reduce times; annealing: --seed K (default 1), --moves N (default 200,000);
             --export-ilp OUT.lp writes the paper's ILP (min max flows on a link) in CPLEX LP format;
             optimal: --objective flow-lex|job-lex|min-max-link-load|min-makespan,
             --node-budget N (default 10,000,000), --time-limit S (default 5 s; progress on stderr)
  route-scenario  a generated routing scenario: --tors --spines --hosts-per-tor --jobs --ring-size
             --failed-spines --failed-links --seed --chunk-bytes; --models gpt3,bloom,llama2 for the
             paper's jobs (TP x PP shards, one ring per shard, chunk = FP32 weights / shards / ring
             size) on the paper's fabric by default (64 ToRs x 32 spines, 32 NICs per ToR)
  trace      a generated job trace (JSON) for simulate: --tors --spines --hosts-per-tor (default the
             paper's 64 x 32 x 32) --jobs J (200) --arrival-rate PER_S (0.5, Poisson) --iterations I
             (10) --compute-s C (1) --ring-size R (4) [--chunk-bytes B] [--mix gpt3,bloom,llama2]
             [--failed-spines F] [--failed-links L] [--fail-at S (0)] [--recover-at S (never)]
             [--link-gbps --nic-gbps (400)] --seed K
  simulate   TRACE.json --policy ecmp|greedy|edge-coloring|annealing|optimal [--reroute
             arrival|every:SECONDS|never] [--placement whole-tors|scattered] [--controller-delay S
             (0: routes take effect at once)] [--timeline]: the cluster over time, as JSON with jobs
             (id, arrival_s, start_s, end_s, jct_s, slowdown), mean_jct_s, makespan_s, throughput,
             busy_fraction, reroutes, controller_s
  sweep      --axis failed-spines|ring-size|concurrent-jobs [trace options] [--policies
             ecmp,greedy,...] [--reroute ...]: the paper's axes (0/1/4/8 failed spines, rings of
             2/4/8, 1 to 5 jobs at once), every policy on the same traces, as JSON rows
  permalink  the URL fragment (#v1=...) that opens a scenario in the app; --base-url URL prints
             the whole link URL#v1=... (URL: where the app is published); --decode LINK reverses it
  network    the default network (LIBRA's 4D shape), its NPU count and uniform-split cost

Scenario input (evaluate, scenario, optimize, pareto, permalink), either
  --scenario S.json
or LIBRA's four files
  --network NET.yml --cost COST.yml --workload W.txt --communicator COMM.yml
with the model options
  --training-loop no-overlap|overlap   (default no-overlap, as LIBRA)
  --combine max|sum                    per-dimension times: pipelined max (LIBRA) or sum
  --latency                            add each dimension's latency_ns per collective step

evaluate:  --bw 200,100,50,150   GB/s per NPU, one per dimension (default: the uniform split of
                                 the scenario's total bandwidth)
scenario:  --total-bw 500        add LIBRA's total-bandwidth constraint (sum B = 500)

optimize and pareto, constraints (added to the scenario's own):
  --total-bw X                sum of B = X GB/s (LIBRA's total_bw_500gbps is --total-bw 500)
  --total-bw-max X            sum of B <= X
  --budget USD                network cost <= USD
  --min D=V, --max D=V        bounds on dimension D's bandwidth (repeatable)
  --constraint 'TEXT'         a linear constraint, e.g. 'B1 >= B2', 'B3 + B4 = 200' (repeatable)
  --objective time|time-x-cost|cost   (cost needs --time-target NS)
  --gap G                     stop at a certified relative gap of G (default 1e-6)
  --method M                  interior-point (default: a barrier method, a few Newton steps) or
                              projected-gradient (accelerated, many cheap steps; it stops with its
                              certified gap after 20,000 steps); both end on the same certificate
  --efficiency D=ETA          routing efficiency of dimension D in (0, 1] (see `route`): times use
                              ETA x B_D, cost the provisioned B_D (repeatable)
pareto:    --budgets LO:HI:N   N budgets from LO to HI $, log-spaced; --csv for CSV

Options:
  -h, --help     print this help
  -V, --version  print the version

Errors go to stderr, naming the file, line and field; the exit code is then 2.
The browser app is served with `make serve`; see README.md.
";

/// Why a command failed: bad usage (the message points to --help) or bad input (files, values).
#[derive(Debug)]
pub enum Failure {
    Usage(String),
    Input(String),
}

impl Failure {
    fn input(e: impl std::fmt::Display) -> Failure {
        Failure::Input(e.to_string())
    }
}

impl From<args::ArgError> for Failure {
    fn from(e: args::ArgError) -> Failure {
        Failure::Usage(e.to_string())
    }
}

impl From<inputs::InputError> for Failure {
    fn from(e: inputs::InputError) -> Failure {
        match e {
            inputs::InputError::Args(a) => a.into(),
            other => Failure::input(other),
        }
    }
}

/// Run the command line on `args` (without the program name); returns the process exit code.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => Ok(HELP.to_string()),
        Some("-V" | "--version") => Ok(format!("libra-studio {}", env!("CARGO_PKG_VERSION"))),
        Some(_) if rest.iter().any(|a| a == "--help" || a == "-h") => Ok(HELP.to_string()),
        Some("evaluate") => evaluate::evaluate(rest),
        Some("scenario")
            if rest
                .iter()
                .any(|a| a == "--model" || a.starts_with("--model=")) =>
        {
            codesign::scenario(rest)
        }
        Some("scenario") => evaluate::scenario(rest),
        Some("codesign") => codesign::codesign(rest),
        Some("optimize") => optimize::optimize(rest),
        Some("pareto") => optimize::pareto(rest),
        Some("permalink") => permalink::permalink(rest),
        Some("route") => route::route(rest),
        Some("route-scenario") => route::route_scenario(rest),
        Some("trace") => cluster::trace(rest),
        Some("simulate") => cluster::simulate_cmd(rest),
        Some("sweep") => cluster::sweep_cmd(rest),
        Some("network") => Ok(describe_default_network()),
        Some(other) => Err(Failure::Usage(format!("unknown command \"{other}\""))),
    };
    let written = match result {
        Ok(text) => writeln!(out, "{}", text.trim_end()).map(|_| 0),
        Err(Failure::Usage(message)) => {
            writeln!(err, "libra-studio: {message} (try --help)").map(|_| 2)
        }
        Err(Failure::Input(message)) => writeln!(err, "libra-studio: {message}").map(|_| 2),
    };
    written.unwrap_or(1)
}

fn describe_default_network() -> String {
    let net = presets::libra_4d_network();
    let costs = presets::libra_4d_cost_model();
    let bw = crate::optimize::uniform_split(net.dims.len(), 500.0).expect("positive total");
    let cost = costs
        .network_cost(&net, &bw)
        .expect("the preset network is valid");
    format!(
        "LIBRA 4D network\n{} = {} NPUs\nuniform split of 500 GB/s: cost {}",
        net.shape_label(),
        net.total_npus().expect("the preset network is valid"),
        crate::format::usd(cost.total_usd())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn run_with(args: &[&str]) -> (i32, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(&args, &mut out, &mut err);
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn version_and_help() {
        let (code, out, _) = run_with(&["--version"]);
        assert_eq!((code, out.trim()), (0, "libra-studio 0.1.0"));
        let (code, out, _) = run_with(&["--help"]);
        assert_eq!(code, 0);
        assert!(out.starts_with("libra-studio: design"));
        let (code, out, _) = run_with(&["evaluate", "--help"]);
        assert_eq!(code, 0);
        assert!(out.contains("--bw"));
    }

    #[test]
    fn unknown_command_is_exit_2() {
        let (code, out, err) = run_with(&["frobnicate"]);
        assert_eq!(code, 2);
        assert!(out.is_empty());
        assert!(err.contains("\"frobnicate\""));
    }

    #[test]
    fn network_prints_4096_npus() {
        let (code, out, _) = run_with(&["network"]);
        assert_eq!(code, 0);
        assert!(out.contains("Ring 4 × FullyConnected 8 × Ring 4 × Switch 32 = 4096 NPUs"));
        assert!(out.contains("cost $34,508,892"), "{out}");
    }
}
