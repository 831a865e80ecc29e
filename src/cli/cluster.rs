//! `trace` and `simulate`: the cluster over time (docs/cluster.md).

use super::args::{ArgError, Args};
use super::inputs;
use super::Failure;
use crate::cluster::placement::Placement;
use crate::cluster::simulate::MIN_REROUTE_PERIOD_S;
use crate::cluster::sweep::{sweep, Axis};
use crate::cluster::trace::MAX_TIME_S;
use crate::cluster::trace::{generate, ClusterNetwork, Faults, Trace, TraceSpec};
use crate::cluster::{simulate, Reroute, SimOptions};
use crate::routing::paper_jobs::PaperModel;
use crate::routing::Algorithm;
use std::ffi::OsString;

fn number<T: std::str::FromStr>(
    args: &Args,
    name: &'static str,
    default: T,
) -> Result<T, ArgError> {
    Ok(args
        .parsed(name, super::args::kind_of::<T>(), |_| true)?
        .unwrap_or(default))
}

/// `trace --tors T --spines S --hosts-per-tor H --jobs J --arrival-rate PER_S --iterations I
/// --compute-s C --ring-size R [--chunk-bytes B] [--mix gpt3,bloom,llama2] [--failed-spines F]
/// [--failed-links L] [--fail-at S] [--recover-at S] [--link-gbps G] [--nic-gbps G] --seed K`: a generated trace as JSON. Defaults: the paper's
/// fabric (64 x 32, 32 NICs per ToR, 400 Gb/s), 200 jobs at 0.5 per second, 10 iterations of 1 s.
pub fn trace(args: &[OsString]) -> Result<String, Failure> {
    let args = Args::parse(args, &TRACE_OPTIONS, &[])?;
    args.no_positional()?;
    let trace = generate(&spec(&args)?).map_err(Failure::input)?;
    Ok(serde_json::to_string_pretty(&trace).expect("json"))
}

const TRACE_OPTIONS: [&str; 17] = [
    "tors",
    "spines",
    "hosts-per-tor",
    "jobs",
    "arrival-rate",
    "iterations",
    "compute-s",
    "ring-size",
    "chunk-bytes",
    "mix",
    "failed-spines",
    "failed-links",
    "fail-at",
    "recover-at",
    "link-gbps",
    "nic-gbps",
    "seed",
];

