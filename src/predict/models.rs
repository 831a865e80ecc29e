//! The transformers known by name, as published (docs/predict.md "Model presets" has the table
//! with sources). [`ModelPreset::run`] gives each as the step model's run on one GPU (TP, CP, PP,
//! EP and DP of 1, micro-batch 1, full recomputation): a command sets the parallelism and may
//! override the sequence, the batches and the vocabulary.
//!
//! | key | layers | hidden | FFN | heads (kv) | MLP | vocabulary | sequence x batch | source |
//! |---|---|---|---|---|---|---|---|---|
//! | gpt3-175b | 96 | 12,288 | 4h | 96 | GeLU | 50,257 | 2,048 x 1,536 | Brown et al. 2020 |
//! | llama2-70b | 80 | 8,192 | 28,672 | 64 (8) | SwiGLU | 32,000 | 4,096 x 1,024 | Touvron et al. 2023 |
//! | bloom-176b | 70 | 14,336 | 4h | 112 | GeLU | 250,880 | 2,048 x 2,048 | BigScience 2022 |
//! | mt-nlg-530b | 105 | 20,480 | 4h | 128 | GeLU | 50,257 | 2,048 x 1,920 | Smith et al. 2022 |
//! | llama3-8b | 32 | 4,096 | 14,336 | 32 (8) | SwiGLU | 128,256 | 8,192 x 2,048 | arXiv 2407.21783 |
//! | llama3-70b | 80 | 8,192 | 28,672 | 64 (8) | SwiGLU | 128,256 | 8,192 x 2,048 | arXiv 2407.21783 |
//! | llama3-405b | 126 | 16,384 | 53,248 | 128 (8) | SwiGLU | 128,256 | 8,192 x 2,048 | arXiv 2407.21783 |
//! | mixtral-8x7b | 32 | 4,096 | 8 experts of 14,336, top 2 | 32 (8) | SwiGLU | 32,000 | 4,096 x 1,024 | arXiv 2401.04088 |
//! | mixtral-8x22b | 56 | 6,144 | 8 experts of 16,384, top 2 | 48 (8) | SwiGLU | 32,768 | 4,096 x 1,024 | mistralai config |
//! | deepseek-v3 | 61 | 7,168 | 3 dense of 18,432; 256 experts of 2,048, top 8, 1 shared | 128, MLA | SwiGLU | 129,280 | 4,096 x 15,360 | arXiv 2412.19437 |
//!
//! Mixtral publishes no training batch: 1,024 sequences of 4,096 are this tool's choice (override
//! them). DeepSeek-V3's multi-token prediction module (one extra layer used in training) is left
//! out; its attention is MLA ([`super::attention::Mla`]).

use super::moe::Moe;
use super::run::Mla;
use super::run::{Mlp, TrainingRun};

/// A transformer known by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelPreset {
    Gpt3,
    Llama2,
    Bloom,
    MtNlg,
    Llama3_8b,
    Llama3_70b,
    Llama3_405b,
    Mixtral8x7b,
    Mixtral8x22b,
    DeepseekV3,
}

impl ModelPreset {
    pub const ALL: [ModelPreset; 10] = [
        ModelPreset::Gpt3,
        ModelPreset::Llama2,
        ModelPreset::Bloom,
        ModelPreset::MtNlg,
        ModelPreset::Llama3_8b,
        ModelPreset::Llama3_70b,
        ModelPreset::Llama3_405b,
        ModelPreset::Mixtral8x7b,
        ModelPreset::Mixtral8x22b,
        ModelPreset::DeepseekV3,
    ];

    /// The dense ones: what the workload builder and the co-design take (they do not know
    /// experts yet).
    pub const DENSE: [ModelPreset; 7] = [
        ModelPreset::Gpt3,
        ModelPreset::Llama2,
        ModelPreset::Bloom,
        ModelPreset::MtNlg,
        ModelPreset::Llama3_8b,
        ModelPreset::Llama3_70b,
        ModelPreset::Llama3_405b,
    ];

