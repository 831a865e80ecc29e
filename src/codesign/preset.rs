//! The transformers the co-design knows by name (docs/codesign.md), as published:
//!
//! | key | layers | hidden | FFN | heads | sequence | global batch | vocabulary |
//! |---|---|---|---|---|---|---|---|
//! | gpt3-175b | 96 | 12,288 | 4h | 96 | 2,048 | 1,536 | 50,257 (Brown et al. 2020; LIBRA's example) |
//! | llama2-70b | 80 | 8,192 | 28,672 (SwiGLU) | 64 (8 key-value) | 4,096 | 1,024 | 32,000 (Touvron et al. 2023; 4M tokens per batch) |
//! | bloom-176b | 70 | 14,336 | 4h | 112 | 2,048 | 2,048 | 250,880 (BigScience 2022) |
//! | mt-nlg-530b | 105 | 20,480 | 4h | 128 | 2,048 | 1,920 | 50,257 (Smith et al. 2022) |
//! | llama3-8b | 32 | 4,096 | 14,336 (SwiGLU) | 32 (8 key-value) | 8,192 | 2,048 | 128,256 |
//! | llama3-70b | 80 | 8,192 | 28,672 (SwiGLU) | 64 (8) | 8,192 | 2,048 | 128,256 |
//! | llama3-405b | 126 | 16,384 | 53,248 (SwiGLU) | 128 (8) | 8,192 | 2,048 | 128,256 |
//!
//! Llama 3 (Dubey et al. 2024, arXiv 2407.21783, Table 3: layers, model dimension, FFN
//! dimension 14,336 / 28,672 / 53,248, 32 / 64 / 128 heads, 8 key-value heads each, SwiGLU, a
//! 128K vocabulary (128,256 in the released tokenizer), 8K context; the 405B model's 16M tokens
//! per batch, section 3.4.1, taken for all three: 2,048 sequences of 8,192).
//! The builder carries each preset's published architecture as the step model's run has it
//! ([`ModelPreset::run`]): LLaMA2's and Llama 3's 8 key-value heads and SwiGLU MLPs (three
//! `h x f` matrices, the FFN sizes of the table in `predict/models.rs`), Mixtral's and
//! DeepSeek-V3's experts, DeepSeek-V3's latent attention. Every preset trains in 2-byte elements
//! at 312 TFLOP/s peak (A100 BF16) and 50% efficiency, as the builder's GPT-3, unless a system
//! times the compute.

use crate::model::builder::Transformer;
use crate::model::Parallelism;
pub use crate::predict::models::ModelPreset;

impl ModelPreset {
    /// The workload builder's transformer as published (its parallelism is the co-design's to
    /// choose; TP 1, PP 1, DP 1 here): grouped-query attention, SwiGLU, MLA and experts as the
    /// step model's run ([`ModelPreset::run`]) has them, 2-byte elements at 312 TFLOP/s and 50%.
    pub fn transformer(self) -> Transformer {
        let r = self.run();
        let name = match self {
            ModelPreset::Gpt3 => "GPT-3 175B",
            ModelPreset::Llama2 => "LLaMA2-70B",
            ModelPreset::Bloom => "BLOOM-176B",
            ModelPreset::MtNlg => "MT-NLG 530B",
            ModelPreset::Llama3_8b => "Llama 3 8B",
            ModelPreset::Llama3_70b => "Llama 3 70B",
            ModelPreset::Llama3_405b => "Llama 3 405B",
            ModelPreset::Mixtral8x7b => "Mixtral 8x7B",
            ModelPreset::Mixtral8x22b => "Mixtral 8x22B",
            ModelPreset::DeepseekV3 => "DeepSeek-V3",
        };
        Transformer {
            name: name.into(),
            layers: r.layers,
            hidden: r.hidden,
            ffn: r.ffn.unwrap_or(4 * r.hidden),
            heads: r.heads,
            seq_len: r.seq_len,
            global_batch: r.global_batch,
            kv_heads: r.kv_heads,
            mlp: r.mlp,
            mla: r.mla,
            moe: r.moe,
            parallelism: Parallelism {
                tp: 1,
                pp: 1,
                dp: 1,
            },
            ..Transformer::gpt3()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builders_presets_hold_the_step_models_weights() {
        // Two implementations of one architecture: the builder's weights on one NPU (TP, PP, EP
        // of 1) and the step model's layer parameters agree to the norms and biases they count.
        for p in ModelPreset::ALL {
            let t = p.transformer();
            let (dense, routed) = t.stage_params();
            let step = p.run().total_layer_params();
            assert!(
                ((dense + routed) / step - 1.0).abs() < 1e-3,
                "{}: {} vs {step}",
                p.key(),
                dense + routed
            );
            assert_eq!(ModelPreset::parse(p.key()), Some(p));
        }
        let g = ModelPreset::Gpt3.transformer();
        let base = Transformer {
            parallelism: Parallelism {
                tp: 1,
                pp: 1,
                dp: 1,
            },
            ..Transformer::gpt3()
        };
        assert_eq!(g, base);
        assert_eq!(ModelPreset::parse("gpt4"), None);
    }
}
