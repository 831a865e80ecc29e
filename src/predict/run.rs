//! A training run of a GPT-style transformer as Megatron lays it out: TP innermost, then DP, then
//! PP (pipeline neighbours are TP x DP ranks apart), and the rules that make it fit a system.

use super::system::System;
pub use crate::model::dtype::Dtype;
pub use crate::model::mla::Mla;
pub use crate::model::mlp::Mlp;
use crate::model::moe::{Moe, MoeError};
use serde::{Deserialize, Serialize};

/// What is recomputed in the backward pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recompute {
    /// Nothing: every activation is kept.
    None,
    /// The attention core (scores, softmax, dropout, context), as Korthikanti et al. 2022.
    Selective,
    /// The whole forward pass of every layer (checkpointing each layer's input).
    #[default]
    Full,
}

impl Recompute {
    pub fn parse(text: &str) -> Option<Recompute> {
        match text.trim() {
            "none" => Some(Recompute::None),
            "selective" => Some(Recompute::Selective),
            "full" => Some(Recompute::Full),
            _ => None,
        }
    }
}

/// A transformer and how it is trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingRun {
    pub layers: u32,
    pub hidden: u32,
    /// The MLP's inner size (None: 4 x hidden, GPT's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ffn: Option<u32>,
    pub heads: u32,
    /// Key-value heads (grouped-query attention; None: as many as the heads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_heads: Option<u32>,
    #[serde(default)]
    pub mlp: Mlp,
    pub seq_len: u32,
    /// Vocabulary; padded, as Megatron does, to a multiple of 128 x TP.
    pub vocab: u32,
    pub global_batch: u32,
    pub micro_batch: u32,
    pub tp: u32,
    /// Context parallelism: the sequence split over `cp` ranks (ring attention).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cp: u32,
    pub pp: u32,
    /// Expert parallelism: the experts of a MoE layer split over `ep` ranks, folded into the
    /// stage's TP x CP x DP ranks ([`Moe`]).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub ep: u32,
    pub dp: u32,
    #[serde(default)]
    pub recompute: Recompute,
    /// Model chunks per pipeline stage (interleaved 1F1B when more than 1).
    #[serde(default = "one")]
    pub virtual_stages: u32,
    /// The DP gradient reduction overlapped with the backward pass.
    #[serde(default)]
    pub overlap_dp: bool,
    /// EP's all-to-alls run while another micro-batch computes (DeepSeek's DualPipe,
    /// Megatron-Core's overlapped 1F1B): only what outlasts a MoE layer's compute shows.
    #[serde(default, skip_serializing_if = "is_false")]
    pub overlap_ep: bool,
    /// A fused attention core (FlashAttention): no `s x s` scores written or kept.
    #[serde(default, skip_serializing_if = "is_false")]
    pub flash_attention: bool,
    /// Sequence parallelism with TP (Korthikanti et al. 2022): the layer norms and dropouts on
    /// a `1 / t` slice of the sequence, their activations sharded.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sequence_parallel: bool,
    /// ZeRO stage 0-3 (Rajbhandari et al. 2020): the Adam states (1), the gradients (2) and
    /// the weights (3) sharded over DP.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub zero: u8,
    #[serde(default)]
    pub dtype: Dtype,
    /// A mixture of experts (None: every MLP dense).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moe: Option<Moe>,
    /// Multi-head latent attention (None: multi-head or grouped-query).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mla: Option<Mla>,
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

