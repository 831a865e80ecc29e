//! Workloads: layers with forward, input-gradient and weight-gradient phases (ASTRA-sim 1.0 / LIBRA).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The collective a phase ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Collective {
    None,
    AllReduce,
    ReduceScatter,
    AllGather,
    AllToAll,
    /// Point-to-point: each NPU sends the whole size to its neighbour in the next pipeline stage
    /// (the communicator's `pipeline` groups). Ours; LIBRA has no point-to-point collective.
    SendRecv,
}

impl Collective {
    pub const ALL: [Collective; 6] = [
        Collective::None,
        Collective::AllReduce,
        Collective::ReduceScatter,
        Collective::AllGather,
        Collective::AllToAll,
        Collective::SendRecv,
    ];

    /// The spelling of the ASTRA-sim 1.0 text format.
    pub fn text_name(self) -> &'static str {
        match self {
            Collective::None => "NONE",
            Collective::AllReduce => "ALLREDUCE",
            Collective::ReduceScatter => "REDUCESCATTER",
            Collective::AllGather => "ALLGATHER",
            Collective::AllToAll => "ALLTOALL",
            Collective::SendRecv => "SENDRECV",
        }
    }

    /// Parse as LIBRA does: case-insensitive, no hyphens (`NONE`, `ALLREDUCE`, ...).
    pub fn parse(text: &str) -> Option<Collective> {
        let text = text.trim();
        Collective::ALL
            .into_iter()
            .find(|c| c.text_name().eq_ignore_ascii_case(text))
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Collective::None => "None",
            Collective::AllReduce => "AllReduce",
            Collective::ReduceScatter => "ReduceScatter",
            Collective::AllGather => "AllGather",
            Collective::AllToAll => "AllToAll",
            Collective::SendRecv => "SendRecv",
        })
    }
}

/// The three phases of a layer; each has its own communicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PhaseKind {
    Forward,
    InputGrad,
    WeightGrad,
}

impl PhaseKind {
    pub const ALL: [PhaseKind; 3] = [
        PhaseKind::Forward,
        PhaseKind::InputGrad,
        PhaseKind::WeightGrad,
    ];

    /// The key of LIBRA's communicator YAML.
    pub fn name(self) -> &'static str {
        match self {
            PhaseKind::Forward => "Forward",
            PhaseKind::InputGrad => "InputGrad",
            PhaseKind::WeightGrad => "WeightGrad",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for PhaseKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One phase: compute, then a collective of `size_bytes` (ignored when the collective is None),
/// issued as `count` collectives of `size_bytes / count` each (one per micro-batch, say): the bytes
/// are the same, the latency term is paid `count` times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    pub compute_ns: f64,
    pub collective: Collective,
    pub size_bytes: f64,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
    /// Which groups the collective runs over (LIBRA's files: always the phase kind's).
    #[serde(default, skip_serializing_if = "Over::is_phase")]
    pub over: Over,
}

/// The groups a phase's collective runs over: the phase kind's (LIBRA's communicator: TP's in
/// the forward and input-gradient passes, DP's for the weight gradients; a SendRecv the
/// pipeline's), or those of a parallelism LIBRA's three communicators cannot name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Over {
    #[default]
    Phase,
    /// Expert parallelism's groups: a MoE layer's dispatch and combine all-to-alls.
    Expert,
    /// The ranks that hold the same experts: their weight gradients' reduction.
    ExpertData,
    /// Context parallelism's groups: the keys and values passed around the CP ring.
    Context,
}

/// Which parallelism a collective's traffic belongs to: what a teacher points at when a
/// dimension's bandwidth is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Traffic {
    /// Tensor parallelism (LIBRA's forward and input-gradient communicators).
    Tp,
    /// Context parallelism's keys and values.
    Cp,
    /// Expert parallelism's dispatch and combine all-to-alls.
    Ep,
    /// Pipeline sends between stages.
    Pp,
    /// Data parallelism's gradients (and ZeRO's gathers; experts' gradients too).
    Dp,
}

impl Traffic {
    pub const ALL: [Traffic; 5] = [
        Traffic::Tp,
        Traffic::Cp,
        Traffic::Ep,
        Traffic::Pp,
        Traffic::Dp,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Traffic::Tp => "TP",
            Traffic::Cp => "CP",
            Traffic::Ep => "EP all-to-all",
            Traffic::Pp => "PP sends",
            Traffic::Dp => "DP gradients",
        }
    }

    /// The traffic of a phase of kind `kind`.
    pub fn of(kind: PhaseKind, phase: &Phase) -> Traffic {
        match (phase.over, phase.collective, kind) {
            (Over::Expert, _, _) => Traffic::Ep,
            (Over::Context, _, _) => Traffic::Cp,
            (Over::ExpertData, _, _) => Traffic::Dp,
            (Over::Phase, Collective::SendRecv, _) => Traffic::Pp,
            (Over::Phase, _, PhaseKind::WeightGrad) => Traffic::Dp,
            (Over::Phase, _, _) => Traffic::Tp,
        }
    }
}

impl Over {
    pub fn is_phase(&self) -> bool {
        *self == Over::Phase
    }

    pub fn name(self) -> &'static str {
        match self {
            Over::Phase => "phase",
            Over::Expert => "expert",
            Over::ExpertData => "expert-data",
            Over::Context => "context",
        }
    }
}

