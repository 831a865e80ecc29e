//! A layer's attention as the step model sees it: its weight matrices (which of them TP splits,
//! and along which side), its core's head sizes, and what context parallelism exchanges. Three
//! kinds: multi-head (GPT), grouped-query (Llama: `kv` key-value heads, each serving `a / kv`
//! query heads) and DeepSeek's multi-head latent attention (MLA, DeepSeek-V2, arXiv 2405.04434,
//! section 2.1): queries and keys-values pass through low-rank latents (`q_lora`, `kv_lora`),
//! each head's query and key have a `qk_nope` part and a decoupled `qk_rope` part (the rope key
//! shared by the heads), values have `v_head`. Training computes MLA as written (the absorbed
//! form is an inference trick), so its products and parameters here are exact; the down
//! projections are replicated over TP (as Megatron-Core lays them) and the up and output
//! projections split by heads.

use super::run::TrainingRun;

/// Which side of a weight matrix TP splits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Replicated on every TP rank.
    None,
    /// Its outputs (column-parallel: QKV, MLP up).
    Out,
    /// Its inputs (row-parallel: the output projection, MLP down).
    In,
}

/// One weight matrix applied to every token: `inputs x outputs`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Matrix {
    pub inputs: f64,
    pub outputs: f64,
    pub split: Split,
}

impl TrainingRun {
    /// The attention's weight matrices.
    pub fn attention_matrices(&self) -> Vec<Matrix> {
        let h = f64::from(self.hidden);
        let a = f64::from(self.heads);
        let m = |inputs: f64, outputs: f64, split: Split| Matrix {
            inputs,
            outputs,
            split,
        };
        match &self.mla {
            None => vec![
                m(h, h + 2.0 * self.kv_width(), Split::Out),
                m(h, h, Split::In),
            ],
            Some(l) => {
                let (ql, kl) = (f64::from(l.q_lora), f64::from(l.kv_lora));
                let (dn, dr, dv) = (
                    f64::from(l.qk_nope),
                    f64::from(l.qk_rope),
                    f64::from(l.v_head),
                );
                vec![
                    m(h, ql, Split::None),
                    m(ql, a * (dn + dr), Split::Out),
                    m(h, kl + dr, Split::None),
                    m(kl, a * (dn + dv), Split::Out),
                    m(a * dv, h, Split::In),
                ]
            }
        }
    }

    /// The attention's weights (without norms).
    pub fn attention_params(&self) -> f64 {
        self.attention_matrices()
            .iter()
            .map(|m| m.inputs * m.outputs)
            .sum()
    }

    /// Each head's query-key and value sizes in the attention core.
    pub fn head_dims(&self) -> (f64, f64) {
        match &self.mla {
            None => {
                let d = f64::from(self.hidden) / f64::from(self.heads);
                (d, d)
            }
            Some(l) => (
                f64::from(l.qk_nope) + f64::from(l.qk_rope),
                f64::from(l.v_head),
            ),
        }
    }

    /// The attention core's forward FLOPs per token over the `s` positions it sees, halved:
    /// `s a (d_qk + d_v)` (`2 s h` for multi-head attention: the `2 L s h` of model FLOPs).
    pub fn core_width(&self) -> f64 {
        let (qk, v) = self.head_dims();
        f64::from(self.heads) * (qk + v)
    }

    /// Elements of keys and values per token that context parallelism passes around its ring
    /// (before TP splits the heads): `2 k` with grouped queries; MLA's keys and values after
    /// their up projection (`a (d_qk + d_v)`).
    pub fn kv_exchange_width(&self) -> f64 {
        match &self.mla {
            None => 2.0 * self.kv_width(),
            Some(_) => self.core_width(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::predict::models::ModelPreset;

    #[test]
    fn deepseek_v3s_latent_attention_has_its_published_size() {
        // DeepSeek-V3 (arXiv 2412.19437, config): per layer q_down 7168 x 1536, q_up 1536 x
        // 128 x 192, kv_down 7168 x 576, kv_up 512 x 128 x 256, out 16384 x 7168.
        let r = ModelPreset::DeepseekV3.run();
        let want = 7168.0 * 1536.0
            + 1536.0 * 128.0 * 192.0
            + 7168.0 * 576.0
            + 512.0 * 128.0 * 256.0
            + 16384.0 * 7168.0;
        assert_eq!(r.attention_params(), want);
        assert_eq!(r.head_dims(), (192.0, 128.0));
        // Multi-head attention: 4 h^2, and the core's 2 h per position.
        let g = ModelPreset::Gpt3.run();
        let h = f64::from(g.hidden);
        assert_eq!(g.attention_params(), 4.0 * h * h);
        assert_eq!(g.core_width(), 2.0 * h);
    }
}
