//! The time of one training iteration of a Megatron-style GPT on a system, by the shape of its
//! work (docs/predict.md has the formulas and their sources). With `b` micro-batch, `s` sequence,
//! `h` hidden, `a` heads, `t` TP, `p` PP, `d` DP, `m = G / (b d)` micro-batches and `V` the padded
//! vocabulary:
//!
//! - Each matrix multiplication of `(M x K) (K x N)` (`batch` of them) takes
//!   `max(2 M N K / (peak x gemm), 2 (M K + K N + M N) / (HBM x memory)) + kernel`: compute-bound
//!   when large, memory-bound when thin (the attention scores' `K = h / a`).
//! - A layer's forward pass: QKV, projection and the two MLP products per TP shard, the attention
//!   core's two batched products, and the memory-bound kernels at HBM speed: `11 b s h` elements
//!   replicated over TP (two layer norms, two bias-dropout-adds), `10 b s h / t` sharded (bias and
//!   GeLU), `4.5 b (a/t) s^2` in the attention core (softmax, dropout and its mask), 2 bytes each.
//!   The backward pass costs twice the forward; recomputation adds the forward again (full) or the
//!   attention core (selective).
//! - TP all-reduces of `b s h` 2-byte elements: 2 in the forward pass, 2 in the backward, 2 more
//!   in a full recomputation; on the scale-up tier, or hierarchically (reduce-scatter in the node,
//!   all-reduce across, all-gather) when TP is wider than a node. A ring all-reduce of `S` bytes
//!   over `n` takes `latency + 2 (n - 1) / n S / (bandwidth x efficiency)`.
//! - A layer of a micro-batch takes `max(GPU work + TP all-reduces, host time per layer)`: with
//!   small work per kernel the GPU waits for the host to issue it.
//! - The last stage adds the logits (`3` products of `b s x h x V/t`, 20 bytes per logit in the
//!   fp32 cross entropy). 1F1B: `m` slots of the slowest stage and `p - 1` of an average one (the
//!   bubble: filling and draining pass each stage once), each with its pipeline
//!   send and receive (`b s h / t` 2-byte elements each way, scattered over TP; on the scale-out
//!   tier when `t d` fills a node).
//! - After the flush (unless overlapped; the measured runs do not overlap it): the DP all-reduce
//!   of the 2-byte gradients (in-node part, then across nodes), and the Adam step at HBM speed
//!   (32 bytes per parameter: fp32 master weights, two moments, fp16 weights and gradients read
//!   and written). Overlapped, only what outlasts the last micro-batch's backward pass shows, and
//!   at least the last layer's share.
//! - Interleaved 1F1B with `v` chunks per stage: `v` times the sends, `(p - 1) / v` bubble slots.

use super::run::{Mlp, Recompute, TrainingRun};
use super::system::{System, Tier};
use serde::Serialize;

/// Where the time of an iteration goes (ns).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Breakdown {
    /// The layers' matrix products and memory-bound kernels (forward, recomputation, backward)
    /// of every micro-batch on the slowest stage.
    pub layers_ns: f64,
    /// The output layer and its cross entropy.
    pub logits_ns: f64,
    /// Time the GPU waits for the host to issue small layers.
    pub host_wait_ns: f64,
    pub tp_comm_ns: f64,
    pub pipeline_p2p_ns: f64,
    /// Filling and draining the pipeline: `p - 1` slots.
    pub pipeline_bubble_ns: f64,
    pub dp_comm_ns: f64,
    pub optimizer_ns: f64,
}

/// The predicted iteration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// One iteration.
    pub time_ns: f64,
    /// Layers, logits and optimizer.
    pub compute_ns: f64,
    /// TP, pipeline and DP communication (none of it overlapped with compute).
    pub exposed_comm_ns: f64,
    /// Model FLOPs (without recomputation) per NPU and second, TFLOP/s.
    pub tflops_per_npu: f64,
    /// Model FLOPs utilisation: `tflops_per_npu` over the accelerator's dense BF16 peak.
    pub mfu: f64,
    /// Memory per NPU of the first pipeline stage (weights, gradients, Adam states, activations),
    /// GB.
    pub memory_gb: f64,
    /// Whether that fits the accelerator's HBM.
    pub fits: bool,
    pub breakdown: Breakdown,
}

