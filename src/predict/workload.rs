//! The workload builder's layers timed by a system: a built transformer (`model::builder`) keeps
//! its collectives, which LIBRA's network model times on the design's bandwidths, and takes its
//! compute from the step model ([`super::step::layer_work`]) instead of a flat TFLOP/s x
//! efficiency: each block's forward, input-gradient (with the recomputation) and weight-gradient
//! time per micro-batch, times the builder's `m + p - 1` slots; a layer shorter than the host's
//! time per layer is stretched to it; the Adam step at HBM speed joins each layer's update.

use super::run::{Recompute, TrainingRun};
use super::step::{layer_work, moe_layer_work};
use super::system::System;
use crate::model::builder::Transformer;
use crate::model::scenario::WorkloadSpec;

/// The step model's recomputation for the memory model's.
pub fn recompute_of(r: crate::model::memory::Recompute) -> Recompute {
    match r {
        crate::model::memory::Recompute::Selective => Recompute::Selective,
        crate::model::memory::Recompute::Full => Recompute::Full,
    }
}

/// The step model's run for a built transformer (its vocabulary given).
pub fn run_of(t: &Transformer, vocab: u32, recompute: Recompute) -> TrainingRun {
    TrainingRun {
        ffn: Some(t.ffn),
        kv_heads: t.kv_heads,
        mlp: t.mlp,
        micro_batch: t.micro_batch,
        tp: t.parallelism.tp,
        cp: t.cp,
        pp: t.parallelism.pp,
        ep: t.ep,
        dp: t.parallelism.dp,
        virtual_stages: t.virtual_stages,
        dtype: t.dtype,
        recompute,
        // The builder's MoE layers route the sequence's TP slice: sequence parallelism.
        sequence_parallel: t.moe.is_some() && t.parallelism.tp > 1,
        moe: t.moe.clone(),
        mla: t.mla.clone(),
        ..TrainingRun::gpt(
            t.layers,
            t.hidden,
            t.heads,
            t.seq_len,
            vocab,
            t.global_batch,
        )
    }
}

/// A builder row's block and layer number: `attention3`, `mlp3` or `moe3` (not their `_cp`,
/// `_shared` or `_allgather` rows).
fn block_of(name: &str) -> Option<&str> {
    ["attention", "mlp", "moe"].into_iter().find(|b| {
        name.strip_prefix(b)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
    })
}

/// Replace the compute times of `spec` (built from `t`) by `system`'s.
pub fn time_on(spec: &mut WorkloadSpec, t: &Transformer, system: &System, run: &TrainingRun) {
    let work = layer_work(system, run);
    let moe = moe_layer_work(system, run).unwrap_or(work);
    let slots = t.slots();
    let host = system.compute.host_us_per_layer * 1e-6;
    let stretch = (host / work.total()).max(1.0);
    let ns = |s: f64| s * stretch * slots * 1e9;
    let hbm = system.accelerator.hbm_gbps * 1e9 * system.compute.memory;
    let update_ns = 32.0 * run.layer_params() / f64::from(run.tp) / hbm * 1e9;
    for layer in &mut spec.workload.layers {
        let block = match block_of(&layer.name) {
            Some("attention") => work.attention,
            Some("mlp") => work.mlp,
            Some("moe") => moe.mlp,
            _ => continue,
        };
        layer.forward.compute_ns = ns(block.forward);
        layer.input_grad.compute_ns = ns(block.input_grad);
        layer.weight_grad.compute_ns = ns(block.weight_grad);
        if block_of(&layer.name) != Some("attention") {
            layer.update_ns = update_ns;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::communicator::Parallelism;
    use crate::model::network::{Dim, Network, Topology};

    #[test]
    fn the_layers_take_the_step_models_compute_per_slot() {
        let system = System::dgx_a100();
        let t = Transformer {
            layers: 40,
            hidden: 6144,
            ffn: 4 * 6144,
            heads: 48,
            global_batch: 1024,
            micro_batch: 8,
            parallelism: Parallelism {
                tp: 8,
                pp: 2,
                dp: 16,
            },
            ..Transformer::gpt3()
        };
        let net = Network {
            dims: vec![
                Dim {
                    topology: Topology::Switch,
                    npus: 8,
                    tier: "InterPackage".into(),
                    latency_ns: 0.0,
                },
                Dim {
                    topology: Topology::Switch,
                    npus: 32,
                    tier: "InterPod".into(),
                    latency_ns: 0.0,
                },
            ],
        };
        let mut spec = t.build(&net).unwrap();
        let run = run_of(&t, 50_257, Recompute::Full);
        time_on(&mut spec, &t, &system, &run);
        let work = layer_work(&system, &run);
        // m + p - 1 = 1024 / (8 x 16) + 1 = 9 slots of each block's time.
        let a = &spec.workload.layers[0];
        assert_eq!(a.name, "attention1");
        assert!((a.forward.compute_ns - 9.0 * work.attention.forward * 1e9).abs() < 1e-3);
        let compute: f64 = spec
            .workload
            .layers
            .iter()
            .map(|l| l.forward.compute_ns + l.input_grad.compute_ns + l.weight_grad.compute_ns)
            .sum();
        // 20 layers per stage, full recomputation: the step model's layer time, per slot.
        let want = 20.0 * 9.0 * work.total() * 1e9;
        assert!((compute / want - 1.0).abs() < 1e-12, "{compute} vs {want}");
        // The collectives are the builder's.
        assert_eq!(
            a.forward.collective,
            t.build(&net).unwrap().workload.layers[0].forward.collective
        );
    }
}
