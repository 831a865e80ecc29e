//! A workload builder: from a transformer description and TP/PP/DP degrees, the layer list with
//! compute times and collective sizes (Megatron-style tensor parallelism), plus the communicators.
//!
//! One NPU holds `L / PP` transformer layers, each split `TP` ways, and trains on `m = global_batch /
//! (micro_batch * DP)` micro-batches per iteration. With `b` micro-batch, `s` sequence, `h` hidden,
//! `f` FFN size and `e` bytes per element, the forward FLOPs of one layer and micro-batch are
//! - attention: `8 b s h^2` (QKV and output projections) `+ 4 b s^2 h` (scores and weighted values)
//! - MLP: `4 b s h f`
//!
//! each divided by `TP`. The input-gradient pass costs the same as the forward pass; the weight-gradient
//! pass costs the projections' and MLP's share only (`8 b s h^2`, `4 b s h f`): attention scores have no
//! weights. A phase of `F` FLOPs takes `F / (peak_tflops * 1e12 * efficiency)` s.
//!
//! Pipeline (1F1B): the critical path of one iteration runs `m + PP - 1` micro-batch slots, the `m`
//! micro-batches and the bubble `(PP - 1)/m` of filling and draining the pipeline. Everything paid
//! per micro-batch on it is paid per slot: compute, the TP all-reduces and the stage-to-stage sends.
//! Interleaved 1F1B with `v` chunks per stage (Narayanan et al. 2021) runs `m + (PP - 1)/v` slots
//! (a part-slot pays a whole collective's latency) and sends `v` times per slot.
//!
//! Collectives (Megatron): the attention block and the MLP block each end their forward pass with a
//! TP all-reduce of the activations (`b s h e` bytes per micro-batch) and start their input-gradient
//! pass with one; the slots' all-reduces are one phase of `(m + PP - 1) b s h e` bytes issued as
//! `m + PP - 1` collectives (`Phase::count`: the latency term is paid per slot). The weight gradients of the layer's parameters on one NPU, `(4 h^2 + 4 h)/TP`
//! (attention) and `(2 h f + f + h)/TP` (MLP) elements, are all-reduced over DP once per iteration
//! ([`DpCollective::AllReduce`]), or reduce-scattered and the updated shards all-gathered
//! ([`DpCollective::ReduceScatterAllGather`], as ZeRO; the all-gather is a row `<layer>_allgather`).
//! With PP > 1 a row `pipeline_sendrecv` carries the point-to-point traffic between adjacent
//! stages: activations forward and their gradients backward, `s b h e` bytes per slot each way
//! (`Collective::SendRecv` over the PP groups; LIBRA's model has no point-to-point collective).
//!
//! Communicators: Forward and InputGrad use the TP groups, WeightGrad the DP groups, the pipeline
//! sends the PP groups ([`Parallelism::map_in_order`]: TP innermost, then PP, then DP, or PP
//! outermost).

use super::communicator::{
    Communicator, CommunicatorError, FoldedMapping, Groups, LayOrder, Parallelism,
};
use super::dtype::Dtype;
use super::mla::Mla;
use super::mlp::Mlp;
use super::moe::{Moe, MoeError};
use super::network::Network;
use super::scenario::WorkloadSpec;
use super::workload::{Collective, Layer, Over, Phase, Workload};
use serde::{Deserialize, Serialize};

/// How data-parallel gradients are synchronized.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DpCollective {
    /// All-reduced (ZeRO 0).
    #[default]
    AllReduce,
    /// Reduce-scattered, the updated shards all-gathered (ZeRO 1-2, Megatron's distributed
    /// optimizer): an all-reduce's bytes.
    ReduceScatterAllGather,
    /// ZeRO-3 / FSDP: reduce-scattered, and the weights all-gathered twice per iteration (for
    /// the forward and for the backward pass): 1.5 times an all-reduce's bytes, as the step
    /// model counts them.
    Zero3,
}

impl DpCollective {
    /// The collective of ZeRO stage `zero` (0-3), None above 3.
    pub fn of_zero(zero: u8) -> Option<DpCollective> {
        match zero {
            0 => Some(DpCollective::AllReduce),
            1 | 2 => Some(DpCollective::ReduceScatterAllGather),
            3 => Some(DpCollective::Zero3),
            _ => None,
        }
    }
}

/// A transformer and how it is trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transformer {
    pub name: String,
    pub layers: u32,
    pub hidden: u32,
    pub ffn: u32,
    pub heads: u32,
    pub seq_len: u32,
    pub micro_batch: u32,
    pub global_batch: u32,
    pub bytes_per_element: u32,
    /// Peak throughput of one NPU, TFLOP/s.
    pub peak_tflops: f64,
    /// Fraction of the peak achieved, in (0, 1].
    pub efficiency: f64,
    pub parallelism: Parallelism,
    #[serde(default)]
    pub dp_collective: DpCollective,
    /// How TP, PP and DP are laid onto the dimensions.
    #[serde(default)]
    pub order: LayOrder,
    /// Key-value heads (grouped-query attention); None: as many as the heads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_heads: Option<u32>,
    #[serde(default)]
    pub mlp: Mlp,
    /// Multi-head latent attention (DeepSeek); None: multi-head or grouped-query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mla: Option<Mla>,
    /// A mixture of experts; None: every MLP dense.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moe: Option<Moe>,
    /// Context parallelism: the sequence over `cp` ranks, laid just outside TP (the NPUs are
    /// TP x CP x PP x DP).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cp: u32,
    /// Expert parallelism, carved from a stage's TP x CP x DP ranks.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub ep: u32,
    /// Model chunks per pipeline stage: interleaved 1F1B when more than 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub virtual_stages: u32,
    /// The products' element type; FP8 dispatches the experts' tokens in one byte each (the
    /// compute follows it when a system times it).
    #[serde(default, skip_serializing_if = "is_bf16")]
    pub dtype: Dtype,
}

