//! `libra-studio evaluate` and `libra-studio scenario`.

use super::args::{number_list, ArgError, Args};
use super::inputs::{self, InputError, SCENARIO_FLAGS, SCENARIO_OPTIONS};
use super::Failure;
use crate::model::scenario::{Evaluation, Scenario, TotalBandwidth};
use crate::model::CostComponent;
use crate::model::PhaseKind;
use crate::optimize::uniform_split;
use serde::Serialize;
use std::collections::BTreeMap;
use std::ffi::OsString;

/// The bandwidths to evaluate: `--bw`, or the uniform split of the scenario's total bandwidth.
fn bandwidths(args: &Args, sc: &Scenario) -> Result<Vec<f64>, InputError> {
    if let Some(text) = args.one("bw")? {
        return Ok(number_list("bw", text)?);
    }
    match sc.constraints.total_bw {
        Some(TotalBandwidth::Equal(total) | TotalBandwidth::AtMost(total)) => {
            uniform_split(sc.network.dims.len(), total).map_err(|e| {
                InputError::Args(ArgError::Bad {
                    option: "bw".into(),
                    message: e.to_string(),
                })
            })
        }
        None => Err(ArgError::Required("bw").into()),
    }
}

/// Per phase kind (by name), one value per dimension.
type ByKind = BTreeMap<&'static str, Vec<f64>>;

fn by_kind(v: &[Vec<f64>; 3]) -> ByKind {
    PhaseKind::ALL
        .iter()
        .map(|k| (k.name(), v[k.index()].clone()))
        .collect()
}

/// What `evaluate` prints.
#[derive(Serialize)]
struct EvaluationReport<'a> {
    scenario: &'a str,
    bw_gbps: &'a [f64],
    time_ns: f64,
    cost_usd: f64,
    compute_ns: f64,
    comm_ns: f64,
    /// LIBRA's PerfPerCost value.
    time_x_cost: f64,
    libra_compatible: bool,
    breakdown: Breakdown<'a>,
    workloads: Vec<WorkloadReport<'a>>,
}

/// Where the time and the cost go.
#[derive(Serialize)]
struct Breakdown<'a> {
    exposed_comm_ns: ByKind,
    exposed_comm_per_dim_ns: Vec<f64>,
    cost_per_dim: Vec<DimCostReport<'a>>,
}

/// One dimension's cost, numbered from 1.
#[derive(Serialize)]
struct DimCostReport<'a> {
    dim: usize,
    topology: &'static str,
    tier: &'a str,
    blocks: u64,
    links_per_block: u64,
    link_bw_gbps: f64,
    links_usd: f64,
    switches_usd: f64,
    nics_usd: f64,
    total_usd: f64,
}

/// One workload's share.
#[derive(Serialize)]
struct WorkloadReport<'a> {
    name: &'a str,
    weight: f64,
    time_ns: f64,
    compute_ns: f64,
    exposed_comm_ns: ByKind,
}

/// The evaluation as `evaluate` prints it.
fn evaluation_report<'a>(sc: &'a Scenario, ev: &'a Evaluation) -> EvaluationReport<'a> {
    let exposed = ev.exposed_ns();
    let per_dim: Vec<f64> = (0..ev.bw_gbps.len())
        .map(|d| exposed.iter().map(|v| v[d]).sum())
        .collect();
    let cost_per_dim = ev
        .cost
        .dims
        .iter()
        .zip(&sc.network.dims)
        .enumerate()
        .map(|(i, (c, d))| DimCostReport {
            dim: i + 1,
            topology: d.topology.name(),
            tier: &d.tier,
            blocks: c.blocks,
            links_per_block: c.links_per_block,
            link_bw_gbps: c.link_bw_gbps,
            links_usd: c.usd(CostComponent::Links),
            switches_usd: c.usd(CostComponent::Switches),
            nics_usd: c.usd(CostComponent::Nics),
            total_usd: c.total_usd(),
        })
        .collect();
    let workloads = ev
        .workloads
        .iter()
        .map(|w| WorkloadReport {
            name: &w.name,
            weight: w.weight,
            time_ns: w.time.time_ns,
            compute_ns: w.time.compute_ns,
            exposed_comm_ns: by_kind(&w.time.exposed_ns),
        })
        .collect();
    EvaluationReport {
        scenario: &sc.name,
        bw_gbps: &ev.bw_gbps,
        time_ns: ev.time_ns,
        cost_usd: ev.cost_usd,
        compute_ns: ev.compute_ns,
        comm_ns: ev.time_ns - ev.compute_ns,
        time_x_cost: ev.time_x_cost(),
        libra_compatible: sc.model.is_libra_compatible(),
        breakdown: Breakdown {
            exposed_comm_ns: by_kind(&exposed),
            exposed_comm_per_dim_ns: per_dim,
            cost_per_dim,
        },
        workloads,
    }
}

fn parse(args: &[OsString], extra: &[&str]) -> Result<Args, ArgError> {
    let valued: Vec<&str> = SCENARIO_OPTIONS.iter().chain(extra).copied().collect();
    let args = Args::parse(args, &valued, &SCENARIO_FLAGS)?;
    args.no_positional()?;
    Ok(args)
}

/// `evaluate`: the JSON evaluation of a scenario at one bandwidth vector.
pub fn evaluate(args: &[OsString]) -> Result<String, Failure> {
    let args = parse(args, &["bw"])?;
    let sc = inputs::scenario(&args)?;
    let bw = bandwidths(&args, &sc)?;
    let ev = sc.evaluate(&bw).map_err(Failure::input)?;
    Ok(serde_json::to_string_pretty(&evaluation_report(&sc, &ev)).expect("json"))
}

/// `scenario`: the Scenario JSON equivalent to LIBRA's input files.
pub fn scenario(args: &[OsString]) -> Result<String, Failure> {
    let args = parse(args, &["total-bw"])?;
    let mut sc = inputs::scenario(&args)?;
    if let Some(t) = args.one("total-bw")? {
        let total: f64 = t
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v > 0.0)
            .ok_or_else(|| ArgError::Bad {
                option: "total-bw".into(),
                message: format!("expected a positive number of GB/s, got \"{t}\""),
            })?;
        sc.constraints.total_bw = Some(TotalBandwidth::Equal(total));
    }
    sc.validate().map_err(Failure::input)?;
    Ok(sc.to_json())
}
