//! Where a custom workload comes from, as the form holds it: a transformer described field by field
//! (built by `model::builder`), or an imported ASTRA-sim text file with its parallelism (TP/PP/DP
//! degrees laid onto the network) or LIBRA's communicator YAML. Reading either gives a
//! [`WorkloadSpec`] or a message naming the field.

use crate::model::astra_text;
use crate::model::builder::{DpCollective, Transformer};
use crate::model::communicator::{Communicator, Parallelism};
use crate::model::libra_files::communicator_from_yaml;
use crate::model::memory::{memory_per_npu, MemoryOptions, MemoryPerNpu, GPT3_VOCAB};
use crate::model::network::Network;
use crate::model::scenario::WorkloadSpec;

/// Why a workload from the builder or an import cannot be added; each names the field or the input.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WorkloadSourceError {
    /// A field whose text does not read: its label, what it expects, what it holds.
    #[error("{field}: expected {expected}, got \"{got}\"")]
    Field {
        field: &'static str,
        expected: &'static str,
        got: String,
    },
    #[error("TP {tp} x PP {pp} x DP {dp} does not fit: it {why}")]
    DoesNotFit {
        tp: u32,
        pp: u32,
        dp: u32,
        why: crate::model::memory::DoesNotFit,
    },
    #[error(transparent)]
    Build(#[from] crate::model::builder::BuildError),
    #[error("workload text: {0}")]
    WorkloadText(#[from] astra_text::TextError),
    #[error("communicator YAML: {0}")]
    CommunicatorYaml(#[from] crate::model::libra_files::LibraFileError),
    #[error(transparent)]
    Mapping(#[from] crate::model::communicator::CommunicatorError),
}

/// A field's text that does not read as `expected`.
fn bad_field(field: &'static str, expected: &'static str, got: &str) -> WorkloadSourceError {
    WorkloadSourceError::Field {
        field,
        expected,
        got: got.to_string(),
    }
}

/// The transformer builder's fields as typed: (label, text), in the order of [`TRANSFORMER_FIELDS`].
#[derive(Clone, Debug, PartialEq)]
pub struct TransformerForm {
    pub name: String,
    pub values: Vec<String>,
    pub dp_collective: DpCollective,
}

/// The builder's fields: label with unit and valid range, as the form shows them.
pub const TRANSFORMER_FIELDS: [&str; 15] = [
    "layers (≥ PP, a layer on the last stage)",
    "hidden size h",
    "FFN size",
    "attention heads (a multiple of TP)",
    "sequence length",
    "micro-batch",
    "global batch (a multiple of micro-batch × DP)",
    "bytes per element",
    "peak TFLOP/s per NPU",
    "efficiency (0 to 1]",
    "TP",
    "PP",
    "DP",
    "HBM per NPU, GB (the design must fit)",
    "vocabulary (the first stage's embedding)",
];

/// The HBM the builder starts with, GB per NPU (an 80 GB accelerator).
pub const DEFAULT_HBM_GB: f64 = 80.0;

impl TransformerForm {
    pub fn of(t: &Transformer) -> TransformerForm {
        let p = t.parallelism;
        TransformerForm {
            name: t.name.clone(),
            values: [
                t.layers,
                t.hidden,
                t.ffn,
                t.heads,
                t.seq_len,
                t.micro_batch,
                t.global_batch,
                t.bytes_per_element,
            ]
            .iter()
            .map(u32::to_string)
            .chain([t.peak_tflops.to_string(), t.efficiency.to_string()])
            .chain([p.tp, p.pp, p.dp].iter().map(u32::to_string))
            .chain([DEFAULT_HBM_GB.to_string(), GPT3_VOCAB.to_string()])
            .collect(),
            dp_collective: t.dp_collective,
        }
    }

    /// The transformer, or the first field that does not read (its label and the problem).
    pub fn read(&self) -> Result<Transformer, WorkloadSourceError> {
        let whole = |i: usize| -> Result<u32, WorkloadSourceError> {
            let t = self.values.get(i).map_or("", |s| s.trim());
            t.parse::<u32>()
                .ok()
                .filter(|v| *v >= 1)
                .ok_or_else(|| bad_field(TRANSFORMER_FIELDS[i], "a whole number ≥ 1", t))
        };
        let real = |i: usize| -> Result<f64, WorkloadSourceError> {
            let t = self.values.get(i).map_or("", |s| s.trim());
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| bad_field(TRANSFORMER_FIELDS[i], "a positive number", t))
        };
        Ok(Transformer {
            name: self.name.trim().to_string(),
            layers: whole(0)?,
            hidden: whole(1)?,
            ffn: whole(2)?,
            heads: whole(3)?,
            seq_len: whole(4)?,
            micro_batch: whole(5)?,
            global_batch: whole(6)?,
            bytes_per_element: whole(7)?,
            peak_tflops: real(8)?,
            efficiency: real(9)?,
            parallelism: Parallelism {
                tp: whole(10)?,
                pp: whole(11)?,
                dp: whole(12)?,
            },
            dp_collective: self.dp_collective,
            ..Transformer::gpt3()
        })
    }

    /// The HBM per NPU (GB) and the memory options typed.
    pub fn memory(&self) -> Result<(f64, MemoryOptions), WorkloadSourceError> {
        let text = |i: usize| self.values.get(i).map_or("", |s| s.trim());
        let hbm = text(13)
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| bad_field(TRANSFORMER_FIELDS[13], "a positive number", text(13)))?;
        let vocab = text(14)
            .parse::<u64>()
            .map_err(|_| bad_field(TRANSFORMER_FIELDS[14], "a whole number", text(14)))?;
        Ok((
            hbm,
            MemoryOptions {
                vocab,
                ..MemoryOptions::default()
            },
        ))
    }

    /// The workload this transformer gives on `net`, with the memory one NPU needs, or why it
    /// cannot be built (a design that does not fit its HBM says by how much).
    pub fn build(
        &self,
        net: &Network,
    ) -> Result<(WorkloadSpec, MemoryPerNpu), WorkloadSourceError> {
        let t = self.read()?;
        let (hbm, opts) = self.memory()?;
        let memory = memory_per_npu(&t, &opts);
        memory
            .fits(hbm)
            .map_err(|why| WorkloadSourceError::DoesNotFit {
                tp: t.parallelism.tp,
                pp: t.parallelism.pp,
                dp: t.parallelism.dp,
                why,
            })?;
        let mut spec = t.build(net)?;
        if !t.name.is_empty() {
            spec.name = t.name;
        }
        Ok((spec, memory))
    }
}

/// How an imported workload's groups are given.
#[derive(Clone, Debug, PartialEq)]
pub enum GroupsSource {
    /// TP, PP and DP degrees as typed: Forward and InputGrad over TP, WeightGrad over DP.
    Degrees { tp: String, pp: String, dp: String },
    /// LIBRA's communicator YAML (Forward, InputGrad, WeightGrad vectors, -1 unused).
    LibraYaml(String),
}

/// An ASTRA-sim 1.0 workload text (LIBRA's format), named `name`, with its groups on `net`.
pub fn import_workload(
    name: &str,
    text: &str,
    groups: &GroupsSource,
    net: &Network,
) -> Result<WorkloadSpec, WorkloadSourceError> {
    let workload = astra_text::parse(text)?;
    let communicator = match groups {
        GroupsSource::LibraYaml(yaml) => communicator_from_yaml(yaml, net)?,
        GroupsSource::Degrees { tp, pp, dp } => {
            let degree = |label: &'static str, t: &str| {
                t.trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|v| *v >= 1)
                    .ok_or_else(|| bad_field(label, "a whole number ≥ 1", t.trim()))
            };
            let p = Parallelism {
                tp: degree("TP", tp)?,
                pp: degree("PP", pp)?,
                dp: degree("DP", dp)?,
            };
            let m = p.map_onto(net)?;
            Communicator {
                forward: m.tp.clone(),
                input_grad: m.tp,
                weight_grad: m.dp,
                pipeline: if p.pp > 1 { m.pp } else { Vec::new() },
                ..Default::default()
            }
        }
    };
    let name = name.trim();
    Ok(WorkloadSpec {
        name: if name.is_empty() {
            "imported".into()
        } else {
            name.into()
        },
        weight: 1.0,
        workload,
        communicator,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::{self, LibraNetwork, LibraWorkload};

    #[test]
    fn the_transformer_form_reads_back_and_builds_gpt3() {
        let t = Transformer::gpt3();
        let f = TransformerForm::of(&t);
        assert_eq!(f.read(), Ok(t.clone()));
        let net = presets::libra_4d_network();
        let (spec, memory) = f.build(&net).unwrap();
        // TP 16 x DP 256 of GPT-3 at micro-batch 1, by hand: 10,910,233,344 parameters per NPU
        // (12 h^2 96 / 16 + 50,257 h / 16), 4 bytes each of weight and gradient, 12 / 256 of
        // optimizer state, and 34 s h / 16 bytes of activations for each of 96 layers, one
        // micro-batch in flight: 43,640,933,376 + 511,417,188 + 5,133,828,096 B.
        assert_eq!(memory.total_bytes, 49_286_178_660.0);
        let mut small = f.clone();
        small.values[13] = "40".into();
        assert_eq!(
            small.build(&net).unwrap_err().to_string(),
            format!(
                "TP 16 x PP 1 x DP 256 does not fit: it {}",
                memory.fits(40.0).unwrap_err()
            )
        );
        assert!(small
            .build(&net)
            .unwrap_err()
            .to_string()
            .contains("GB more than the 40 GB of HBM"));
        small.values[13] = "-1".into();
        assert!(small
            .build(&net)
            .unwrap_err()
            .to_string()
            .starts_with("HBM per NPU, GB"));
        assert_eq!(spec, {
            let mut s = t.build(&net).unwrap();
            s.name = "GPT-3 175B".into();
            s
        });
        let mut bad = f.clone();
        bad.values[3] = "x".into();
        assert_eq!(
            bad.read().unwrap_err().to_string(),
            "attention heads (a multiple of TP): expected a whole number ≥ 1, got \"x\""
        );
        bad.values[3] = "95".into();
        assert!(bad
            .build(&net)
            .unwrap_err()
            .to_string()
            .contains("multiple of TP"));
    }

    #[test]
    fn an_imported_libra_file_equals_the_preset() {
        let net = LibraNetwork::D4.network();
        let want = LibraWorkload::Gpt3.spec(LibraNetwork::D4);
        let text = include_str!("../../data/libra-inputs/workload/GPT_3.txt");
        let yaml = include_str!("../../data/libra-inputs/communicator/GPT_3_4d.yml");
        let got =
            import_workload("GPT_3", text, &GroupsSource::LibraYaml(yaml.into()), &net).unwrap();
        assert_eq!(got, want);
        // By degrees: TP 16 (dims 1-2), DP 256 (the rest) is LIBRA's GPT-3 layout.
        let degrees = GroupsSource::Degrees {
            tp: "16".into(),
            pp: "1".into(),
            dp: "256".into(),
        };
        let got = import_workload("GPT_3", text, &degrees, &net).unwrap();
        assert_eq!(got.communicator, want.communicator);
        // Errors name what is wrong.
        let e = import_workload("x", "garbage", &degrees, &net)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("workload text:"), "{e}");
        let odd = GroupsSource::Degrees {
            tp: "3".into(),
            pp: "1".into(),
            dp: "256".into(),
        };
        assert!(import_workload("x", text, &odd, &net)
            .unwrap_err()
            .to_string()
            .contains("NPUs"));
    }
}
