//! What the Co-design view asks, as plain data: it is what the view's fields hold, what a
//! permalink carries, and how it becomes a search of the design's cost tiers (and shape).

use super::candidate::{scenario_of, Design};
use super::preset::ModelPreset;
use super::search::{CodesignError, CodesignSetup, ShapeSpace};
use crate::analysis::shape_run::layouts_for;
use crate::form::typed::{show, Kind};
use crate::model::builder::Transformer;
use crate::model::memory::{MemoryOptions, Recompute};
use crate::model::scenario::Scenario;
use crate::optimize::sweep::budget_range;
use crate::predict::calibrate::{values, with_values};
use crate::predict::system::System;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `v` rounded to whole dollars (from $1 up; a smaller budget is kept as it is).
fn whole_dollars(v: f64) -> f64 {
    if v >= 1.0 {
        v.round()
    } else {
        v
    }
}

/// A budget as its field shows it: whole dollars, else the short form that reads back exactly.
fn budget_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e16 {
        format!("{v:.0}")
    } else {
        show(v)
    }
}

/// Budgets of the view's front (as the issue's speed target: 17).
pub const VIEW_BUDGETS: u32 = 17;

/// The model key that means "the custom sizes".
pub const CUSTOM: &str = "custom";

/// A transformer of the visitor's own sizes (the rest as the presets: 2-byte elements, 312
/// TFLOP/s at 50%).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomModel {
    pub layers: u32,
    pub hidden: u32,
    pub ffn: u32,
    pub heads: u32,
    pub seq_len: u32,
    pub global_batch: u32,
    pub vocab: u32,
}

impl Default for CustomModel {
    /// GPT-3 175B's sizes, to edit from.
    fn default() -> Self {
        let t = ModelPreset::Gpt3.transformer();
        CustomModel {
            layers: t.layers,
            hidden: t.hidden,
            ffn: t.ffn,
            heads: t.heads,
            seq_len: t.seq_len,
            global_batch: t.global_batch,
            vocab: ModelPreset::Gpt3.vocab() as u32,
        }
    }
}

/// The System picker's key for the builder's flat rate (312 TFLOP/s x 50%, no system).
pub const FLAT: &str = "flat";
/// The System picker's key for the system calibrated in the view ([`CodesignInputs::calibrated`]).
pub const CALIBRATED: &str = "calibrated";
/// The System picker's presets (`predict::system::System::preset`).
pub const PICKED_SYSTEMS: [&str; 9] = crate::systems::SYSTEM_PRESETS;
/// The presets a calibration may start from.
pub const CALIBRATION_STARTS: [&str; 3] = ["dgx-a100-uncalibrated", "dgx-a100", "dgx-h100"];

/// A system calibrated on the visitor's runs, as the link carries it: the preset it started from
/// (its accelerator and tiers) and the eight fitted values (`predict::calibrate::PARAMETERS`'
/// order), to six significant digits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CalibratedSystem {
    pub start: String,
    pub fit: [f64; 8],
}

impl CalibratedSystem {
    /// `fitted` (a calibration of the preset `start`) as the link carries it.
    pub fn of(start: &str, fitted: &System) -> CalibratedSystem {
        CalibratedSystem {
            start: start.to_string(),
            fit: values(fitted).map(|v| format!("{v:.5e}").parse().unwrap_or(v)),
        }
    }

    /// The system: the start's figures with the fitted values, each checked (a hand-edited link
    /// is refused naming the value).
    pub fn system(&self) -> Result<System, String> {
        let start =
            System::preset(&self.start).map_err(|e| format!("the calibration's start: {e}"))?;
        let mut s = with_values(&start, &self.fit);
        s.name = format!("the system calibrated from {}", self.start);
        s.calibration = None;
        s.validate()
            .map_err(|e| format!("the calibrated system: {e}"))?;
        Ok(s)
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The Co-design view's question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CodesignInputs {
    /// A preset key (`gpt3-175b`, ...) or `custom`.
    pub model: String,
    /// The sizes of the custom model (kept while a preset is chosen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<CustomModel>,
    /// Recompute every activation but each layer's input (else selective recomputation).
    #[serde(default)]
    pub full_recompute: bool,
    /// Shard the weights and gradients over DP too.
    #[serde(default)]
    pub zero3: bool,
    pub npus: u32,
    pub hbm_gb: f64,
    /// The budgets of the front: `budgets` log-spaced from `lo_usd` to `hi_usd`; the ranked table
    /// is at their geometric middle.
    pub lo_usd: f64,
    pub hi_usd: f64,
    pub budgets: u32,
    /// Search the design's own shape only (else every shape within the tier limits).
    #[serde(default)]
    pub own_shape: bool,
    /// The text of each field the view refused, as typed (by [`InputField::testid`]): kept,
    /// shown marked and carried by the link, never replaced by its last readable prefix. A
    /// question with any is not searched.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub typed: BTreeMap<String, String>,
    /// The System picker's choice: a preset of [`PICKED_SYSTEMS`], [`CALIBRATED`], or None for the
    /// builder's flat rate. Any other text (a hand-edited link) is kept and refused on the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The system calibrated in the view, once used (kept when another system is picked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrated: Option<CalibratedSystem>,
    /// The HBM field was typed: a system picked keeps it (else the accelerator's HBM is taken).
    #[serde(default, skip_serializing_if = "is_false")]
    pub hbm_typed: bool,
    /// A budget field was typed: the range stays as typed when the NPUs change (else it scales
    /// with them: a network's cost grows with its NPUs).
    #[serde(default, skip_serializing_if = "is_false")]
    pub budgets_typed: bool,
}

/// A value the view refused: which field, and why (the reason quotes the text as typed).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}: {reason}", field.label())]
pub struct InputError {
    pub field: InputField,
    pub reason: String,
}

/// The view's typed fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputField {
    Npus,
    HbmGb,
    LoUsd,
    HiUsd,
    /// The custom model's sizes.
    Custom(CustomField),
    /// The System picker (a choice, not a text: [`CodesignInputs::choose_system`]; not in
    /// [`InputField::every`]).
    System,
}

