//! Published training runs beside the step model's predictions (`libra-studio published`): each
//! run as its authors describe it (model, system, parallelism, what they enabled) with the figure
//! they report and where. None of these figures was used to fit anything: the step model's
//! constants are the `dgx-a100` calibration on the 41 vTrain runs (`data/measured/`), and the
//! other systems are public specifications (docs/systems.md). docs/predict.md "Published runs"
//! has the table and what each difference says; data/published/README.md the figures with their
//! sources and quotes.

use super::models::ModelPreset;
use super::run::{Dtype, Recompute, TrainingRun};
use super::step::{predict, Prediction};
use crate::systems::choose_system;
use serde::Serialize;

/// What a publication reports for a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reported {
    /// Seconds per iteration.
    Seconds(f64),
    /// Model TFLOP/s per GPU.
    TflopsPerGpu(f64),
    /// Tokens per second per GPU.
    TokensPerSPerGpu(f64),
}

impl Reported {
    fn value(self) -> f64 {
        match self {
            Reported::Seconds(v) | Reported::TflopsPerGpu(v) | Reported::TokensPerSPerGpu(v) => v,
        }
    }

    /// The same quantity from a prediction.
    fn of(self, p: &Prediction) -> f64 {
        match self {
            Reported::Seconds(_) => p.time_ns * 1e-9,
            Reported::TflopsPerGpu(_) => p.tflops_per_npu,
            Reported::TokensPerSPerGpu(_) => p.tokens_per_s_per_npu,
        }
    }
}

/// One published run.
#[derive(Clone, Debug, Serialize)]
pub struct PublishedRun {
    pub name: &'static str,
    /// The `--system` it runs on.
    pub system: &'static str,
    pub run: TrainingRun,
    pub reported: Reported,
    pub source: &'static str,
    /// What had to be assumed to state the run.
    pub assumed: &'static str,
}

/// A published run predicted.
#[derive(Clone, Debug, Serialize)]
pub struct PublishedCheck {
    pub name: &'static str,
    pub system: &'static str,
    pub reported: Reported,
    pub predicted: f64,
    /// Predicted over reported, minus 1.
    pub error: f64,
    pub memory_gb: f64,
    pub fits: bool,
    pub source: &'static str,
    pub assumed: &'static str,
}

const KORTHIKANTI: &str = "Korthikanti et al. 2022 (arXiv 2205.05198), Tables 3 and 5: A100 80GB \
                           (Selene), sequence 2,048, vocabulary 51,200, DP 1";
const LLAMA3: &str = "Dubey et al. 2024 (arXiv 2407.21783), Table 4: H100 on Meta's RoCE cluster, \
                      16M tokens per batch, BF16";
const BRIDGE: &str = "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md (NeMo \
                      25.09 and 25.11, DGX-H100): tokens/s per GPU, force-balanced dropless MoE";
const MODELZOO: &str = "yanring/Megatron-MoE-ModelZoo best_practice/mixtral/run_mixtral_8x22B.sh \
                        (\"should be around\" figures for H100, dropless)";

/// A GPT of Korthikanti et al.'s Table 3 on TP 8, DP 1: full recomputation, or sequence
/// parallelism with selective recomputation ("present work").
fn korthikanti(
    layers: u32,
    hidden: u32,
    heads: u32,
    (batch, micro, pp, chunks): (u32, u32, u32, u32),
    present: bool,
) -> TrainingRun {
    TrainingRun {
        layers,
        hidden,
        heads,
        vocab: 51_200,
        global_batch: batch,
        micro_batch: micro,
        tp: 8,
        pp,
        virtual_stages: chunks,
        recompute: match present {
            true => Recompute::Selective,
            false => Recompute::Full,
        },
        sequence_parallel: present,
        ..ModelPreset::Gpt3.run()
    }
}

