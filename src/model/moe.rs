//! A mixture of experts (Shazeer et al. 2017; GShard; Mixtral; DeepSeek-V3): which layers replace
//! their MLP by experts, how many experts, how many a token uses (top-k), the shared experts every
//! token uses, and the capacity an expert is sized for. Its weights, active weights and how its
//! layers fall on pipeline stages follow from it; its time and traffic are the step model's
//! (`step.rs`, docs/predict.md "Mixture of experts").
//!
//! Expert layers are laid as Megatron-Core lays them with its MoE parallel folding (Liu et al.
//! 2025, arXiv 2504.14960): the stage's TP x CP x DP ranks fold into EP x EDP for the expert
//! layers, each expert whole on one GPU (expert TP 1), EP innermost (its groups are consecutive
//! ranks); shared experts are split over TP as a dense MLP is.

use serde::{Deserialize, Serialize};

/// The experts of a transformer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moe {
    /// Routed experts per MoE layer.
    pub experts: u32,
    /// Routed experts each token uses.
    pub top_k: u32,
    /// Experts every token uses besides the routed ones (DeepSeek: 1).
    #[serde(default)]
    pub shared_experts: u32,
    /// Inner size of one expert's MLP (its kind is the run's `mlp`).
    pub expert_ffn: u32,
    /// Layers before the first MoE layer, dense (DeepSeek-V3: 3).
    #[serde(default)]
    pub first_dense: u32,
    /// After those, every `every`-th layer is a MoE layer (1: all of them; GShard: 2).
    #[serde(default = "one")]
    pub every: u32,
    /// Tokens an expert is sized for over its balanced share (1: perfect balance; a capacity
    /// factor of 1.25 pads every expert's work to 1.25 times it), at least 1.
    #[serde(default = "unit")]
    pub capacity_factor: f64,
    /// Node-limited routing (DeepSeek-V3: 4): a token's experts lie on at most this many
    /// scale-up domains, and it crosses the scale-out tier once per domain (then NVLink
    /// forwards it), so at most this many copies of it leave its domain. None: every copy to a
    /// rank outside the domain crosses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_limit: Option<u32>,
}

fn one() -> u32 {
    1
}

fn unit() -> f64 {
    1.0
}

/// Why a mixture of experts cannot be laid; each names the field.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MoeError {
    #[error("{field} must be at least 1")]
    Zero { field: &'static str },
    #[error("top-k {top_k} is more than the {experts} experts")]
    TopK { top_k: u32, experts: u32 },
    #[error("the {experts} experts are not divisible by EP {ep}")]
    Experts { experts: u32, ep: u32 },
    #[error("EP {ep} does not divide the TP x CP x DP = {fold} ranks of a stage that the expert layers fold into")]
    Fold { ep: u32, fold: u64 },
    #[error("capacity factor must be a finite number of at least 1, got {0}")]
    Capacity(f64),
    #[error("the {first_dense} dense layers before the first MoE layer leave none of the {layers} layers to experts")]
    NoMoeLayer { first_dense: u32, layers: u32 },
    #[error("a mixture of experts with TP {tp} needs sequence parallelism (as Megatron-Core requires): the routed tokens are the sequence's TP slice")]
    NeedsSp { tp: u32 },
    #[error("EP {ep} needs experts (give --experts)")]
    EpWithoutExperts { ep: u32 },
}

impl Moe {
    /// MoE layers among `layers`.
    pub fn moe_layers(&self, layers: u32) -> u32 {
        layers.saturating_sub(self.first_dense) / self.every.max(1)
    }

    /// The most MoE layers a run of `q` consecutive layers holds.
    pub fn most_in(&self, q: u32, layers: u32) -> u32 {
        q.div_ceil(self.every.max(1)).min(self.moe_layers(layers))
    }

    /// Weights of one expert's MLP: `2 h f` (GeLU) or `3 h f` (SwiGLU), `f` the expert's size.
    pub fn expert_params(&self, h: f64, matrices: f64) -> f64 {
        matrices * h * f64::from(self.expert_ffn)
    }