/// One size of the custom model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CustomField {
    Layers,
    Hidden,
    Ffn,
    Heads,
    SeqLen,
    GlobalBatch,
    Vocab,
}

impl CustomField {
    pub const ALL: [CustomField; 7] = [
        CustomField::Layers,
        CustomField::Hidden,
        CustomField::Ffn,
        CustomField::Heads,
        CustomField::SeqLen,
        CustomField::GlobalBatch,
        CustomField::Vocab,
    ];

    fn of(self, m: &mut CustomModel) -> &mut u32 {
        match self {
            CustomField::Layers => &mut m.layers,
            CustomField::Hidden => &mut m.hidden,
            CustomField::Ffn => &mut m.ffn,
            CustomField::Heads => &mut m.heads,
            CustomField::SeqLen => &mut m.seq_len,
            CustomField::GlobalBatch => &mut m.global_batch,
            CustomField::Vocab => &mut m.vocab,
        }
    }
}

impl InputField {
    /// What the field takes (the one typed reader, [`crate::form::typed`]).
    pub fn kind(self) -> Kind {
        let positive = Kind::Real {
            least: 0.0,
            open: true,
            most: f64::MAX,
        };
        match self {
            InputField::Npus => Kind::whole(2, u64::from(u32::MAX)),
            InputField::HbmGb | InputField::LoUsd | InputField::HiUsd => positive,
            InputField::Custom(CustomField::Layers) => {
                Kind::whole(1, u64::from(super::search::MAX_LAYERS))
            }
            InputField::Custom(_) => Kind::whole(1, u64::from(u32::MAX)),
            // A choice, not a number ([`CodesignInputs::set`] reads it as a system's key).
            InputField::System => Kind::whole(0, 0),
        }
    }

    /// Every field, the custom model's last.
    pub fn every() -> impl Iterator<Item = InputField> {
        InputField::ALL
            .into_iter()
            .chain(CustomField::ALL.map(InputField::Custom))
    }

    pub const ALL: [InputField; 4] = [
        InputField::Npus,
        InputField::HbmGb,
        InputField::LoUsd,
        InputField::HiUsd,
    ];

    pub fn label(self) -> &'static str {
        match self {
            InputField::Npus => "NPUs",
            InputField::HbmGb => "HBM GB per NPU",
            InputField::LoUsd => "budgets from $",
            InputField::HiUsd => "to $",
            InputField::System => "system",
            InputField::Custom(f) => match f {
                CustomField::Layers => "layers",
                CustomField::Hidden => "hidden size",
                CustomField::Ffn => "FFN size",
                CustomField::Heads => "attention heads",
                CustomField::SeqLen => "sequence length",
                CustomField::GlobalBatch => "global batch",
                CustomField::Vocab => "vocabulary",
            },
        }
    }

    pub fn testid(self) -> &'static str {
        match self {
            InputField::Npus => "codesign-npus",
            InputField::HbmGb => "codesign-hbm",
            InputField::LoUsd => "codesign-lo",
            InputField::HiUsd => "codesign-hi",
            InputField::System => "codesign-system",
            InputField::Custom(f) => match f {
                CustomField::Layers => "codesign-layers",
                CustomField::Hidden => "codesign-hidden",
                CustomField::Ffn => "codesign-ffn",
                CustomField::Heads => "codesign-heads",
                CustomField::SeqLen => "codesign-seq",
                CustomField::GlobalBatch => "codesign-batch",
                CustomField::Vocab => "codesign-vocab",
            },
        }
    }
}

impl CodesignInputs {
    /// The text a field shows: as typed when it was refused, else its value.
    pub fn text(&self, field: InputField) -> String {
        if let Some(t) = self.typed.get(field.testid()) {
            return t.clone();
        }
        self.value_text(field)
    }

