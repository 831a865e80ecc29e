//! Importers for LIBRA's own input files (astra-sim/libra `inputs/`): network YAML, cost-model YAML
//! and communicator YAML. Workload text is read by `astra_text`. Errors name the line and the field.

use super::communicator::{Communicator, CommunicatorError};
use super::cost::{CostModel, CostTier};
use super::network::{Dim, Network, Topology};
use super::workload::PhaseKind;
use super::yaml::{self, Yaml, YamlError};

/// Why a LIBRA input file cannot be imported.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LibraFileError {
    #[error(transparent)]
    Yaml(#[from] YamlError),
    #[error("missing key \"{key}\"")]
    MissingKey { key: &'static str },
    #[error("line {line}: {key} must be a list like [a, b, c]")]
    NotAList { line: usize, key: String },
    #[error("line {line}: {key} entry {index}: {message}, got \"{text}\"")]
    BadEntry {
        line: usize,
        key: String,
        index: usize,
        message: &'static str,
        text: String,
    },
    #[error("line {line}: Topology, NpusCount and CostDimension must have the same length ({topology}, {npus}, {tiers})")]
    LengthMismatch {
        line: usize,
        topology: usize,
        npus: usize,
        tiers: usize,
    },
    #[error("line {line}: {key}: {message}")]
    BadValue {
        line: usize,
        key: String,
        message: String,
    },
    #[error("line {line}: {source}")]
    Communicator {
        line: usize,
        phase: PhaseKind,
        source: CommunicatorError,
    },
}

fn root(text: &str) -> Result<Yaml, LibraFileError> {
    let doc = yaml::parse(text)?;
    match doc {
        Yaml::Map { .. } => Ok(doc),
        other => Err(LibraFileError::BadValue {
            line: other.line(),
            key: "document".into(),
            message: "the file must be a map of keys".into(),
        }),
    }
}

/// The scalar items of the list under `key`, with the list's line.
fn list<'a>(doc: &'a Yaml, key: &'static str) -> Result<(usize, Vec<&'a str>), LibraFileError> {
    let value = doc.get(key).ok_or(LibraFileError::MissingKey { key })?;
    match value {
        Yaml::Seq { line, items } => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Yaml::Scalar { text, .. } => out.push(text.as_str()),
                    other => {
                        return Err(LibraFileError::NotAList {
                            line: other.line(),
                            key: key.into(),
                        })
                    }
                }
            }
            Ok((*line, out))
        }
        other => Err(LibraFileError::NotAList {
            line: other.line(),
            key: key.into(),
        }),
    }
}

/// A network YAML: `Topology: [...]`, `NpusCount: [...]`, `CostDimension: [...]`.
pub fn network_from_yaml(text: &str) -> Result<Network, LibraFileError> {
    let doc = root(text)?;
    let (t_line, topology) = list(&doc, "Topology")?;
    let (n_line, npus) = list(&doc, "NpusCount")?;
    let (_, tiers) = list(&doc, "CostDimension")?;
    if topology.len() != npus.len() || npus.len() != tiers.len() {
        return Err(LibraFileError::LengthMismatch {
            line: t_line,
            topology: topology.len(),
            npus: npus.len(),
            tiers: tiers.len(),
        });
    }
    let mut dims = Vec::with_capacity(npus.len());
    for (i, ((t, n), tier)) in topology.iter().zip(&npus).zip(&tiers).enumerate() {
        let topology = Topology::parse(t).ok_or_else(|| LibraFileError::BadEntry {
            line: t_line,
            key: "Topology".into(),
            index: i + 1,
            message: "must be Ring, FullyConnected or Switch",
            text: t.to_string(),
        })?;
        let npus =
            n.parse::<u32>()
                .ok()
                .filter(|n| *n >= 2)
                .ok_or_else(|| LibraFileError::BadEntry {
                    line: n_line,
                    key: "NpusCount".into(),
                    index: i + 1,
                    message: "must be a whole number of at least 2",
                    text: n.to_string(),
                })?;
        dims.push(Dim {
            topology,
            npus,
            tier: tier.to_string(),
            latency_ns: 0.0,
        });
    }
    let net = Network { dims };
    net.validate().map_err(|e| LibraFileError::BadValue {
        line: n_line,
        key: "NpusCount".into(),
        message: e.to_string(),
    })?;
    Ok(net)
}

