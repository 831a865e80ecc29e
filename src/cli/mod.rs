//! The native command line. Subcommands (evaluate, optimize, pareto, route, permalink) arrive with
//! issues 4 to 7; for now it answers --help and --version and describes the built-in network.

use crate::presets;
use std::io::Write;

const HELP: &str = "\
libra-studio: design the networks that train large AI models (LIBRA cost and time model)

Usage: libra-studio [--help | --version]
       libra-studio network

Commands:
  network      print the default network (LIBRA's 4D shape), its NPU count and uniform-split cost

Options:
  -h, --help     print this help
  -V, --version  print the version

The browser app is served with `make serve`; see README.md.
";

/// Run the command line on `args` (without the program name); returns the process exit code.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let result = match args.first().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => out.write_all(HELP.as_bytes()).map(|_| 0),
        Some("-V" | "--version") => {
            writeln!(out, "libra-studio {}", env!("CARGO_PKG_VERSION")).map(|_| 0)
        }
        Some("network") => describe_default_network(out).map(|_| 0),
        Some(other) => writeln!(
            err,
            "libra-studio: unknown command or option \"{other}\"; try --help"
        )
        .map(|_| 2),
    };
    result.unwrap_or(1)
}

fn describe_default_network(out: &mut dyn Write) -> std::io::Result<()> {
    let net = presets::libra_4d_network();
    let costs = presets::libra_4d_cost_model();
    let bw = crate::optimize::uniform_split(net.dims.len(), 500.0).expect("positive total");
    let cost = costs
        .network_cost(&net, &bw)
        .expect("the preset network is valid");
    writeln!(out, "{}", presets::DEFAULT_SCENARIO_NAME)?;
    writeln!(
        out,
        "{} = {} NPUs",
        net.shape_label(),
        net.total_npus().expect("the preset network is valid")
    )?;
    writeln!(
        out,
        "uniform split of 500 GB/s: cost {}",
        crate::format::usd(cost.total_usd())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(args: &[&str]) -> (i32, String, String) {
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