    fn value_text(&self, field: InputField) -> String {
        match field {
            InputField::Npus => self.npus.to_string(),
            InputField::HbmGb => show(self.hbm_gb),
            InputField::LoUsd => budget_text(self.lo_usd),
            InputField::HiUsd => budget_text(self.hi_usd),
            InputField::System => self.system_key().to_string(),
            InputField::Custom(f) => {
                let mut m = self.custom.clone().unwrap_or_default();
                f.of(&mut m).to_string()
            }
        }
    }

    /// Read what was typed in `field`: its value when it reads, else the text is kept as typed
    /// (the value left alone) and the reason returned.
    pub fn set(&mut self, field: InputField, text: &str) -> Result<(), InputError> {
        if field == InputField::System {
            self.choose_system(text);
            return match self.refusal(field) {
                Some(reason) => Err(InputError { field, reason }),
                None => Ok(()),
            };
        }
        match field.kind().read(text) {
            Ok(v) => {
                self.typed.remove(field.testid());
                match field {
                    InputField::Npus => {
                        let npus = u32::try_from(v.whole()).unwrap_or(u32::MAX);
                        if !self.budgets_typed && self.npus > 0 {
                            let k = f64::from(npus) / f64::from(self.npus);
                            self.lo_usd = (self.lo_usd * k).round().max(1.0);
                            self.hi_usd = (self.hi_usd * k).round().max(1.0);
                        }
                        self.npus = npus;
                    }
                    InputField::HbmGb => {
                        self.hbm_gb = v.real();
                        self.hbm_typed = true;
                    }
                    InputField::LoUsd => {
                        self.lo_usd = v.real();
                        self.budgets_typed = true;
                    }
                    InputField::HiUsd => {
                        self.hi_usd = v.real();
                        self.budgets_typed = true;
                    }
                    InputField::System => {}
                    InputField::Custom(f) => {
                        *f.of(self.custom.get_or_insert_with(CustomModel::default)) =
                            u32::try_from(v.whole()).unwrap_or(u32::MAX);
                    }
                }
                // The field's own reason, or one it now has with another ("from" above "to").
                match self.refusal(field) {
                    Some(reason) => Err(InputError { field, reason }),
                    None => Ok(()),
                }
            }
            Err(reason) => {
                self.typed.insert(field.testid().into(), text.to_string());
                Err(InputError { field, reason })
            }
        }
    }

    /// Why `field`'s text (as shown) is refused, if it is: by the typed reader, or, for the
    /// budgets, because "from" is above "to".
    pub fn refusal(&self, field: InputField) -> Option<String> {
        if field == InputField::System {
            return self.system().err();
        }
        let text = self.text(field);
        match field.kind().read(&text) {
            Err(e) => return Some(e),
            Ok(_) if self.typed.contains_key(field.testid()) => {
                return Some(format!("\"{text}\" was kept as typed: type it again"))
            }
            Ok(_) => {}
        }
        let reads = |f: InputField| !self.typed.contains_key(f.testid());
        match field {
            InputField::LoUsd
                if reads(InputField::HiUsd)
                    && self.lo_usd.is_finite()
                    && self.lo_usd > self.hi_usd =>
            {
                Some(format!(
                    "\"from\" ({}) must be at most \"to\" ({})",
                    budget_text(self.lo_usd),
                    budget_text(self.hi_usd),
                ))
            }
            _ => None,
        }
    }

    /// Every refused field with its reason, in the view's order (the System picker first, the
    /// custom sizes only with the custom model): a question with any is not searched.
    pub fn refusals(&self) -> Vec<InputError> {
        let system = self.system().err().map(|reason| InputError {
            field: InputField::System,
            reason,
        });
        system
            .into_iter()
            .chain(
                InputField::every()
                    .filter(|f| self.model == CUSTOM || !matches!(f, InputField::Custom(_)))
                    .filter_map(|field| {
                        self.refusal(field)
                            .map(|reason| InputError { field, reason })
                    }),
            )
            .collect()
    }

    /// The System picker's key: [`FLAT`], a preset or [`CALIBRATED`] (or a refused text).
    pub fn system_key(&self) -> &str {
        self.system.as_deref().unwrap_or(FLAT)
    }

    /// Pick a system by the picker's key. Unless the HBM field was typed, it takes the
    /// accelerator's HBM (80 GB for the flat rate), as `codesign --system` does. A key that names
    /// no system is kept and refused ([`CodesignInputs::system`]).
    pub fn choose_system(&mut self, key: &str) {
        let key = key.trim();
        self.system = (key != FLAT).then(|| key.to_string());
        if !self.hbm_typed {
            if let Ok(s) = self.system() {
                self.hbm_gb = s.map_or(80.0, |s| s.accelerator.hbm_gb);
                self.typed.remove(InputField::HbmGb.testid());
            }
        }
    }

    /// Take a calibrated system and pick it.
    pub fn use_calibrated(&mut self, calibrated: CalibratedSystem) {
        self.calibrated = Some(calibrated);
        self.choose_system(CALIBRATED);
    }

