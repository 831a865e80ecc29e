//! `predict`, `calibrate` and `validate`: one measured-style training iteration on a system, a
//! system fitted to measured runs, and a system held against them (docs/predict.md).

use super::args::{ArgError, Args};
use super::{inputs, Failure};
use crate::codesign::preset::ModelPreset;
use crate::format::number;
use crate::predict::calibrate::{calibrate as fit, held, weighted, CalibrationError, PARAMETERS};
use crate::predict::measured::{read_runs, MeasuredRun};
use crate::predict::moe::Moe;
use crate::predict::run::{Dtype, Mlp, Recompute, TrainingRun, GPT2_VOCAB};
use crate::predict::step::{predict as step, Prediction};
use crate::predict::system::{Calibration, System};
use crate::predict::validation::{validate as compare, Validation};
use serde::Serialize;
use std::ffi::OsString;
use std::io::Write;

/// The options that describe experts (`predict` and `scenario --model` take them).
pub(super) const EXPERT_OPTIONS: [&str; 7] = [
    "experts",
    "top-k",
    "shared-experts",
    "expert-ffn",
    "moe-layers",
    "capacity-factor",
    "node-limit",
];

/// The experts `--experts --top-k --shared-experts --expert-ffn --moe-layers
/// --capacity-factor` describe, each over the preset's; None without experts.
pub(super) fn moe_of(args: &Args, preset: Option<Moe>) -> Result<Option<Moe>, ArgError> {
    let experts = whole(args, "experts")?;
    let Some(base) = preset.or_else(|| {
        experts.map(|experts| Moe {
            experts,
            top_k: 1,
            shared_experts: 0,
            expert_ffn: 0,
            first_dense: 0,
            every: 1,
            capacity_factor: 1.0,
            node_limit: None,
        })
    }) else {
        for &name in &EXPERT_OPTIONS[1..] {
            if args.one(name)?.is_some() {
                return Err(ArgError::Bad {
                    option: name.into(),
                    message: "needs --experts (or a model with experts)".into(),
                });
            }
        }
        return Ok(None);
    };
    let (first_dense, every) = match args.one("moe-layers")? {
        None => (base.first_dense, base.every),
        Some(text) => Moe::parse_layers(text).ok_or_else(|| ArgError::Bad {
            option: "moe-layers".into(),
            message: format!("\"{text}\" is not all, after:K, every:N or after:K,every:N"),
        })?,
    };
    let expert_ffn = whole(args, "expert-ffn")?.unwrap_or(base.expert_ffn);
    if expert_ffn == 0 {
        return Err(ArgError::Required("expert-ffn"));
    }
    Ok(Some(Moe {
        experts: experts.unwrap_or(base.experts),
        top_k: whole(args, "top-k")?.unwrap_or(base.top_k),
        shared_experts: args
            .parsed("shared-experts", "a whole number", |_: &u32| true)?
            .unwrap_or(base.shared_experts),
        expert_ffn,
        first_dense,
        every,
        capacity_factor: args
            .parsed("capacity-factor", "a number of at least 1", |c: &f64| {
                c.is_finite() && *c >= 1.0
            })?
            .unwrap_or(base.capacity_factor),
        node_limit: whole(args, "node-limit")?.or(base.node_limit),
    }))
}

/// A system by preset name, or a system JSON file (default dgx-a100): the step model's view.
fn system(args: &Args) -> Result<System, Failure> {
    Ok(match super::systems::chosen(args)? {
        Some(s) => s.step,
        None => System::dgx_a100(),
    })
}

fn whole(args: &Args, name: &'static str) -> Result<Option<u32>, ArgError> {
    args.parsed(name, "a whole number of at least 1", |v| *v >= 1)
}

fn needed(args: &Args, name: &'static str, preset: Option<u32>) -> Result<u32, ArgError> {
    whole(args, name)?
        .or(preset)
        .ok_or(ArgError::Required(name))
}

/// `predict`'s valued options besides [`EXPERT_OPTIONS`].
const PREDICT_OPTIONS: [&str; 22] = [
    "system",
    "cp",
    "ep",
    "dtype",
    "zero",
    "kv-heads",
    "mlp",
    "virtual-stages",
    "ffn",
    "model",
    "layers",
    "hidden",
    "heads",
    "seq-len",
    "global-batch",
    "micro-batch",
    "npus",
    "tp",
    "pp",
    "dp",
    "recompute",
    "vocab",
];

/// What `predict` prints.
#[derive(Serialize)]
struct PredictReport<'a> {
    system: &'a str,
    npus: u32,
    run: &'a TrainingRun,
    #[serde(flatten)]
    prediction: &'a Prediction,
}