/// A cost-model YAML: one map per tier with `Link` and, for Switch dimensions, `Switch` and `Nic`
/// ($ per GB/s), and optionally our `MaxNpus` and `LatencyNs` (the tier's physical limits). Tiers
/// named as in LIBRA's files get the physical defaults of [`super::physical`] for what they omit.
pub fn cost_model_from_yaml(text: &str) -> Result<CostModel, LibraFileError> {
    let doc = root(text)?;
    let Yaml::Map { entries, .. } = &doc else {
        unreachable!("root() returns a map")
    };
    let mut tiers = Vec::with_capacity(entries.len());
    for (name, value) in entries {
        let Yaml::Map {
            line,
            entries: costs,
        } = value
        else {
            return Err(LibraFileError::BadValue {
                line: value.line(),
                key: name.clone(),
                message: "a tier must be a map of Link, Switch and Nic costs".into(),
            });
        };
        let mut tier = CostTier {
            max_gbps: None,
            oversubscription: None,
            in_network_usd: None,
            name: name.clone(),
            link: f64::NAN,
            switch: None,
            nic: None,
            max_npus: None,
            latency_ns: 0.0,
        };
        for (element, cost) in costs {
            let text = match cost {
                Yaml::Scalar { text, .. } => text.as_str(),
                _ => "",
            };
            let bad = |message: String| LibraFileError::BadValue {
                line: cost.line(),
                key: format!("{name}.{element}"),
                message,
            };
            let number = text.parse::<f64>().ok().filter(|v| v.is_finite());
            match element.as_str() {
                "MaxNpus" => {
                    tier.max_npus = Some(text.parse::<u32>().ok().filter(|v| *v >= 2).ok_or_else(
                        || bad(format!("the most NPUs per dimension must be a whole number of at least 2, got \"{text}\"")),
                    )?);
                    continue;
                }
                "LatencyNs" => {
                    tier.latency_ns = number.filter(|v| *v >= 0.0).ok_or_else(|| {
                        bad(format!(
                            "a latency must be a non-negative number of ns, got \"{text}\""
                        ))
                    })?;
                    continue;
                }
                _ => {}
            }
            let value = number.filter(|v| *v > 0.0).ok_or_else(|| {
                bad(format!(
                    "a unit cost must be a positive number of $ per GB/s, got \"{text}\""
                ))
            })?;
            match element.as_str() {
                "Link" => tier.link = value,
                "Switch" => tier.switch = Some(value),
                "Nic" => tier.nic = Some(value),
                _ => {
                    return Err(bad(
                        "unknown cost element (expected Link, Switch, Nic, MaxNpus or LatencyNs)"
                            .into(),
                    ))
                }
            }
        }
        if tier.link.is_nan() {
            return Err(LibraFileError::BadValue {
                line: *line,
                key: name.clone(),
                message: "the tier has no Link cost".into(),
            });
        }
        tiers.push(tier.with_physical_default());
    }
    Ok(CostModel { tiers })
}