    /// The system that times the candidates' compute (None: the flat rate), or why the picker's
    /// choice is refused.
    pub fn system(&self) -> Result<Option<System>, String> {
        match self.system_key() {
            FLAT => Ok(None),
            CALIBRATED => match &self.calibrated {
                Some(c) => c.system().map(Some),
                None => Err("no calibrated system yet: calibrate one on your runs below, then \"Use this system\"".into()),
            },
            key if PICKED_SYSTEMS.contains(&key) => crate::systems::choose_system(key)
                .map(|c| Some(c.step))
                .ok_or_else(|| format!("unknown system \"{key}\"")),
            key => Err(format!(
                "unknown system \"{key}\" (expected {FLAT}, {}, or {CALIBRATED})",
                PICKED_SYSTEMS.join(", ")
            )),
        }
    }

    /// The chosen system's network, tiers and prices (a preset; None: the flat rate or a
    /// calibrated step model, which search on the design's own tiers).
    pub fn system_spec(&self) -> Option<crate::systems::SystemSpec> {
        crate::systems::system_preset(self.system_key())
    }

    /// The cost tiers the search prices with: the system's beside the design's, or the design's.
    pub fn costs(&self, base: &Scenario) -> crate::model::cost::CostModel {
        match self.system_spec() {
            Some(spec) => spec.cost_model_beside(&base.costs),
            None => base.costs.clone(),
        }
    }

    /// What the chosen system means for the search, in words (under the picker).
    pub fn system_note(&self) -> String {
        let hbm = if self.hbm_typed {
            format!("{} GB of HBM per NPU as typed", show(self.hbm_gb))
        } else {
            format!("{} GB of HBM per NPU", show(self.hbm_gb))
        };
        match self.system() {
            Ok(None) => format!(
                "Compute at a flat 312 TFLOP/s × 50% per NPU (the workload builder's); {hbm}."
            ),
            Ok(Some(s)) => format!(
                "Compute timed by the step model on {}: {} ({} dense BF16 TFLOP/s, {} GB/s HBM), \
                 {:.1}% of peak on large products, {:.1}% of HBM bandwidth; {}{}. {}",
                s.name,
                s.accelerator.name,
                show(s.accelerator.bf16_tflops),
                show(s.accelerator.hbm_gbps),
                100.0 * s.compute.gemm,
                100.0 * s.compute.memory,
                hbm,
                if self.hbm_typed {
                    ""
                } else {
                    ", the accelerator's"
                },
                match (self.system_spec(), self.own_shape) {
                    (Some(spec), false) => match spec.network(self.npus) {
                        Ok(net) => format!(
                            "The search lays every candidate on {}'s network for {} NPUs ({}, \
                             its tiers and prices: docs/systems.md) and chooses the bandwidths \
                             within what its links reach.",
                            spec.name,
                            self.npus,
                            net.shape_label()
                        ),
                        Err(e) => e.to_string(),
                    },
                    _ => "The network's bandwidths stay the co-design's own.".into(),
                },
            ),
            Err(e) => e,
        }
    }

    /// The transformer asked about and its vocabulary.
    pub fn transformer(&self) -> Result<(Transformer, u64), CodesignError> {
        if self.model == CUSTOM {
            let m = self.custom.clone().unwrap_or_default();
            let t = Transformer {
                name: "custom".into(),
                layers: m.layers,
                hidden: m.hidden,
                ffn: m.ffn,
                heads: m.heads,
                seq_len: m.seq_len,
                global_batch: m.global_batch,
                ..ModelPreset::Gpt3.transformer()
            };
            return Ok((t, u64::from(m.vocab)));
        }
        let p = self.preset()?;
        Ok((p.transformer(), p.vocab()))
    }

    /// GPT-3 175B on the design's NPUs with 80 GB of HBM, budgets from 1/8 to 8 times
    /// `budget_usd` (the design's budget, or its optimum's cost), in whole dollars.
    pub fn around(sc: &Scenario, budget_usd: f64) -> CodesignInputs {
        CodesignInputs {
            model: ModelPreset::Gpt3.key().into(),
            custom: None,
            full_recompute: false,
            zero3: false,
            npus: sc.network.total_npus().unwrap_or(4096),
            hbm_gb: 80.0,
            // Whole dollars: the fields show them exactly.
            lo_usd: whole_dollars(budget_usd / 8.0),
            hi_usd: whole_dollars(budget_usd * 8.0),
            budgets: VIEW_BUDGETS,
            own_shape: false,
            typed: BTreeMap::new(),
            system: None,
            calibrated: None,
            hbm_typed: false,
            budgets_typed: false,
        }
    }

    /// [`CodesignInputs::around`] the design's budget, else its optimum's cost (else $10M).
    pub fn for_design(sc: &Scenario) -> CodesignInputs {
        use crate::optimize::{compile, solve, SolveOptions};
        let budget = sc.constraints.budget_usd.or_else(|| {
            let p = compile(sc).ok()?;
            solve(&p, &SolveOptions::default()).ok().map(|s| s.cost_usd)
        });
        CodesignInputs::around(sc, budget.unwrap_or(1e7))
    }

