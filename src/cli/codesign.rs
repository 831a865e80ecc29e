//! `libra-studio codesign` (the search) and `libra-studio scenario --model ...` (one candidate as
//! Scenario JSON, which `optimize --scenario` solves to the time the search reports).

use super::args::{ArgError, Args};
use super::optimize::{budget_list, positive};
use super::Failure;
use crate::analysis::shape_run::parse_shape;
use crate::analysis::shapes::layouts_of;
use crate::codesign::{scenario_of, Choice, CodesignRun, CodesignSetup, ModelPreset, ShapeSpace};
use crate::model::builder::Transformer;
use crate::model::communicator::{LayOrder, Parallelism};
use crate::model::cost::CostModel;
use crate::model::libra_files::cost_model_from_yaml;
use crate::model::memory::{MemoryOptions, Recompute};
use crate::model::network::Network;
use crate::presets;
use crate::systems::ChosenSystem;
use serde::Serialize;
use std::ffi::OsString;

/// The options that describe the model (shared by `codesign` and `scenario --model`).
const MODEL_OPTIONS: [&str; 13] = [
    "model",
    "npus",
    "hbm-gb",
    "recompute",
    "layers",
    "hidden",
    "ffn",
    "heads",
    "seq-len",
    "global-batch",
    "vocab",
    "peak-tflops",
    "efficiency",
];

fn whole(args: &Args, option: &'static str) -> Result<Option<u32>, ArgError> {
    args.parsed(option, "a whole number of at least 1", |v| *v >= 1)
}

/// `--model`: a preset by name, or None for `custom`.
pub(super) fn preset_of(args: &Args) -> Result<Option<ModelPreset>, ArgError> {
    match args.required("model")?.trim() {
        "custom" => Ok(None),
        k => ModelPreset::parse(k)
            .map(Some)
            .ok_or_else(|| ArgError::Bad {
                option: "model".into(),
                message: format!(
                    "unknown model \"{k}\" (expected {} or custom)",
                    ModelPreset::ALL.map(ModelPreset::key).join(", ")
                ),
            }),
    }
}

/// The transformer and memory options: a preset (`--model gpt3-175b`) or `--model custom` with
/// its sizes, any field overridable.
/// `architecture`: whether the command takes [`ARCHITECTURE_OPTIONS`] (`scenario --model`; the
/// co-design chooses CP and EP itself).
fn model(
    args: &Args,
    architecture_options: bool,
) -> Result<(Transformer, MemoryOptions), ArgError> {
    let preset = preset_of(args)?;
    let mut t = match preset {
        Some(p) => p.transformer(),
        None => Transformer {
            name: "custom".into(),
            ..ModelPreset::Gpt3.transformer()
        },
    };
    let mut memory = MemoryOptions {
        vocab: preset.map_or(ModelPreset::Gpt3.vocab(), ModelPreset::vocab),
        ..MemoryOptions::default()
    };
    let custom_needs = ["layers", "hidden", "heads", "seq-len", "global-batch"];
    if preset.is_none() {
        if let Some(missing) = custom_needs.iter().find(|o| !args.has(o)) {
            return Err(ArgError::Bad {
                option: "model".into(),
                message: format!("a custom model needs --{missing} (and --layers, --hidden, --heads, --seq-len, --global-batch; --ffn defaults to 4 x hidden)"),
            });
        }
    }
    for (option, field) in [
        ("layers", &mut t.layers),
        ("hidden", &mut t.hidden),
        ("heads", &mut t.heads),
        ("seq-len", &mut t.seq_len),
        ("global-batch", &mut t.global_batch),
    ] {
        if let Some(v) = whole(args, option)? {
            *field = v;
        }
    }
    t.ffn = match whole(args, "ffn")? {
        Some(f) => f,
        None if preset.is_none() || args.has("hidden") => {
            t.hidden.checked_mul(4).ok_or_else(|| ArgError::Bad {
                option: "hidden".into(),
                message: format!(
                    "{} is too large for the default FFN of 4 x hidden: give --ffn",
                    t.hidden
                ),
            })?
        }
        None => t.ffn,
    };
    if let Some(v) = whole(args, "vocab")? {
        memory.vocab = u64::from(v);
    }
    if let Some(v) = args.one("peak-tflops")? {
        t.peak_tflops = positive("peak-tflops", v, "TFLOP/s")?;
    }
    if let Some(v) = args.one("efficiency")? {
        t.efficiency = positive("efficiency", v, "(a fraction in (0, 1])")?;
    }
    memory.recompute = match args.one("recompute")? {
        None | Some("selective") => Recompute::Selective,
        Some("full") => Recompute::Full,
        Some(other) => {
            return Err(ArgError::Bad {
                option: "recompute".into(),
                message: format!("expected selective or full, got \"{other}\""),
            })
        }
    };
    memory.zero3 = args.flag("zero3");
    if memory.zero3 {
        t.dp_collective = crate::model::builder::DpCollective::Zero3;
    }
    if architecture_options {
        architecture(args, &mut t)?;
    }
    Ok((t, memory))
}