fn is_zero(v: &u8) -> bool {
    *v == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn one() -> u32 {
    1
}

/// GPT-2's vocabulary (the measured Megatron runs' tokenizer).
pub const GPT2_VOCAB: u32 = 50_257;

/// Why a run cannot be laid on a system; each names the rule.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RunError {
    #[error("{field} must be at least 1")]
    Zero { field: &'static str },
    #[error("TP x CP x PP x DP = {tp} x {cp} x {pp} x {dp} = {product}, not the {npus} NPUs")]
    Product {
        tp: u32,
        cp: u32,
        pp: u32,
        dp: u32,
        product: u64,
        npus: u32,
    },
    #[error("CP {cp} does not divide the sequence of {seq_len}")]
    Cp { cp: u32, seq_len: u32 },
    #[error(transparent)]
    Moe(#[from] MoeError),
    #[error("{accelerator} has no FP8 tensor cores (dtype fp8)")]
    Fp8 { accelerator: String },
    #[error("multi-head latent attention has no key-value heads (kv_heads must be unset)")]
    MlaKv,
    #[error("{npus} NPUs are not a whole number of {system}'s scale-up domains of {domain}")]
    Domain {
        npus: u32,
        system: String,
        domain: u32,
    },
    #[error("TP {tp} must divide the scale-up domain of {domain} or be a multiple of it")]
    TpDomain { tp: u32, domain: u32 },
    #[error("the {heads} attention heads are not divisible by TP {tp}")]
    Heads { heads: u32, tp: u32 },
    #[error("the hidden size {hidden} is not divisible by the {heads} heads")]
    HiddenHeads { hidden: u32, heads: u32 },
    #[error("the {layers} layers are fewer than the PP {pp} stages")]
    Layers { layers: u32, pp: u32 },
    #[error("the {heads} attention heads are not divisible by the {kv} key-value heads")]
    KvHeads { heads: u32, kv: u32 },
    #[error("the {kv} key-value heads are not divisible by TP {tp}")]
    KvTp { kv: u32, tp: u32 },
    #[error("interleaving {v} chunks per stage needs PP > 1, at least a layer per chunk (the {layers} layers at least PP x {v}) and the {m} micro-batches divisible by PP {pp}")]
    Interleave {
        v: u32,
        layers: u32,
        m: u32,
        pp: u32,
    },
    #[error("ZeRO stage {0} does not exist (0, 1, 2 or 3)")]
    ZeroStage(u8),
    #[error("the global batch {global} is not a multiple of micro-batch x DP = {micro} x {dp}")]
    Batch { global: u32, micro: u32, dp: u32 },
}

impl TrainingRun {
    /// A GPT (GeLU MLP of 4 h, multi-head attention) of these sizes on one GPU: micro-batch 1,
    /// full recomputation, nothing else on; the other fields are set with `..` on top.
    pub fn gpt(
        layers: u32,
        hidden: u32,
        heads: u32,
        seq_len: u32,
        vocab: u32,
        global_batch: u32,
    ) -> TrainingRun {
        TrainingRun {
            layers,
            hidden,
            ffn: None,
            heads,
            kv_heads: None,
            mlp: Mlp::Gelu,
            seq_len,
            vocab,
            global_batch,
            micro_batch: 1,
            tp: 1,
            cp: 1,
            pp: 1,
            ep: 1,
            dp: 1,
            recompute: Recompute::Full,
            virtual_stages: 1,
            overlap_dp: false,
            overlap_ep: false,
            flash_attention: false,
            sequence_parallel: false,
            zero: 0,
            dtype: Dtype::Bf16,
            moe: None,
            mla: None,
        }
    }

    /// NPUs the run uses (saturated at u64::MAX).
    pub fn npus(&self) -> u64 {
        self.fold().saturating_mul(u64::from(self.pp))
    }

    /// The TP x CP x DP ranks of one pipeline stage (what expert layers fold into EP x EDP).
    pub fn fold(&self) -> u64 {
        u64::from(self.tp)
            .saturating_mul(u64::from(self.cp))
            .saturating_mul(u64::from(self.dp))
    }

    /// The MLP's weight matrices: 2 (GeLU) or 3 (SwiGLU).
    pub fn mlp_matrices(&self) -> f64 {
        match self.mlp {
            Mlp::Gelu => 2.0,
            Mlp::Swiglu => 3.0,
        }
    }

    /// Weights of a MoE layer's MLP side: the router (`h x E`), and the experts a token uses
    /// (`active`: top-k and the shared ones) or all of them.
    pub fn moe_mlp_params(&self, active: bool) -> f64 {
        let Some(m) = &self.moe else { return 0.0 };
        let h = f64::from(self.hidden);
        let experts = match active {
            true => m.top_k + m.shared_experts,
            false => m.experts + m.shared_experts,
        };
        h * f64::from(m.experts) + f64::from(experts) * m.expert_params(h, self.mlp_matrices())
    }

    /// Norm weights of a layer: two LayerNorms with biases and the biases of GPT's GeLU layers
    /// (`4 h + f + h + 4 h`), two RMSNorms for SwiGLU layers (`2 h`).
    fn norm_params(&self) -> f64 {
        let (h, f) = (f64::from(self.hidden), self.ffn());
        match self.mlp {
            Mlp::Gelu => 9.0 * h + f,
            Mlp::Swiglu => 2.0 * h,
        }
    }

    /// Dense and MoE layers.
    pub fn layer_kinds(&self) -> (u32, u32) {
        let moe = self.moe.as_ref().map_or(0, |m| m.moe_layers(self.layers));
        (self.layers - moe.min(self.layers), moe)
    }

    /// Weights of every layer (all experts).
    pub fn total_layer_params(&self) -> f64 {
        let (dense, moe) = self.layer_kinds();
        let attention = self.attention_params() + self.norm_params();
        f64::from(dense) * self.layer_params()
            + f64::from(moe) * (attention + self.moe_mlp_params(false))
    }

    /// Weights every token passes through in the layers (top-k and shared experts).
    pub fn active_layer_params(&self) -> f64 {
        let (dense, moe) = self.layer_kinds();
        let attention = self.attention_params() + self.norm_params();
        f64::from(dense) * self.layer_params()
            + f64::from(moe) * (attention + self.moe_mlp_params(true))
    }

    /// The MLP's inner size.
    pub fn ffn(&self) -> f64 {
        self.ffn.map_or(4.0 * f64::from(self.hidden), f64::from)
    }

    /// Key-value heads.
    pub fn kv(&self) -> u32 {
        self.kv_heads.unwrap_or(self.heads)
    }

    /// The width of the keys (and of the values): `kv x h / a` (`h` without grouping).
    pub fn kv_width(&self) -> f64 {
        f64::from(self.kv()) * f64::from(self.hidden) / f64::from(self.heads)
    }

    /// The weights of one dense layer's matrices: attention `2 h^2 + 2 h k` (queries and the
    /// output projection `h x h`, keys and values `h x k`, `k` the key width; MLA's
    /// [`TrainingRun::attention_params`]), MLP `2 h f` (GeLU) or `3 h f` (SwiGLU).
    pub fn layer_matrix_params(&self) -> f64 {
        let (h, f) = (f64::from(self.hidden), self.ffn());
        self.attention_params() + self.mlp_matrices() * h * f
    }

    /// Parameters of one dense layer: the matrices, and for GPT's GeLU layers their biases and
    /// two LayerNorms (`4 h + f + h + 4 h`: `12 h^2 + 13 h` for `f = 4 h` without grouping), for
    /// SwiGLU layers two RMSNorms (`2 h`, no biases).
    pub fn layer_params(&self) -> f64 {
        self.layer_matrix_params() + self.norm_params()
    }

    /// Layers of the busiest pipeline stage, `ceil(L / p)`, and of the last (which also holds
    /// the output layer): one fewer when `L` does not fill `p` stages evenly (Llama 3 405B: 126
    /// layers on 16 stages, the first and the last with 7).
    pub fn stage_layers(&self) -> (u32, u32) {
        let q = self.layers.div_ceil(self.pp.max(1));
        let short = q * self.pp.max(1) > self.layers;
        (q, if short { q - 1 } else { q })
    }

    /// Micro-batches per iteration and pipeline.
    pub fn micro_batches(&self) -> u32 {
        let per = (u64::from(self.micro_batch) * u64::from(self.dp)).max(1);
        (u64::from(self.global_batch) / per) as u32
    }

    /// The vocabulary as Megatron pads it (a multiple of 128 x TP).
    pub fn padded_vocab(&self) -> f64 {
        let unit = 128 * u64::from(self.tp);
        (u64::from(self.vocab).div_ceil(unit) * unit) as f64
    }

    /// Check the run on `npus` NPUs of `system`.
    pub fn check(&self, system: &System, npus: u32) -> Result<(), RunError> {
        for (field, v) in [
            ("layers", self.layers),
            ("hidden", self.hidden),
            ("ffn", self.ffn.unwrap_or(1)),
            ("heads", self.heads),
            ("seq_len", self.seq_len),
            ("vocab", self.vocab),
            ("global_batch", self.global_batch),
            ("micro_batch", self.micro_batch),
            ("tp", self.tp),
            ("cp", self.cp),
            ("pp", self.pp),
            ("ep", self.ep),
            ("dp", self.dp),
            ("virtual_stages", self.virtual_stages),
        ] {
            if v == 0 {
                return Err(RunError::Zero { field });
            }
        }
        if self.npus() != u64::from(npus) {
            return Err(RunError::Product {
                tp: self.tp,
                cp: self.cp,
                pp: self.pp,
                dp: self.dp,
                product: self.npus(),
                npus,
            });
        }
        let domain = system.scale_up_npus;
        if !(npus.is_multiple_of(domain) || (npus < domain && domain.is_multiple_of(npus))) {
            return Err(RunError::Domain {
                npus,
                system: system.name.clone(),
                domain,
            });
        }
        if !(domain.is_multiple_of(self.tp) || self.tp.is_multiple_of(domain)) {
            return Err(RunError::TpDomain {
                tp: self.tp,
                domain,
            });
        }
        if !self.heads.is_multiple_of(self.tp) {
            return Err(RunError::Heads {
                heads: self.heads,
                tp: self.tp,
            });
        }
        if !self.hidden.is_multiple_of(self.heads) {
            return Err(RunError::HiddenHeads {
                hidden: self.hidden,
                heads: self.heads,
            });
        }
        if self.layers < self.pp || (self.stage_layers().1 == 0) {
            return Err(RunError::Layers {
                layers: self.layers,
                pp: self.pp,
            });
        }
        if self.zero > 3 {
            return Err(RunError::ZeroStage(self.zero));
        }
        if !self.seq_len.is_multiple_of(self.cp) {
            return Err(RunError::Cp {
                cp: self.cp,
                seq_len: self.seq_len,
            });
        }
        match &self.moe {
            Some(m) => {
                m.check(self.layers, self.ep, self.fold())?;
                if self.tp > 1 && !self.sequence_parallel {
                    return Err(MoeError::NeedsSp { tp: self.tp }.into());
                }
            }
            None if self.ep > 1 => return Err(MoeError::EpWithoutExperts { ep: self.ep }.into()),
            None => {}
        }
        if self.dtype == Dtype::Fp8 && system.accelerator.fp8_tflops.is_none() {
            return Err(RunError::Fp8 {
                accelerator: system.accelerator.name.clone(),
            });
        }
        if self.mla.is_some() && self.kv_heads.is_some() {
            return Err(RunError::MlaKv);
        }
        let kv = self.kv();
        if kv == 0 {
            return Err(RunError::Zero { field: "kv_heads" });
        }
        if !self.heads.is_multiple_of(kv) {
            return Err(RunError::KvHeads {
                heads: self.heads,
                kv,
            });
        }
        if !kv.is_multiple_of(self.tp) {
            return Err(RunError::KvTp { kv, tp: self.tp });
        }
        let per = u64::from(self.micro_batch) * u64::from(self.dp);
        if !u64::from(self.global_batch).is_multiple_of(per) {
            return Err(RunError::Batch {
                global: self.global_batch,
                micro: self.micro_batch,
                dp: self.dp,
            });
        }
        let v = self.virtual_stages;
        if v > 1
            && (self.pp == 1
                || u64::from(self.layers) < u64::from(self.pp) * u64::from(v)
                || !self.micro_batches().is_multiple_of(self.pp))
        {
            return Err(RunError::Interleave {
                v,
                layers: self.layers,
                m: self.micro_batches(),
                pp: self.pp,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::models::ModelPreset;

    fn llama(p: ModelPreset, tp: u32, pp: u32, dp: u32) -> TrainingRun {
        TrainingRun {
            tp,
            pp,
            dp,
            recompute: Recompute::None,
            ..p.run()
        }
    }

    #[test]
    fn llama_3_has_its_published_parameter_counts_with_grouped_query_attention_and_swiglu() {
        // Dubey et al. 2024: 8B, 70B, 405B (untied input and output embeddings, 128,256 tokens).
        for (p, billions) in [
            (ModelPreset::Llama3_8b, 8.03),
            (ModelPreset::Llama3_70b, 70.6),
            (ModelPreset::Llama3_405b, 405.9),
            (ModelPreset::Llama2, 69.0),
        ] {
            let r = llama(p, 8, 1, 1);
            let params =
                f64::from(r.layers) * r.layer_params() + 2.0 * f64::from(r.vocab * r.hidden);
            let got = params / 1e9;
            assert!((got / billions - 1.0).abs() < 0.01, "{}: {got}", p.key());
        }
        // Without grouping or SwiGLU the layer is GPT's 12 h^2 + 13 h.
        let mut gpt = llama(ModelPreset::Llama3_8b, 8, 1, 1);
        (gpt.kv_heads, gpt.mlp, gpt.ffn) = (None, Mlp::Gelu, None);
        let h = f64::from(gpt.hidden);
        assert_eq!(gpt.layer_params(), 12.0 * h * h + 13.0 * h);
    }

    #[test]
    fn uneven_pipelines_and_grouped_heads_are_laid_or_refused_by_rule() {
        let system = System::dgx_h100();
        // 126 layers on 16 stages: the busiest with 8, the last (with the output layer) 7.
        let r = llama(ModelPreset::Llama3_405b, 8, 16, 64);
        assert_eq!(r.stage_layers(), (8, 7));
        r.check(&system, 8192).unwrap();
        let even = llama(ModelPreset::Llama3_70b, 8, 16, 1);
        assert_eq!(even.stage_layers(), (5, 5));
        let too_deep = llama(ModelPreset::Llama3_8b, 1, 64, 1);
        assert_eq!(
            too_deep.check(&system, 64).unwrap_err().to_string(),
            "the 32 layers are fewer than the PP 64 stages"
        );
        let mut r = llama(ModelPreset::Llama3_8b, 8, 1, 8);
        r.kv_heads = Some(12);
        assert_eq!(
            r.check(&system, 64).unwrap_err().to_string(),
            "the 32 attention heads are not divisible by the 12 key-value heads"
        );
        let r = llama(ModelPreset::Llama3_8b, 16, 1, 4);
        assert_eq!(
            r.check(&system, 64).unwrap_err().to_string(),
            "the 8 key-value heads are not divisible by TP 16"
        );
    }
}
