//! DeepSeek's multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, section 2.1): its
//! sizes. Queries and keys-values pass through low-rank latents; each head's query and key have a
//! `qk_nope` part and a decoupled `qk_rope` part, values `v_head`.

use serde::{Deserialize, Serialize};

/// Multi-head latent attention's sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mla {
    pub q_lora: u32,
    pub kv_lora: u32,
    pub qk_nope: u32,
    pub qk_rope: u32,
    pub v_head: u32,
}

impl Mla {
    /// Its weights per layer for `h` hidden and `a` heads: the query and key-value down and up
    /// projections and the output projection.
    pub fn params(&self, h: f64, a: f64) -> f64 {
        let (ql, kl) = (f64::from(self.q_lora), f64::from(self.kv_lora));
        let (dn, dr, dv) = (
            f64::from(self.qk_nope),
            f64::from(self.qk_rope),
            f64::from(self.v_head),
        );
        h * ql + ql * a * (dn + dr) + h * (kl + dr) + kl * a * (dn + dv) + a * dv * h
    }
}
