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
use crate::predict::models::ModelPreset;

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

/// The transformer builder's fields as typed: (label, text), in the order of [`TRANSFORMER_FIELDS`],
/// on the architecture of `base` (grouped-query or latent attention, the MLP kind, the experts:
/// what a preset brings and the fields do not show).
#[derive(Clone, Debug, PartialEq)]
pub struct TransformerForm {
    pub name: String,
    pub values: Vec<String>,
    pub dp_collective: DpCollective,
    /// The preset the architecture comes from (None: GPT-3's, as the builder's default).
    pub preset: Option<ModelPreset>,
    base: Transformer,
}

/// The builder's fields: label with unit and valid range, as the form shows them.
pub const TRANSFORMER_FIELDS: [&str; 19] = [
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
    "key-value heads (blank: as many as heads; a multiple of TP)",
    "CP (dividing the sequence)",
    "EP (dividing the experts and TP × CP × DP)",
    "virtual stages (model chunks per PP stage)",
];

/// The fields a preset sets (the model's), by index in [`TRANSFORMER_FIELDS`]: layers, hidden,
/// FFN, heads, sequence, global batch, vocabulary, key-value heads.
const MODEL_FIELDS: [usize; 8] = [0, 1, 2, 3, 4, 6, 14, 15];

/// The HBM the builder starts with, GB per NPU (an 80 GB accelerator).
pub const DEFAULT_HBM_GB: f64 = 80.0;

impl TransformerForm {
    /// The form of `t`, with GPT-3's vocabulary.
    pub fn of(t: &Transformer) -> TransformerForm {
        Self::with_vocab(t, GPT3_VOCAB)
    }

    fn with_vocab(t: &Transformer, vocab: u64) -> TransformerForm {
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
            .chain([DEFAULT_HBM_GB.to_string(), vocab.to_string()])
            .chain([t.kv_heads.map_or(String::new(), |k| k.to_string())])
            .chain([t.cp, t.ep, t.virtual_stages].iter().map(u32::to_string))
            .collect(),
            dp_collective: t.dp_collective,
            preset: None,
            base: t.clone(),
        }
    }

    /// The form with `preset`'s model: its name, architecture and model fields (layers to
    /// vocabulary and key-value heads); how it is trained (micro-batch, TP, CP, PP, DP, EP, the
    /// accelerator's numbers, HBM) stays as typed. EP returns to 1 on a model without experts.
    pub fn with_preset(&self, preset: ModelPreset) -> TransformerForm {
        let t = preset.transformer();
        let fresh = Self::with_vocab(&t, preset.vocab());
        let mut values = self.values.clone();
        for i in MODEL_FIELDS {
            values[i] = fresh.values[i].clone();
        }
        if t.moe.is_none() {
            values[17] = "1".into();
        }
        TransformerForm {
            name: t.name.clone(),
            values,
            dp_collective: self.dp_collective,
            preset: Some(preset),
            base: t,
        }
    }

    /// What the fields do not show of the architecture: "SwiGLU MLP; 8 experts, 2 per token"
    /// (empty for GPT-3's).
    pub fn architecture_note(&self) -> String {
        let b = &self.base;
        let mut parts = Vec::new();
        if b.mlp == crate::model::mlp::Mlp::Swiglu {
            parts.push("SwiGLU MLP (3 matrices)".to_string());
        }
        if b.mla.is_some() {
            parts.push("multi-head latent attention".to_string());
        }
        if let Some(m) = &b.moe {
            let shared = match m.shared_experts {
                0 => String::new(),
                s => format!(" and {s} shared"),
            };
            parts.push(format!(
                "{} routed experts{shared}, {} per token, FFN {} each",
                m.experts, m.top_k, m.expert_ffn
            ));
        }
        parts.join("; ")
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
        let heads = whole(3)?;
        let kv = match self.values.get(15).map_or("", |s| s.trim()) {
            "" => heads,
            _ => whole(15)?,
        };
        Ok(Transformer {
            name: self.name.trim().to_string(),
            layers: whole(0)?,
            hidden: whole(1)?,
            ffn: whole(2)?,
            heads,
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
            kv_heads: (kv != heads).then_some(kv),
            cp: whole(16)?,
            ep: whole(17)?,
            virtual_stages: whole(18)?,
            order: self.base.order,
            mlp: self.base.mlp,
            mla: self.base.mla.clone(),
            moe: self.base.moe.clone(),
            dtype: self.base.dtype,
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
    fn a_preset_brings_its_model_and_keeps_how_it_is_trained() {
        // Mixtral 8x7B on LIBRA's 4D network (4,096 NPUs), trained as typed: TP 8, PP 4,
        // DP 128, EP 8 carved from each stage's ranks.
        let mut f = TransformerForm::of(&Transformer::gpt3());
        for (i, v) in [(10, "8"), (11, "4"), (12, "128"), (5, "2")] {
            f.values[i] = v.into();
        }
        let f = f.with_preset(ModelPreset::Mixtral8x7b);
        assert_eq!(f.preset, Some(ModelPreset::Mixtral8x7b));
        assert_eq!(f.name, "Mixtral 8x7B");
        // Model fields from the preset: 32 layers, h 4,096, FFN 14,336, 32 heads, 8 kv heads,
        // vocabulary 32,000; the parallelism and micro-batch as typed.
        for (i, v) in [
            (0, "32"),
            (1, "4096"),
            (2, "14336"),
            (3, "32"),
            (15, "8"),
            (14, "32000"),
            (5, "2"),
            (10, "8"),
            (11, "4"),
            (12, "128"),
        ] {
            assert_eq!(f.values[i], v, "{}", TRANSFORMER_FIELDS[i]);
        }
        assert_eq!(
            f.architecture_note(),
            "SwiGLU MLP (3 matrices); 8 routed experts, 2 per token, FFN 14336 each"
        );
        let mut f = f;
        f.values[17] = "8".into();
        let t = f.read().unwrap();
        let want = Transformer {
            parallelism: Parallelism {
                tp: 8,
                pp: 4,
                dp: 128,
            },
            micro_batch: 2,
            ep: 8,
            ..ModelPreset::Mixtral8x7b.transformer()
        };
        assert_eq!(t, want);
        let net = presets::libra_4d_network();
        let (spec, _) = f.build(&net).unwrap();
        assert_eq!(spec, want.build(&net).unwrap());
        assert!(spec
            .workload
            .layers
            .iter()
            .any(|l| l.name.starts_with("moe")));
        // Experts not divisible by EP, and CP not dividing the sequence, are refused by rule.
        f.values[17] = "3".into();
        let e = f.build(&net).unwrap_err().to_string();
        assert!(e.contains("EP"), "{e}");
        f.values[17] = "8".into();
        f.values[16] = "3".into();
        let e = f.build(&net).unwrap_err().to_string();
        assert!(e.contains("CP (3) must divide the sequence (4096)"), "{e}");
        // Back to a dense model: EP returns to 1, the architecture note empties.
        let g = f.with_preset(ModelPreset::Gpt3);
        assert_eq!(g.values[17], "1");
        assert_eq!(g.architecture_note(), "");
        assert_eq!(g.read().unwrap().moe, None);
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