    /// The command line's and the permalink's name.
    pub fn key(self) -> &'static str {
        match self {
            ModelPreset::Gpt3 => "gpt3-175b",
            ModelPreset::Llama2 => "llama2-70b",
            ModelPreset::Bloom => "bloom-176b",
            ModelPreset::MtNlg => "mt-nlg-530b",
            ModelPreset::Llama3_8b => "llama3-8b",
            ModelPreset::Llama3_70b => "llama3-70b",
            ModelPreset::Llama3_405b => "llama3-405b",
            ModelPreset::Mixtral8x7b => "mixtral-8x7b",
            ModelPreset::Mixtral8x22b => "mixtral-8x22b",
            ModelPreset::DeepseekV3 => "deepseek-v3",
        }
    }

    pub fn parse(text: &str) -> Option<ModelPreset> {
        ModelPreset::ALL
            .into_iter()
            .find(|p| p.key().eq_ignore_ascii_case(text.trim()))
    }

    /// Whether it has experts.
    pub fn is_moe(self) -> bool {
        !ModelPreset::DENSE.contains(&self)
    }

    /// The vocabulary (the embedding of the first pipeline stage).
    pub fn vocab(self) -> u64 {
        u64::from(self.run().vocab)
    }

    /// The published SwiGLU inner size (three matrices); None: a GeLU MLP.
    pub fn swiglu_ffn(self) -> Option<u32> {
        let r = self.run();
        (r.mlp == Mlp::Swiglu).then(|| r.ffn.unwrap_or(4 * r.hidden))
    }

    /// Key-value heads of grouped-query attention; None: multi-head.
    pub fn kv_heads(self) -> Option<u32> {
        self.run().kv_heads
    }

    /// The model as a run on one GPU.
    pub fn run(self) -> TrainingRun {
        let gpt = |layers, hidden, heads, vocab, global_batch| {
            TrainingRun::gpt(layers, hidden, heads, 2048, vocab, global_batch)
        };
        let llama = |layers, hidden, ffn, heads, vocab, seq_len, global_batch| TrainingRun {
            ffn: Some(ffn),
            kv_heads: Some(8),
            mlp: Mlp::Swiglu,
            seq_len,
            ..gpt(layers, hidden, heads, vocab, global_batch)
        };
        let mixtral = |layers, hidden, expert_ffn, heads, vocab| TrainingRun {
            moe: Some(Moe {
                experts: 8,
                top_k: 2,
                shared_experts: 0,
                expert_ffn,
                first_dense: 0,
                every: 1,
                capacity_factor: 1.0,
                node_limit: None,
            }),
            ..llama(layers, hidden, expert_ffn, heads, vocab, 4096, 1024)
        };
        match self {
            ModelPreset::Gpt3 => gpt(96, 12_288, 96, 50_257, 1536),
            ModelPreset::Bloom => gpt(70, 14_336, 112, 250_880, 2048),
            ModelPreset::MtNlg => gpt(105, 20_480, 128, 50_257, 1920),
            ModelPreset::Llama2 => llama(80, 8192, 28_672, 64, 32_000, 4096, 1024),
            ModelPreset::Llama3_8b => llama(32, 4096, 14_336, 32, 128_256, 8192, 2048),
            ModelPreset::Llama3_70b => llama(80, 8192, 28_672, 64, 128_256, 8192, 2048),
            ModelPreset::Llama3_405b => llama(126, 16_384, 53_248, 128, 128_256, 8192, 2048),
            ModelPreset::Mixtral8x7b => mixtral(32, 4096, 14_336, 32, 32_000),
            ModelPreset::Mixtral8x22b => mixtral(56, 6144, 16_384, 48, 32_768),
            ModelPreset::DeepseekV3 => TrainingRun {
                kv_heads: None,
                moe: Some(Moe {
                    experts: 256,
                    top_k: 8,
                    shared_experts: 1,
                    expert_ffn: 2048,
                    first_dense: 3,
                    every: 1,
                    capacity_factor: 1.0,
                    node_limit: Some(4),
                }),
                mla: Some(Mla {
                    q_lora: 1536,
                    kv_lora: 512,
                    qk_nope: 128,
                    qk_rope: 64,
                    v_head: 128,
                }),
                ..llama(61, 7168, 18_432, 128, 129_280, 4096, 15_360)
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parameters: the layers and the untied input and output embeddings (GPT-3 ties them: one).
    fn billions(p: ModelPreset, active: bool) -> f64 {
        let r = p.run();
        let embeddings = match p {
            ModelPreset::Gpt3 | ModelPreset::Bloom | ModelPreset::MtNlg => 1.0,
            _ => 2.0,
        };
        let layers = match active {
            false => r.total_layer_params(),
            true => r.active_layer_params(),
        };
        (layers + embeddings * f64::from(r.vocab) * f64::from(r.hidden)) / 1e9
    }

    #[test]
    fn presets_have_their_published_parameter_counts() {
        for (p, total, active) in [
            (ModelPreset::Gpt3, 175.0, 175.0),
            (ModelPreset::Llama2, 69.0, 69.0),
            (ModelPreset::Bloom, 176.0, 176.0),
            (ModelPreset::MtNlg, 530.0, 530.0),
            (ModelPreset::Llama3_8b, 8.03, 8.03),
            (ModelPreset::Llama3_70b, 70.6, 70.6),
            (ModelPreset::Llama3_405b, 405.9, 405.9),
            // Mixtral (arXiv 2401.04088): 46.7 B total, 12.9 B active; 8x22B: 141 B / 39 B.
            (ModelPreset::Mixtral8x7b, 46.7, 12.9),
            (ModelPreset::Mixtral8x22b, 141.0, 39.0),
            // DeepSeek-V3 (arXiv 2412.19437): 671 B total, 37 B active, without its 14 B
            // multi-token prediction module.
            (ModelPreset::DeepseekV3, 671.0, 37.0),
        ] {
            let (t, a) = (billions(p, false), billions(p, true));
            assert!((t / total - 1.0).abs() < 0.02, "{}: total {t}", p.key());
            assert!((a / active - 1.0).abs() < 0.03, "{}: active {a}", p.key());
            assert_eq!(ModelPreset::parse(p.key()), Some(p));
            assert_eq!(p.is_moe(), p.run().moe.is_some());
        }
        assert_eq!(ModelPreset::parse("gpt4"), None);
    }
}