/// Every published run the tool is held against.
pub fn published_runs() -> Vec<PublishedRun> {
    let mut out = Vec::new();
    for (name, layers, hidden, heads, shape, full, present) in [
        ("GPT 22B", 48, 6144, 64, (4, 4, 1, 1), 1.42, 1.10),
        ("GPT-3 175B", 96, 12_288, 96, (64, 1, 8, 3), 18.13, 13.75),
        (
            "MT-NLG 530B",
            105,
            20_480,
            128,
            (280, 1, 35, 3),
            49.05,
            37.83,
        ),
        ("GPT 1T", 128, 25_600, 160, (512, 1, 64, 1), 94.42, 71.49),
    ] {
        for (present, seconds, how) in [
            (false, full, "full recomputation"),
            (
                true,
                present,
                "sequence parallelism, selective recomputation",
            ),
        ] {
            out.push(PublishedRun {
                name: leak(format!("{name}, {how}")),
                system: "dgx-a100",
                run: korthikanti(layers, hidden, heads, shape, present),
                reported: Reported::Seconds(seconds),
                source: KORTHIKANTI,
                assumed: match name {
                    "GPT 1T" => "1F1B without interleaving (the paper interleaves 175B and 530B)",
                    _ => "",
                },
            });
        }
    }
    let llama405 = |pp_dp: (u32, u32), cp: u32, seq_len: u32| TrainingRun {
        tp: 8,
        cp,
        pp: pp_dp.0,
        dp: pp_dp.1,
        seq_len,
        global_batch: (16 * 1024 * 1024) / seq_len,
        recompute: Recompute::None,
        flash_attention: true,
        sequence_parallel: true,
        zero: 3,
        ..ModelPreset::Llama3_405b.run()
    };
    for (gpus, run, tflops) in [
        (8192, llama405((16, 64), 1, 8192), 430.0),
        (16_384, llama405((16, 128), 1, 8192), 400.0),
        (16_384, llama405((16, 8), 16, 131_072), 380.0),
    ] {
        out.push(PublishedRun {
            name: leak(format!(
                "Llama 3 405B, {gpus} GPUs, TP 8 CP {} PP 16 DP {}, {}K context",
                run.cp,
                run.dp,
                run.seq_len / 1024
            )),
            system: "meta-roce-24k",
            run,
            reported: Reported::TflopsPerGpu(tflops),
            source: LLAMA3,
            assumed: "FlashAttention, sequence parallelism, no recomputation, FSDP as ZeRO-3; \
                      1F1B (Meta tuned its own interleaved schedule)",
        });
    }
    out.push(PublishedRun {
        name: "DeepSeek-V3, 2,048 H800, PP 16 EP 64 DP 128, FP8, DualPipe",
        system: "hgx-h800",
        run: TrainingRun {
            pp: 16,
            ep: 64,
            dp: 128,
            zero: 1,
            dtype: Dtype::Fp8,
            flash_attention: true,
            overlap_ep: true,
            ..ModelPreset::DeepseekV3.run()
        },
        // 1e12 tokens / (180,000 GPU hours x 3,600 s): the report's cost of training, failures
        // and evaluation included.
        reported: Reported::TokensPerSPerGpu(1e12 / (180_000.0 * 3600.0)),
        source: "DeepSeek-AI 2024 (arXiv 2412.19437): 180K H800 GPU hours per trillion tokens \
                 on 2,048 H800 (PP 16, EP 64 over 8 nodes, ZeRO-1 DP, no TP), FP8, DualPipe, \
                 4K sequences, 15,360 per batch",
        assumed: "DualPipe as EP all-to-alls behind compute (its own bubble not modelled), full \
                  recomputation (the report recomputes norms and up-projections only), \
                  micro-batch 1",
    });
    out.push(PublishedRun {
        name: "DeepSeek-V3, 1,024 H100, TP 2 PP 8 (4 chunks) EP 64, FP8",
        system: "dgx-h100",
        run: TrainingRun {
            tp: 2,
            pp: 8,
            virtual_stages: 4,
            ep: 64,
            dp: 64,
            global_batch: 8192,
            zero: 1,
            dtype: Dtype::Fp8,
            flash_attention: true,
            sequence_parallel: true,
            recompute: Recompute::Selective,
            ..ModelPreset::DeepseekV3.run()
        },
        reported: Reported::TokensPerSPerGpu(1297.0),
        source: BRIDGE,
        assumed: "no all-to-all overlap, distributed optimizer as ZeRO-1",
    });
    let mixtral22 = |dtype: Dtype| TrainingRun {
        tp: 2,
        pp: 8,
        virtual_stages: 7,
        ep: 8,
        dp: 8,
        global_batch: 256,
        zero: 1,
        dtype,
        flash_attention: true,
        sequence_parallel: true,
        recompute: Recompute::Selective,
        ..ModelPreset::Mixtral8x22b.run()
    };
    for (dtype, tflops, what) in [(Dtype::Bf16, 445.0, "BF16"), (Dtype::Fp8, 560.0, "FP8")] {
        out.push(PublishedRun {
            name: leak(format!(
                "Mixtral 8x22B, 128 H100, TP 2 PP 8 (7 chunks) EP 8, {what}"
            )),
            system: "dgx-h100",
            run: mixtral22(dtype),
            reported: Reported::TflopsPerGpu(tflops),
            source: MODELZOO,
            assumed: "distributed optimizer as ZeRO-1; the FP8 figure is forced-balance",
        });
    }
    out.push(PublishedRun {
        name: "Mixtral 8x7B, 64 H100, PP 4 (8 chunks) EP 8",
        system: "dgx-h100",
        run: TrainingRun {
            pp: 4,
            virtual_stages: 8,
            ep: 8,
            dp: 16,
            global_batch: 256,
            zero: 1,
            flash_attention: true,
            recompute: Recompute::Selective,
            ..ModelPreset::Mixtral8x7b.run()
        },
        reported: Reported::TflopsPerGpu(468.0),
        source: "NVIDIA/Megatron-LM MoE README (MCore v0.9): 468 TFLOPS for Mixtral 8x7B BF16",
        assumed: "the layout (64 H100, TP 1 PP 4 EP 8, 256 x 4,096 tokens) is the ModelZoo's \
                  default, not stated beside the figure",
    });
    out.push(PublishedRun {
        name: "Llama 3.1 405B, 1,024 H100, TP 8 CP 2 PP 8 (8 chunks), FP8",
        system: "dgx-h100",
        run: TrainingRun {
            tp: 8,
            cp: 2,
            pp: 8,
            virtual_stages: 8,
            dp: 2,
            global_batch: 512,
            zero: 1,
            dtype: Dtype::Fp8,
            flash_attention: true,
            sequence_parallel: true,
            recompute: Recompute::Selective,
            ..ModelPreset::Llama3_405b.run()
        },
        reported: Reported::TokensPerSPerGpu(292.0),
        source: BRIDGE,
        assumed: "distributed optimizer as ZeRO-1",
    });
    out.push(PublishedRun {
        name: "Llama 3 70B, 64 H100, TP 4 PP 8 (5 chunks), FP8",
        system: "dgx-h100",
        run: TrainingRun {
            tp: 4,
            pp: 8,
            virtual_stages: 5,
            dp: 2,
            global_batch: 128,
            zero: 1,
            dtype: Dtype::Fp8,
            flash_attention: true,
            sequence_parallel: true,
            recompute: Recompute::Selective,
            ..ModelPreset::Llama3_70b.run()
        },
        reported: Reported::TokensPerSPerGpu(1602.0),
        source: BRIDGE,
        assumed: "distributed optimizer as ZeRO-1",
    });
    out
}