/// A ring all-reduce of `bytes` over `n` members of `tier`, s.
fn all_reduce(tier: &Tier, n: f64, bytes: f64) -> f64 {
    if n <= 1.0 {
        return 0.0;
    }
    tier.latency_us * 1e-6 + 2.0 * (n - 1.0) / n * bytes / tier.bytes_per_s()
}

/// An all-reduce over `n1` members inside each scale-up domain and `n2` domains: the in-domain
/// reduce-scatter and all-gather, and the all-reduce of a `1 / n1` share across.
fn hierarchical(system: &System, n1: f64, n2: f64, bytes: f64) -> f64 {
    all_reduce(&system.scale_up, n1, bytes) + all_reduce(&system.scale_out, n2, bytes / n1)
}

/// Model FLOPs of one iteration without recomputation: three times the forward pass's
/// `2 G s (L (4 h^2 + 2 h f) + 2 L s h + V h)` (for `f = 4 h`, Narayanan et al. 2021's eq. 3
/// without its recomputation pass: `72 G s L h^2 (1 + s / (6 h) + V / (12 L h))`).
///
/// With grouped-query attention and SwiGLU the layer's weights are `2 h^2 + 2 h k + 3 h f`
/// ([`TrainingRun::layer_matrix_params`]; `k` the key width): `6 G s (L (P + 2 s h) + V h)`.
pub fn model_flops(run: &TrainingRun) -> f64 {
    let (g, s, l, h) = (
        f64::from(run.global_batch),
        f64::from(run.seq_len),
        f64::from(run.layers),
        f64::from(run.hidden),
    );
    let v = f64::from(run.vocab);
    6.0 * g * s * (l * run.layer_matrix_params() + 2.0 * l * s * h + v * h)
}

/// The GPU time of one block of one layer and micro-batch, by phase (s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct BlockTimes {
    pub forward: f64,
    /// The input gradients, with the recomputation that precedes them.
    pub input_grad: f64,
    /// The weight gradients (the weight matrices' second product).
    pub weight_grad: f64,
}

impl BlockTimes {
    pub fn total(&self) -> f64 {
        self.forward + self.input_grad + self.weight_grad
    }
}

/// One layer of one micro-batch on one GPU: its attention block (QKV and projection products,
/// the attention core, a layer norm, a bias-dropout-add, the QKV bias) and its MLP block (the two
/// MLP products, a layer norm, a bias-dropout-add, bias and GeLU). The backward pass costs twice
/// the forward: the weight gradients are each weight matrix's second product, the input
/// gradients the rest; recomputation joins the input gradients.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LayerWork {
    pub attention: BlockTimes,
    pub mlp: BlockTimes,
}

impl LayerWork {
    pub fn total(&self) -> f64 {
        self.attention.total() + self.mlp.total()
    }
}

/// What the accelerator reaches: FLOP/s on products, bytes/s on memory-bound kernels, and the
/// time each product adds.
struct Rates {
    peak: f64,
    hbm: f64,
    kernel: f64,
}

impl Rates {
    fn of(system: &System) -> Rates {
        let c = &system.compute;
        Rates {
            peak: system.accelerator.bf16_tflops * 1e12 * c.gemm,
            hbm: system.accelerator.hbm_gbps * 1e9 * c.memory,
            kernel: c.kernel_us * 1e-6,
        }
    }

    /// `batch` products `(m x k)(k x n)` of 2-byte elements, s.
    fn gemm(&self, m: f64, n: f64, k: f64, batch: f64) -> f64 {
        let flops = 2.0 * m * n * k * batch;
        let bytes = 2.0 * (m * k + k * n + m * n) * batch;
        (flops / self.peak).max(bytes / self.hbm) + self.kernel
    }
}

