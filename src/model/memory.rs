//! Memory per NPU of a transformer trained with TP x PP x DP, the default model of the co-design
//! (docs/model.md "Memory per NPU"):
//!
//! - Mixed-precision Adam: 16 bytes per parameter, 2 for the weight, 2 for its gradient and 12 of
//!   optimizer state (FP32 master weight, momentum and variance); the 12 are sharded over DP (the
//!   distributed optimizer). With ZeRO-3 all 16 are sharded over DP.
//! - Parameters of the first pipeline stage (the most loaded): `12 h² L / (PP TP)` for its layers
//!   plus the embedding `V h / TP`.
//! - Activations with tensor and sequence parallelism and selective recomputation: `34 s b h / TP`
//!   bytes per layer per micro-batch (Korthikanti et al. 2022, 2-byte elements); with full
//!   recomputation only each layer's input is kept, `2 s b h / TP`. The first stage holds
//!   `min(PP, m)` micro-batches at once under 1F1B, `m` the micro-batches per iteration.

use super::builder::Transformer;
use serde::{Deserialize, Serialize};

/// GPT-2/GPT-3's vocabulary (the embedding of the first stage).
pub const GPT3_VOCAB: u64 = 50_257;

/// Which activations are recomputed in the backward pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Recompute {
    /// The attention's softmax and dropout only (Korthikanti et al.): 34 s b h / TP per layer.
    #[default]
    Selective,
    /// Everything but each layer's input: 2 s b h / TP per layer.
    Full,
}

/// The choices of the memory model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryOptions {
    pub recompute: Recompute,
    /// Shard the weights and gradients over DP too (ZeRO stage 3).
    pub zero3: bool,
    /// Vocabulary size.
    pub vocab: u64,
}

impl Default for MemoryOptions {
    fn default() -> Self {
        MemoryOptions {
            recompute: Recompute::Selective,
            zero3: false,
            vocab: GPT3_VOCAB,
        }
    }
}

/// What one NPU of the first pipeline stage holds, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MemoryPerNpu {
    /// Parameters of the first stage on one NPU (its layers' share and the embedding's).
    pub parameters: f64,
    pub weights_and_gradients_bytes: f64,
    pub optimizer_bytes: f64,
    pub activations_bytes: f64,
    /// Micro-batches whose activations are held at once: `min(PP, m)`.
    pub in_flight: u64,
    pub total_bytes: f64,
}

/// A design whose memory does not fit.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "needs {needed_gb:.2} GB per NPU, {over_gb:.2} GB more than the {hbm_gb} GB of HBM \
     (weights and gradients {weights_gb:.2}, optimizer {optimizer_gb:.2}, activations {activations_gb:.2})"
)]
pub struct DoesNotFit {
    pub needed_gb: f64,
    pub over_gb: f64,
    pub hbm_gb: f64,
    pub weights_gb: f64,
    pub optimizer_gb: f64,
    pub activations_gb: f64,
}

impl MemoryPerNpu {
    /// Ok when the total fits in `hbm_gb` GB (10^9 bytes); otherwise by how much it does not.
    pub fn fits(&self, hbm_gb: f64) -> Result<(), DoesNotFit> {
        let gb = |b: f64| b / 1e9;
        if self.total_bytes <= hbm_gb * 1e9 {
            return Ok(());
        }
        Err(DoesNotFit {
            needed_gb: gb(self.total_bytes),
            over_gb: gb(self.total_bytes) - hbm_gb,
            hbm_gb,
            weights_gb: gb(self.weights_and_gradients_bytes),
            optimizer_gb: gb(self.optimizer_bytes),
            activations_gb: gb(self.activations_bytes),
        })
    }
}