/// A name built once (the table is built once per command).
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Predict every published run.
pub fn check_published() -> Result<Vec<PublishedCheck>, String> {
    published_runs()
        .into_iter()
        .map(|r| {
            let system = choose_system(r.system)
                .ok_or_else(|| format!("{}: unknown system {}", r.name, r.system))?
                .step;
            let npus = u32::try_from(r.run.npus()).map_err(|e| e.to_string())?;
            r.run
                .check(&system, npus)
                .map_err(|e| format!("{}: {e}", r.name))?;
            let p = predict(&system, &r.run);
            let predicted = r.reported.of(&p);
            Ok(PublishedCheck {
                name: r.name,
                system: r.system,
                reported: r.reported,
                predicted,
                error: predicted / r.reported.value() - 1.0,
                memory_gb: p.memory_gb,
                fits: p.fits,
                source: r.source,
                assumed: r.assumed,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_runs_are_predicted_within_a_third_and_korthikantis_within_7_percent() {
        // Regression guards on figures that were never fitted: Korthikanti et al.'s A100 runs
        // are the calibration's own hardware and software; the H100/H800 runs rest on public
        // specifications and the A100 fit (FP8 products at twice the BF16 rate overshoot
        // Mixtral's FP8 figure by a third; Llama 3 405B on 16K GPUs misses Meta's schedule).
        let checks = check_published().unwrap();
        assert_eq!(checks.len(), 18);
        for c in &checks {
            let bound = match c.source == KORTHIKANTI {
                true => 0.07,
                false => 0.35,
            };
            assert!(
                c.error.abs() < bound,
                "{}: predicted {} against {:?}",
                c.name,
                c.predicted,
                c.reported
            );
        }
        let mean = checks.iter().map(|c| c.error.abs()).sum::<f64>() / checks.len() as f64;
        assert!(mean < 0.10, "mean {mean}");
    }
}