/// The GPU work of one layer and micro-batch of `run` on `system` (no communication).
pub fn layer_work(system: &System, run: &TrainingRun) -> LayerWork {
    let rates = Rates::of(system);
    let hbm = rates.hbm;
    let gemm = |m: f64, n: f64, k: f64, batch: f64| rates.gemm(m, n, k, batch);
    let (b, s, h, a) = (
        f64::from(run.micro_batch),
        f64::from(run.seq_len),
        f64::from(run.hidden),
        f64::from(run.heads),
    );
    let t = f64::from(run.tp);
    let bs = b * s;
    let heads = b * a / t;
    // Queries `h` and keys and values `k` each (grouped-query attention: `k < h`).
    let attention_products =
        gemm(bs, (h + 2.0 * run.kv_width()) / t, h, 1.0) + gemm(bs, h, h / t, 1.0);
    let f = run.ffn();
    // SwiGLU: gate and up in one product of `2 f`, then down; its elementwise SiLU x up reads
    // two `f` wide tensors and writes one (GeLU: bias and GeLU over one).
    let (up, elementwise) = match run.mlp {
        Mlp::Gelu => (f, 2.0),
        Mlp::Swiglu => (2.0 * f, 3.0),
    };
    let mlp_products = gemm(bs, up / t, h, 1.0) + gemm(bs, h, f / t, 1.0);
    // The attention core: unfused, two batched products and the softmax, dropout and mask over
    // the `s x s` scores at HBM speed; fused (FlashAttention), the same FLOPs in one kernel that
    // never writes the scores.
    let core = match run.flash_attention {
        false => {
            gemm(s, s, h / a, heads) + gemm(s, h / a, s, heads) + 2.0 * 4.5 * heads * s * s / hbm
        }
        true => 2.0 * 2.0 * s * s * (h / a) * heads / rates.peak + rates.kernel,
    };
    // The layer norms and bias-dropout-adds run on the whole `b s h` activation on every TP
    // rank, or on a `1 / t` slice of the sequence with sequence parallelism.
    let replicated = match run.sequence_parallel {
        false => 5.5 * bs * h,
        true => 5.5 * bs * h / t,
    };
    let attention_memory = 2.0 * (replicated + 2.0 * bs * h / t) / hbm;
    let mlp_memory = 2.0 * (replicated + elementwise * bs * f / t) / hbm;
    let block = |products: f64, rest: f64, recomputed: f64| BlockTimes {
        forward: products + rest,
        input_grad: products + 2.0 * rest + recomputed,
        weight_grad: products,
    };
    let (attention_again, mlp_again) = match run.recompute {
        Recompute::Full => (
            attention_products + core + attention_memory,
            mlp_products + mlp_memory,
        ),
        // A fused core already recomputes its scores in its backward pass.
        Recompute::Selective if run.flash_attention => (0.0, 0.0),
        Recompute::Selective => (core, 0.0),
        Recompute::None => (0.0, 0.0),
    };
    LayerWork {
        attention: block(attention_products, core + attention_memory, attention_again),
        mlp: block(mlp_products, mlp_memory, mlp_again),
    }
}

