//! Loading a scenario from the command line: `--scenario S.json`, or LIBRA's four input files.

use super::args::{ArgError, Args};
use crate::model::libra_files::{communicator_from_yaml, cost_model_from_yaml, network_from_yaml};
use crate::model::scenario::Scenario;
use crate::model::{astra_text, DimCombine, TrainingLoop};
use std::path::Path;

/// The options every scenario-reading subcommand accepts.
pub const SCENARIO_OPTIONS: [&str; 8] = [
    "scenario",
    "network",
    "cost",
    "workload",
    "communicator",
    "name",
    "training-loop",
    "combine",
];

/// Flags every scenario-reading subcommand accepts.
pub const SCENARIO_FLAGS: [&str; 1] = ["latency"];

/// A failure to build the scenario: a usage error or a file that cannot be read or parsed.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error(transparent)]
    Args(#[from] ArgError),
    #[error("{path}: {message}")]
    File { path: String, message: String },
}

pub fn read(path: &str) -> Result<String, InputError> {
    read_limited(path).map_err(|message| InputError::File {
        path: path.to_string(),
        message,
    })
}

/// A file's text, refused before reading when it is larger than
/// [`crate::limits::MAX_INPUT_BYTES`].
pub fn read_limited(path: &str) -> Result<String, String> {
    use std::io::Read;
    let limit = crate::limits::MAX_INPUT_BYTES;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut text = String::new();
    // One byte past the limit tells a file that is too large (also for pipes and special files,
    // whose size the metadata does not give).
    file.take(limit + 1)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    if text.len() as u64 > limit {
        return Err(format!(
            "the file is larger than the limit of {limit} bytes"
        ));
    }
    Ok(text)
}

fn in_file<E: std::fmt::Display>(path: &str) -> impl Fn(E) -> InputError + '_ {
    move |e| InputError::File {
        path: path.to_string(),
        message: e.to_string(),
    }
}

/// The value named `text` among `choices`, or an error listing them.
pub fn choice<T: Copy>(option: &str, text: &str, choices: &[(&str, T)]) -> Result<T, ArgError> {
    choices
        .iter()
        .find(|(name, _)| *name == text)
        .map(|(_, v)| *v)
        .ok_or_else(|| ArgError::Bad {
            option: option.into(),
            message: format!(
                "expected {}, got \"{text}\"",
                choices
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        })
}

/// The scenario the options describe, with `--training-loop`, `--combine` and `--latency` applied.
pub fn scenario(args: &Args) -> Result<Scenario, InputError> {
    let mut sc = if let Some(path) = args.one("scenario")? {
        for other in ["network", "cost", "workload", "communicator"] {
            if args.has(other) {
                return Err(ArgError::Bad {
                    option: other.into(),
                    message: "give either --scenario or LIBRA's four files, not both".into(),
                }
                .into());
            }
        }
        Scenario::from_json(&read(path)?).map_err(in_file(path))?
    } else {
        let net_path = args.required("network")?;
        let cost_path = args.required("cost")?;
        let workload_path = args.required("workload")?;
        let comm_path = args.required("communicator")?;
        let network = network_from_yaml(&read(net_path)?).map_err(in_file(net_path))?;
        let costs = cost_model_from_yaml(&read(cost_path)?).map_err(in_file(cost_path))?;
        let workload = astra_text::parse(&read(workload_path)?).map_err(in_file(workload_path))?;
        let communicator =
            communicator_from_yaml(&read(comm_path)?, &network).map_err(in_file(comm_path))?;
        let stem = |p: &str| {
            Path::new(p)
                .file_stem()
                .map_or_else(|| p.to_string(), |s| s.to_string_lossy().into_owned())
        };
        Scenario::single(
            format!("{} on {}", stem(workload_path), stem(net_path)),
            network,
            costs,
            stem(workload_path),
            workload,
            communicator,
        )
    };
    if let Some(name) = args.one("name")? {
        sc.name = name.to_string();
    }
    if let Some(l) = args.one("training-loop")? {
        sc.model.training_loop = choice(
            "training-loop",
            l,
            &[
                ("no-overlap", TrainingLoop::NoOverlap),
                ("overlap", TrainingLoop::OverlapWeightGrad),
            ],
        )?;
    }
    if let Some(c) = args.one("combine")? {
        sc.model.combine = choice(
            "combine",
            c,
            &[("max", DimCombine::Max), ("sum", DimCombine::Sum)],
        )?;
    }
    if args.flag("latency") {
        sc.model.latency = true;
    }
    Ok(sc)
}