    pub fn preset(&self) -> Result<ModelPreset, CodesignError> {
        ModelPreset::parse(&self.model)
            .ok_or_else(|| CodesignError::UnknownModel(self.model.clone()))
    }

    /// The budget of the ranked table.
    ///
    /// It is the front's budget nearest their geometric middle (the middle itself for an odd
    /// count), so that it adds no budget to the search: a question of the most budgets,
    /// [`MAX_BUDGETS`](super::search::MAX_BUDGETS), stays within it.
    pub fn rank_budget(&self) -> f64 {
        let middle = (self.lo_usd * self.hi_usd).sqrt();
        let n = (self.budgets as usize).min(super::search::MAX_BUDGETS);
        budget_range(self.lo_usd, self.hi_usd, n)
            .into_iter()
            .min_by(|a, b| (a / middle).ln().abs().total_cmp(&(b / middle).ln().abs()))
            .unwrap_or(middle)
    }

    /// The search these inputs ask for, on the cost tiers (and, with `own_shape`, the shape) of
    /// `base`.
    pub fn setup(&self, base: &Scenario) -> Result<CodesignSetup, CodesignError> {
        let (mut model, vocab) = self.transformer()?;
        if self.zero3 {
            // ZeRO-3 shards the weights (memory) and gathers them twice (traffic).
            model.dp_collective = crate::model::builder::DpCollective::Zero3;
        }
        if !(self.lo_usd > 0.0 && self.hi_usd >= self.lo_usd && self.hi_usd.is_finite()) {
            return Err(CodesignError::BadBudget(if self.lo_usd > 0.0 {
                self.hi_usd
            } else {
                self.lo_usd
            }));
        }
        if !(1..=super::search::MAX_BUDGETS as u32).contains(&self.budgets) {
            return Err(CodesignError::BudgetCount(self.budgets));
        }
        Ok(CodesignSetup {
            model,
            memory: MemoryOptions {
                vocab,
                recompute: if self.full_recompute {
                    Recompute::Full
                } else {
                    Recompute::Selective
                },
                zero3: self.zero3,
            },
            npus: self.npus,
            hbm_gb: self.hbm_gb,
            costs: self.costs(base),
            // A system's network is what it is: parallelism and bandwidths are searched on it.
            shapes: match (self.own_shape, self.system_spec()) {
                (true, _) => ShapeSpace::Fixed(base.network.clone()),
                (false, Some(spec)) => ShapeSpace::Fixed(
                    spec.network(self.npus)
                        .map_err(|e| CodesignError::System(e.to_string()))?,
                ),
                (false, None) => ShapeSpace::WithinLimits(layouts_for(base)),
            },
            budgets: budget_range(self.lo_usd, self.hi_usd, self.budgets as usize),
            rank_budget: Some(self.rank_budget()),
            system: self.system().map_err(CodesignError::System)?,
        })
    }
}

