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

use super::attention::Split;
use super::run::{Dtype, Mlp, Recompute, TrainingRun};
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
    /// Tensor parallelism's all-reduces (or all-gathers and reduce-scatters).
    pub tp_comm_ns: f64,
    /// Context parallelism's key-value exchange, where it outlasts the attention core.
    pub cp_comm_ns: f64,
    /// Expert parallelism's dispatch and combine all-to-alls.
    pub ep_comm_ns: f64,
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
    /// Tokens trained per NPU and second.
    pub tokens_per_s_per_npu: f64,
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
/// `2 G s (P_active + L s w + V h)`, with `P_active` the layers' weight matrices a token passes
/// through (a MoE layer's router, top-k and shared experts), `w` the attention core's width per
/// position (`s w` is half its forward FLOPs per token: `w = a (d_qk + d_v)`, `2 h` for
/// multi-head attention) and `V h` the output layer. For GPT (`f = 4 h`) this is Narayanan et
/// al. 2021's eq. 3 without its recomputation pass: `72 G s L h^2 (1 + s / (6 h) + V / (12 L
/// h))`.
pub fn model_flops(run: &TrainingRun) -> f64 {
    let (g, s, l, h) = (
        f64::from(run.global_batch),
        f64::from(run.seq_len),
        f64::from(run.layers),
        f64::from(run.hidden),
    );
    let v = f64::from(run.vocab);
    let (dense, moe) = run.layer_kinds();
    let matrices = f64::from(dense) * run.layer_matrix_params()
        + f64::from(moe) * (run.attention_params() + run.moe_mlp_params(true));
    6.0 * g * s * (matrices + l * s * run.core_width() + v * h)
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

/// What the accelerator reaches: FLOP/s on products (BF16, and the weight matrices' at the
/// run's element type), bytes/s on memory-bound kernels, and the time each product adds.
struct Rates {
    peak: f64,
    weights_peak: f64,
    hbm: f64,
    kernel: f64,
}

impl Rates {
    fn of(system: &System, run: &TrainingRun) -> Rates {
        let c = &system.compute;
        let a = &system.accelerator;
        let peak = a.bf16_tflops * 1e12 * c.gemm;
        Rates {
            peak,
            weights_peak: match (run.dtype, a.fp8_tflops) {
                (Dtype::Fp8, Some(fp8)) => fp8 * 1e12 * c.gemm,
                _ => peak,
            },
            hbm: a.hbm_gbps * 1e9 * c.memory,
            kernel: c.kernel_us * 1e-6,
        }
    }

    /// `batch` products `(m x k)(k x n)` of 2-byte elements at `peak`, s.
    fn product(&self, peak: f64, m: f64, n: f64, k: f64, batch: f64) -> f64 {
        let flops = 2.0 * m * n * k * batch;
        let bytes = 2.0 * (m * k + k * n + m * n) * batch;
        (flops / peak).max(bytes / self.hbm) + self.kernel
    }

    /// A BF16 product (the attention core, the output layer, the router).
    fn gemm(&self, m: f64, n: f64, k: f64, batch: f64) -> f64 {
        self.product(self.peak, m, n, k, batch)
    }

    /// A product with a layer's weight matrix, at the run's element type.
    fn weights(&self, m: f64, n: f64, k: f64, batch: f64) -> f64 {
        self.product(self.weights_peak, m, n, k, batch)
    }
}

/// The sizes of one micro-batch on one rank.
struct Local {
    /// Tokens each rank's products see: `b s / c` (replicated over TP).
    tokens: f64,
    t: f64,
    h: f64,
    /// Elements of the layer norms and residuals each rank touches per token: all of `h`, or
    /// its `1 / t` share with sequence parallelism.
    replicated: f64,
}

impl Local {
    fn of(run: &TrainingRun) -> Local {
        let t = f64::from(run.tp);
        let h = f64::from(run.hidden);
        Local {
            tokens: f64::from(run.micro_batch) * f64::from(run.seq_len) / f64::from(run.cp),
            t,
            h,
            replicated: match run.sequence_parallel {
                false => h,
                true => h / t,
            },
        }
    }
}

/// A block's phases from its products, its other kernels and what recomputation adds: the
/// backward pass costs twice the forward (the weight gradients are each weight matrix's second
/// product, the input gradients the rest).
fn block(products: f64, rest: f64, recomputed: f64) -> BlockTimes {
    BlockTimes {
        forward: products + rest,
        input_grad: products + 2.0 * rest + recomputed,
        weight_grad: products,
    }
}

/// The attention block of one layer and micro-batch: its products, its core, and its other
/// kernels; and the core's forward time alone (what context parallelism's exchange hides
/// behind).
fn attention_block(rates: &Rates, run: &TrainingRun, x: &Local) -> (BlockTimes, f64) {
    let (s, a) = (f64::from(run.seq_len), f64::from(run.heads));
    let (b, c) = (f64::from(run.micro_batch), f64::from(run.cp));
    let products: f64 = run
        .attention_matrices()
        .iter()
        .map(|m| {
            let (n, k) = match m.split {
                Split::None => (m.outputs, m.inputs),
                Split::Out => (m.outputs / x.t, m.inputs),
                Split::In => (m.outputs, m.inputs / x.t),
            };
            rates.weights(x.tokens, n, k, 1.0)
        })
        .sum();
    // The core: each rank's `s / c` queries against all `s` keys of its `a / t` heads.
    // Unfused, two batched products and the softmax, dropout and mask over the scores at HBM
    // speed; fused (FlashAttention), the same FLOPs in one kernel that never writes the scores.
    let (qk, v) = run.head_dims();
    let heads = b * a / x.t;
    let queries = s / c;
    let core = match run.flash_attention {
        false => {
            rates.gemm(queries, s, qk, heads)
                + rates.gemm(queries, v, s, heads)
                + 2.0 * 4.5 * heads * queries * s / rates.hbm
        }
        true => 2.0 * queries * s * (qk + v) * heads / rates.peak + rates.kernel,
    };
    let memory = 2.0 * (5.5 * x.tokens * x.replicated + 2.0 * x.tokens * x.h / x.t) / rates.hbm;
    let again = match run.recompute {
        Recompute::Full => products + core + memory,
        // A fused core already recomputes its scores in its backward pass.
        Recompute::Selective if run.flash_attention => 0.0,
        Recompute::Selective => core,
        Recompute::None => 0.0,
    };
    (block(products, core + memory, again), core)
}

/// An MLP of inner size `f` on `tokens` tokens, split over TP: its products and its
/// elementwise kernels' elements.
fn mlp_products(rates: &Rates, run: &TrainingRun, tokens: f64, f: f64, t: f64) -> (f64, f64) {
    // SwiGLU: gate and up in one product of `2 f`, then down; its elementwise SiLU x up reads
    // two `f` wide tensors and writes one (GeLU: bias and GeLU over one).
    let (up, elementwise) = match run.mlp {
        Mlp::Gelu => (f, 2.0),
        Mlp::Swiglu => (2.0 * f, 3.0),
    };
    let h = f64::from(run.hidden);
    let products = rates.weights(tokens, up / t, h, 1.0) + rates.weights(tokens, h, f / t, 1.0);
    (products, elementwise * tokens * f / t)
}

fn recomputed_mlp(run: &TrainingRun, products: f64, memory: f64) -> f64 {
    match run.recompute {
        Recompute::Full => products + memory,
        _ => 0.0,
    }
}

/// The GPU work of one dense layer and micro-batch of `run` on `system` (no communication).
pub fn layer_work(system: &System, run: &TrainingRun) -> LayerWork {
    let rates = Rates::of(system, run);
    let x = Local::of(run);
    let (attention, _) = attention_block(&rates, run, &x);
    let (products, elements) = mlp_products(&rates, run, x.tokens, run.ffn(), x.t);
    let memory = 2.0 * (5.5 * x.tokens * x.replicated + elements) / rates.hbm;
    LayerWork {
        attention,
        mlp: block(products, memory, recomputed_mlp(run, products, memory)),
    }
}

/// The GPU work of one MoE layer and micro-batch (None without experts): the attention block,
/// then the router, the routed experts and the shared ones. Each rank routes its `b s / (c t)`
/// tokens (the sequence's TP slice) to `top_k` experts; the EP group's ranks each hold `E / EP`
/// whole experts and receive, balanced, `top_k x capacity` token copies per token they send.
pub fn moe_layer_work(system: &System, run: &TrainingRun) -> Option<LayerWork> {
    let m = run.moe.as_ref()?;
    let rates = Rates::of(system, run);
    let x = Local::of(run);
    let (attention, _) = attention_block(&rates, run, &x);
    let routed_in = x.tokens / x.t;
    let copies = routed_in * f64::from(m.top_k) * m.capacity_factor;
    let local = f64::from(m.experts) / f64::from(run.ep);
    let fe = f64::from(m.expert_ffn);
    let up = match run.mlp {
        Mlp::Gelu => fe,
        Mlp::Swiglu => 2.0 * fe,
    };
    let router = rates.gemm(routed_in, f64::from(m.experts), x.h, 1.0);
    // Grouped products: each local expert's share of the copies through its matrices.
    let per_expert = copies / local;
    let experts =
        rates.weights(per_expert, up, x.h, local) + rates.weights(per_expert, x.h, fe, local);
    let (shared, shared_elements) = match m.shared_experts {
        0 => (0.0, 0.0),
        n => mlp_products(&rates, run, x.tokens, f64::from(n) * fe, x.t),
    };
    let elementwise = match run.mlp {
        Mlp::Gelu => 2.0,
        Mlp::Swiglu => 3.0,
    };
    // Permuting the copies into expert order and back: read and write `h` each way.
    let memory = 2.0
        * (5.5 * x.tokens * x.replicated
            + elementwise * copies * fe
            + shared_elements
            + 4.0 * copies * x.h)
        / rates.hbm;
    let products = router + experts + shared;
    Some(LayerWork {
        attention,
        mlp: block(products, memory, recomputed_mlp(run, products, memory)),
    })
}

/// An all-to-all of `bytes` per rank over `n` consecutive ranks: the share for ranks in the
/// same scale-up domain on it, the rest (or `outside` of `bytes`, when routing limits what
/// leaves the domain) on the scale-out tier, both at once, s.
fn all_to_all(system: &System, n: f64, bytes: f64, outside: Option<f64>) -> f64 {
    if n <= 1.0 {
        return 0.0;
    }
    let n1 = n.min(f64::from(system.scale_up_npus));
    let inside = (n1 - 1.0) / n * bytes / system.scale_up.bytes_per_s();
    let crossing = outside
        .unwrap_or((n - n1) / n * bytes)
        .min((n - n1) / n * bytes);
    let tier = match n > n1 {
        true => &system.scale_out,
        false => &system.scale_up,
    };
    tier.latency_us * 1e-6 + inside.max(crossing / system.scale_out.bytes_per_s())
}

/// A layer's time on one micro-batch: its GPU work and its exposed communication by kind.
#[derive(Clone, Copy, Debug, Default)]
struct LayerTime {
    gpu: f64,
    tp: f64,
    cp: f64,
    ep: f64,
    host_wait: f64,
}

impl LayerTime {
    fn total(&self) -> f64 {
        self.gpu + self.tp + self.cp + self.ep + self.host_wait
    }

    fn scaled(&self, k: f64) -> LayerTime {
        LayerTime {
            gpu: self.gpu * k,
            tp: self.tp * k,
            cp: self.cp * k,
            ep: self.ep * k,
            host_wait: self.host_wait * k,
        }
    }

    fn plus(&self, o: &LayerTime) -> LayerTime {
        LayerTime {
            gpu: self.gpu + o.gpu,
            tp: self.tp + o.tp,
            cp: self.cp + o.cp,
            ep: self.ep + o.ep,
            host_wait: self.host_wait + o.host_wait,
        }
    }
}

/// Predict one iteration of `run` (checked with [`TrainingRun::check`]) on `system`.
pub fn predict(system: &System, run: &TrainingRun) -> Prediction {
    let rates = Rates::of(system, run);
    let hbm = rates.hbm;
    let x = Local::of(run);
    let (s, h, a) = (f64::from(run.seq_len), x.h, f64::from(run.heads));
    let (t, c, p, d) = (x.t, f64::from(run.cp), f64::from(run.pp), f64::from(run.dp));
    let ep = f64::from(run.ep);
    let m = f64::from(run.micro_batches());
    let v = run.padded_vocab();
    let tokens = x.tokens;
    let domain = f64::from(system.scale_up_npus);
    let full = run.recompute == Recompute::Full;

    // TP: all-reduces (or, with sequence parallelism, all-gathers and reduce-scatters of the
    // same bytes) of the `b s / c` activation: two a block in the forward pass and two in the
    // backward, one more a block when it is recomputed.
    let activation = tokens * h * 2.0;
    let tp_all_reduce = match t <= domain {
        true => all_reduce(&system.scale_up, t, activation),
        false => hierarchical(system, domain, t / domain, activation),
    };
    let per_block = if full { 3.0 } else { 2.0 };
    // CP: ring attention passes each rank's keys and values (and in the backward pass their
    // gradients too) around the CP ring in `c - 1` steps, behind the core's compute.
    let cp_tier = match t * c <= domain {
        true => &system.scale_up,
        false => &system.scale_out,
    };
    let (_, core) = attention_block(&rates, run, &x);
    let cp_layer = match run.cp > 1 {
        false => 0.0,
        true => {
            let chunk = 2.0 * tokens * run.kv_exchange_width() / t;
            let step = cp_tier.latency_us * 1e-6 + chunk / cp_tier.bytes_per_s();
            let pass = |k: f64| ((c - 1.0) * k * step - k * core).max(0.0);
            pass(1.0) + pass(2.0) + if full { pass(1.0) } else { 0.0 }
        }
    };
    let host = system.compute.host_us_per_layer * 1e-6;
    let timed = |work: &LayerWork, tp: f64, ep: f64| {
        let busy = work.total() + tp + cp_layer + ep;
        LayerTime {
            gpu: work.total(),
            tp,
            cp: cp_layer,
            ep,
            host_wait: (host - busy).max(0.0),
        }
    };
    let dense = timed(
        &layer_work(system, run),
        2.0 * per_block * tp_all_reduce,
        0.0,
    );
    // EP: each MoE layer's dispatch and combine all-to-alls (FP8 dispatch with dtype fp8), in
    // the forward pass, the backward pass and a full recomputation, over the EP group.
    let moe = run.moe.as_ref().and_then(|moe| {
        let work = moe_layer_work(system, run)?;
        let routed_in = tokens / t;
        let copies = routed_in * f64::from(moe.top_k) * moe.capacity_factor;
        // Node-limited routing: at most `limit` copies of a token cross the scale-out tier.
        let limit = moe.node_limit.map(|l| routed_in * f64::from(l));
        let bytes =
            |elem: f64| all_to_all(system, ep, copies * h * elem, limit.map(|l| l * h * elem));
        let dispatch = match run.dtype {
            Dtype::Fp8 => bytes(1.0),
            Dtype::Bf16 => bytes(2.0),
        };
        let forward = dispatch + bytes(2.0);
        let mut ep_comm = forward + 2.0 * bytes(2.0) + if full { forward } else { 0.0 };
        if run.overlap_ep {
            ep_comm = (ep_comm - work.total()).max(0.0);
        }
        let blocks = if moe.shared_experts > 0 { 2.0 } else { 1.0 };
        Some(timed(&work, blocks * per_block * tp_all_reduce, ep_comm))
    });
    let moe_time = moe.unwrap_or_default();

    // The stages: the busiest holds ceil(L / p) layers with as many MoE layers as a run of
    // them can; the last one fewer when L does not fill p stages, and the logits.
    let (busiest, last) = run.stage_layers();
    let most_moe = |q: u32| run.moe.as_ref().map_or(0, |mo| mo.most_in(q, run.layers));
    let stage = |q: u32| {
        let k = most_moe(q);
        dense
            .scaled(f64::from(q - k))
            .plus(&moe_time.scaled(f64::from(k)))
    };
    let logits = 3.0 * rates.gemm(tokens, v / t, h, 1.0) + 20.0 * tokens * v / t / hbm;
    let (busy, tail) = (stage(busiest), stage(last));
    let (slow, stage_logits) = match busy.total() >= tail.total() + logits {
        true => (busy, 0.0),
        false => (tail, logits),
    };
    let pp_tier = match t * c * d >= domain {
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
    // Filling and draining pass through every stage once: a bubble slot is an average stage's
    // (its share of the layers and of the logits).
    let (dense_layers, moe_layers) = run.layer_kinds();
    let all_layers = dense
        .scaled(f64::from(dense_layers))
        .plus(&moe_time.scaled(f64::from(moe_layers)));
    let average_slot = all_layers.total() / p + logits / p;
    let bubble = (p - 1.0) / chunks * (average_slot + p2p);

    // After the flush: gradients and the optimizer. Dense weights (attention, dense MLPs,
    // shared experts, routers, the embedding) are split over TP and reduced over DP x CP; the
    // routed experts over EP and reduced over the EDP = TP CP DP / EP ranks that hold each.
    let k_moe = most_moe(busiest);
    let k_dense = busiest - k_moe;
    let expert_one = run
        .moe
        .as_ref()
        .map_or(0.0, |mo| mo.expert_params(h, run.mlp_matrices()));
    let routed = |mo: &crate::predict::moe::Moe| f64::from(mo.experts) * expert_one;
    let moe_dense_part = run.moe.as_ref().map_or(0.0, |mo| {
        run.attention_params() + run.moe_mlp_params(false) - routed(mo)
    });
    let dense_params =
        (f64::from(k_dense) * run.layer_params() + f64::from(k_moe) * moe_dense_part) / t
            + v * h / t;
    let expert_params = run
        .moe
        .as_ref()
        .map_or(0.0, |mo| f64::from(k_moe) * routed(mo) / ep);
    let dc = d * c;
    let edp = t * c * d / ep;
    let in_node = |stride: f64, group: f64| match stride < domain {
        true => group.min(domain / stride),
        false => 1.0,
    };
    // ZeRO 1-2 reduce-scatter the gradients and all-gather the updated weights: a ring
    // all-reduce's bytes. ZeRO-3 also gathers the weights for the backward pass: 1.5 times.
    let zero_bytes = match run.zero {
        3 => 1.5,
        _ => 1.0,
    };
    let reduce = |params: f64, stride: f64, group: f64| {
        if params == 0.0 {
            return 0.0;
        }
        let n1 = in_node(stride, group);
        zero_bytes * hierarchical(system, n1, group / n1, 2.0 * params)
    };
    let mut dp_comm = reduce(dense_params, t, dc) + reduce(expert_params, ep, edp);
    if run.overlap_dp {
        // Buckets reduced while the last micro-batch's backward pass runs: only what outlasts
        // it shows, and at least the last layer's bucket (its gradients come last).
        let backward = |w: &LayerWork| {
            w.attention.input_grad + w.attention.weight_grad + w.mlp.input_grad + w.mlp.weight_grad
        };
        let dense_work = layer_work(system, run);
        let moe_work = moe_layer_work(system, run).unwrap_or(dense_work);
        let window =
            f64::from(k_dense) * backward(&dense_work) + f64::from(k_moe) * backward(&moe_work);
        dp_comm = (dp_comm - window).max(dp_comm / f64::from(busiest));
    }
    if run.pp > 1 {
        // The embedding's gradients between the first and the last stage (tied or not, each
        // stage reduces its own over DP; GPT ties them across the two).
        dp_comm += all_reduce(pp_tier, 2.0, 2.0 * v * h / t);
    }
    // Each rank updates the share of the Adam states it holds (all of them without ZeRO).
    let sharded = |on: bool, group: f64| if on { group } else { 1.0 };
    let optimizer = 32.0
        * (dense_params / sharded(run.zero >= 1, dc) + expert_params / sharded(run.zero >= 1, edp))
        / hbm;

    let breakdown = Breakdown {
        layers_ns: 1e9 * m * slow.gpu,
        logits_ns: 1e9 * m * stage_logits,
        host_wait_ns: 1e9 * m * slow.host_wait,
        tp_comm_ns: 1e9 * m * slow.tp,
        cp_comm_ns: 1e9 * m * slow.cp,
        ep_comm_ns: 1e9 * m * slow.ep,
        pipeline_p2p_ns: 1e9 * m * p2p,
        pipeline_bubble_ns: 1e9 * bubble,
        dp_comm_ns: 1e9 * dp_comm,
        optimizer_ns: 1e9 * optimizer,
    };
    let compute_ns = breakdown.layers_ns + breakdown.logits_ns + breakdown.optimizer_ns;
    let exposed_comm_ns = breakdown.tp_comm_ns
        + breakdown.cp_comm_ns
        + breakdown.ep_comm_ns
        + breakdown.pipeline_p2p_ns
        + breakdown.dp_comm_ns;
    let time_ns =
        compute_ns + exposed_comm_ns + breakdown.host_wait_ns + breakdown.pipeline_bubble_ns;
    let npus = run.npus() as f64;
    let seconds = time_ns * 1e-9;
    let tflops_per_npu = model_flops(run) / npus / seconds / 1e12;
    let tokens_per_s_per_npu = f64::from(run.global_batch) * s / seconds / npus;

    // Memory of the busiest stage: 16 bytes per parameter (mixed-precision Adam), the
    // activations of the micro-batches in flight and the fp32 logits. Activations per token of
    // a layer (Korthikanti et al. 2022, Table 2, generalised): `10 h` replicated over TP (`/ t`
    // with sequence parallelism: the two norms' inputs, two dropout masks, the QKV and MLP
    // inputs), `8 h / t` in attention (queries, keys, values, the projection's input), the
    // MLP's `2 up + 2 f` bytes per inner element `/ t` (`16 h / t` for GPT: `34 h` without the
    // scores' `5 a s / t`, which a fused core does not keep), a MoE layer's routed copies
    // `top_k x capacity (2 h + 2 up + 2 f) / t` and shared experts as an MLP.
    let in_flight = m.min(p);
    let up_of = |f: f64| match run.mlp {
        Mlp::Gelu => f,
        Mlp::Swiglu => 2.0 * f,
    };
    let mlp_bytes = |f: f64| (2.0 * up_of(f) + 2.0 * f) / t;
    let moe_mlp = run.moe.as_ref().map_or(0.0, |mo| {
        let fe = f64::from(mo.expert_ffn);
        f64::from(mo.top_k) * mo.capacity_factor * (2.0 * h + 2.0 * up_of(fe) + 2.0 * fe) / t
            + mlp_bytes(f64::from(mo.shared_experts) * fe)
    });
    let replicated = 10.0 * x.replicated;
    let kept_dense = tokens * (replicated + 8.0 * h / t + mlp_bytes(run.ffn()));
    let kept_moe = tokens * (replicated + 8.0 * h / t + moe_mlp);
    let scores = match run.flash_attention {
        false => tokens * 5.0 * a * s / t,
        true => 0.0,
    };
    let checkpoint = 2.0 * tokens * x.replicated;
    let kept = f64::from(k_dense) * kept_dense + f64::from(k_moe) * kept_moe;
    let layers_here = f64::from(busiest);
    let activations = match run.recompute {
        Recompute::Full => layers_here * in_flight * checkpoint + kept_dense.max(kept_moe) + scores,
        Recompute::Selective => in_flight * kept,
        Recompute::None => in_flight * (kept + layers_here * scores),
    };
    // Per parameter: 2-byte weights and gradients, 12 bytes of fp32 Adam states (master
    // weights, two moments); ZeRO 1 shards the states over the ranks that hold a weight, 2 also
    // the gradients, 3 also the weights (Rajbhandari et al. 2020).
    let per_param = |group: f64| {
        2.0 / sharded(run.zero >= 3, group)
            + 2.0 / sharded(run.zero >= 2, group)
            + 12.0 / sharded(run.zero >= 1, group)
    };
    let memory = per_param(dc) * dense_params
        + per_param(edp) * expert_params
        + activations
        + 8.0 * tokens * v / t;
    Prediction {
        time_ns,
        compute_ns,
        exposed_comm_ns,
        tflops_per_npu,
        tokens_per_s_per_npu,
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
            micro_batch,
            tp,
            pp,
            dp,
            ..TrainingRun::gpt(40, 6144, 48, 2048, 50_257, 1024)
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
                ffn: if next() % 2 == 0 { None } else { Some(next()) },
                kv_heads: if next() % 2 == 0 { None } else { Some(tp) },
                mlp: if next() % 2 == 0 {
                    Mlp::Gelu
                } else {
                    Mlp::Swiglu
                },
                seq_len: next(),
                vocab: next(),
                micro_batch: micro,
                tp,
                pp,
                dp,
                virtual_stages: v,
                overlap_dp: next() % 2 == 0,
                ..TrainingRun::gpt(layers, hidden, heads, 1, 1, global)
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

    fn parts(p: &Prediction) -> f64 {
        let b = &p.breakdown;
        b.layers_ns
            + b.logits_ns
            + b.host_wait_ns
            + b.tp_comm_ns
            + b.cp_comm_ns
            + b.ep_comm_ns
            + b.pipeline_p2p_ns
            + b.pipeline_bubble_ns
            + b.dp_comm_ns
            + b.optimizer_ns
    }

    fn on(system: &System, r: &TrainingRun) -> Prediction {
        r.check(system, r.npus() as u32).unwrap();
        let p = predict(system, r);
        assert!((parts(&p) - p.time_ns).abs() <= 1e-9 * p.time_ns, "{p:?}");
        p
    }

    #[test]
    fn one_expert_of_the_mlps_size_is_the_dense_layer_with_a_router() {
        use crate::predict::moe::Moe;
        let system = System::dgx_h100();
        let mut dense = run(8, 2, 4, 1);
        dense.sequence_parallel = true;
        let mut one = dense.clone();
        one.moe = Some(Moe {
            experts: 1,
            top_k: 1,
            shared_experts: 0,
            expert_ffn: 4 * 6144,
            first_dense: 0,
            every: 1,
            capacity_factor: 1.0,
            node_limit: None,
        });
        // Model FLOPs differ by the router alone: 6 G s L h E.
        let router = 6.0 * 1024.0 * 2048.0 * 40.0 * 6144.0;
        assert!((model_flops(&one) - model_flops(&dense) - router).abs() < 1e-6 * router);
        let (d, m) = (on(&system, &dense), on(&system, &one));
        assert_eq!(m.breakdown.ep_comm_ns, 0.0);
        // The same products; the expert skips TP's MLP collectives and adds a router and the
        // permutation's copies: within a few percent.
        assert!(
            (m.time_ns / d.time_ns - 1.0).abs() < 0.05,
            "{} vs {}",
            m.time_ns,
            d.time_ns
        );
    }

    #[test]
    fn expert_parallelism_pays_all_to_alls_by_where_its_group_lies() {
        let system = System::dgx_h100();
        let mixtral = |ep: u32, dp: u32| TrainingRun {
            tp: 1,
            pp: 4,
            ep,
            dp,
            flash_attention: true,
            global_batch: 256,
            ..crate::predict::models::ModelPreset::Mixtral8x7b.run()
        };
        let inside = on(&system, &mixtral(8, 16));
        assert!(inside.breakdown.ep_comm_ns > 0.0);
        assert_eq!(on(&system, &mixtral(1, 16)).breakdown.ep_comm_ns, 0.0);
        // Experts over 2 nodes: 8 of 16 peers (and half the bytes) behind the NICs, 9 x slower
        // than NVLink there.
        let mut wide = mixtral(8, 32);
        let moe = wide.moe.as_mut().unwrap();
        (moe.experts, moe.top_k) = (16, 4);
        wide.ep = 16;
        let mut narrow = wide.clone();
        narrow.ep = 8;
        let (w, n) = (on(&system, &wide), on(&system, &narrow));
        assert!(
            w.breakdown.ep_comm_ns > 3.0 * n.breakdown.ep_comm_ns,
            "{w:?} {n:?}"
        );
        // Node-limited routing caps what crosses (2 of a token's 4 copies cross on average;
        // at most 1 with a limit of 1); overlapping hides what the layer covers.
        let mut limited = wide.clone();
        limited.moe.as_mut().unwrap().node_limit = Some(1);
        assert!(on(&system, &limited).breakdown.ep_comm_ns < w.breakdown.ep_comm_ns);
        let mut hidden = wide.clone();
        hidden.overlap_ep = true;
        assert!(on(&system, &hidden).breakdown.ep_comm_ns < w.breakdown.ep_comm_ns);
        // The experts' weights are split over EP: memory falls as EP grows.
        assert!(w.memory_gb < n.memory_gb);
    }

    #[test]
    fn context_parallelism_splits_the_sequence_and_keeps_the_model_flops() {
        let system = System::dgx_h100();
        let llama = |cp: u32, dp: u32| TrainingRun {
            tp: 8,
            cp,
            pp: 1,
            dp,
            seq_len: 32_768,
            global_batch: 64,
            flash_attention: true,
            sequence_parallel: true,
            ..crate::predict::models::ModelPreset::Llama3_8b.run()
        };
        let (one, two) = (on(&system, &llama(1, 8)), on(&system, &llama(2, 4)));
        assert_eq!(one.breakdown.cp_comm_ns, 0.0);
        assert_eq!(
            model_flops(&llama(1, 8)),
            model_flops(&llama(2, 4)),
            "CP does not change the work"
        );
        // Half the sequence per rank: less activation memory.
        assert!(
            two.memory_gb < one.memory_gb,
            "{} vs {}",
            two.memory_gb,
            one.memory_gb
        );
        // CP 2 crosses nodes (TP 8 fills one): its exchange may show, never negative.
        assert!(two.breakdown.cp_comm_ns >= 0.0);
        let bad = TrainingRun {
            seq_len: 1000,
            ..llama(3, 1)
        };
        assert_eq!(
            bad.check(&system, 24).unwrap_err().to_string(),
            "CP 3 does not divide the sequence of 1000"
        );
    }

    #[test]
    fn fp8_products_are_faster_with_the_same_model_flops() {
        let system = System::dgx_h100();
        let bf16 = TrainingRun {
            tp: 8,
            pp: 4,
            dp: 2,
            flash_attention: true,
            sequence_parallel: true,
            ..crate::predict::models::ModelPreset::Llama3_70b.run()
        };
        let fp8 = TrainingRun {
            dtype: Dtype::Fp8,
            ..bf16.clone()
        };
        let (a, b) = (on(&system, &bf16), on(&system, &fp8));
        assert!(b.breakdown.layers_ns < 0.8 * a.breakdown.layers_ns);
        assert_eq!(model_flops(&bf16), model_flops(&fp8));
        assert!(b.tokens_per_s_per_npu > a.tokens_per_s_per_npu);
    }
}