fn is_bf16(d: &Dtype) -> bool {
    *d == Dtype::Bf16
}

fn one() -> u32 {
    1
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

/// Why a transformer description cannot be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BuildError {
    #[error("{field} must be at least 1")]
    Zero { field: &'static str },
    #[error("{field} must be a positive finite number, got {}", crate::format::number(*.value))]
    BadNumber { field: &'static str, value: f64 },
    #[error("efficiency must be in (0, 1], got {}", crate::format::number(*.0))]
    BadEfficiency(f64),
    #[error("layers ({layers}) must be at least PP ({pp}), with a layer on the last stage")]
    LayersVsPp { layers: u32, pp: u32 },
    #[error("interleaving {v} chunks per stage needs PP > 1, at least a layer per chunk (the {layers} layers at least PP {pp} x {v}) and the {m} micro-batches a multiple of PP")]
    Interleave {
        v: u32,
        layers: u32,
        m: u32,
        pp: u32,
    },
    #[error("CP ({cp}) must divide the sequence ({seq_len})")]
    CpVsSeq { cp: u32, seq_len: u32 },
    #[error("heads ({heads}) must be a multiple of the key-value heads ({kv})")]
    HeadsVsKv { heads: u32, kv: u32 },
    #[error("the key-value heads ({kv}) must be a multiple of TP ({tp})")]
    KvVsTp { kv: u32, tp: u32 },
    #[error(transparent)]
    Moe(#[from] MoeError),
    #[error("heads ({heads}) must be a multiple of TP ({tp})")]
    HeadsVsTp { heads: u32, tp: u32 },
    #[error("hidden ({hidden}) must be a multiple of heads ({heads})")]
    HiddenVsHeads { hidden: u32, heads: u32 },
    #[error("global batch ({global}) must be a multiple of micro-batch x DP ({micro} x {dp})")]
    Batch { global: u32, micro: u32, dp: u32 },
    #[error(transparent)]
    Mapping(#[from] CommunicatorError),
}

impl Transformer {
    /// GPT-3 175B (Brown et al. 2020) as trained in LIBRA's example: TP 16, DP 256 on 4096 NPUs.
    pub fn gpt3() -> Transformer {
        Transformer {
            name: "GPT-3 175B".into(),
            layers: 96,
            hidden: 12288,
            ffn: 4 * 12288,
            heads: 96,
            seq_len: 2048,
            micro_batch: 1,
            global_batch: 1536,
            bytes_per_element: 2,
            peak_tflops: 312.0,
            efficiency: 0.5,
            parallelism: Parallelism {
                tp: 16,
                pp: 1,
                dp: 256,
            },
            dp_collective: DpCollective::AllReduce,
            order: LayOrder::TpPpDp,
            kv_heads: None,
            mlp: Mlp::Gelu,
            mla: None,
            moe: None,
            cp: 1,
            ep: 1,
            virtual_stages: 1,
            dtype: Dtype::Bf16,
        }
    }

    fn check(&self) -> Result<(), BuildError> {
        let counts = [
            ("layers", self.layers),
            ("hidden", self.hidden),
            ("ffn", self.ffn),
            ("heads", self.heads),
            ("seq_len", self.seq_len),
            ("micro_batch", self.micro_batch),
            ("global_batch", self.global_batch),
            ("bytes_per_element", self.bytes_per_element),
        ];
        if let Some((field, _)) = counts.iter().find(|(_, v)| *v == 0) {
            return Err(BuildError::Zero { field });
        }
        if !(self.peak_tflops.is_finite() && self.peak_tflops > 0.0) {
            return Err(BuildError::BadNumber {
                field: "peak_tflops",
                value: self.peak_tflops,
            });
        }
        if !(self.efficiency > 0.0 && self.efficiency <= 1.0) {
            return Err(BuildError::BadEfficiency(self.efficiency));
        }
        let Parallelism { tp, pp, dp } = self.parallelism;
        if tp == 0 || pp == 0 || dp == 0 || self.cp == 0 || self.ep == 0 || self.virtual_stages == 0
        {
            return Err(BuildError::Zero {
                field: "parallelism degree",
            });
        }
        // The busiest stage holds ceil(L / PP) layers; the last must keep one.
        if self.layers < pp || self.layers.div_ceil(pp) * (pp - 1) >= self.layers {
            return Err(BuildError::LayersVsPp {
                layers: self.layers,
                pp,
            });
        }
        if !self.seq_len.is_multiple_of(self.cp) {
            return Err(BuildError::CpVsSeq {
                cp: self.cp,
                seq_len: self.seq_len,
            });
        }
        let kv = self.kv_heads.unwrap_or(self.heads);
        if kv == 0 {
            return Err(BuildError::Zero { field: "kv_heads" });
        }
        if !self.heads.is_multiple_of(kv) {
            return Err(BuildError::HeadsVsKv {
                heads: self.heads,
                kv,
            });
        }
        if self.kv_heads.is_some() && !kv.is_multiple_of(tp) {
            return Err(BuildError::KvVsTp { kv, tp });
        }
        let fold = u64::from(tp) * u64::from(self.cp) * u64::from(dp);
        match &self.moe {
            Some(m) => m.check(self.layers, self.ep, fold)?,
            None if self.ep > 1 => return Err(MoeError::EpWithoutExperts { ep: self.ep }.into()),
            None => {}
        }
        if !self.heads.is_multiple_of(tp) {
            return Err(BuildError::HeadsVsTp {
                heads: self.heads,
                tp,
            });
        }
        if !self.hidden.is_multiple_of(self.heads) {
            return Err(BuildError::HiddenVsHeads {
                hidden: self.hidden,
                heads: self.heads,
            });
        }
        let per_step = u64::from(self.micro_batch) * u64::from(dp);
        if u64::from(self.global_batch) % per_step != 0 {
            return Err(BuildError::Batch {
                global: self.global_batch,
                micro: self.micro_batch,
                dp,
            });
        }
        let v = self.virtual_stages;
        if v > 1
            && (pp == 1
                || u64::from(self.layers) < u64::from(pp) * u64::from(v)
                || !self.micro_batches().is_multiple_of(pp))
        {
            return Err(BuildError::Interleave {
                v,
                layers: self.layers,
                m: self.micro_batches(),
                pp,
            });
        }
        Ok(())
    }

    /// The micro-batch slots on an iteration's critical path: the `m` micro-batches and the
    /// bubble, `(PP - 1) / v` slots with `v` chunks per stage (Narayanan et al. 2021).
    pub fn slots(&self) -> f64 {
        f64::from(self.micro_batches())
            + f64::from(self.parallelism.pp - 1) / f64::from(self.virtual_stages.max(1))
    }

    /// Micro-batches per iteration on one pipeline: `global_batch / (micro_batch * DP)`.
    pub fn micro_batches(&self) -> u32 {
        self.global_batch / (self.micro_batch * self.parallelism.dp)
    }

    /// Layers of the busiest pipeline stage: `ceil(L / PP)`.
    pub fn stage_layers(&self) -> u32 {
        self.layers.div_ceil(self.parallelism.pp.max(1))
    }

    /// The keys' (and values') width: `kv h / a`.
    fn kv_width(&self) -> f64 {
        f64::from(self.kv_heads.unwrap_or(self.heads)) * f64::from(self.hidden)
            / f64::from(self.heads)
    }

    /// The attention's weight matrices: `4 h^2` multi-head, `2 h^2 + 2 h k` grouped-query, MLA's
    /// low-rank projections ([`Mla::params`]).
    pub fn attention_params(&self) -> f64 {
        let h = f64::from(self.hidden);
        match &self.mla {
            Some(m) => m.params(h, f64::from(self.heads)),
            None => 2.0 * h * h + 2.0 * h * self.kv_width(),
        }
    }

    /// Half the attention core's forward FLOPs per token and position: `a (d_qk + d_v)` (`2 h`
    /// multi-head).
    pub fn core_width(&self) -> f64 {
        match &self.mla {
            Some(m) => f64::from(self.heads) * f64::from(m.qk_nope + m.qk_rope + m.v_head),
            None => 2.0 * f64::from(self.hidden),
        }
    }

    /// Keys and values per token that CP passes around its ring (before TP splits them).
    fn kv_exchange_width(&self) -> f64 {
        match &self.mla {
            Some(_) => self.core_width(),
            None => 2.0 * self.kv_width(),
        }
    }

    /// Dense and MoE layers of the busiest stage (as many MoE layers as a run of its layers
    /// holds).
    pub fn stage_kinds(&self) -> (u32, u32) {
        let q = self.stage_layers();
        let moe = self.moe.as_ref().map_or(0, |m| m.most_in(q, self.layers));
        (q - moe, moe)
    }

    /// Parameters one NPU of the busiest stage holds: its layers' dense weights over TP (and the
    /// embedding's), and its routed experts' over EP. GPT's: `12 h^2` a layer (no biases).
    pub fn stage_params(&self) -> (f64, f64) {
        let (h, f) = (f64::from(self.hidden), f64::from(self.ffn));
        let tp = f64::from(self.parallelism.tp);
        let (dense, moe) = self.stage_kinds();
        let mats = self.mlp.matrices();
        let (router_shared, routed) = self.moe.as_ref().map_or((0.0, 0.0), |m| {
            let expert = m.expert_params(h, mats);
            (
                h * f64::from(m.experts) + f64::from(m.shared_experts) * expert,
                f64::from(m.experts) * expert / f64::from(self.ep),
            )
        });
        let dense_layer = self.attention_params() + mats * h * f;
        let moe_layer = self.attention_params() + router_shared;
        (
            (f64::from(dense) * dense_layer + f64::from(moe) * moe_layer) / tp,
            f64::from(moe) * routed,
        )
    }

    /// The layer list of one NPU of the busiest pipeline stage and its communicators on `net`.
    ///
    /// With experts: a MoE layer's row `moe<l>` carries the router, the shared experts and the
    /// routed experts' compute (each rank computes `top_k x capacity` copies of its `b s / (CP
    /// TP)` tokens, the sequence's TP slice), its dispatch and combine all-to-alls over the EP
    /// groups (`copies x h x e` bytes each, forward and backward), and the dense part's weight
    /// gradients over DP x CP; `experts<l>` reduces the routed experts' gradients over the ranks
    /// that hold the same experts; `moe<l>_shared` the shared experts' TP all-reduces. With CP,
    /// `attention<l>_cp` all-gathers each rank's keys and values over the CP groups in the
    /// forward pass, and keys, values and their gradients in the backward pass.
    pub fn build(&self, net: &Network) -> Result<WorkloadSpec, BuildError> {
        self.check()?;
        let mapping = self
            .parallelism
            .map_folded(net, self.order, self.cp, self.ep)?;
        let f64_ = f64::from;
        let (b, s, h, f) = (
            f64_(self.micro_batch),
            f64_(self.seq_len),
            f64_(self.hidden),
            f64_(self.ffn),
        );
        let e = f64_(self.bytes_per_element);
        let tp = f64_(self.parallelism.tp);
        let cp = f64_(self.cp);
        let pp = self.parallelism.pp;
        // Tokens of one micro-batch each rank's products see.
        let tokens = b * s / cp;
        // 1F1B: the critical path runs m + PP - 1 micro-batch slots (the bubble (PP - 1)/m); every
        // per-micro-batch cost on it (compute, TP all-reduces, stage-to-stage sends) is paid per slot.
        let slots = self.slots();
        // Collectives per phase on the critical path (a part-slot of the bubble pays a whole
        // collective's latency).
        let slots_u = slots.ceil() as u32;
        let chunks = self.virtual_stages.max(1);
        // ns per FLOP of one micro-batch, times the slots.
        let ns = |flops: f64| flops / tp / (self.peak_tflops * 1e3 * self.efficiency) * slots;
        let activations = slots * tokens * h * e;
        let tp_coll = if self.parallelism.tp > 1 {
            Collective::AllReduce
        } else {
            Collective::None
        };
        let dp_on = mapping.dp_cp.iter().any(Option::is_some);
        let gelu = self.mlp == Mlp::Gelu;
        let attention = (
            "attention",
            2.0 * tokens * self.attention_params() + 2.0 * tokens * s * self.core_width(),
            2.0 * tokens * self.attention_params(),
            (self.attention_params() + if gelu { 4.0 * h } else { 0.0 }) / tp,
        );
        let mats = self.mlp.matrices();
        let dense_mlp = (
            "mlp",
            2.0 * tokens * mats * h * f,
            2.0 * tokens * mats * h * f,
            (mats * h * f + if gelu { f + h } else { 0.0 }) / tp,
        );
        let per_slot = |compute_ns: f64, c: Collective| Phase {
            compute_ns,
            collective: c,
            size_bytes: if c == Collective::None {
                0.0
            } else {
                activations
            },
            count: if c == Collective::None { 1 } else { slots_u },
            over: Over::Phase,
        };
        let none = Phase::new(0.0, Collective::None, 0.0);
        let mut layers = Vec::new();
        let (dense_layers, moe_layers) = self.stage_kinds();
        for l in 1..=dense_layers + moe_layers {
            let is_moe = l > dense_layers;
            let mut blocks = vec![attention];
            if !is_moe {
                blocks.push(dense_mlp);
            }
            for (block, fwd_flops, wg_flops, params) in blocks {
                let name = format!("{block}{l}");
                let row = Layer {
                    name: name.clone(),
                    reserved: -1,
                    forward: per_slot(ns(fwd_flops), tp_coll),
                    input_grad: per_slot(ns(fwd_flops), tp_coll),
                    weight_grad: none.clone(),
                    update_ns: 0.0,
                };
                layers.extend(self.gradients(
                    &mapping,
                    row,
                    ns(wg_flops),
                    params * e,
                    Over::Phase,
                    dp_on,
                ));
                if block == "attention" && self.cp > 1 {
                    // Each rank's keys and values around the CP ring: an all-gather of its chunk
                    // forward; keys, values and their gradients backward.
                    let chunk = slots * tokens * self.kv_exchange_width() / tp * e;
                    let ring = |bytes: f64| Phase {
                        count: slots_u,
                        ..Phase::new(0.0, Collective::AllGather, bytes).over(Over::Context)
                    };
                    layers.push(Layer {
                        name: format!("attention{l}_cp"),
                        reserved: -1,
                        forward: ring(chunk),
                        input_grad: ring(2.0 * chunk),
                        weight_grad: none.clone(),
                        update_ns: 0.0,
                    });
                }
            }
            if let (true, Some(m)) = (is_moe, &self.moe) {
                self.moe_rows(m, l, &mapping, &ns, &mut layers, (tokens, slots_u, dp_on));
            }
        }
        if pp > 1 {
            // Activations to the next stage in the forward pass, their gradients back in the
            // backward pass: s b h e / CP bytes per micro-batch slot each way, once per chunk.
            let send = Phase {
                compute_ns: 0.0,
                collective: Collective::SendRecv,
                size_bytes: f64_(chunks) * slots * tokens * h * e,
                count: chunks * slots_u,
                over: Over::Phase,
            };
            layers.push(Layer {
                name: "pipeline_sendrecv".into(),
                reserved: -1,
                forward: send.clone(),
                input_grad: send,
                weight_grad: none,
                update_ns: 0.0,
            });
        }
        let used = |g: &Groups| g.iter().any(Option::is_some);
        let or_empty = |g: Groups| if used(&g) { g } else { Vec::new() };
        Ok(WorkloadSpec {
            name: self.name.clone(),
            weight: 1.0,
            workload: Workload {
                parallelism: None,
                layers,
            },
            communicator: Communicator {
                forward: mapping.tp.clone(),
                input_grad: mapping.tp,
                weight_grad: mapping.dp_cp,
                pipeline: if pp > 1 { mapping.pp } else { Vec::new() },
                expert: match self.moe {
                    Some(_) => or_empty(mapping.ep),
                    None => Vec::new(),
                },
                expert_data: match self.moe {
                    Some(_) => or_empty(mapping.edp),
                    None => Vec::new(),
                },
                context: or_empty(mapping.cp),
            },
        })
    }

    /// `row` with its weight gradients (`grads` bytes, after `compute_ns`) reduced over `over`'s
    /// groups when `on`, and ZeRO's all-gather of the updated shards as a row after it.
    fn gradients(
        &self,
        mapping: &FoldedMapping,
        row: Layer,
        compute_ns: f64,
        grads: f64,
        over: Over,
        on: bool,
    ) -> Vec<Layer> {
        let (wg_coll, wg_bytes) = match (on, self.dp_collective) {
            (false, _) => (Collective::None, 0.0),
            (true, DpCollective::AllReduce) => (Collective::AllReduce, grads),
            (true, DpCollective::ReduceScatterAllGather | DpCollective::Zero3) => {
                (Collective::ReduceScatter, grads)
            }
        };
        let name = row.name.clone();
        let mut rows = vec![Layer {
            weight_grad: Phase::new(compute_ns, wg_coll, wg_bytes).over(over),
            ..row
        }];
        if on && self.dp_collective != DpCollective::AllReduce {
            // ZeRO-3 gathers the weights twice: two collectives of the shard's bytes.
            let gathers = match self.dp_collective {
                DpCollective::Zero3 => 2,
                _ => 1,
            };
            let group: u32 = match over {
                Over::ExpertData => mapping.edp.iter().flatten().product(),
                _ => mapping.dp_cp.iter().flatten().product(),
            };
            rows.push(Layer {
                name: format!("{name}_allgather"),
                reserved: -1,
                forward: Phase::new(0.0, Collective::None, 0.0),
                input_grad: Phase::new(0.0, Collective::None, 0.0),
                weight_grad: Phase {
                    count: gathers,
                    ..Phase::new(
                        0.0,
                        Collective::AllGather,
                        f64::from(gathers) * grads / f64::from(group),
                    )
                    .over(over)
                },
                update_ns: 0.0,
            });
        }
        rows
    }

    /// A MoE layer's rows (see [`Transformer::build`]).
    #[allow(clippy::too_many_arguments)]
    fn moe_rows(
        &self,
        m: &Moe,
        l: u32,
        mapping: &FoldedMapping,
        ns: &dyn Fn(f64) -> f64,
        layers: &mut Vec<Layer>,
        (tokens, slots_u, dp_on): (f64, u32, bool),
    ) {
        let h = f64::from(self.hidden);
        let e = f64::from(self.bytes_per_element);
        let tp = f64::from(self.parallelism.tp);
        let slots = f64::from(slots_u);
        let mats = self.mlp.matrices();
        let expert = m.expert_params(h, mats);
        let shared = f64::from(m.shared_experts) * expert;
        let router = h * f64::from(m.experts);
        // Per rank: the router and the shared experts on its tokens (split over TP), the routed
        // copies of its TP slice through whole experts (`x tp`: `ns` divides by TP).
        let copies = tokens / tp * f64::from(m.top_k) * m.capacity_factor;
        let routed = 2.0 * copies * expert * tp;
        let dense = 2.0 * tokens * (router + shared);
        // Dispatch and combine, each `copies h e` bytes per slot; FP8 dispatches in one byte
        // per element in the forward pass (DeepSeek-V3; the step model's count).
        let a2a = |dispatch_e: f64| match self.ep > 1 {
            true => Phase {
                count: 2 * slots_u,
                ..Phase::new(
                    0.0,
                    Collective::AllToAll,
                    slots * copies * h * (dispatch_e + e),
                )
                .over(Over::Expert)
            },
            false => Phase::new(0.0, Collective::None, 0.0),
        };
        let forward_dispatch_e = match self.dtype {
            Dtype::Fp8 => 1.0,
            Dtype::Bf16 => e,
        };
        let name = format!("moe{l}");
        let row = Layer {
            name: name.clone(),
            reserved: -1,
            forward: Phase {
                compute_ns: ns(dense + routed),
                ..a2a(forward_dispatch_e)
            },
            input_grad: Phase {
                compute_ns: ns(dense + routed),
                ..a2a(e)
            },
            weight_grad: Phase::new(0.0, Collective::None, 0.0),
            update_ns: 0.0,
        };
        let dense_grads = (router + shared) / tp * e;
        layers.extend(self.gradients(
            mapping,
            row,
            ns(dense + routed),
            dense_grads,
            Over::Phase,
            dp_on,
        ));
        if m.shared_experts > 0 && self.parallelism.tp > 1 {
            let ar = Phase {
                count: slots_u,
                ..Phase::new(0.0, Collective::AllReduce, slots * tokens * h * e)
            };
            layers.push(Layer {
                name: format!("moe{l}_shared"),
                reserved: -1,
                forward: ar.clone(),
                input_grad: ar,
                weight_grad: Phase::new(0.0, Collective::None, 0.0),
                update_ns: 0.0,
            });
        }
        let edp_on = mapping.edp.iter().any(Option::is_some);
        let routed_grads = f64::from(m.experts) / f64::from(self.ep) * expert * e;
        let name = format!("experts{l}");
        let row = Layer {
            name: name.clone(),
            reserved: -1,
            forward: Phase::new(0.0, Collective::None, 0.0),
            input_grad: Phase::new(0.0, Collective::None, 0.0),
            weight_grad: Phase::new(0.0, Collective::None, 0.0),
            update_ns: 0.0,
        };
        layers.extend(self.gradients(mapping, row, 0.0, routed_grads, Over::ExpertData, edp_on));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::collective::message_sizes;
    use crate::model::PhaseKind;
    use crate::presets;

    #[test]
    fn gpt3_on_the_4d_network_has_libras_structure() {
        let net = presets::libra_4d_network();
        let spec = Transformer::gpt3().build(&net).unwrap();
        spec.communicator.validate(&net).unwrap();
        // The communicators of LIBRA's GPT_3_4d.yml.
        assert_eq!(
            spec.communicator.libra_vector(PhaseKind::Forward),
            vec![4, 4, -1, -1]
        );
        assert_eq!(
            spec.communicator.libra_vector(PhaseKind::WeightGrad),
            vec![-1, 2, 4, 32]
        );
        let w = &spec.workload;
        assert_eq!(w.layers.len(), 2 * 96);
        let attn = &w.layers[0];
        // m = 1536 / (1 * 256) = 6 micro-batches; activations 6 * 1 * 2048 * 12288 * 2 bytes.
        assert_eq!(attn.forward.size_bytes, 6.0 * 2048.0 * 12288.0 * 2.0);
        assert_eq!(attn.forward.collective, Collective::AllReduce);
        // Attention weights per TP rank: (4 h^2 + 4 h) / 16 elements of 2 bytes.
        let h = 12288.0;
        assert_eq!(
            attn.weight_grad.size_bytes,
            (4.0 * h * h + 4.0 * h) / 16.0 * 2.0
        );
        // Forward compute: (8 b s h^2 + 4 b s^2 h) / 16 FLOPs at 156 TFLOP/s, times 6 micro-batches.
        let flops = (8.0 * 2048.0 * h * h + 4.0 * 2048.0 * 2048.0 * h) / 16.0;
        let expected = flops / 156e3 * 6.0;
        assert!((attn.forward.compute_ns - expected).abs() < 1e-6 * expected);
        w.validate().unwrap();
    }

    #[test]
    fn zero_style_reduce_scatter_plus_all_gather_moves_the_bytes_of_an_all_reduce() {
        let net = presets::libra_4d_network();
        let mut t = Transformer::gpt3();
        let ar = t.build(&net).unwrap();
        t.dp_collective = DpCollective::ReduceScatterAllGather;
        let rs = t.build(&net).unwrap();
        assert_eq!(rs.workload.layers.len(), 4 * 96);
        let g = &rs.communicator.weight_grad;
        let bytes = |spec: &WorkloadSpec| -> Vec<f64> {
            let mut total = vec![0.0; 4];
            for l in &spec.workload.layers {
                let p = &l.weight_grad;
                for (t, m) in total
                    .iter_mut()
                    .zip(message_sizes(p.collective, p.size_bytes, g))
                {
                    *t += m;
                }
            }
            total
        };
        for (a, b) in bytes(&ar).iter().zip(bytes(&rs)) {
            assert!((a - b).abs() <= 1e-9 * a.max(1.0), "{a} vs {b}");
        }
        // ZeRO-3 gathers the weights twice: 1.5 times an all-reduce's bytes on every dimension
        // (the step model's count), in two gathers per layer.
        t.dp_collective = DpCollective::Zero3;
        let z3 = t.build(&net).unwrap();
        for (a, b) in bytes(&ar).iter().zip(bytes(&z3)) {
            assert!((1.5 * a - b).abs() <= 1e-9 * a.max(1.0), "{a} vs {b}");
        }
        let gather = &z3.workload.layers[1].weight_grad;
        assert_eq!(
            (gather.collective, gather.count),
            (Collective::AllGather, 2)
        );
        assert_eq!(
            DpCollective::of_zero(2),
            Some(DpCollective::ReduceScatterAllGather)
        );
        assert_eq!(DpCollective::of_zero(4), None);
    }

    #[test]
    fn bad_descriptions_are_named() {
        let net = presets::libra_4d_network();
        let mut t = Transformer::gpt3();
        t.heads = 100;
        assert_eq!(
            t.build(&net),
            Err(BuildError::HeadsVsTp { heads: 100, tp: 16 })
        );
        let mut t = Transformer::gpt3();
        t.efficiency = 1.5;
        assert_eq!(t.build(&net), Err(BuildError::BadEfficiency(1.5)));
        let mut t = Transformer::gpt3();
        t.global_batch = 1000;
        assert!(matches!(t.build(&net), Err(BuildError::Batch { .. })));
        let mut t = Transformer::gpt3();
        t.parallelism.dp = 128;
        assert!(matches!(t.build(&net), Err(BuildError::Mapping(_))));
        let mut t = Transformer::gpt3();
        t.seq_len = 0;
        assert_eq!(t.build(&net), Err(BuildError::Zero { field: "seq_len" }));
    }

    /// GPT-3 with TP 16 x PP 4 x DP 64 (24 layers a stage, 24 micro-batches).
    fn gpt3_on_4_stages() -> Transformer {
        Transformer {
            parallelism: Parallelism {
                tp: 16,
                pp: 4,
                dp: 64,
            },
            ..Transformer::gpt3()
        }
    }

    #[test]
    fn pipeline_bubble_stretches_compute() {
        let net = presets::libra_4d_network();
        let t = gpt3_on_4_stages();
        let spec = t.build(&net).unwrap();
        // 24 layers of attention and MLP, and the stage-to-stage sends.
        assert_eq!(spec.workload.layers.len(), 2 * 24 + 1);
        // m = 1536 / 64 = 24 micro-batches, bubble (24 + 3) / 24.
        let base = Transformer::gpt3().build(&net).unwrap();
        let ratio =
            spec.workload.layers[0].forward.compute_ns / base.workload.layers[0].forward.compute_ns;
        assert!(
            (ratio - (24.0 / 6.0) * (27.0 / 24.0)).abs() < 1e-12,
            "{ratio}"
        );
        // The TP all-reduces are paid per slot too: 27 of b s h e bytes each.
        let attn = &spec.workload.layers[0].forward;
        assert_eq!(attn.count, 27);
        assert_eq!(attn.size_bytes, 27.0 * 2048.0 * 12288.0 * 2.0);
    }

    #[test]
    fn interleaving_shrinks_the_bubble_and_multiplies_the_sends() {
        let net = presets::libra_4d_network();
        let mut t = gpt3_on_4_stages();
        let plain = t.build(&net).unwrap();
        t.virtual_stages = 2;
        let two = t.build(&net).unwrap();
        // m = 24: 27 slots plain, 24 + 3/2 = 25.5 interleaved.
        let ratio =
            two.workload.layers[0].forward.compute_ns / plain.workload.layers[0].forward.compute_ns;
        assert!((ratio - 25.5 / 27.0).abs() < 1e-12, "{ratio}");
        // The TP all-reduces: 25.5 micro-batches' bytes in 26 collectives.
        let attn = &two.workload.layers[0].forward;
        assert_eq!(attn.count, 26);
        assert_eq!(attn.size_bytes, 25.5 * 2048.0 * 12288.0 * 2.0);
        // Each chunk sends: twice the stage-to-stage bytes of its slots, 2 x 26 sends.
        let sends = two.workload.layers.last().unwrap();
        assert_eq!(
            sends.forward.size_bytes,
            2.0 * 25.5 * 2048.0 * 12288.0 * 2.0
        );
        assert_eq!(sends.forward.count, 52);
        // More chunks than layers per stage, one stage, or micro-batches not a multiple of PP:
        // refused by name.
        t.virtual_stages = 25;
        assert!(matches!(
            t.build(&net),
            Err(BuildError::Interleave {
                v: 25,
                layers: 96,
                m: 24,
                pp: 4
            })
        ));
        t.virtual_stages = 2;
        t.global_batch = 1536 + 64 * 2;
        assert!(matches!(
            t.build(&net),
            Err(BuildError::Interleave { m: 26, .. })
        ));
        // The first stage keeps 1 + 3/8 times the activations (Korthikanti et al.).
        use crate::model::memory::{memory_per_npu, MemoryOptions};
        t.global_batch = 1536;
        let opts = MemoryOptions::default();
        let a2 = memory_per_npu(&t, &opts).activations_bytes;
        t.virtual_stages = 1;
        let a1 = memory_per_npu(&t, &opts).activations_bytes;
        assert!((a2 / a1 - 1.375).abs() < 1e-12);
    }

    #[test]
    fn pipeline_stages_send_activations_and_gradients_over_the_pp_dimensions() {
        use crate::model::training::{iteration_time, ModelOptions};
        let net = presets::libra_4d_network();
        let t = gpt3_on_4_stages();
        let spec = t.build(&net).unwrap();
        // TP 16 = Ring 4 x 4 of FC 8; PP 4 = the FC's other 2 x 2 of the ring of nodes; DP the rest.
        let c = &spec.communicator;
        assert_eq!(c.forward, vec![Some(4), Some(4), None, None]);
        assert_eq!(c.pipeline, vec![None, Some(2), Some(2), None]);
        assert_eq!(c.weight_grad, vec![None, None, Some(2), Some(32)]);
        let sends = spec.workload.layers.last().unwrap();
        assert_eq!(sends.name, "pipeline_sendrecv");
        // s b h e = 2048 x 1 x 12288 x 2 bytes per slot, 24 + 4 - 1 = 27 slots, each way.
        let bytes = 27.0 * 2048.0 * 12288.0 * 2.0;
        for p in [&sends.forward, &sends.input_grad] {
            assert_eq!(
                (p.collective, p.size_bytes, p.count),
                (Collective::SendRecv, bytes, 27)
            );
        }
        assert_eq!(sends.weight_grad.collective, Collective::None);
        // Its time (no latency): twice the bytes over the slower of the pipeline's dimensions.
        let bw = [400.0, 100.0, 50.0, 25.0];
        let opts = ModelOptions::default();
        let with = iteration_time(&net, &spec.workload, c, &bw, &opts).unwrap();
        let mut without = spec.workload.clone();
        without.layers.pop();
        let without = iteration_time(&net, &without, c, &bw, &opts).unwrap();
        let expected = 2.0 * bytes / 50.0;
        assert!(
            (with.time_ns - without.time_ns - expected).abs() < 1e-6 * expected,
            "{} vs {expected}",
            with.time_ns - without.time_ns
        );
        // With latency, every slot pays one step on the slowest dimension: 27 x 2 sends.
        let opts = ModelOptions {
            latency: true,
            ..ModelOptions::default()
        };
        let fast = [1e12; 4];
        let lat = iteration_time(&net, &spec.workload, c, &fast, &opts).unwrap();
        let mut quiet = spec.workload.clone();
        quiet.layers.pop();
        let quiet = iteration_time(&net, &quiet, c, &fast, &opts).unwrap();
        let alpha = net.dims[2].latency_ns.max(net.dims[1].latency_ns);
        assert!(alpha > 0.0);
        let expected = 2.0 * 27.0 * alpha;
        assert!(
            (lat.time_ns - quiet.time_ns - expected).abs() < 1e-2,
            "{} vs {expected}",
            lat.time_ns - quiet.time_ns
        );
    }

    #[test]
    fn without_pipeline_the_builder_is_unchanged_in_libra_compatible_mode() {
        // PP 1: m slots, as before; the latency count changes nothing without latency.
        let net = presets::libra_4d_network();
        let spec = Transformer::gpt3().build(&net).unwrap();
        assert!(spec.communicator.pipeline.is_empty());
        assert_eq!(spec.workload.layers.len(), 2 * 96);
        assert_eq!(spec.workload.layers[0].forward.count, 6);
    }

    fn two_level(inner: u32, outer: u32) -> Network {
        Network::switches(&[inner, outer], "InterPod")
    }

    fn mixtral(ep: u32) -> Transformer {
        Transformer {
            name: "Mixtral 8x7B".into(),
            layers: 32,
            hidden: 4096,
            ffn: 14_336,
            heads: 32,
            kv_heads: Some(8),
            mlp: Mlp::Swiglu,
            seq_len: 4096,
            global_batch: 256,
            moe: Some(Moe {
                experts: 8,
                top_k: 2,
                shared_experts: 0,
                expert_ffn: 14_336,
                first_dense: 0,
                every: 1,
                capacity_factor: 1.0,
                node_limit: None,
            }),
            ep,
            parallelism: Parallelism {
                tp: 1,
                pp: 4,
                dp: 16,
            },
            ..Transformer::gpt3()
        }
    }

    #[test]
    fn a_mixture_of_experts_sends_its_tokens_over_the_expert_groups_by_hand() {
        // 64 NPUs as 8 x 8, PP 4 laid on the first dimension (TP 1): DP 16 is 2 of the first
        // dimension and the 8 of the second; EP 8 carves the 2 and 4 of the 8.
        let net = two_level(8, 8);
        let spec = mixtral(8).build(&net).unwrap();
        spec.communicator.validate(&net).unwrap();
        assert_eq!(spec.communicator.expert, vec![Some(2), Some(4)]);
        // Each expert is held by 16 / 8 = 2 ranks.
        assert_eq!(spec.communicator.expert_data, vec![None, Some(2)]);
        assert_eq!(spec.communicator.weight_grad, vec![Some(2), Some(8)]);
        // 8 layers a stage, each attention, moe and experts, and the sends.
        let w = &spec.workload;
        assert_eq!(w.layers.len(), 8 * 3 + 1);
        let moe = &w.layers[1];
        assert_eq!(moe.name, "moe1");
        // m = 256 / 16 = 16 micro-batches, 19 slots; a dispatch and a combine of 4,096 tokens x
        // top 2 x 4,096 x 2 bytes each, per slot.
        assert_eq!(moe.forward.collective, Collective::AllToAll);
        assert_eq!(moe.forward.over, Over::Expert);
        assert_eq!(
            moe.forward.size_bytes,
            19.0 * 2.0 * 4096.0 * 2.0 * 4096.0 * 2.0
        );
        assert_eq!(moe.forward.count, 2 * 19);
        // FP8 dispatches in one byte per element, forward only; the combine and the backward
        // pass stay in two.
        let fp8 = Transformer {
            dtype: Dtype::Fp8,
            ..mixtral(8)
        }
        .build(&net)
        .unwrap();
        let f = &fp8.workload.layers[1];
        assert_eq!(
            f.forward.size_bytes,
            19.0 * 4096.0 * 2.0 * 4096.0 * (1.0 + 2.0)
        );
        assert_eq!(f.input_grad.size_bytes, moe.input_grad.size_bytes);
        // The routed experts' compute: 2 x copies x 3 h f FLOPs (TP 1), at 156 TFLOP/s.
        let router = 2.0 * 4096.0 * 4096.0 * 8.0;
        let routed = 2.0 * (4096.0 * 2.0) * 3.0 * 4096.0 * 14_336.0;
        let want = (router + routed) / 156e3 * 19.0;
        assert!((moe.forward.compute_ns / want - 1.0).abs() < 1e-12);
        // The experts' gradients: 8 / 8 = 1 expert's 3 h f weights over the 2 ranks that hold it.
        let experts = &w.layers[2];
        assert_eq!(experts.weight_grad.over, Over::ExpertData);
        assert_eq!(
            experts.weight_grad.size_bytes,
            3.0 * 4096.0 * 14_336.0 * 2.0
        );
        // LIBRA's All-to-All on the two dimensions: m (g - 1) / g on each.
        let msg = crate::model::collective::message_sizes(
            Collective::AllToAll,
            moe.forward.size_bytes,
            &spec.communicator.expert,
        );
        assert_eq!(
            msg,
            vec![moe.forward.size_bytes / 2.0, moe.forward.size_bytes * 0.75]
        );
        // Without EP there is no all-to-all and each rank holds all 8 experts.
        let alone = mixtral(1).build(&net).unwrap();
        assert_eq!(
            alone.workload.layers[1].forward.collective,
            Collective::None
        );
        assert!(alone.communicator.expert.is_empty());
        let (_, one) = mixtral(1).stage_params();
        let (_, eight) = mixtral(8).stage_params();
        assert_eq!(one, 8.0 * eight);
        // The scenario evaluates and the optimizer certifies it.
        let sc = crate::model::Scenario {
            network: net,
            workloads: vec![spec],
            ..crate::presets::default_scenario()
        };
        let mut sc = sc;
        sc.costs = crate::presets::LibraNetwork::D4.cost_model();
        sc.constraints = Default::default();
        sc.constraints.budget_usd = Some(1e7);
        sc.validate().unwrap();
        let problem = crate::optimize::compile(&sc).unwrap();
        let solved = crate::optimize::solve(&problem, &Default::default()).unwrap();
        assert!(solved.gap <= 1e-6, "{solved:?}");
    }

    #[test]
    fn context_parallelism_passes_keys_and_values_over_the_context_groups() {
        let net = two_level(8, 8);
        let t = Transformer {
            name: "Llama 3 8B, 32K".into(),
            layers: 32,
            hidden: 4096,
            ffn: 14_336,
            heads: 32,
            kv_heads: Some(8),
            mlp: Mlp::Swiglu,
            seq_len: 32_768,
            global_batch: 64,
            cp: 4,
            parallelism: Parallelism {
                tp: 2,
                pp: 1,
                dp: 8,
            },
            ..Transformer::gpt3()
        };
        let spec = t.build(&net).unwrap();
        spec.communicator.validate(&net).unwrap();
        // TP 2 and CP 4 fill the first dimension; DP 8 the second; gradients over DP x CP.
        assert_eq!(spec.communicator.forward, vec![Some(2), None]);
        assert_eq!(spec.communicator.context, vec![Some(4), None]);
        assert_eq!(spec.communicator.weight_grad, vec![Some(4), Some(8)]);
        let cp = &spec.workload.layers[1];
        assert_eq!(cp.name, "attention1_cp");
        assert_eq!(
            (cp.forward.collective, cp.forward.over),
            (Collective::AllGather, Over::Context)
        );
        // m = 64 / 8 = 8 slots; each rank's 8,192 tokens' keys and values (2 x 1,024 wide) over
        // TP 2, 2 bytes; twice that backward.
        let chunk = 8.0 * 8192.0 * 2048.0 / 2.0 * 2.0;
        assert_eq!(cp.forward.size_bytes, chunk);
        assert_eq!(cp.input_grad.size_bytes, 2.0 * chunk);
        // The TP all-reduces carry the rank's quarter of the sequence.
        assert_eq!(
            spec.workload.layers[0].forward.size_bytes,
            8.0 * 8192.0 * 4096.0 * 2.0
        );
        let bad = Transformer { seq_len: 1002, ..t };
        assert_eq!(
            bad.build(&net).map(|_| ()).unwrap_err().to_string(),
            "CP (4) must divide the sequence (1002)"
        );
    }
}
