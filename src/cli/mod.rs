//! The native command line, on the same core as the app.

mod args;
mod cluster;
mod codesign;
mod evaluate;
mod help;
mod inputs;
mod optimize;
mod permalink;
mod predict;
mod route;
mod systems;

use crate::presets;
use std::ffi::{OsStr, OsString};
use std::io::Write;

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

/// Run the command line on `args` (without the program name); returns the process exit code:
/// 0 done, 1 a bad input file or value or an infeasible problem, 2 a usage error.
pub fn run<S: AsRef<OsStr>>(args: &[S], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    inputs::new_command();
    let args: Vec<OsString> = args.iter().map(|a| a.as_ref().to_os_string()).collect();
    let rest = args.get(1..).unwrap_or_default();
    let command = args.first().map(|c| c.to_string_lossy().into_owned());
    // `--help` anywhere before a `--` asks for the command's page.
    let wants_help = rest
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--help" || a == "-h");
    let result = match command.as_deref() {
        None | Some("-h" | "--help") => Ok(help::overview()),
        Some("help") => match rest.first().map(|c| c.to_string_lossy()) {
            None => Ok(help::overview()),
            Some(c) => {
                help::page(&c).ok_or_else(|| Failure::Usage(format!("unknown command \"{c}\"")))
            }
        },
        Some("-V" | "--version") => Ok(format!("libra-studio {}", env!("CARGO_PKG_VERSION"))),
        Some(c) if wants_help => {
            help::page(c).ok_or_else(|| Failure::Usage(format!("unknown command \"{c}\"")))
        }
        Some("evaluate") => evaluate::evaluate(rest),
        Some("scenario")
            if rest
                .iter()
                .any(|a| a == "--model" || a.to_string_lossy().starts_with("--model=")) =>
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
        Some("predict") => predict::predict(rest),
        Some("calibrate") => predict::calibrate(rest, err),
        Some("validate") => predict::validate(rest, err),
        Some("published") => predict::published(rest, err),
        Some("systems") => systems::systems(rest),
        Some("network") => args::Args::parse(rest, &[], &[])
            .and_then(|a| a.no_positional())
            .map_err(Failure::from)
            .map(|()| describe_default_network()),
        Some(other) => Err(Failure::Usage(format!("unknown command \"{other}\""))),
    };
    let written = match result {
        Ok(text) => writeln!(out, "{}", text.trim_end()).map(|_| 0),
        Err(Failure::Usage(message)) => {
            let topic = match command.as_deref() {
                Some(c) if help::page(c).is_some() => format!("libra-studio {c} --help"),
                _ => "libra-studio --help".into(),
            };
            writeln!(err, "libra-studio: {message} (try {topic})").map(|_| 2)
        }
        Err(Failure::Input(message)) => writeln!(err, "libra-studio: {message}").map(|_| 1),
    };
    // A closed output (a pipe to `head`) is not the command's failure to report, but it is one.
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
        assert!(out.contains("--scenario S.json"), "{out}");
        // Each command's page: route lists its algorithms, objectives and node budget.
        let (code, out, _) = run_with(&["route", "--help"]);
        assert_eq!(code, 0);
        for word in [
            "ecmp|greedy|greedy-capacity-aware|edge-coloring|annealing|optimal|multi-flow-ecmp|",
            "flow-lex|job-lex|min-max-link-load|min-makespan",
            "--node-budget N",
            "Exit status",
        ] {
            assert!(out.contains(word), "{word}: {out}");
        }
        assert!(!out.contains("--total-bw"), "{out}");
        assert_eq!(run_with(&["help", "route"]).1, out);
        // After `--`, --help is an argument, not a request for help.
        let (code, _, err) = run_with(&["network", "--", "--help"]);
        assert_eq!(code, 2);
        assert!(err.contains("unexpected argument \"--help\""), "{err}");
    }

    #[test]
    fn unknown_command_is_exit_2() {
        let (code, out, err) = run_with(&["frobnicate"]);
        assert_eq!(code, 2);
        assert!(out.is_empty());
        assert!(err.contains("\"frobnicate\""));
        let (code, _, err) = run_with(&["network", "extra"]);
        assert_eq!(code, 2);
        assert!(
            err.contains("unexpected argument \"extra\" (try libra-studio network --help)"),
            "{err}"
        );
    }

    #[test]
    fn network_prints_4096_npus() {
        let (code, out, _) = run_with(&["network"]);
        assert_eq!(code, 0);
        assert!(out.contains("Ring 4 × FullyConnected 8 × Ring 4 × Switch 32 = 4096 NPUs"));
        assert!(out.contains("cost $34,508,892"), "{out}");
    }
}
