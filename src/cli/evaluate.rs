//! `libra-studio evaluate` and `libra-studio scenario`.

use super::args::{number_list, ArgError, Args};
use super::inputs::{self, InputError, SCENARIO_FLAGS, SCENARIO_OPTIONS};
use super::Failure;
use crate::model::scenario::{Evaluation, Scenario, TotalBandwidth};
use crate::model::PhaseKind;
use crate::optimize::uniform_split;
use serde_json::{json, Value};
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

/// The evaluation as the JSON object `evaluate` prints.
pub fn evaluation_json(sc: &Scenario, ev: &Evaluation) -> Value {
    let by_kind = |v: &[Vec<f64>; 3]| {
        let mut m = serde_json::Map::new();
        for kind in PhaseKind::ALL {
            m.insert(kind.name().into(), json!(v[kind.index()]));
        }
        Value::Object(m)
    };
    let exposed = ev.exposed_ns();
    let per_dim: Vec<f64> = (0..ev.bw_gbps.len())
        .map(|d| exposed.iter().map(|v| v[d]).sum())
        .collect();
    let cost_per_dim: Vec<Value> = ev
        .cost
        .dims
        .iter()
        .zip(&sc.network.dims)
        .enumerate()
        .map(|(i, (c, d))| {
            json!({
                "dim": i + 1,
                "topology": d.topology.name(),
                "tier": d.tier,
                "blocks": c.blocks,
                "links_per_block": c.links_per_block,
                "link_bw_gbps": c.link_bw_gbps,
                "links_usd": c.links_usd,
                "switches_usd": c.switches_usd,
                "nics_usd": c.nics_usd,
                "total_usd": c.total_usd(),
            })
        })
        .collect();
    let workloads: Vec<Value> = ev
        .workloads
        .iter()
        .map(|w| {
            json!({
                "name": w.name,
                "weight": w.weight,
                "time_ns": w.time.time_ns,
                "compute_ns": w.time.compute_ns,
                "exposed_comm_ns": by_kind(&w.time.exposed_ns),
            })
        })
        .collect();
    json!({
        "scenario": sc.name,
        "bw_gbps": ev.bw_gbps,
        "time_ns": ev.time_ns,
        "cost_usd": ev.cost_usd,
        "compute_ns": ev.compute_ns,
        "comm_ns": ev.time_ns - ev.compute_ns,
        "time_x_cost": ev.time_x_cost(),
        "libra_compatible": sc.model.is_libra_compatible(),
        "breakdown": {
            "exposed_comm_ns": by_kind(&exposed),
            "exposed_comm_per_dim_ns": per_dim,
            "cost_per_dim": cost_per_dim,
        },
        "workloads": workloads,
    })
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
    Ok(serde_json::to_string_pretty(&evaluation_json(&sc, &ev)).expect("json"))
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