/// Predict one iteration of `run` (checked with [`TrainingRun::check`]) on `system`.
pub fn predict(system: &System, run: &TrainingRun) -> Prediction {
    let rates = Rates::of(system);
    let hbm = rates.hbm;
    let gemm = |m: f64, n: f64, k: f64, batch: f64| rates.gemm(m, n, k, batch);
    let (b, s, h, a) = (
        f64::from(run.micro_batch),
        f64::from(run.seq_len),
        f64::from(run.hidden),
        f64::from(run.heads),
    );
    let (t, p, d) = (f64::from(run.tp), f64::from(run.pp), f64::from(run.dp));
    let l = f64::from(run.layers);
    let m = f64::from(run.micro_batches());
    let v = run.padded_vocab();
    let bs = b * s;
    let domain = f64::from(system.scale_up_npus);

    // One layer of one micro-batch.
    let work = layer_work(system, run);
    let gpu_layer = work.total();
    let recomputed_ars = match run.recompute {
        Recompute::Full => 2.0,
        _ => 0.0,
    };
    let activation = bs * h * 2.0;
    let tp_all_reduce = match t <= domain {
        true => all_reduce(&system.scale_up, t, activation),
        false => hierarchical(system, domain, t / domain, activation),
    };
    let tp_layer = (4.0 + recomputed_ars) * tp_all_reduce;
    let host = system.compute.host_us_per_layer * 1e-6;
    let host_wait = (host - (gpu_layer + tp_layer)).max(0.0);

    // The slowest stage: the busiest (ceil(L / p) layers) or the last (its layers and the
    // logits), whichever takes longer.
    let logits = 3.0 * gemm(bs, v / t, h, 1.0) + 20.0 * bs * v / t / hbm;
    let layer_time = gpu_layer + tp_layer + host_wait;
    let (busiest, last) = run.stage_layers();
    let (busiest, last) = (f64::from(busiest), f64::from(last));
    let (stage_layers, stage_logits) = match busiest * layer_time >= last * layer_time + logits {
        true => (busiest, 0.0),
        false => (last, logits),
    };
    let pp_tier = match t * d >= domain {
        true => &system.scale_out,
        false => &system.scale_up,
    };
    // Interleaved 1F1B (Narayanan et al. 2021): v chunks per stage cross v times as many stage
    // boundaries per micro-batch and shrink the bubble to (p - 1) / v slots.
    let chunks = f64::from(run.virtual_stages.max(1));
    let p2p = match run.pp > 1 {
        true => 2.0 * chunks * (pp_tier.latency_us * 1e-6 + activation / t / pp_tier.bytes_per_s()),
        false => 0.0,
    };
    // Filling and draining pass through every stage once: the other stages carry no logits, so
    // a bubble slot is an average stage's (the layers and a 1/p share of the logits).
    let average_slot = l / p * layer_time + logits / p;
    let bubble = (p - 1.0) / chunks * (average_slot + p2p);

    // After the flush: DP gradients and the optimizer.
    let params = run.layer_params() * busiest / t + v * h / t;
    let in_node = match t < domain {
        true => d.min(domain / t),
        false => 1.0,
    };
    // ZeRO 1-2 reduce-scatter the gradients and all-gather the updated weights: a ring
    // all-reduce's bytes. ZeRO-3 also gathers the weights for the backward pass: 1.5 times.
    let zero_bytes = match run.zero {
        3 => 1.5,
        _ => 1.0,
    };
    let mut dp_comm = zero_bytes * hierarchical(system, in_node, d / in_node, 2.0 * params);
    if run.overlap_dp {
        // Buckets reduced while the last micro-batch's backward pass runs: only what outlasts
        // it shows, and at least the last layer's bucket (its gradients come last).
        let window = busiest
            * (work.attention.input_grad
                + work.attention.weight_grad
                + work.mlp.input_grad
                + work.mlp.weight_grad);
        dp_comm = (dp_comm - window).max(dp_comm / busiest);
    }
    if run.pp > 1 {
        // The tied embedding's gradients between the first and the last stage.
        dp_comm += all_reduce(pp_tier, 2.0, 2.0 * v * h / t);
    }
    // Each rank updates the share of the Adam states it holds (all of them without ZeRO).
    let sharded = |on: bool| if on { d } else { 1.0 };
    let optimizer = 32.0 * params / sharded(run.zero >= 1) / hbm;

    let breakdown = Breakdown {
        layers_ns: 1e9 * m * stage_layers * gpu_layer,
        logits_ns: 1e9 * m * stage_logits,
        host_wait_ns: 1e9 * m * stage_layers * host_wait,
        tp_comm_ns: 1e9 * m * stage_layers * tp_layer,
        pipeline_p2p_ns: 1e9 * m * p2p,
        pipeline_bubble_ns: 1e9 * bubble,
        dp_comm_ns: 1e9 * dp_comm,
        optimizer_ns: 1e9 * optimizer,
    };
    let compute_ns = breakdown.layers_ns + breakdown.logits_ns + breakdown.optimizer_ns;
    let exposed_comm_ns = breakdown.tp_comm_ns + breakdown.pipeline_p2p_ns + breakdown.dp_comm_ns;
    let time_ns =
        compute_ns + exposed_comm_ns + breakdown.host_wait_ns + breakdown.pipeline_bubble_ns;
    let npus = t * p * d;
    let tflops_per_npu = model_flops(run) / npus / (time_ns * 1e-9) / 1e12;

    // Memory of the first stage: 16 bytes per parameter (mixed-precision Adam), the activations
    // of the micro-batches in flight (Korthikanti et al. 2022, Table 2: `s b h (10 + 24 / t +
    // 5 a s / (h t))` bytes per layer, `s b h (34 / t + 5 a s / (h t))` with sequence
    // parallelism; a fused attention core keeps no `s x s` scores, dropping the last term), and
    // the fp32 logits.
    let in_flight = m.min(p);
    let kept = match run.sequence_parallel {
        false => s * b * h * (10.0 + 24.0 / t),
        true => s * b * h * 34.0 / t,
    };
    let scores = match run.flash_attention {
        false => s * b * h * 5.0 * a * s / (h * t),
        true => 0.0,
    };
    let per_layer = kept + scores;
    let checkpoint = match run.sequence_parallel {
        false => 2.0 * bs * h,
        true => 2.0 * bs * h / t,
    };
    let activations = match run.recompute {
        Recompute::Full => busiest * in_flight * checkpoint + per_layer,
        Recompute::Selective => busiest * in_flight * kept,
        Recompute::None => busiest * in_flight * per_layer,
    };
    // Per parameter: 2-byte weights and gradients, 12 bytes of fp32 Adam states (master
    // weights, two moments); ZeRO 1 shards the states over DP, 2 also the gradients, 3 also
    // the weights (Rajbhandari et al. 2020).
    let per_param =
        2.0 / sharded(run.zero >= 3) + 2.0 / sharded(run.zero >= 2) + 12.0 / sharded(run.zero >= 1);
    let memory = per_param * params + activations + 8.0 * bs * v / t;
    Prediction {
        time_ns,
        compute_ns,
        exposed_comm_ns,
        tflops_per_npu,
        mfu: tflops_per_npu / system.accelerator.bf16_tflops,
        memory_gb: memory / 1e9,
        fits: memory / 1e9 <= system.accelerator.hbm_gb,
        breakdown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::calibrate::with_values;

    fn run(tp: u32, pp: u32, dp: u32, micro_batch: u32) -> TrainingRun {
        TrainingRun {
            layers: 40,
            hidden: 6144,
            ffn: None,
            heads: 48,
            kv_heads: None,
            mlp: Default::default(),
            seq_len: 2048,
            vocab: 50_257,
            global_batch: 1024,
            micro_batch,
            tp,
            pp,
            dp,
            recompute: Recompute::Full,
            virtual_stages: 1,
            overlap_dp: false,
            flash_attention: false,
            sequence_parallel: false,
            zero: 0,
        }
    }

    #[test]
    fn the_parts_add_up_and_follow_the_hand_formulas() {
        let system = System::dgx_a100();
        for (tp, pp, dp, mb) in [(8, 1, 32, 8), (4, 2, 32, 2), (1, 8, 32, 4), (16, 1, 16, 2)] {
            let r = run(tp, pp, dp, mb);
            r.check(&system, 256).unwrap();
            let p = predict(&system, &r);
            let b = &p.breakdown;
            let sum = b.layers_ns
                + b.logits_ns
                + b.host_wait_ns
                + b.tp_comm_ns
                + b.pipeline_p2p_ns
                + b.pipeline_bubble_ns
                + b.dp_comm_ns
                + b.optimizer_ns;
            assert!((sum - p.time_ns).abs() <= 1e-9 * p.time_ns);
            assert_eq!(b.tp_comm_ns == 0.0, tp == 1);
            assert_eq!(
                b.pipeline_bubble_ns == 0.0 && b.pipeline_p2p_ns == 0.0,
                pp == 1
            );
            // 1F1B: m slots of the last stage and p - 1 of an average one (its 1/p of the logits).
            let m = f64::from(r.micro_batches());
            let slot =
                (b.layers_ns + b.logits_ns + b.host_wait_ns + b.tp_comm_ns + b.pipeline_p2p_ns) / m;
            let logits = b.logits_ns / m;
            let want = (slot - logits + logits / f64::from(pp)) * f64::from(pp - 1);
            assert!((b.pipeline_bubble_ns - want).abs() <= 1e-6 * want.max(1.0));
            assert!(p.mfu > 0.0 && p.mfu < 1.0, "{p:?}");
        }
    }

    #[test]
    fn with_no_overheads_a_compute_bound_layer_takes_its_flops_at_the_fitted_peak() {
        // A system with free communication and no fixed costs: one layer of a large model is
        // GEMM-bound; the layers' time is their FLOPs (4 passes with full recomputation) at
        // peak x gemm, plus the memory-bound kernels at HBM x memory.
        let s = with_values(
            &System::dgx_a100(),
            &[0.5, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0],
        );
        let mut r = run(1, 1, 1, 1);
        r.global_batch = 1;
        r.layers = 1;
        let p = predict(&s, &r);
        let (b, sq, h, a) = (1.0, 2048.0, 6144.0, 48.0);
        let flops = 4.0 * (24.0 * b * sq * h * h + 4.0 * b * sq * sq * h);
        let memory = 4.0 * 2.0 * (21.0 * b * sq * h + 4.5 * b * a * sq * sq);
        let want = flops / (312e12 * 0.5) + memory / 2039e9;
        // The attention core's products are memory-bound here, so the layer is a little longer.
        let got = p.breakdown.layers_ns * 1e-9;
        assert!(got >= want * 0.999 && got <= want * 1.05, "{got} vs {want}");
    }

    #[test]
    fn interleaving_divides_the_bubble_and_multiplies_the_sends() {
        let system = System::dgx_a100();
        let mut r = run(8, 4, 8, 2);
        let plain = predict(&system, &r);
        r.virtual_stages = 2;
        r.check(&system, 256).unwrap();
        let two = predict(&system, &r);
        let (a, b) = (&plain.breakdown, &two.breakdown);
        assert!((b.pipeline_p2p_ns - 2.0 * a.pipeline_p2p_ns).abs() < 1e-6 * a.pipeline_p2p_ns);
        // The bubble is (p - 1) / v average slots, each slot now with twice the sends.
        let slot = |x: &Breakdown, m: f64| {
            (x.layers_ns + x.logits_ns * 0.25 + x.host_wait_ns + x.tp_comm_ns + x.pipeline_p2p_ns)
                / m
        };
        let m = f64::from(r.micro_batches());
        assert!((b.pipeline_bubble_ns - 1.5 * slot(b, m)).abs() < 1e-6 * b.pipeline_bubble_ns);
        assert!(b.pipeline_bubble_ns < a.pipeline_bubble_ns);
        // Every chunk needs a layer (40 layers on 4 stages of 11 chunks have not), and the
        // micro-batches must divide the stages; uneven chunks are laid (3 x 4 stages).
        r.virtual_stages = 11;
        assert!(r.check(&system, 256).is_err());
        r.virtual_stages = 3;
        assert!(r.check(&system, 256).is_ok());
        r.virtual_stages = 2;
        r.pp = 1;
        r.dp = 32;
        assert!(r.check(&system, 256).is_err());
    }

    #[test]
    fn overlapping_the_dp_reduction_hides_what_the_backward_pass_covers() {
        let system = System::dgx_a100();
        let mut r = run(1, 8, 32, 4);
        let exposed = predict(&system, &r).breakdown.dp_comm_ns;
        r.overlap_dp = true;
        let hidden = predict(&system, &r).breakdown.dp_comm_ns;
        assert!(hidden < exposed, "{hidden} vs {exposed}");
        // At least the last layer's bucket stays: 1 / (L/p) of the reduction (and the tied
        // embedding's, which follows it).
        assert!(hidden >= exposed / 5.0 - 1.0, "{hidden} vs {exposed}");
    }

    #[test]
    fn any_run_that_passes_the_rules_is_predicted_without_a_panic() {
        // Seeded: every size from 1 to u32::MAX, mixed; a run the rules accept is predicted,
        // and the parts still add up whenever the time is finite.
        let system = System::dgx_a100();
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (state >> 33) as u32;
            match r % 4 {
                0 => 1 + r % 8,
                1 => 1 << (r % 32),
                2 => u32::MAX - r % 3,
                _ => 1 + r % 100_000,
            }
        };
        let mut predicted = 0;
        for _ in 0..20_000 {
            // Degrees that lay on the 8-GPU domains, sizes built to pass the divisibility rules
            // (a product past u32 is skipped: the rules are what is tested elsewhere).
            let tp = 1u32 << (next() % 5);
            let pp = 1 + next() % 64;
            let dp = 1 + next() % 64;
            let v = next() % 3 + 1;
            let mul = |a: u32, b: u32| a.checked_mul(b);
            let (Some(heads), Some(micro)) = (mul(tp, next()), Some(next())) else {
                continue;
            };
            let Some(hidden) = mul(heads, next() % 256 + 1) else {
                continue;
            };
            let Some(layers) = mul(pp * v, next() % 64 + 1) else {
                continue;
            };
            let Some(global) = mul(micro, dp).and_then(|x| mul(x, pp * (next() % 16 + 1))) else {
                continue;
            };
            let r = TrainingRun {
                layers,
                hidden,
                ffn: if next() % 2 == 0 { None } else { Some(next()) },
                heads,
                kv_heads: if next() % 2 == 0 { None } else { Some(tp) },
                mlp: if next() % 2 == 0 {
                    Mlp::Gelu
                } else {
                    Mlp::Swiglu
                },
                seq_len: next(),
                vocab: next(),
                global_batch: global,
                micro_batch: micro,
                tp,
                pp,
                dp,
                recompute: Recompute::Full,
                virtual_stages: v,
                overlap_dp: next() % 2 == 0,
                flash_attention: false,
                sequence_parallel: false,
                zero: 0,
            };
            let Ok(npus) = u32::try_from(r.npus()) else {
                continue;
            };
            if r.check(&system, npus).is_err() {
                continue;
            }
            predicted += 1;
            let p = predict(&system, &r);
            assert!(!p.time_ns.is_nan(), "{r:?}");
        }
        assert!(predicted > 100, "only {predicted} runs passed the rules");
    }

    #[test]
    fn recomputation_costs_time_and_saves_memory() {
        let system = System::dgx_a100();
        let mut r = run(8, 1, 32, 8);
        let full = predict(&system, &r);
        r.recompute = Recompute::Selective;
        let selective = predict(&system, &r);
        r.recompute = Recompute::None;
        let none = predict(&system, &r);
        assert!(full.time_ns > selective.time_ns && selective.time_ns > none.time_ns);
        assert!(full.memory_gb < selective.memory_gb && selective.memory_gb < none.memory_gb);
    }
}
