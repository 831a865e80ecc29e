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

use super::communicator::{Communicator, CommunicatorError, LayOrder, Parallelism};
use super::network::Network;
use super::scenario::WorkloadSpec;
use super::workload::{Collective, Layer, Phase, Workload};
use serde::{Deserialize, Serialize};

/// How data-parallel gradients are synchronized.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DpCollective {
    #[default]
    AllReduce,
    ReduceScatterAllGather,
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
    #[error("layers ({layers}) must be a multiple of PP ({pp})")]
    LayersVsPp { layers: u32, pp: u32 },
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
        if tp == 0 || pp == 0 || dp == 0 {
            return Err(BuildError::Zero {
                field: "parallelism degree",
            });
        }
        if !self.layers.is_multiple_of(pp) {
            return Err(BuildError::LayersVsPp {
                layers: self.layers,
                pp,
            });
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
        Ok(())
    }

    /// Micro-batches per iteration on one pipeline: `global_batch / (micro_batch * DP)`.
    pub fn micro_batches(&self) -> u32 {
        self.global_batch / (self.micro_batch * self.parallelism.dp)
    }

    /// The layer list of one NPU and its communicators on `net`.
    pub fn build(&self, net: &Network) -> Result<WorkloadSpec, BuildError> {
        self.check()?;
        let mapping = self.parallelism.map_in_order(net, self.order)?;
        let f64_ = f64::from;
        let (b, s, h, f) = (
            f64_(self.micro_batch),
            f64_(self.seq_len),
            f64_(self.hidden),
            f64_(self.ffn),
        );
        let e = f64_(self.bytes_per_element);
        let tp = f64_(self.parallelism.tp);
        let pp = self.parallelism.pp;
        // 1F1B: the critical path runs m + PP - 1 micro-batch slots (the bubble (PP - 1)/m); every
        // per-micro-batch cost on it (compute, TP all-reduces, stage-to-stage sends) is paid per slot.
        let slots_u = self.micro_batches() + pp - 1;
        let slots = f64_(slots_u);
        // ns per FLOP of one micro-batch, times the slots.
        let ns = |flops: f64| flops / tp / (self.peak_tflops * 1e3 * self.efficiency) * slots;
        let activations = slots * b * s * h * e;
        let tp_coll = if self.parallelism.tp > 1 {
            Collective::AllReduce
        } else {
            Collective::None
        };
        let dp_on = self.parallelism.dp > 1;
        let blocks = [
            (
                "attention",
                8.0 * b * s * h * h + 4.0 * b * s * s * h,
                8.0 * b * s * h * h,
                (4.0 * h * h + 4.0 * h) / tp,
            ),
            (
                "mlp",
                4.0 * b * s * h * f,
                4.0 * b * s * h * f,
                (2.0 * h * f + f + h) / tp,
            ),
        ];
        let per_slot = |compute_ns: f64, c: Collective| Phase {
            compute_ns,
            collective: c,
            size_bytes: if c == Collective::None {
                0.0
            } else {
                activations
            },
            count: if c == Collective::None { 1 } else { slots_u },
        };
        let none = Phase::new(0.0, Collective::None, 0.0);
        let mut layers = Vec::new();
        for l in 1..=self.layers / pp {
            for (block, fwd_flops, wg_flops, params) in blocks {
                let grads = params * e;
                let (wg_coll, wg_bytes) = match (dp_on, self.dp_collective) {
                    (false, _) => (Collective::None, 0.0),
                    (true, DpCollective::AllReduce) => (Collective::AllReduce, grads),
                    (true, DpCollective::ReduceScatterAllGather) => {
                        (Collective::ReduceScatter, grads)
                    }
                };
                layers.push(Layer {
                    name: format!("{block}{l}"),
                    reserved: -1,
                    forward: per_slot(ns(fwd_flops), tp_coll),
                    input_grad: per_slot(ns(fwd_flops), tp_coll),
                    weight_grad: Phase::new(ns(wg_flops), wg_coll, wg_bytes),
                    update_ns: 0.0,
                });
                if dp_on && self.dp_collective == DpCollective::ReduceScatterAllGather {
                    layers.push(Layer {
                        name: format!("{block}{l}_allgather"),
                        reserved: -1,
                        forward: none.clone(),
                        input_grad: none.clone(),
                        weight_grad: Phase::new(
                            0.0,
                            Collective::AllGather,
                            grads / f64_(self.parallelism.dp),
                        ),
                        update_ns: 0.0,
                    });
                }
            }
        }
        if pp > 1 {
            // Activations to the next stage in the forward pass, their gradients back in the
            // backward pass: s b h e bytes per micro-batch slot each way.
            let send = Phase {
                compute_ns: 0.0,
                collective: Collective::SendRecv,
                size_bytes: slots * s * b * h * e,
                count: slots_u,
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
                weight_grad: mapping.dp,
                pipeline: if pp > 1 { mapping.pp } else { Vec::new() },
            },
        })
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

    #[test]
    fn pipeline_bubble_stretches_compute() {
        let net = presets::libra_4d_network();
        let mut t = Transformer::gpt3();
        t.parallelism = Parallelism {
            tp: 16,
            pp: 4,
            dp: 64,
        };
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
    fn pipeline_stages_send_activations_and_gradients_over_the_pp_dimensions() {
        use crate::model::training::{iteration_time, ModelOptions};
        let net = presets::libra_4d_network();
        let mut t = Transformer::gpt3();
        t.parallelism = Parallelism {
            tp: 16,
            pp: 4,
            dp: 64,
        };
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
}