/// The options `scenario --model` takes beyond the co-design's: grouped-query attention, the
/// MLP kind, and context and expert parallelism (and the experts' own,
/// [`super::predict::EXPERT_OPTIONS`]).
const ARCHITECTURE_OPTIONS: [&str; 7] = [
    "kv-heads",
    "mlp",
    "cp",
    "ep",
    "virtual-stages",
    "zero",
    "dtype",
];

fn architecture(args: &Args, t: &mut Transformer) -> Result<(), ArgError> {
    if let Some(kv) = whole(args, "kv-heads")? {
        t.kv_heads = Some(kv);
    }
    if let Some(m) = args.one("mlp")? {
        t.mlp = crate::model::mlp::Mlp::parse(m).ok_or_else(|| ArgError::Bad {
            option: "mlp".into(),
            message: format!("\"{m}\" is not gelu or swiglu"),
        })?;
    }
    t.moe = super::predict::moe_of(args, t.moe.clone())?;
    t.cp = whole(args, "cp")?.unwrap_or(1);
    t.ep = whole(args, "ep")?.unwrap_or(1);
    t.virtual_stages = whole(args, "virtual-stages")?.unwrap_or(1);
    if let Some(z) = args.parsed("zero", "0, 1, 2 or 3", |z: &u8| *z <= 3)? {
        t.dp_collective = crate::model::builder::DpCollective::of_zero(z).unwrap_or_default();
    }
    if let Some(d) = args.one("dtype")? {
        t.dtype = crate::model::dtype::Dtype::parse(d).ok_or_else(|| ArgError::Bad {
            option: "dtype".into(),
            message: format!("\"{d}\" is not bf16 or fp8"),
        })?;
    }
    Ok(())
}

fn npus(args: &Args) -> Result<u32, ArgError> {
    whole(args, "npus")?.ok_or(ArgError::Required("npus"))
}

/// The cost tiers: `--cost COST.yml`, else the system's tiers (when `--system` has a network)
/// beside LIBRA's 4D cost model, else LIBRA's (with the physical defaults).
fn costs(args: &Args, system: Option<&ChosenSystem>) -> Result<CostModel, Failure> {
    match args.path("cost")? {
        None => {
            let libra = presets::libra_4d_cost_model();
            Ok(match system.and_then(|s| s.spec.as_ref()) {
                Some(spec) => spec.cost_model_beside(&libra),
                None => libra,
            })
        }
        Some(path) => {
            let text = super::inputs::read(path)?;
            cost_model_from_yaml(&text)
                .map_err(|e| Failure::Input(format!("{}: {e}", super::inputs::shown(path))))
        }
    }
}

fn shape(args: &Args, costs: &CostModel) -> Result<Option<Network>, Failure> {
    let Some(text) = args.one("shape")? else {
        return Ok(None);
    };
    let net = parse_shape(text, &layouts_of(costs)).map_err(|e| ArgError::Bad {
        option: "shape".into(),
        message: e.to_string(),
    })?;
    if let Some(d) = net.dims.iter().find(|d| costs.tier(&d.tier).is_none()) {
        return Err(ArgError::Bad {
            option: "shape".into(),
            message: format!("unknown cost tier \"{}\"", d.tier),
        }
        .into());
    }
    Ok(Some(net))
}

/// The shape `--shape` names, else the system's network for `npus` (None: neither).
fn shape_or_system(
    args: &Args,
    costs: &CostModel,
    system: Option<&ChosenSystem>,
    npus: u32,
) -> Result<Option<Network>, Failure> {
    match (shape(args, costs)?, system.and_then(|s| s.spec.as_ref())) {
        (Some(net), _) => Ok(Some(net)),
        // A system's network is what it is: parallelism and bandwidths are chosen on it.
        (None, Some(spec)) => Ok(Some(spec.network(npus).map_err(|e| ArgError::Bad {
            option: "npus".into(),
            message: e.to_string(),
        })?)),
        (None, None) => Ok(None),
    }
}