    /// Check the experts against the run's layers and parallelism (EP folded into `fold` = TP x
    /// CP x DP ranks).
    pub fn check(&self, layers: u32, ep: u32, fold: u64) -> Result<(), MoeError> {
        for (field, v) in [
            ("experts", self.experts),
            ("top_k", self.top_k),
            ("expert_ffn", self.expert_ffn),
            ("every", self.every),
            ("ep", ep),
        ] {
            if v == 0 {
                return Err(MoeError::Zero { field });
            }
        }
        if self.top_k > self.experts {
            return Err(MoeError::TopK {
                top_k: self.top_k,
                experts: self.experts,
            });
        }
        if !(self.capacity_factor.is_finite() && self.capacity_factor >= 1.0) {
            return Err(MoeError::Capacity(self.capacity_factor));
        }
        if self.node_limit == Some(0) {
            return Err(MoeError::Zero {
                field: "node_limit",
            });
        }
        if self.moe_layers(layers) == 0 {
            return Err(MoeError::NoMoeLayer {
                first_dense: self.first_dense,
                layers,
            });
        }
        if !self.experts.is_multiple_of(ep) {
            return Err(MoeError::Experts {
                experts: self.experts,
                ep,
            });
        }
        if !fold.is_multiple_of(u64::from(ep)) {
            return Err(MoeError::Fold { ep, fold });
        }
        Ok(())
    }

    /// Read `--moe-layers`: `all`, `after:K` (the first K layers dense), `every:N` or
    /// `after:K,every:N`; into (first_dense, every).
    pub fn parse_layers(text: &str) -> Option<(u32, u32)> {
        let mut out = (0, 1);
        for part in text.split(',').map(str::trim) {
            match part.split_once(':') {
                None if part == "all" => {}
                Some(("after", k)) => out.0 = k.trim().parse().ok()?,
                Some(("every", n)) => out.1 = n.trim().parse().ok().filter(|n| *n >= 1)?,
                _ => return None,
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deepseek() -> Moe {
        Moe {
            experts: 256,
            top_k: 8,
            shared_experts: 1,
            expert_ffn: 2048,
            first_dense: 3,
            every: 1,
            capacity_factor: 1.0,
            node_limit: Some(4),
        }
    }

    #[test]
    fn layers_stages_and_rules() {
        let m = deepseek();
        assert_eq!(m.moe_layers(61), 58);
        // 61 layers on 16 stages: 4 a stage, all of them MoE past the first 3.
        assert_eq!(m.most_in(4, 61), 4);
        let gshard = Moe {
            every: 2,
            first_dense: 0,
            ..deepseek()
        };
        assert_eq!(gshard.moe_layers(24), 12);
        assert_eq!(gshard.most_in(5, 24), 3);
        assert_eq!(Moe::parse_layers("all"), Some((0, 1)));
        assert_eq!(Moe::parse_layers("after:3"), Some((3, 1)));
        assert_eq!(Moe::parse_layers("after:1, every:2"), Some((1, 2)));
        assert_eq!(Moe::parse_layers("every:0"), None);
        assert_eq!(Moe::parse_layers("some"), None);
        m.check(61, 64, 128).unwrap();
        assert_eq!(
            m.check(61, 48, 96).unwrap_err().to_string(),
            "the 256 experts are not divisible by EP 48"
        );
        assert_eq!(
            m.check(61, 64, 32).unwrap_err().to_string(),
            "EP 64 does not divide the TP x CP x DP = 32 ranks of a stage that the expert layers fold into"
        );
        let wide = Moe {
            top_k: 300,
            ..deepseek()
        };
        assert_eq!(
            wide.check(61, 64, 128).unwrap_err().to_string(),
            "top-k 300 is more than the 256 experts"
        );
        let padded = Moe {
            capacity_factor: 0.5,
            ..deepseek()
        };
        assert!(padded.check(61, 64, 128).is_err());
        assert!(deepseek().check(3, 64, 128).is_err());
    }
}