fn spec(args: &Args) -> Result<TraceSpec, Failure> {
    let mix = match args.one("mix")? {
        None => PaperModel::ALL.to_vec(),
        Some(list) => list
            .split(',')
            .map(|m| {
                PaperModel::parse(m).ok_or_else(|| ArgError::Bad {
                    option: "mix".into(),
                    message: format!(
                        "\"{}\" is not one of the paper's models ({})",
                        m.trim(),
                        PaperModel::ALL.map(|m| m.key()).join(", ")
                    ),
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    let spec = TraceSpec {
        network: ClusterNetwork {
            tors: number(args, "tors", 64)?,
            spines: number(args, "spines", 32)?,
            hosts_per_tor: number(args, "hosts-per-tor", 32)?,
            link_gbps: number(args, "link-gbps", 400.0)?,
            nic_gbps: number(args, "nic-gbps", 400.0)?,
        },
        jobs: number(args, "jobs", 200)?,
        arrival_rate: number(args, "arrival-rate", 0.5)?,
        iterations: number(args, "iterations", 10)?,
        compute_s: number(args, "compute-s", 1.0)?,
        ring_size: number(args, "ring-size", 4)?,
        chunk_bytes: match args.one("chunk-bytes")? {
            None => None,
            Some(_) => Some(number(args, "chunk-bytes", 0.0)?),
        },
        mix,
        faults: Faults {
            spines: number(args, "failed-spines", 0)?,
            links: number(args, "failed-links", 0)?,
            at_s: number(args, "fail-at", 0.0)?,
            recover_s: match args.one("recover-at")? {
                None => None,
                Some(_) => Some(number(args, "recover-at", 0.0)?),
            },
        },
        seed: number(args, "seed", 1)?,
    };
    if spec.jobs as usize > crate::cluster::trace::MAX_TRACE_JOBS {
        return Err(Failure::Usage(format!(
            "--jobs {} is more than the {} a trace holds",
            spec.jobs,
            crate::cluster::trace::MAX_TRACE_JOBS
        )));
    }
    Ok(spec)
}

/// One of the cluster's policies ([`Algorithm::CLUSTER`]) by key.
fn policy_of(option: &str, key: &str) -> Result<Algorithm, ArgError> {
    Algorithm::from_key(key)
        .filter(|a| Algorithm::CLUSTER.contains(a))
        .ok_or_else(|| ArgError::Bad {
            option: option.into(),
            message: format!(
                "unknown policy \"{key}\": {}",
                Algorithm::CLUSTER.map(|p| p.key()).join(", ")
            ),
        })
}

fn reroute_of(args: &Args) -> Result<Reroute, ArgError> {
    let reroute = args.one("reroute")?.unwrap_or("arrival");
    Reroute::parse(reroute).ok_or_else(|| ArgError::Bad {
        option: "reroute".into(),
        message: format!(
            "\"{reroute}\" is not arrival, every:SECONDS (a period from {} to {} s) or never",
            crate::format::number(MIN_REROUTE_PERIOD_S),
            crate::format::number(MAX_TIME_S)
        ),
    })
}

fn placement_of(args: &Args) -> Result<Placement, ArgError> {
    let placement = args.one("placement")?.unwrap_or("whole-tors");
    Placement::from_key(placement).ok_or_else(|| ArgError::Bad {
        option: "placement".into(),
        message: format!("\"{placement}\" is not whole-tors or scattered"),
    })
}

/// `sweep --axis failed-spines|ring-size|concurrent-jobs [trace options] [--policies
/// ecmp,greedy,...] [--reroute ...] [--placement ...]`: the paper's axes, every policy on the same
/// traces, as JSON rows.
pub fn sweep_cmd(args: &[OsString]) -> Result<String, Failure> {
    let valued: Vec<&str> = TRACE_OPTIONS
        .iter()
        .chain(&["axis", "policies", "reroute", "placement"])
        .copied()
        .collect();
    let args = Args::parse(args, &valued, &[])?;
    args.no_positional()?;
    let axis = args.required("axis")?;
    let axis = Axis::from_key(axis).ok_or_else(|| ArgError::Bad {
        option: "axis".into(),
        message: format!("\"{axis}\" is not failed-spines, ring-size or concurrent-jobs"),
    })?;
    let policies = match args.one("policies")? {
        None => Algorithm::CLUSTER.to_vec(),
        Some(list) => list
            .split(',')
            .map(|p| policy_of("policies", p.trim()))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let rows = sweep(
        &spec(&args)?,
        axis,
        &policies,
        reroute_of(&args)?,
        placement_of(&args)?,
    )
    .map_err(Failure::input)?;
    let report = SweepReport { axis, rows: &rows };
    Ok(serde_json::to_string_pretty(&report).expect("json"))
}

/// What `sweep` prints: the axis swept, and a row per value and policy.
#[derive(serde::Serialize)]
struct SweepReport<'a> {
    axis: Axis,
    rows: &'a [crate::cluster::sweep::SweepRow],
}

/// `simulate TRACE.json --policy ecmp|greedy|edge-coloring|annealing|optimal|multi-flow-ecmp
/// [--reroute arrival|every:SECONDS|never] [--placement whole-tors|scattered] [--timeline]`.
pub fn simulate_cmd(args: &[OsString]) -> Result<String, Failure> {
    let args = Args::parse(
        args,
        &["policy", "reroute", "placement", "controller-delay"],
        &["timeline", "timings"],
    )?;
    let path = args.one_file(
        "simulate needs one trace file: libra-studio simulate TRACE.json --policy ecmp",
    )?;
    let name = inputs::shown(path);
    let policy = policy_of("policy", args.one("policy")?.unwrap_or("greedy"))?;
    let reroute = reroute_of(&args)?;
    let placement = placement_of(&args)?;
    let text = inputs::read(path)?;
    let trace = Trace::from_json(&text).map_err(|e| Failure::Input(format!("{name}: {e}")))?;
    let mut result = simulate(
        &trace,
        &SimOptions {
            placement,
            controller_delay_s: number(&args, "controller-delay", 0.0)?,
            ..SimOptions::new(policy, reroute)
        },
    )
    .map_err(|e| Failure::Input(format!("{name}: {e}")))?;
    if !args.flag("timeline") {
        result.timeline.clear();
    }
    let report = SimulateReport {
        // Wall time differs from run to run: only on request, so that repeated runs diff clean.
        controller_s: args.flag("timings").then_some(result.controller_s),
        result: &result,
    };
    Ok(serde_json::to_string_pretty(&report).expect("json"))
}

/// What `simulate` prints: the simulation, and with `--timings` the controller's wall time.
#[derive(serde::Serialize)]
struct SimulateReport<'a> {
    #[serde(flatten)]
    result: &'a crate::cluster::SimResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    controller_s: Option<f64>,
}