fn one() -> u32 {
    1
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

impl Phase {
    /// One collective of `size_bytes` after `compute_ns`.
    pub fn new(compute_ns: f64, collective: Collective, size_bytes: f64) -> Phase {
        Phase {
            compute_ns,
            collective,
            size_bytes,
            count: 1,
            over: Over::Phase,
        }
    }

    /// The same phase over `over`'s groups.
    pub fn over(self, over: Over) -> Phase {
        Phase { over, ..self }
    }
}

/// One layer of a workload.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub name: String,
    /// ASTRA-sim's second field (`-1` in LIBRA's files); kept for round trips, unused by the model.
    pub reserved: i64,
    pub forward: Phase,
    pub input_grad: Phase,
    pub weight_grad: Phase,
    /// ASTRA-sim's last field, the weight-update time in ns; LIBRA's model ignores it, and so does ours.
    pub update_ns: f64,
}

impl Layer {
    pub fn phase(&self, kind: PhaseKind) -> &Phase {
        match kind {
            PhaseKind::Forward => &self.forward,
            PhaseKind::InputGrad => &self.input_grad,
            PhaseKind::WeightGrad => &self.weight_grad,
        }
    }

    pub fn phase_mut(&mut self, kind: PhaseKind) -> &mut Phase {
        match kind {
            PhaseKind::Forward => &mut self.forward,
            PhaseKind::InputGrad => &mut self.input_grad,
            PhaseKind::WeightGrad => &mut self.weight_grad,
        }
    }
}

/// A training workload: the layers of one iteration. In JSON, consecutive layers that differ only
/// by a name counting up (`layer1`, `layer2`, ...) are written once with `"repeat": k`
/// ([`super::layer_runs`]), so a 10,000-layer transformer is a few hundred bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    try_from = "super::layer_runs::WireWorkload",
    into = "super::layer_runs::WireWorkload"
)]
pub struct Workload {
    /// The parallelism line of an ASTRA-sim 1.0 file (e.g. `DATA`), if the file had a header.
    pub parallelism: Option<String>,
    pub layers: Vec<Layer>,
}

/// Why a workload is not usable (outside of text parsing, see `astra_text`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WorkloadError {
    #[error("the workload has no layers")]
    NoLayers,
    #[error(
        "layer {layer} (\"{name}\"): {field} must be a non-negative finite number, got {value}"
    )]
    BadValue {
        layer: usize,
        name: String,
        field: String,
        value: f64,
    },
    #[error("layer {layer} (\"{name}\"): {phase} collective count must be at least 1")]
    ZeroCount {
        layer: usize,
        name: String,
        phase: PhaseKind,
    },
    #[error("layer {layer}: the name must be non-empty and without spaces, got \"{name}\"")]
    BadName { layer: usize, name: String },
}

impl Workload {
    /// Total compute time of one iteration, ns (every phase of every layer).
    pub fn compute_ns(&self) -> f64 {
        self.layers
            .iter()
            .flat_map(|l| PhaseKind::ALL.map(|k| l.phase(k).compute_ns))
            .sum()
    }

    /// Check names and numbers; layers are numbered from 1.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        if self.layers.is_empty() {
            return Err(WorkloadError::NoLayers);
        }
        for (i, l) in self.layers.iter().enumerate() {
            if l.name.is_empty() || l.name.chars().any(char::is_whitespace) {
                return Err(WorkloadError::BadName {
                    layer: i + 1,
                    name: l.name.clone(),
                });
            }
            let bad = |v: f64| !(v.is_finite() && v >= 0.0);
            let mut field = bad(l.update_ns).then(|| ("update time".to_string(), l.update_ns));
            for k in PhaseKind::ALL {
                let p = l.phase(k);
                if field.is_none() && bad(p.compute_ns) {
                    field = Some((format!("{k} compute time"), p.compute_ns));
                }
                if field.is_none() && bad(p.size_bytes) {
                    field = Some((format!("{k} collective size"), p.size_bytes));
                }
                if p.count == 0 {
                    return Err(WorkloadError::ZeroCount {
                        layer: i + 1,
                        name: l.name.clone(),
                        phase: k,
                    });
                }
            }
            if let Some((field, value)) = field {
                return Err(WorkloadError::BadValue {
                    layer: i + 1,
                    name: l.name.clone(),
                    field,
                    value,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collective_names_parse_case_insensitively() {
        for c in Collective::ALL {
            assert_eq!(Collective::parse(c.text_name()), Some(c));
            assert_eq!(Collective::parse(&c.text_name().to_lowercase()), Some(c));
        }
        assert_eq!(Collective::parse("All-Reduce"), None);
    }

    fn phase(compute_ns: f64) -> Phase {
        Phase::new(compute_ns, Collective::None, 0.0)
    }

    #[test]
    fn validation_names_layer_and_field() {
        let mut w = Workload {
            parallelism: None,
            layers: vec![Layer {
                name: "a".into(),
                reserved: -1,
                forward: phase(1.0),
                input_grad: phase(2.0),
                weight_grad: phase(3.0),
                update_ns: 0.0,
            }],
        };
        assert_eq!(w.validate(), Ok(()));
        assert_eq!(w.compute_ns(), 6.0);
        w.layers[0].weight_grad.size_bytes = f64::NAN;
        assert!(w
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("layer 1 (\"a\"): WeightGrad collective size must be"));
        w.layers[0].weight_grad.size_bytes = 0.0;
        w.layers[0].name = "a b".into();
        assert_eq!(
            w.validate(),
            Err(WorkloadError::BadName {
                layer: 1,
                name: "a b".into()
            })
        );
        assert_eq!(
            Workload {
                parallelism: None,
                layers: vec![]
            }
            .validate(),
            Err(WorkloadError::NoLayers)
        );
    }
}
