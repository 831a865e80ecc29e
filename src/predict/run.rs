//! A training run of a GPT-style transformer as Megatron lays it out: TP innermost, then DP, then
//! PP (pipeline neighbours are TP x DP ranks apart), and the rules that make it fit a system.

use super::system::System;
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
    pub seq_len: u32,
    /// Vocabulary; padded, as Megatron does, to a multiple of 128 x TP.
    pub vocab: u32,
    pub global_batch: u32,
    pub micro_batch: u32,
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    #[serde(default)]
    pub recompute: Recompute,
    /// Model chunks per pipeline stage (interleaved 1F1B when more than 1).
    #[serde(default = "one")]
    pub virtual_stages: u32,
    /// The DP gradient reduction overlapped with the backward pass.
    #[serde(default)]
    pub overlap_dp: bool,
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
    #[error("TP x PP x DP = {tp} x {pp} x {dp} = {product}, not the {npus} NPUs")]
    Product {
        tp: u32,
        pp: u32,
        dp: u32,
        product: u64,
        npus: u32,
    },
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
    #[error("the {layers} layers are not divisible by PP {pp}")]
    Layers { layers: u32, pp: u32 },
    #[error("interleaving {v} chunks per stage needs PP > 1, the {layers} layers divisible by PP x {v} and the {m} micro-batches by PP {pp}")]
    Interleave {
        v: u32,
        layers: u32,
        m: u32,
        pp: u32,
    },
    #[error("the global batch {global} is not a multiple of micro-batch x DP = {micro} x {dp}")]
    Batch { global: u32, micro: u32, dp: u32 },
}

impl TrainingRun {
    /// NPUs the run uses (saturated at u64::MAX).
    pub fn npus(&self) -> u64 {
        u64::from(self.tp)
            .saturating_mul(u64::from(self.pp))
            .saturating_mul(u64::from(self.dp))
    }

    /// The MLP's inner size.
    pub fn ffn(&self) -> f64 {
        self.ffn.map_or(4.0 * f64::from(self.hidden), f64::from)
    }

    /// Parameters of one layer: attention `4 h^2 + 4 h`, MLP `2 h f + f + h`, two layer norms
    /// `4 h` (`12 h^2 + 13 h` for GPT's `f = 4 h`).
    pub fn layer_params(&self) -> f64 {
        let (h, f) = (f64::from(self.hidden), self.ffn());
        4.0 * h * h + 2.0 * h * f + 9.0 * h + f
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
            ("pp", self.pp),
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
        if !self.layers.is_multiple_of(self.pp) {
            return Err(RunError::Layers {
                layers: self.layers,
                pp: self.pp,
            });
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
                || !u64::from(self.layers).is_multiple_of(u64::from(self.pp) * u64::from(v))
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