/// The memory one NPU of `t`'s first pipeline stage needs, under `t`'s parallelism and
/// micro-batch size.
pub fn memory_per_npu(t: &Transformer, opts: &MemoryOptions) -> MemoryPerNpu {
    let p = t.parallelism;
    let (tp, dp) = (f64::from(p.tp.max(1)), f64::from(p.dp.max(1)));
    let h = f64::from(t.hidden);
    let (dense, routed) = t.stage_params();
    // The dense weights are sharded over DP (and CP, which holds the same weights); the routed
    // experts over the ranks that hold the same experts (TP CP DP / EP).
    let cp = f64::from(t.cp.max(1));
    let edp = tp * cp * dp / f64::from(t.ep.max(1));
    let embedding = opts.vocab as f64 * h / tp;
    let parameters = dense + embedding + routed;
    let dense_params = dense + embedding;
    let (weights_and_gradients_bytes, optimizer_bytes) = if opts.zero3 {
        (
            4.0 * dense_params / (dp * cp) + 4.0 * routed / edp,
            12.0 * dense_params / (dp * cp) + 12.0 * routed / edp,
        )
    } else {
        (
            4.0 * parameters,
            12.0 * dense_params / (dp * cp) + 12.0 * routed / edp,
        )
    };
    let micro_batches = u64::from(t.global_batch)
        .div_ceil(u64::from(t.micro_batch.max(1)) * u64::from(p.dp.max(1)))
        .max(1);
    let in_flight = micro_batches.min(u64::from(p.pp.max(1)));
    // Bytes per token of a layer (Korthikanti et al. 2022): 34 h / TP with sequence parallelism
    // and selective recomputation, 2 h / TP with full; a MoE layer's MLP part (19 of the 34 for
    // GPT's 4h MLP) holds its routed copies' instead: `top_k x capacity (2 h + 2 up + 2 f)`
    // per token of its TP slice, and its shared experts' as an MLP.
    let tokens = f64::from(t.seq_len) * f64::from(t.micro_batch) / cp;
    let (dense_layers, moe_layers) = t.stage_kinds();
    let per_token = |moe: bool| match (opts.recompute, moe, &t.moe) {
        (Recompute::Full, _, _) => 2.0 * h / tp,
        (Recompute::Selective, true, Some(m)) => {
            let fe = f64::from(m.expert_ffn);
            let mlp = |f: f64| 2.0 * t.mlp.up(f) + 2.0 * f;
            (15.0 * h
                + f64::from(m.top_k) * m.capacity_factor * (2.0 * h + mlp(fe))
                + mlp(f64::from(m.shared_experts) * fe))
                / tp
        }
        (Recompute::Selective, _, _) => 34.0 * h / tp,
    };
    // Interleaving v chunks per stage keeps (1 + (p - 1) / (p v)) times the activations
    // (Korthikanti et al. 2022, section 4.2.3: the first stage runs ahead by a chunk per stage).
    let (pp, v) = (f64::from(p.pp.max(1)), f64::from(t.virtual_stages.max(1)));
    let interleaved = match t.virtual_stages > 1 {
        true => 1.0 + (pp - 1.0) / (pp * v),
        false => 1.0,
    };
    let activations_bytes = tokens
        * (f64::from(dense_layers) * per_token(false) + f64::from(moe_layers) * per_token(true))
        * in_flight as f64
        * interleaved;
    MemoryPerNpu {
        parameters,
        weights_and_gradients_bytes,
        optimizer_bytes,
        activations_bytes,
        in_flight,
        total_bytes: weights_and_gradients_bytes + optimizer_bytes + activations_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::communicator::Parallelism;

    #[test]
    fn gpt3_on_4096_npus_by_hand() {
        // GPT-3 175B, TP 8 x PP 8 x DP 64, micro-batch 1, global batch 1536: m = 1536 / 64 = 24
        // micro-batches, 8 in flight on the first stage.
        let mut t = Transformer::gpt3();
        t.parallelism = Parallelism {
            tp: 8,
            pp: 8,
            dp: 64,
        };
        let m = memory_per_npu(&t, &MemoryOptions::default());
        // 12 * 12288^2 * 96 / 64 = 2,717,908,992 layer parameters, + 50257 * 12288 / 8 =
        // 77,194,752 of the embedding.
        assert_eq!(m.parameters, 2_795_103_744.0);
        assert_eq!(m.weights_and_gradients_bytes, 11_180_414_976.0);
        // 12 bytes over DP 64.
        assert_eq!(m.optimizer_bytes, 524_081_952.0);
        // 34 * 2048 * 1 * 12288 / 8 = 106,954,752 bytes per layer and micro-batch, 12 layers, 8
        // micro-batches.
        assert_eq!(m.in_flight, 8);
        assert_eq!(m.activations_bytes, 10_267_656_192.0);
        assert_eq!(m.total_bytes, 21_972_153_120.0);
        assert!(m.fits(80.0).is_ok());
        let e = m.fits(20.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "needs 21.97 GB per NPU, 1.97 GB more than the 20 GB of HBM (weights and gradients \
             11.18, optimizer 0.52, activations 10.27)"
        );
        // Full recomputation keeps 2 of the 34 bytes; ZeRO-3 shards weights and gradients too.
        let full = memory_per_npu(
            &t,
            &MemoryOptions {
                recompute: Recompute::Full,
                ..MemoryOptions::default()
            },
        );
        assert_eq!(full.activations_bytes, 10_267_656_192.0 * 2.0 / 34.0);
        let zero3 = memory_per_npu(
            &t,
            &MemoryOptions {
                zero3: true,
                ..MemoryOptions::default()
            },
        );
        assert_eq!(zero3.weights_and_gradients_bytes, 11_180_414_976.0 / 64.0);
        // LIBRA's own GPT-3 layout, TP 16 x DP 256 with no PP: 24 GB of weights and gradients
        // alone would not fit a 16 GB NPU.
        let libra = memory_per_npu(&Transformer::gpt3(), &MemoryOptions::default());
        assert_eq!(libra.in_flight, 1);
        assert!(libra.fits(16.0).is_err());
    }
}