/// `predict --system S --model custom|PRESET [--layers --hidden --heads --seq-len --global-batch
/// --vocab] --micro-batch B --npus N --tp T --pp P --dp D [--recompute none|selective|full]`.
pub fn predict(args: &[OsString]) -> Result<String, Failure> {
    let args = Args::parse(
        args,
        &PREDICT_OPTIONS
            .iter()
            .chain(&EXPERT_OPTIONS)
            .copied()
            .collect::<Vec<_>>(),
        &[
            "overlap-dp",
            "overlap-ep",
            "flash-attention",
            "sequence-parallel",
        ],
    )?;
    args.no_positional()?;
    let system = system(&args)?;
    let preset = super::codesign::preset_of(&args)?;
    let base = preset.map(ModelPreset::run);
    let from = |name: &'static str, f: fn(&TrainingRun) -> u32| -> Result<u32, ArgError> {
        needed(&args, name, base.as_ref().map(f))
    };
    let recompute = match args.one("recompute")? {
        None => Recompute::Full,
        Some(r) => Recompute::parse(r).ok_or_else(|| ArgError::Bad {
            option: "recompute".into(),
            message: format!("\"{r}\" is not none, selective or full"),
        })?,
    };
    let mlp = match args.one("mlp")? {
        Some(m) => Mlp::parse(m).ok_or_else(|| ArgError::Bad {
            option: "mlp".into(),
            message: format!("\"{m}\" is not gelu or swiglu"),
        })?,
        None => base.as_ref().map_or(Mlp::Gelu, |b| b.mlp),
    };
    let dtype = match args.one("dtype")? {
        Some(d) => Dtype::parse(d).ok_or_else(|| ArgError::Bad {
            option: "dtype".into(),
            message: format!("\"{d}\" is not bf16 or fp8"),
        })?,
        None => Dtype::Bf16,
    };
    let run = TrainingRun {
        layers: from("layers", |b| b.layers)?,
        hidden: from("hidden", |b| b.hidden)?,
        ffn: whole(&args, "ffn")?.or(base.as_ref().and_then(|b| b.ffn)),
        heads: from("heads", |b| b.heads)?,
        kv_heads: whole(&args, "kv-heads")?.or(base.as_ref().and_then(|b| b.kv_heads)),
        mlp,
        seq_len: from("seq-len", |b| b.seq_len)?,
        vocab: whole(&args, "vocab")?
            .or(base.as_ref().map(|b| b.vocab))
            .unwrap_or(GPT2_VOCAB),
        global_batch: from("global-batch", |b| b.global_batch)?,
        micro_batch: needed(&args, "micro-batch", None)?,
        tp: needed(&args, "tp", None)?,
        cp: whole(&args, "cp")?.unwrap_or(1),
        pp: needed(&args, "pp", None)?,
        ep: whole(&args, "ep")?.unwrap_or(1),
        dp: needed(&args, "dp", None)?,
        recompute,
        virtual_stages: whole(&args, "virtual-stages")?.unwrap_or(1),
        overlap_dp: args.flag("overlap-dp"),
        overlap_ep: args.flag("overlap-ep"),
        flash_attention: args.flag("flash-attention"),
        sequence_parallel: args.flag("sequence-parallel"),
        zero: args
            .parsed("zero", "0, 1, 2 or 3", |z: &u8| *z <= 3)?
            .unwrap_or(0),
        dtype,
        moe: moe_of(&args, base.as_ref().and_then(|b| b.moe.clone()))?,
        mla: base.and_then(|b| b.mla),
    };
    let npus = needed(&args, "npus", None)?;
    run.check(&system, npus)
        .map_err(|e| Failure::Input(format!("the run cannot be laid on {}: {e}", system.name)))?;
    let prediction = step(&system, &run);
    if !(prediction.time_ns.is_finite() && prediction.memory_gb.is_finite()) {
        return Err(Failure::Input(
            "the run's time or memory overflows the range of 64-bit numbers (sizes too extreme)"
                .into(),
        ));
    }
    let report = PredictReport {
        system: &system.name,
        npus,
        run: &run,
        prediction: &prediction,
    };
    Ok(serde_json::to_string_pretty(&report).expect("json"))
}

/// Every `--runs` file's runs, each checked on `system`; the files' names.
fn runs_of(args: &Args, system: &System) -> Result<(Vec<String>, Vec<Vec<MeasuredRun>>), Failure> {
    let paths = args.all_paths("runs")?;
    if paths.is_empty() {
        return Err(ArgError::Required("runs").into());
    }
    let mut names = Vec::new();
    let mut sets = Vec::new();
    for path in paths {
        let text = inputs::read(path)?;
        let shown = inputs::shown(path);
        let runs = read_runs(&text, system).map_err(|e| Failure::Input(format!("{shown}: {e}")))?;
        names.push(shown);
        sets.push(runs);
    }
    Ok((names, sets))
}