/// `codesign`: the co-design front, winners and ranked table as JSON.
pub fn codesign(args: &[OsString]) -> Result<String, Failure> {
    let valued: Vec<&str> = MODEL_OPTIONS
        .iter()
        .chain(&[
            "budget",
            "budgets",
            "rank-budget",
            "shape",
            "cost",
            "system",
        ])
        .copied()
        .collect();
    let args = Args::parse(args, &valued, &["zero3", "timings"])?;
    args.no_positional()?;
    let (t, memory) = model(&args, false)?;
    let npus = npus(&args)?;
    let chosen = super::systems::chosen(&args)?;
    let hbm_gb = match args.one("hbm-gb")? {
        Some(v) => positive("hbm-gb", v, "GB")?,
        None => chosen.as_ref().map_or(80.0, |s| s.step.accelerator.hbm_gb),
    };
    let budgets = match (args.one("budget")?, args.one("budgets")?) {
        (Some(b), None) => vec![positive("budget", b, "$")?],
        (None, Some(spec)) => budget_list("budgets", spec)?,
        (Some(_), Some(_)) => {
            return Err(Failure::Usage(
                "give --budget USD or --budgets LO:HI:N, not both".into(),
            ))
        }
        (None, None) => return Err(ArgError::Required("budgets").into()),
    };
    let rank_budget = args
        .one("rank-budget")?
        .map(|v| positive("rank-budget", v, "$"))
        .transpose()?;
    let costs = costs(&args, chosen.as_ref())?;
    let shapes = match shape_or_system(&args, &costs, chosen.as_ref(), npus)? {
        Some(net) => ShapeSpace::Fixed(net),
        None => ShapeSpace::WithinLimits(layouts_of(&costs)),
    };
    let system = chosen.map(|s| s.step);
    let setup = CodesignSetup {
        model: t,
        memory,
        npus,
        hbm_gb,
        costs,
        shapes,
        budgets,
        rank_budget,
        system,
    };
    let start = std::time::Instant::now();
    let run = CodesignRun::new(&setup).map_err(Failure::input)?.run();
    let elapsed = start.elapsed();
    run.outcome().map_err(Failure::input)?;
    let report = CodesignReport {
        result: run.result(),
        // Wall time differs from run to run: only on request, so that repeated runs diff clean.
        search_ms: args.flag("timings").then_some(elapsed.as_secs_f64() * 1e3),
    };
    Ok(serde_json::to_string_pretty(&report).expect("a result always serializes"))
}

/// What `codesign` prints: the search's result, and its wall time with `--timings`.
#[derive(Serialize)]
struct CodesignReport<R: Serialize> {
    #[serde(flatten)]
    result: R,
    #[serde(skip_serializing_if = "Option::is_none")]
    search_ms: Option<f64>,
}

/// `scenario --model ...`: one co-design candidate as Scenario JSON.
pub fn scenario(args: &[OsString]) -> Result<String, Failure> {
    let valued: Vec<&str> = MODEL_OPTIONS
        .iter()
        .chain(&[
            "tp",
            "pp",
            "dp",
            "micro-batch",
            "shape",
            "mapping",
            "budget",
            "cost",
            "system",
        ])
        .chain(&ARCHITECTURE_OPTIONS)
        .chain(&super::predict::EXPERT_OPTIONS)
        .copied()
        .collect();
    let args = Args::parse(args, &valued, &["zero3"])?;
    args.no_positional()?;
    let (t, memory) = model(&args, true)?;
    let npus = npus(&args)?;
    let degree = |o: &'static str| whole(&args, o)?.ok_or(ArgError::Required(o));
    let parallelism = Parallelism {
        tp: degree("tp")?,
        pp: degree("pp")?,
        dp: degree("dp")?,
    };
    let product = u64::from(parallelism.tp)
        * u64::from(t.cp)
        * u64::from(parallelism.pp)
        * u64::from(parallelism.dp);
    if product != u64::from(npus) {
        return Err(Failure::Usage(format!(
            "--tp x --cp x --pp x --dp = {product}, but --npus is {npus}"
        )));
    }
    let order = match args.one("mapping")? {
        None => LayOrder::TpPpDp,
        Some(text) => LayOrder::parse(text).ok_or_else(|| ArgError::Bad {
            option: "mapping".into(),
            message: format!("expected tp-pp-dp or tp-dp-pp, got \"{text}\""),
        })?,
    };
    let choice = Choice {
        parallelism,
        micro_batch: whole(&args, "micro-batch")?.unwrap_or(1),
        order,
        cp: t.cp,
        ep: t.ep,
        virtual_stages: t.virtual_stages,
    };
    let chosen = super::systems::chosen(&args)?;
    let costs = costs(&args, chosen.as_ref())?;
    let shape = shape_or_system(&args, &costs, chosen.as_ref(), npus)?
        .ok_or(ArgError::Required("shape"))?;
    let budget = args
        .one("budget")?
        .map(|v| positive("budget", v, "$"))
        .transpose()?;
    let mut sc = scenario_of(&t, &choice, &shape, &costs, budget).map_err(Failure::input)?;
    if let Some(system) = chosen.map(|s| s.step) {
        // Compute timed by a real system (docs/predict.md) instead of --peak-tflops x --efficiency.
        let recompute = crate::predict::workload::recompute_of(memory.recompute);
        let chosen = crate::codesign::candidate::with_choice(&t, &choice);
        let vocab = u32::try_from(memory.vocab).unwrap_or(u32::MAX);
        let run = crate::predict::workload::run_of(&chosen, vocab, recompute);
        if chosen.dtype == crate::model::dtype::Dtype::Fp8
            && system.accelerator.fp8_tflops.is_none()
        {
            return Err(Failure::input(crate::predict::run::RunError::Fp8 {
                accelerator: system.accelerator.name.clone(),
            }));
        }
        crate::predict::workload::time_on(&mut sc.workloads[0], &chosen, &system, &run);
    }
    sc.validate().map_err(Failure::input)?;
    Ok(sc.to_json())
}
