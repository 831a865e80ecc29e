//! What the Co-design view asks, as plain data: it is what the view's fields hold, what a
//! permalink carries, and how it becomes a search of the design's cost tiers (and shape).

use super::candidate::{scenario_of, Design};
use super::preset::ModelPreset;
use super::search::{CodesignError, CodesignSetup, ShapeSpace};
use crate::analysis::shape_run::layouts_for;
use crate::model::builder::Transformer;
use crate::model::memory::{MemoryOptions, Recompute};
use crate::model::scenario::Scenario;
use crate::optimize::sweep::budget_range;
use serde::{Deserialize, Serialize};

/// Budgets of the view's front (as the speed target: 17).
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
}

/// A value the view refused: which field, what it expects, what was typed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}: expected {expected}, got \"{got}\"", field.label())]
pub struct InputError {
    pub field: InputField,
    pub expected: &'static str,
    pub got: String,
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
    /// The text a field shows.
    pub fn text(&self, field: InputField) -> String {
        match field {
            InputField::Npus => self.npus.to_string(),
            InputField::HbmGb => self.hbm_gb.to_string(),
            InputField::LoUsd => format!("{:.0}", self.lo_usd),
            InputField::HiUsd => format!("{:.0}", self.hi_usd),
            InputField::Custom(f) => {
                let mut m = self.custom.clone().unwrap_or_default();
                f.of(&mut m).to_string()
            }
        }
    }

    /// Read what was typed in `field`; a bad value is refused with the reason, the rest kept.
    pub fn set(&mut self, field: InputField, text: &str) -> Result<(), InputError> {
        let t = text.trim();
        let bad = |expected: &'static str| InputError {
            field,
            expected,
            got: t.to_string(),
        };
        let positive = || {
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| bad("a positive number"))
        };
        match field {
            InputField::Npus => {
                self.npus = t
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n >= 2)
                    .ok_or_else(|| bad("a whole number of at least 2"))?
            }
            InputField::HbmGb => self.hbm_gb = positive()?,
            InputField::LoUsd => self.lo_usd = positive()?,
            InputField::HiUsd => self.hi_usd = positive()?,
            InputField::Custom(f) => {
                let v = t
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| bad("a whole number of at least 1"))?;
                *f.of(self.custom.get_or_insert_with(CustomModel::default)) = v;
            }
        }
        Ok(())
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
    /// `budget_usd` (the design's budget, or its optimum's cost).
    pub fn around(sc: &Scenario, budget_usd: f64) -> CodesignInputs {
        CodesignInputs {
            model: ModelPreset::Gpt3.key().into(),
            custom: None,
            full_recompute: false,
            zero3: false,
            npus: sc.network.total_npus().unwrap_or(4096),
            hbm_gb: 80.0,
            lo_usd: budget_usd / 8.0,
            hi_usd: budget_usd * 8.0,
            budgets: VIEW_BUDGETS,
            own_shape: false,
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
    pub fn rank_budget(&self) -> f64 {
        (self.lo_usd * self.hi_usd).sqrt()
    }

    /// The search these inputs ask for, on the cost tiers (and, with `own_shape`, the shape) of
    /// `base`.
    pub fn setup(&self, base: &Scenario) -> Result<CodesignSetup, CodesignError> {
        let (model, vocab) = self.transformer()?;
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
            costs: base.costs.clone(),
            shapes: if self.own_shape {
                ShapeSpace::Fixed(base.network.clone())
            } else {
                ShapeSpace::WithinLimits(layouts_for(base))
            },
            budgets: budget_range(self.lo_usd, self.hi_usd, self.budgets as usize),
            rank_budget: Some(self.rank_budget()),
        })
    }
}

impl CodesignInputs {
    /// The design view's scenario for `design`, found by a search of these inputs on `base`:
    /// its network, workload and mapping on `base`'s cost tiers, the budget it was optimized at,
    /// the latency term on.
    pub fn design_scenario(&self, base: &Scenario, design: &Design) -> Option<Scenario> {
        let model = self.transformer().ok()?.0;
        let shape = design.network();
        scenario_of(
            &model,
            &design.choice()?,
            &shape,
            &base.costs,
            Some(design.budget_usd),
        )
        .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codesign::CodesignRun;
    use crate::optimize::{compile, solve, SolveOptions};
    use crate::presets;

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
            (e.field, e.expected, e.got.as_str()),
            (InputField::Npus, "a whole number of at least 2", "1")
        );
        assert!(e
            .to_string()
            .ends_with(": expected a whole number of at least 2, got \"1\""));
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
        assert_eq!(
            inputs.setup(&base).unwrap_err().to_string(),
            "unknown model \"gpt9\" (expected gpt3-175b, llama2-70b, bloom-176b or mt-nlg-530b)"
        );
    }
}