impl CodesignInputs {
    /// The design view's scenario for `design`, found by a search of these inputs on `base`:
    /// its network, workload and mapping on `base`'s cost tiers, the budget it was optimized at,
    /// the latency term on.
    pub fn design_scenario(&self, base: &Scenario, design: &Design) -> Option<Scenario> {
        let (model, vocab) = self.transformer().ok()?;
        let shape = design.network();
        let choice = design.choice()?;
        let mut sc = scenario_of(
            &model,
            &choice,
            &shape,
            &self.costs(base),
            Some(design.budget_usd),
        )
        .ok()?;
        if let Some(system) = self.system().ok()? {
            // Compute timed by the system, as the search timed it (`scenario --system`).
            use crate::predict::workload::{recompute_of, run_of, time_on};
            let chosen = super::candidate::with_choice(&model, &choice);
            let recompute = recompute_of(if self.full_recompute {
                Recompute::Full
            } else {
                Recompute::Selective
            });
            let run = run_of(&chosen, u32::try_from(vocab).unwrap_or(u32::MAX), recompute);
            time_on(&mut sc.workloads[0], &chosen, &system, &run);
        }
        Some(sc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codesign::CodesignRun;
    use crate::optimize::{compile, solve, SolveOptions};
    use crate::presets;

    #[test]
    fn the_budget_range_scales_with_the_npus_until_a_budget_is_typed() {
        let base = presets::default_scenario();
        let mut q = CodesignInputs::around(&base, 1e7);
        let (lo, hi) = (q.lo_usd, q.hi_usd);
        q.set(InputField::Npus, "8192").unwrap();
        assert_eq!(
            (q.lo_usd, q.hi_usd),
            ((2.0 * lo).round(), (2.0 * hi).round())
        );
        q.set(InputField::HiUsd, "5e7").unwrap();
        q.set(InputField::Npus, "4096").unwrap();
        assert_eq!(q.hi_usd, 5e7);
    }

    #[test]
    fn the_views_question_searches_and_loads_a_design_that_keeps_its_time() {
        let base = presets::default_scenario();
        let optimum = crate::optimize::compile(&base).unwrap();
        let cost = crate::optimize::solve(&optimum, &Default::default())
            .unwrap()
            .cost_usd;
        assert_eq!(
            CodesignInputs::for_design(&base),
            CodesignInputs::around(&base, cost)
        );
        let mut inputs = CodesignInputs::around(&base, 1e7);
        inputs.budgets = 3;
        let setup = inputs.setup(&base).unwrap();
        assert_eq!(setup.npus, 4096);
        // 3 budgets and the ranked table's, 1e7, in their middle.
        let run = CodesignRun::new(&setup).unwrap().run();
        assert_eq!(run.budgets.len(), 3);
        assert!((run.rank_budget - 1e7).abs() < 1e-3);
        let best = run.best().unwrap();
        let sc = inputs.design_scenario(&base, &best).unwrap();
        sc.validate().unwrap();
        let sol = solve(&compile(&sc).unwrap(), &SolveOptions::default()).unwrap();
        assert!((sol.time_ns - best.time_ns).abs() <= 2e-6 * best.time_ns);
        // The design's own shape only.
        inputs.own_shape = true;
        let run = CodesignRun::new(&inputs.setup(&base).unwrap()).unwrap();
        assert_eq!(run.shapes, vec![base.network.clone()]);
        assert_eq!(inputs.text(InputField::HiUsd), "80000000");
        let e = inputs.set(InputField::Npus, "1").unwrap_err();
        assert_eq!(
            (e.field, e.reason.as_str()),
            (InputField::Npus, "must be at least 2, got 1")
        );
        assert_eq!(e.to_string(), "NPUs: must be at least 2, got 1");
        // The refused text is kept as typed (and the number left alone) until it reads.
        assert_eq!(inputs.text(InputField::Npus), "1");
        assert_eq!(inputs.npus, 4096);
        inputs.set(InputField::Npus, "4096").unwrap();
        assert!(inputs.refusals().is_empty());
        inputs.set(InputField::HbmGb, " 40 ").unwrap();
        assert_eq!(inputs.hbm_gb, 40.0);
        // A custom model of the visitor's sizes, with full recomputation.
        inputs.model = CUSTOM.into();
        inputs.own_shape = false;
        inputs
            .set(InputField::Custom(CustomField::Layers), "24")
            .unwrap();
        inputs
            .set(InputField::Custom(CustomField::Hidden), "2048")
            .unwrap();
        inputs
            .set(InputField::Custom(CustomField::Ffn), "8192")
            .unwrap();
        inputs
            .set(InputField::Custom(CustomField::Heads), "16")
            .unwrap();
        assert!(inputs
            .set(InputField::Custom(CustomField::Heads), "0")
            .unwrap_err()
            .to_string()
            .starts_with("attention heads"));
        inputs.full_recompute = true;
        let setup = inputs.setup(&base).unwrap();
        assert_eq!(
            (setup.model.layers, setup.model.hidden, setup.model.heads),
            (24, 2048, 16)
        );
        assert_eq!(setup.memory.recompute, Recompute::Full);
        assert_eq!(inputs.text(InputField::Custom(CustomField::Ffn)), "8192");
        let back: CodesignInputs =
            serde_json::from_str(&serde_json::to_string(&inputs).unwrap()).unwrap();
        assert_eq!(back, inputs);
        inputs.model = "gpt9".into();
        inputs.typed.clear();
        assert_eq!(
            inputs.setup(&base).unwrap_err().to_string(),
            "unknown model \"gpt9\" (expected gpt3-175b, llama2-70b, bloom-176b, mt-nlg-530b, llama3-8b, llama3-70b or llama3-405b)"
        );
    }

    #[test]
    fn a_question_of_the_most_budgets_is_searched_and_its_rank_budget_is_on_the_front() {
        // Finding 6: 64 budgets, the documented most, were refused as "got 65": the ranked
        // table's budget (their geometric middle) was added to an even count.
        let base = presets::default_scenario();
        let mut inputs = CodesignInputs::around(&base, 1e7);
        inputs.budgets = crate::codesign::search::MAX_BUDGETS as u32;
        let setup = inputs.setup(&base).unwrap();
        let run = CodesignRun::new(&setup).unwrap();
        assert_eq!(run.budgets.len(), 64);
        assert!(run.budgets.contains(&run.rank_budget));
        // An odd count keeps the geometric middle (the view's 17).
        inputs.budgets = 17;
        assert!((inputs.rank_budget() - 1e7).abs() < 1e-3);
        inputs.budgets = 65;
        assert_eq!(
            inputs.setup(&base).unwrap_err().to_string(),
            "the number of budgets must be from 1 to 64, got 65"
        );
    }

    #[test]
    fn from_above_to_is_named_as_such_and_errors_describe_the_text_in_the_field() {
        let base = presets::default_scenario();
        let mut inputs = CodesignInputs::around(&base, 1e7);
        // Finding 6: "from" above "to" said "budgets must be positive finite numbers".
        let e = inputs.set(InputField::LoUsd, "9e8").unwrap_err();
        assert_eq!(
            e.to_string(),
            "budgets from $: \"from\" (900000000) must be at most \"to\" (80000000)"
        );
        assert_eq!(inputs.refusals().len(), 1);
        // Lowering "from" again clears it; so does raising "to".
        inputs.set(InputField::HiUsd, "1e9").unwrap();
        assert!(inputs.refusals().is_empty(), "{:?}", inputs.refusals());
        // Typing "1e309" keystroke by keystroke: each reason is the current text's, never a
        // prefix's.
        for (typed, reason) in [
            ("1", None),
            ("1e", Some("\"1e\" is not a number")),
            ("1e3", None),
            ("1e30", None),
            ("1e309", Some("must be a finite number, got 1e309")),
        ] {
            let r = inputs.set(InputField::HbmGb, typed).err().map(|e| e.reason);
            assert_eq!(r.as_deref(), reason, "{typed}");
            // A refused text is kept as typed; an accepted one shows the same number.
            match reason {
                Some(_) => assert_eq!(inputs.text(InputField::HbmGb), typed),
                None => assert_eq!(
                    inputs.text(InputField::HbmGb).parse::<f64>(),
                    typed.parse::<f64>()
                ),
            }
            assert_eq!(inputs.refusal(InputField::HbmGb).as_deref(), reason);
        }
        // The last good number is kept, but the question is not searched while a text is refused.
        assert_eq!(inputs.hbm_gb, 1e30);
        assert_eq!(inputs.refusals()[0].field, InputField::HbmGb);
        // The refused text travels in the link's JSON and comes back marked.
        let back: CodesignInputs =
            serde_json::from_str(&serde_json::to_string(&inputs).unwrap()).unwrap();
        assert_eq!(back.text(InputField::HbmGb), "1e309");
        assert!(back.refusal(InputField::HbmGb).is_some());
        // "2.5" NPUs is refused whole, never read as 2.
        let e = inputs.set(InputField::Npus, "2.5").unwrap_err();
        assert_eq!(e.reason, "\"2.5\" is not a whole number in digits");
        assert_eq!(inputs.npus, 4096);
        // Layers beyond the search's most are named at the field.
        let e = inputs
            .set(InputField::Custom(CustomField::Layers), "10001")
            .unwrap_err();
        assert_eq!(e.reason, "must be at most 10000, got 10001");
    }

    #[test]
    fn the_system_picker_travels_is_refused_on_its_field_and_old_states_still_load() {
        let base = presets::default_scenario();
        // A state saved before the picker existed: the flat rate, HBM as it was.
        let old = r#"{"model":"gpt3-175b","npus":4096,"hbm_gb":40.0,"lo_usd":1.0,"hi_usd":2.0,"budgets":3}"#;
        let mut inputs: CodesignInputs = serde_json::from_str(old).unwrap();
        assert_eq!((inputs.system_key(), inputs.system()), (FLAT, Ok(None)));
        assert!(inputs.refusals().is_empty());
        assert!(inputs.setup(&base).unwrap().system.is_none());
        // The flat default writes nothing new into the link.
        let fresh = CodesignInputs::around(&base, 1e7);
        let json = serde_json::to_string(&fresh).unwrap();
        assert!(
            !json.contains("system") && !json.contains("hbm_typed"),
            "{json}"
        );
        // dgx-a100: the search is timed by it, the HBM is the accelerator's, and the note says so.
        inputs.choose_system("dgx-a100");
        let setup = inputs.setup(&base).unwrap();
        assert_eq!(setup.system, Some(System::dgx_a100()));
        assert_eq!(setup.hbm_gb, 80.0);
        assert!(
            inputs.system_note().contains("NVIDIA A100 SXM4 80GB")
                && inputs.system_note().contains("the accelerator's"),
            "{}",
            inputs.system_note()
        );
        // A design found on dgx-a100 loads into the design view with the time it was ranked at.
        let mut small = inputs.clone();
        (small.lo_usd, small.hi_usd, small.budgets) = (1.25e6, 8e7, 3);
        small.own_shape = true;
        let run = crate::codesign::CodesignRun::new(&small.setup(&base).unwrap())
            .unwrap()
            .run();
        let best = run.best().unwrap();
        let sc = small.design_scenario(&base, &best).unwrap();
        let sol = solve(&compile(&sc).unwrap(), &SolveOptions::default()).unwrap();
        assert!((sol.time_ns - best.time_ns).abs() <= 2e-6 * best.time_ns);
        small.choose_system(FLAT);
        let flat = crate::codesign::CodesignRun::new(&small.setup(&base).unwrap())
            .unwrap()
            .run();
        assert_ne!(flat.best().unwrap().time_ns, best.time_ns);
        // A typed HBM is kept when another system is picked.
        inputs.set(InputField::HbmGb, "40").unwrap();
        inputs.choose_system("dgx-h100");
        assert_eq!(inputs.hbm_gb, 40.0);
        assert!(inputs
            .system_note()
            .contains("40 GB of HBM per NPU as typed"));
        let back: CodesignInputs =
            serde_json::from_str(&serde_json::to_string(&inputs).unwrap()).unwrap();
        assert_eq!(back, inputs);
        // A system no one calibrated yet, or a name from a hand-edited link: kept, refused on the
        // field, not searched.
        inputs.choose_system(CALIBRATED);
        let e = &inputs.refusals()[0];
        assert_eq!(e.field, InputField::System);
        assert!(e.reason.starts_with("no calibrated system yet"), "{e}");
        assert!(inputs.setup(&base).is_err());
        let e = inputs.set(InputField::System, "tpu-v9").unwrap_err();
        assert_eq!(
            e.to_string(),
            "system: unknown system \"tpu-v9\" (expected flat, dgx-a100, dgx-h100, dgx-b200, gb200-nvl72, tpu-v4, tpu-v5p, trn2-ultraserver, meta-roce-24k, hgx-h800, or calibrated)"
        );
        let back: CodesignInputs =
            serde_json::from_str(&serde_json::to_string(&inputs).unwrap()).unwrap();
        assert_eq!(back.text(InputField::System), "tpu-v9");
        assert_eq!(back.refusals()[0].field, InputField::System);
        inputs.set(InputField::System, FLAT).unwrap();
        assert_eq!(inputs.system, None);
        assert!(inputs.refusals().is_empty());
    }

    #[test]
    fn a_calibrated_system_travels_compactly_and_a_hand_edited_one_is_refused() {
        let base = presets::default_scenario();
        let mut inputs = CodesignInputs::around(&base, 1e7);
        let start = System::dgx_a100_uncalibrated();
        let fitted = with_values(
            &start,
            &[
                0.7971234567,
                0.6753,
                32.0312345,
                3571.0,
                0.757,
                79.0,
                0.72081,
                0.0,
            ],
        );
        let cal = CalibratedSystem::of("dgx-a100-uncalibrated", &fitted);
        // Six significant digits.
        assert_eq!(cal.fit[0], 0.797123);
        assert_eq!(cal.fit[2], 32.0312);
        inputs.use_calibrated(cal.clone());
        assert_eq!(inputs.system_key(), CALIBRATED);
        let system = inputs.setup(&base).unwrap().system.unwrap();
        assert_eq!(values(&system), cal.fit);
        assert_eq!(
            system.name,
            "the system calibrated from dgx-a100-uncalibrated"
        );
        assert_eq!(system.accelerator, start.accelerator);
        let json = serde_json::to_string(&inputs).unwrap();
        // The start's name and eight numbers: small enough for the link.
        let carried = &json[json.find("\"calibrated\":").unwrap()..];
        assert!(carried.len() < 160, "{carried}");
        let back: CodesignInputs = serde_json::from_str(&json).unwrap();
        assert_eq!(back, inputs);
        // Picking another system keeps the calibration for later.
        inputs.choose_system("dgx-a100");
        assert_eq!(inputs.calibrated, Some(cal.clone()));
        inputs.choose_system(CALIBRATED);
        // A hand-edited value out of range, or an unknown start, is refused naming it.
        inputs.calibrated = Some(CalibratedSystem {
            fit: [1.5, 0.6, 3.0, 3.0, 0.7, 7.0, 0.7, 0.0],
            ..cal.clone()
        });
        assert_eq!(
            inputs.refusals()[0].reason,
            "the calibrated system: compute.gemm must be in (0, 1], got 1.5"
        );
        inputs.calibrated = Some(CalibratedSystem {
            start: "dgx-z".into(),
            ..cal
        });
        assert!(inputs.refusals()[0]
            .reason
            .starts_with("the calibration's start: unknown system \"dgx-z\""));
    }

    #[test]
    fn a_systems_preset_lays_the_search_on_its_network_and_tiers() {
        let base = presets::default_scenario();
        let mut inputs = CodesignInputs::around(&base, 6e7);
        inputs.choose_system("dgx-h100");
        inputs.npus = 4096;
        let setup = inputs.setup(&base).unwrap();
        let ShapeSpace::Fixed(net) = &setup.shapes else {
            panic!("{:?}", setup.shapes)
        };
        assert_eq!(net.shape_label(), "Switch 8 × Switch 512");
        assert_eq!(net.dims[0].tier, "nvlink4");
        // The system's tiers beside the design's own (LIBRA's here).
        assert!(setup.costs.tier("ib-ndr").is_some() && setup.costs.tier("InterPod").is_some());
        assert_eq!(setup.hbm_gb, 80.0);
        assert!(inputs
            .system_note()
            .contains("dgx-h100's network for 4096 NPUs"));
        // A size the system cannot lay is refused, saying why.
        inputs.npus = 4100;
        let e = inputs.setup(&base).unwrap_err().to_string();
        assert!(e.contains("do not fill"), "{e}");
        // Every preset is a choice of the picker.
        for key in PICKED_SYSTEMS {
            inputs.choose_system(key);
            assert_eq!(inputs.system_key(), key);
            assert!(inputs.system().unwrap().is_some(), "{key}");
        }
    }
}
