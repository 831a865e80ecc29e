//! The element type of a transformer's matrix products: BF16, or FP8 as Transformer Engine and
//! DeepSeek-V3 train (the step model's products at the FP8 peak; the builder's MoE dispatch in
//! one byte per element).

use serde::{Deserialize, Serialize};

/// The element type of the matrix products.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    /// BF16 products at the accelerator's dense BF16 peak.
    #[default]
    Bf16,
    /// FP8 products of the layers' weight matrices at its dense FP8 peak (Transformer Engine;
    /// DeepSeek-V3): the attention core and the output layer stay BF16, MoE dispatch sends FP8.
    Fp8,
}

impl Dtype {
    pub fn parse(text: &str) -> Option<Dtype> {
        match text.trim() {
            "bf16" => Some(Dtype::Bf16),
            "fp8" => Some(Dtype::Fp8),
            _ => None,
        }
    }
}
