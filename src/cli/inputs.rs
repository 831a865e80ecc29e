//! Loading a scenario from the command line: `--scenario S.json`, or LIBRA's four input files.

use super::args::{ArgError, Args};
use crate::model::libra_files::{communicator_from_yaml, cost_model_from_yaml, network_from_yaml};
use crate::model::scenario::Scenario;
use crate::model::{astra_text, DimCombine, TrainingLoop};
use std::ffi::OsStr;
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

/// A file's text (`-`: standard input), named in errors.
pub fn read(path: &OsStr) -> Result<String, InputError> {
    read_limited(path).map_err(|message| InputError::File {
        path: shown(path),
        message,
    })
}

/// How a file is named in messages (`-` as standard input; a name that is not UTF-8 with its
/// stray bytes replaced).
pub fn shown(path: &OsStr) -> String {
    match path == "-" {
        true => "<standard input>".into(),
        false => path.to_string_lossy().into_owned(),
    }
}

thread_local! {
    /// Whether this command has read standard input already (it can be read once).
    static STDIN_READ: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Forget that standard input was read (a new command starts).
pub fn new_command() {
    STDIN_READ.with(|r| r.set(false));
}

/// A file's text (`-`: standard input), refused before reading when it is larger than
/// [`crate::limits::MAX_INPUT_BYTES`]. A byte order mark and CRLF line ends (files saved on
/// Windows) are the readers' business: every reader accepts them (`crate::text`).
pub fn read_limited(path: &OsStr) -> Result<String, String> {
    use std::io::Read;
    let limit = crate::limits::MAX_INPUT_BYTES;
    let source: Box<dyn Read> = match path == "-" {
        true => {
            if STDIN_READ.with(|r| r.replace(true)) {
                return Err("standard input was read already: only one input can be `-`".into());
            }
            Box::new(std::io::stdin())
        }
        false => Box::new(std::fs::File::open(path).map_err(|e| e.to_string())?),
    };
    let mut text = String::new();
    // One byte past the limit tells a file that is too large (also for pipes and special files,
    // whose size the metadata does not give).
    source
        .take(limit + 1)
        .read_to_string(&mut text)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => "the file is not UTF-8 text".to_string(),
            _ => e.to_string(),
        })?;
    if text.len() as u64 > limit {
        return Err(format!(
            "the file is larger than the limit of {limit} bytes"
        ));
    }
    Ok(text)
}

fn in_file<E: std::fmt::Display>(path: &OsStr) -> impl Fn(E) -> InputError + '_ {
    move |e| InputError::File {
        path: shown(path),
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
    let mut sc = if let Some(path) = args.path("scenario")? {
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
        let net_path = args.required_path("network")?;
        let cost_path = args.required_path("cost")?;
        let workload_path = args.required_path("workload")?;
        let comm_path = args.required_path("communicator")?;
        let network = network_from_yaml(&read(net_path)?).map_err(in_file(net_path))?;
        let costs = cost_model_from_yaml(&read(cost_path)?).map_err(in_file(cost_path))?;
        let workload = astra_text::parse(&read(workload_path)?).map_err(in_file(workload_path))?;
        let communicator =
            communicator_from_yaml(&read(comm_path)?, &network).map_err(in_file(comm_path))?;
        let stem = |p: &OsStr| match p == "-" {
            true => "stdin".to_string(),
            false => Path::new(p)
                .file_stem()
                .map_or_else(|| shown(p), |s| s.to_string_lossy().into_owned()),
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
