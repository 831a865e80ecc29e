//! `systems`: the systems presets as JSON (docs/systems.md), and the `--system` option every
//! command shares: a preset's name or a system JSON file.

use super::args::Args;
use super::Failure;
use crate::model::network::Network;
use crate::systems::accelerators::{accelerator, AcceleratorSpec};
use crate::systems::{choose_system, system_file, system_names, system_presets, ChosenSystem};
use crate::systems::{system_preset, SystemSpec};
use serde::Serialize;
use std::ffi::OsString;

/// The system `--system` names: a preset, or a system JSON file; None without the option.
pub fn chosen(args: &Args) -> Result<Option<ChosenSystem>, Failure> {
    let Some(name) = args.one("system")? else {
        return Ok(None);
    };
    if let Some(s) = choose_system(name) {
        return Ok(Some(s));
    }
    if std::path::Path::new(name).is_file() {
        let path = args.path("system")?.expect("given");
        let text = super::inputs::read(path)?;
        return system_file(&text)
            .map(Some)
            .map_err(|e| Failure::Input(format!("{}: {e}", super::inputs::shown(path))));
    }
    Err(Failure::Usage(format!(
        "unknown system \"{}\" (expected {}, or a system JSON file)",
        name.trim(),
        system_names().join(", ")
    )))
}

/// A shape with each dimension's tier: `SW8:nvlink4 x SW512:ib-ndr`.
pub fn shape_text(net: &Network) -> String {
    net.dims
        .iter()
        .map(|d| {
            let kind = match d.topology {
                crate::model::network::Topology::Ring => "R",
                crate::model::network::Topology::FullyConnected => "FC",
                crate::model::network::Topology::Switch => "SW",
            };
            format!("{kind}{}:{}", d.npus, d.tier)
        })
        .collect::<Vec<_>>()
        .join(" x ")
}

/// One system as `systems` prints it.
#[derive(Serialize)]
struct Listed {
    #[serde(flatten)]
    system: SystemSpec,
    accelerator_figures: Option<AcceleratorSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<Sized>,
}

/// The system laid for `--npus`: its network, own bandwidths and their cost.
#[derive(Serialize)]
struct Sized {
    npus: u32,
    shape: String,
    gbps_per_npu: Vec<f64>,
    network_cost_usd: f64,
}

/// `systems [NAME] [--npus N]`: every preset (or one) as JSON; with --npus, each laid for N.
pub fn systems(args: &[OsString]) -> Result<String, Failure> {
    let args = Args::parse(args, &["npus"], &[])?;
    let chosen: Vec<SystemSpec> = match args.positional.as_slice() {
        [] => system_presets(),
        [name] => {
            let name = name.to_string_lossy();
            vec![system_preset(&name).ok_or_else(|| {
                Failure::Usage(format!(
                    "unknown system \"{name}\" (expected {})",
                    crate::systems::SYSTEM_PRESETS.join(", ")
                ))
            })?]
        }
        _ => return Err(Failure::Usage("give at most one system's name".into())),
    };
    let npus = args.parsed("npus", "a whole number of at least 2", |v: &u32| *v >= 2)?;
    let mut listed = Vec::new();
    for system in chosen {
        let at = match npus {
            None => None,
            Some(n) => {
                let net = system.network(n).map_err(Failure::input)?;
                let gbps = system.bandwidths(&net);
                let cost = system
                    .cost_model()
                    .network_cost(&net, &gbps)
                    .map_err(Failure::input)?;
                Some(Sized {
                    npus: n,
                    shape: shape_text(&net),
                    gbps_per_npu: gbps,
                    network_cost_usd: cost.total_usd(),
                })
            }
        };
        listed.push(Listed {
            accelerator_figures: accelerator(&system.accelerator),
            system,
            at,
        });
    }
    Ok(serde_json::to_string_pretty(&listed).expect("systems always serialize"))
}
