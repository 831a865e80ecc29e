//! The MLP of a transformer layer: GPT's two matrices with GeLU, or Llama's three with SwiGLU.

use serde::{Deserialize, Serialize};

/// The MLP of each layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mlp {
    /// Two matrices `h x f` and `f x h` with biases and GeLU (GPT; LayerNorm).
    #[default]
    Gelu,
    /// Three matrices: gate and up `h x f`, down `f x h`, no biases (Llama; RMSNorm).
    Swiglu,
}

impl Mlp {
    pub fn parse(text: &str) -> Option<Mlp> {
        match text.trim() {
            "gelu" => Some(Mlp::Gelu),
            "swiglu" => Some(Mlp::Swiglu),
            _ => None,
        }
    }
}

impl Mlp {
    /// Its weight matrices: 2 (GeLU) or 3 (SwiGLU).
    pub fn matrices(self) -> f64 {
        match self {
            Mlp::Gelu => 2.0,
            Mlp::Swiglu => 3.0,
        }
    }

    /// The width of its first product for an inner size `f`: `f`, or `2 f` (gate and up).
    pub fn up(self, f: f64) -> f64 {
        match self {
            Mlp::Gelu => f,
            Mlp::Swiglu => 2.0 * f,
        }
    }
}