/// The per-run table of a validation, for standard error.
fn table(v: &Validation) -> String {
    let mut out =
        String::from("line  model    TP  PP  DP  mb  measured ms  predicted ms   error\n");
    for r in &v.rows {
        out += &format!(
            "{:>4}  {:<7} {:>3} {:>3} {:>3} {:>3} {:>12.1} {:>13.1} {:>+7.1}%\n",
            r.line,
            r.model,
            r.tp,
            r.pp,
            r.dp,
            r.micro_batch,
            r.measured_ms,
            r.predicted_ms,
            100.0 * r.error
        );
    }
    out += &format!(
        "{} runs: mean {:.1}%, median {:.1}%, worst {:.1}%\n",
        v.runs,
        100.0 * v.mean_abs_error,
        100.0 * v.median_abs_error,
        100.0 * v.worst_abs_error
    );
    for m in &v.models {
        out += &format!(
            "  {}: {} runs, mean {:.1}%, worst {:.1}%, Spearman {:.3}, predicted best measures {:.3} x the best\n",
            m.model,
            m.runs,
            100.0 * m.mean_abs_error,
            100.0 * m.worst_abs_error,
            m.spearman,
            m.best_pick_ratio
        );
    }
    out
}

/// `calibrate --system S --runs RUNS.csv`: the system fitted to the runs as JSON on standard
/// output, the fit's error per run on standard error. A fit that does not converge says so and
/// prints the system unchanged.
pub fn calibrate(args: &[OsString], err: &mut dyn Write) -> Result<String, Failure> {
    let args = Args::parse(args, &["system", "runs", "hold"], &[])?;
    args.no_positional()?;
    let start = system(&args)?;
    let names: Vec<&str> = args
        .one("hold")?
        .map(|h| {
            h.split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let hold = held(&names).map_err(|name| ArgError::Bad {
        option: "hold".into(),
        message: format!(
            "unknown parameter \"{name}\" (expected some of {})",
            PARAMETERS.join(", ")
        ),
    })?;
    let (shown, sets) = runs_of(&args, &start)?;
    let (runs, weights) = weighted(sets);
    match fit(&start, &runs, &weights, &hold) {
        Ok(f) => {
            let v = compare(&f.system, &runs);
            let _ = writeln!(
                err,
                "{}calibrated in {} steps (sum of squared log errors {} -> {})",
                table(&v),
                f.iterations,
                number(f.start_cost),
                number(f.cost)
            );
            let mut system = f.system;
            system.calibration = Some(Calibration {
                runs: shown.join(" + "),
                rows: runs.len(),
                mean_abs_error: v.mean_abs_error,
                median_abs_error: v.median_abs_error,
                worst_abs_error: v.worst_abs_error,
            });
            Ok(serde_json::to_string_pretty(&system).expect("json"))
        }
        Err(e @ CalibrationError::NoConvergence { .. }) | Err(e @ CalibrationError::NotFinite) => {
            let _ = writeln!(err, "libra-studio: {e}");
            Err(Failure::Input(format!(
                "calibration failed; {} is unchanged",
                start.name
            )))
        }
    }
}

/// `validate --system S --runs RUNS.csv`: predicted against measured for every run, as JSON.
pub fn validate(args: &[OsString], err: &mut dyn Write) -> Result<String, Failure> {
    let args = Args::parse(args, &["system", "runs"], &[])?;
    args.no_positional()?;
    let system = system(&args)?;
    let (_, sets) = runs_of(&args, &system)?;
    let v = compare(&system, &sets.concat());
    let _ = write!(err, "{}", table(&v));
    Ok(serde_json::to_string_pretty(&v).expect("json"))
}

/// `published`: the published runs (`predict::published`) beside their predictions: JSON on
/// standard output, a table on standard error.
pub fn published(args: &[OsString], err: &mut dyn Write) -> Result<String, Failure> {
    let args = Args::parse(args, &[], &[])?;
    args.no_positional()?;
    let checks = crate::predict::published::check_published().map_err(Failure::Input)?;
    let mut table = String::from("predicted   reported    error  fits  run\n");
    for c in &checks {
        let reported = match c.reported {
            crate::predict::published::Reported::Seconds(v) => format!("{v:.2} s"),
            crate::predict::published::Reported::TflopsPerGpu(v) => format!("{v:.0} TF/s"),
            crate::predict::published::Reported::TokensPerSPerGpu(v) => format!("{v:.0} tok/s"),
        };
        table += &format!(
            "{:>9.2} {:>11} {:>+7.1}%  {:<4}  {} ({})\n",
            c.predicted,
            reported,
            100.0 * c.error,
            if c.fits { "yes" } else { "no" },
            c.name,
            c.system
        );
    }
    let mean = checks.iter().map(|c| c.error.abs()).sum::<f64>() / checks.len() as f64;
    table += &format!(
        "{} runs: mean absolute error {:.1}%\n",
        checks.len(),
        100.0 * mean
    );
    let _ = write!(err, "{table}");
    Ok(serde_json::to_string_pretty(&checks).expect("json"))
}