/// A communicator YAML: `Forward`, `InputGrad`, `WeightGrad` group-size lists (`-1` = unused),
/// checked against `net`.
pub fn communicator_from_yaml(text: &str, net: &Network) -> Result<Communicator, LibraFileError> {
    let doc = root(text)?;
    let mut vectors: Vec<(usize, Vec<i64>)> = Vec::with_capacity(3);
    for kind in PhaseKind::ALL {
        let (line, items) = list(&doc, kind.name())?;
        let v = items
            .iter()
            .enumerate()
            .map(|(i, t)| {
                t.parse::<i64>().map_err(|_| LibraFileError::BadEntry {
                    line,
                    key: kind.name().into(),
                    index: i + 1,
                    message: "must be a whole number (-1 = dimension unused)",
                    text: t.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        vectors.push((line, v));
    }
    Communicator::from_libra(net, &vectors[0].1, &vectors[1].1, &vectors[2].1).map_err(|source| {
        let phase = match &source {
            CommunicatorError::Length { phase, .. } | CommunicatorError::BadGroup { phase, .. } => {
                *phase
            }
            _ => PhaseKind::Forward,
        };
        LibraFileError::Communicator {
            line: vectors[phase.index()].0,
            phase,
            source,
        }
    })
}

/// LIBRA's network YAML for `net` (what [`network_from_yaml`] reads back).
pub fn network_to_yaml(net: &Network) -> String {
    let join = |f: &dyn Fn(&Dim) -> String| net.dims.iter().map(f).collect::<Vec<_>>().join(", ");
    format!(
        "Topology: [ {} ]\nNpusCount: [ {} ]\nCostDimension: [ {} ]\n",
        join(&|d| d.topology.name().to_string()),
        join(&|d| d.npus.to_string()),
        join(&|d| d.tier.clone()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn libra_4d_files_import_to_the_presets() {
        let net = network_from_yaml(include_str!(
            "../../data/libra-inputs/network/4d_network.yml"
        ))
        .unwrap();
        // The YAML has no latencies; the preset gives each dimension its tier's.
        let mut preset = presets::libra_4d_network();
        preset.dims.iter_mut().for_each(|d| d.latency_ns = 0.0);
        assert_eq!(net, preset);
        let cost = cost_model_from_yaml(include_str!(
            "../../data/libra-inputs/cost_model/4d_cost_model.yml"
        ))
        .unwrap();
        assert_eq!(cost, presets::libra_4d_cost_model());
        let comm = communicator_from_yaml(
            include_str!("../../data/libra-inputs/communicator/GPT_3_4d.yml"),
            &net,
        )
        .unwrap();
        assert_eq!(comm.libra_vector(PhaseKind::WeightGrad), vec![-1, 2, 4, 32]);
        assert_eq!(network_from_yaml(&network_to_yaml(&net)).unwrap(), net);
    }

    #[test]
    fn errors_name_line_and_field() {
        let e = network_from_yaml(
            "Topology: [Ring, Torus]\nNpusCount: [4, 4]\nCostDimension: [A, B]\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1: Topology entry 2: must be Ring, FullyConnected or Switch, got \"Torus\""
        );
        let e = network_from_yaml("Topology: [Ring]\nNpusCount: [1]\nCostDimension: [A]\n")
            .unwrap_err();
        assert!(
            matches!(
                e,
                LibraFileError::BadEntry {
                    line: 2,
                    index: 1,
                    ..
                }
            ),
            "{e}"
        );
        let e = network_from_yaml("Topology: [Ring]\nCostDimension: [A]\n").unwrap_err();
        assert_eq!(e, LibraFileError::MissingKey { key: "NpusCount" });
        let e = network_from_yaml("Topology: [Ring, Ring]\nNpusCount: [4]\nCostDimension: [A]\n")
            .unwrap_err();
        assert!(matches!(e, LibraFileError::LengthMismatch { .. }));

        let e = cost_model_from_yaml("A:\n  Link: 2\n  Nic: -1\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: A.Nic: a unit cost must be a positive number of $ per GB/s, got \"-1\""
        );
        let e = cost_model_from_yaml("A:\n  Switch: 2\n").unwrap_err();
        assert!(e.to_string().contains("no Link cost"), "{e}");
        let e = cost_model_from_yaml("A:\n  Lnk: 2\n").unwrap_err();
        assert!(e.to_string().contains("unknown cost element"), "{e}");

        let net = presets::libra_4d_network();
        let e = communicator_from_yaml(
            "Forward: [4, 4, -1, -1]\nInputGrad: [4, 4, -1, -1]\nWeightGrad: [-1, 3, 4, 32]\n",
            &net,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: WeightGrad, dimension 2: group size 3 must be -1 (unused) or a divisor of 8 of at least 2"
        );
        let e = communicator_from_yaml("Forward: [x]\nInputGrad: []\nWeightGrad: []\n", &net)
            .unwrap_err();
        assert!(matches!(e, LibraFileError::BadEntry { line: 1, .. }));
    }
}
