//! The co-design search (docs/codesign.md): for a transformer on N NPUs, every TP x CP x PP x DP
//! = N with TP dividing the heads, CP the sequence (long sequences only, [`CP_FROM_SEQ`]), PP
//! leaving the last stage a layer and DP x micro-batch the global batch, and with experts every EP
//! dividing them and the stage's TP x CP x DP ranks; every micro-batch size; every network shape within the tier limits (or one fixed shape); both lay
//! orders (TP innermost, then PP then DP, or DP then PP); and for each the certified optimal
//! bandwidths at every budget.
//!
//! Pruning, exact up to the solver's certified gap:
//! - memory: a parallelism and micro-batch whose first stage does not fit the HBM is never built;
//! - lower bounds: the compute time `C` (bubble included) bounds every shape; after compiling, each
//!   pattern `w max_d (alpha_d + a_d / B_d)` is at least `w max(max_d alpha_d, sum_d c_d a_d / X)`
//!   at budget `X` (the single-pattern optimum when all of the budget goes to it, `c_d` the cost
//!   per GB/s), so `LB(X) = C + sum_p w_p max(...)`. A candidate is solved only at the budgets
//!   where `LB(X)` is below the best time found there (and, at the ranking budget, below the
//!   `RANKED`-th best), so the front and the ranked table are the same as without pruning.
//!
//! Candidates are visited by increasing compute time, so good incumbents come early. The run is
//! a stepper (`step(n)` candidates at a time) so that a page can show progress and cancel.

use super::candidate::{communicator_of, frame_on, Choice, Design, MappingOut};
use crate::analysis::shapes::{enumerate, DimKind};
use crate::format::number;
use crate::model::builder::{BuildError, Transformer};
use crate::model::communicator::{LayOrder, Parallelism};
use crate::model::cost::CostModel;
use crate::model::memory::{MemoryOptions, MemoryPerNpu};
use crate::model::network::{Dim, Network, Topology};
use crate::model::scenario::{Scenario, WorkloadSpec};
use crate::optimize::problem::{compile_classes, TrafficClasses};
use crate::optimize::sweep::{pareto, FrontPoint};
use crate::optimize::{Problem, SolveOptions};
use crate::stepping::{units, Answering, AnswersOnce, Progress, Stepping};

/// Designs kept in the ranked table.
pub const RANKED: usize = 20;

/// The most budgets a search takes (each candidate may be solved at every one).
pub const MAX_BUDGETS: usize = 64;

/// The most layers a searched model may have (each parallelism builds its layer list; the
/// largest published transformers have a few hundred).
pub const MAX_LAYERS: u32 = 10_000;

/// Which shapes the search may propose.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeSpace {
    /// Every shape of N NPUs with these kinds and tiers (2 to 4 dimensions), within the tiers'
    /// limits.
    WithinLimits(Vec<Vec<DimKind>>),
    /// This shape only.
    Fixed(Network),
}

/// What to search.
#[derive(Clone, Debug, PartialEq)]
pub struct CodesignSetup {
    /// The transformer; its parallelism, micro-batch and lay order are the search's to choose.
    pub model: Transformer,
    pub memory: MemoryOptions,
    pub npus: u32,
    /// HBM per NPU, GB (10^9 bytes).
    pub hbm_gb: f64,
    pub costs: CostModel,
    pub shapes: ShapeSpace,
    /// Budgets of the front, $ (sorted and deduplicated by the search).
    pub budgets: Vec<f64>,
    /// The budget of the ranked table (added to the budgets); default the largest budget.
    pub rank_budget: Option<f64>,
    /// A real system whose step model times each candidate's compute (docs/predict.md); None:
    /// the transformer's flat peak TFLOP/s x efficiency.
    pub system: Option<crate::predict::system::System>,
}

impl CodesignSetup {
    /// The search of preset `p` on `npus` NPUs with 80 GB of HBM, default memory options, on
    /// `costs`' tiers, ranked at the largest budget.
    pub fn of_preset(
        p: super::ModelPreset,
        npus: u32,
        costs: CostModel,
        shapes: ShapeSpace,
        budgets: Vec<f64>,
    ) -> CodesignSetup {
        CodesignSetup {
            model: p.transformer(),
            memory: MemoryOptions {
                vocab: p.vocab(),
                ..MemoryOptions::default()
            },
            npus,
            hbm_gb: 80.0,
            costs,
            shapes,
            budgets,
            rank_budget: None,
            system: None,
        }
    }
}

/// Why a co-design cannot run, or found nothing.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CodesignError {
    #[error("NPUs must be at least 2, got {0}")]
    TooFewNpus(u32),
    #[error("HBM must be a positive number of GB per NPU, got {}", number(*.0))]
    BadHbm(f64),
    #[error("give at least one budget")]
    NoBudgets,
    #[error("the number of budgets must be from 1 to 64, got {0}")]
    BudgetCount(u32),
    #[error("unknown model \"{0}\" (expected gpt3-175b, llama2-70b, bloom-176b, mt-nlg-530b, llama3-8b, llama3-70b or llama3-405b)")]
    UnknownModel(String),
    #[error("the system: {0}")]
    System(String),
    #[error("budgets must be positive finite numbers of $, got {}", number(*.0))]
    BadBudget(f64),
    #[error("the model: {0}")]
    Model(BuildError),
    #[error("the model has {0} layers; the co-design takes at most {MAX_LAYERS}")]
    TooManyLayers(u32),
    #[error("the fixed shape has {given} NPUs, but the search is for {npus}")]
    ShapeNpus { given: u64, npus: u32 },
    #[error("{npus} NPUs have no shape of 2 to 4 dimensions within the tier limits ({limits}): raise a tier's most NPUs per dimension, or fix a shape")]
    NoShape { npus: u32, limits: String },
    #[error("{npus} NPUs have no TP x CP x PP x DP = {npus} with TP dividing the {heads} heads (and key-value heads), PP at most the {layers} layers with a layer on the last stage, and DP the global batch {global_batch}")]
    NoFactorization {
        npus: u32,
        heads: u32,
        layers: u32,
        global_batch: u32,
    },
    #[error("no parallelism of {model} on {npus} NPUs fits {} GB of HBM: the least memory needed is {least_gb:.2} GB per NPU ({at}); {divisible} parallelisms and micro-batches pass the divisibility rules (TP | heads, PP with a layer on the last stage, DP x micro-batch | global batch, EP | experts)", number(*.hbm_gb))]
    Memory {
        model: String,
        npus: u32,
        hbm_gb: f64,
        least_gb: f64,
        at: String,
        divisible: usize,
    },
    #[error("none of the {candidates} candidates that fit in memory can be laid onto a shape within the tier limits (a degree must fill whole dimensions or divide one)")]
    NothingLays { candidates: usize },
    #[error("none of the {candidates} candidates could be solved: {}", nothing_solved(*lay, *unpriced, *unsolved, first_unpriced, first_unsolved))]
    NothingSolved {
        candidates: usize,
        lay: usize,
        unpriced: usize,
        unsolved: usize,
        first_unpriced: Option<String>,
        first_unsolved: Option<String>,
    },
    #[error("no candidate meets any of the budgets (the cheapest needs more): raise the budgets")]
    NoBudgetMet,
}

/// Why no candidate was solved, the causes that occurred with their counts and first messages.
fn nothing_solved(
    lay: usize,
    unpriced: usize,
    unsolved: usize,
    first_unpriced: &Option<String>,
    first_unsolved: &Option<String>,
) -> String {
    let first = |m: &Option<String>| {
        m.as_ref()
            .map(|m| format!(" (first: {m})"))
            .unwrap_or_default()
    };
    let mut causes = Vec::new();
    if unpriced > 0 {
        causes.push(format!(
            "{unpriced} could not be priced or compiled{}",
            first(first_unpriced)
        ));
    }
    if unsolved > 0 {
        causes.push(format!(
            "{unsolved} failed in the solver{}",
            first(first_unsolved)
        ));
    }
    if lay > 0 {
        causes.push(format!("{lay} cannot be laid onto their shape"));
    }
    causes.join("; ")
}

/// A parallelism and micro-batch that fit in memory, with what does not depend on the shape.
#[derive(Clone, Debug)]
struct Group {
    /// The degrees and micro-batch (its order is the key's).
    choice: Choice,
    memory: MemoryPerNpu,
    compute_ns: f64,
    classes: TrafficClasses,
    orders: Vec<LayOrder>,
}

/// A candidate by index: group, shape, order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    group: usize,
    shape: usize,
    order: LayOrder,
}

/// Why candidates were not solved, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pruned {
    /// Parallelisms and micro-batches whose memory does not fit, times the shapes and orders.
    pub memory: usize,
    /// Candidates whose lower bound is no better than the best found at every budget.
    pub bound: usize,
    /// Candidates whose degrees cannot be laid onto the shape.
    pub lay: usize,
    /// Candidates whose scenario could not be priced or compiled (e.g. a Switch dimension on a
    /// tier without switch and NIC costs).
    #[serde(default)]
    pub unpriced: usize,
    /// Candidates the solver failed on.
    #[serde(default)]
    pub unsolved: usize,
}

impl Pruned {
    pub fn total(&self) -> usize {
        self.memory + self.bound + self.lay + self.unpriced + self.unsolved
    }
}

/// A co-design under way or done.
#[derive(Clone, Debug)]
pub struct CodesignRun {
    setup: CodesignSetup,
    pub shapes: Vec<Network>,
    /// Per shape, the scenario the candidates compile on (see [`frame_on`]).
    frames: Vec<Scenario>,
    groups: Vec<Group>,
    /// The budgets of the front, ascending.
    pub budgets: Vec<f64>,
    pub rank_budget: f64,
    rank_index: usize,
    /// The next candidate: (group, shape, order index).
    cursor: (usize, usize, usize),
    done: usize,
    total: usize,
    pub evaluated: usize,
    pub pruned: Pruned,
    best: Vec<Option<(Key, FrontPoint)>>,
    ranked: Vec<(Key, FrontPoint)>,
    opts: SolveOptions,
    /// The first compile and solver failures' messages (their counts are in `pruned`).
    first_unpriced: Option<String>,
    first_unsolved: Option<String>,
}

/// The divisors of `n`, ascending.
fn divisors(n: u32) -> Vec<u32> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1u32;
    while u64::from(d) * u64::from(d) <= u64::from(n) {
        if n.is_multiple_of(d) {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

/// A co-design's start, a few parallelisms at a time, so that a page never blocks on it: each
/// parallelism and micro-batch that fits in memory builds its layer list (a 10,000-layer model on
/// 4,096 NPUs: about 120 ms natively for all of them, far more in a browser).
/// [`CodesignRun::new`] is [`CodesignStart::new`] then [`CodesignStart::step`] to the end: the
/// same checks, in the same order, with the same errors.
#[derive(Clone, Debug)]
pub struct CodesignStart {
    setup: CodesignSetup,
    budgets: Vec<f64>,
    rank_budget: f64,
    rank_index: usize,
    shapes: Vec<Network>,
    /// The degrees and micro-batches that pass the divisibility rules, and the next one.
    candidates: Vec<Choice>,
    next: usize,
    groups: Vec<Group>,
    /// The least memory among those that do not fit, and where.
    least: Option<(f64, String)>,
    finished: bool,
}

impl CodesignStart {
    /// Check the setup, list the shapes and the parallelisms (nothing is built yet).
    pub fn new(setup: &CodesignSetup) -> Result<CodesignStart, CodesignError> {
        let npus = setup.npus;
        if npus < 2 {
            return Err(CodesignError::TooFewNpus(npus));
        }
        if !(setup.hbm_gb.is_finite() && setup.hbm_gb > 0.0) {
            return Err(CodesignError::BadHbm(setup.hbm_gb));
        }
        if setup.model.layers > MAX_LAYERS {
            return Err(CodesignError::TooManyLayers(setup.model.layers));
        }
        let mut budgets = setup.budgets.clone();
        // A rank budget equal to one of the budgets but for rounding is that budget.
        let rank_budget = setup.rank_budget.map(|r| {
            budgets
                .iter()
                .copied()
                .find(|b| (b - r).abs() <= 1e-9 * r.abs())
                .unwrap_or(r)
        });
        budgets.extend(rank_budget);
        if budgets.is_empty() {
            return Err(CodesignError::NoBudgets);
        }
        if let Some(&b) = budgets.iter().find(|b| !(b.is_finite() && **b > 0.0)) {
            return Err(CodesignError::BadBudget(b));
        }
        budgets.sort_by(f64::total_cmp);
        budgets.dedup();
        if budgets.len() > MAX_BUDGETS {
            return Err(CodesignError::BudgetCount(
                u32::try_from(budgets.len()).unwrap_or(u32::MAX),
            ));
        }
        let rank_budget = rank_budget.unwrap_or(*budgets.last().expect("not empty"));
        let rank_index = budgets
            .iter()
            .position(|&b| b == rank_budget)
            .expect("the rank budget is among the budgets");
        let shapes = match &setup.shapes {
            ShapeSpace::Fixed(net) => {
                let given = net.dims.iter().map(|d| u64::from(d.npus)).product::<u64>();
                if given != u64::from(npus) {
                    return Err(CodesignError::ShapeNpus { given, npus });
                }
                vec![net.clone()]
            }
            ShapeSpace::WithinLimits(layouts) => {
                let shapes = enumerate(npus, layouts, &setup.costs);
                if shapes.is_empty() {
                    return Err(CodesignError::NoShape {
                        npus,
                        limits: limits_text(&setup.costs),
                    });
                }
                shapes
            }
        };
        let candidates = divisible(setup);
        if candidates.is_empty() {
            let t = &setup.model;
            return Err(CodesignError::NoFactorization {
                npus,
                heads: t.heads,
                layers: t.layers,
                global_batch: t.global_batch,
            });
        }
        Ok(CodesignStart {
            setup: setup.clone(),
            budgets,
            rank_budget,
            rank_index,
            shapes,
            candidates,
            next: 0,
            groups: Vec::new(),
            least: None,
            finished: false,
        })
    }

    /// Parallelisms looked at and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.candidates.len())
    }

    /// Look at up to `n` more parallelisms (building the layer list of each that fits); once all
    /// are, the run (nothing solved yet) or why there is none. It answers once; None after.
    pub fn step(&mut self, n: usize) -> Option<Result<CodesignRun, CodesignError>> {
        if self.finished {
            return None;
        }
        let end = self.next.saturating_add(n).min(self.candidates.len());
        while self.next < end {
            let c = self.candidates[self.next];
            self.next += 1;
            if let Err(e) = self.look_at(&c) {
                self.finished = true;
                return Some(Err(e));
            }
        }
        if self.next < self.candidates.len() {
            return None;
        }
        self.finished = true;
        Some(self.finish())
    }

    fn look_at(&mut self, choice: &Choice) -> Result<(), CodesignError> {
        let setup = &self.setup;
        let (memory, ok) = fits(setup, choice);
        if !ok {
            if self.least.as_ref().is_none_or(|l| memory.total_bytes < l.0) {
                self.least = Some((
                    memory.total_bytes,
                    format!(
                        "{}, micro-batch {}",
                        choice.degrees_label().replace('×', "x"),
                        choice.micro_batch
                    ),
                ));
            }
            return Ok(());
        }
        // The model's own fields (zeros, hidden vs heads) are checked on a trivial parallelism.
        let flat = Network {
            dims: vec![Dim {
                topology: Topology::Switch,
                npus: setup.npus,
                tier: String::new(),
                latency_ns: 0.0,
            }],
        };
        let chosen = super::candidate::with_choice(&setup.model, choice);
        let mut layers = chosen.build(&flat).map_err(CodesignError::Model)?;
        if let Some(system) = &setup.system {
            crate::predict::workload::time_on(
                &mut layers,
                &chosen,
                system,
                &crate::predict::workload::run_of(
                    &chosen,
                    u32::try_from(setup.memory.vocab).unwrap_or(u32::MAX),
                    crate::predict::workload::recompute_of(setup.memory.recompute),
                ),
            );
        }
        let compute_ns = layers.workload.compute_ns();
        let classes = TrafficClasses::of(std::slice::from_ref(&layers), true);
        self.groups.push(Group {
            choice: *choice,
            memory,
            compute_ns,
            classes,
            orders: orders(&choice.parallelism),
        });
        Ok(())
    }

    fn finish(&mut self) -> Result<CodesignRun, CodesignError> {
        let setup = &self.setup;
        let mut groups = std::mem::take(&mut self.groups);
        if groups.is_empty() {
            let (bytes, at) = self.least.take().expect("some candidate did not fit");
            return Err(CodesignError::Memory {
                model: setup.model.name.clone(),
                npus: setup.npus,
                hbm_gb: setup.hbm_gb,
                least_gb: bytes / 1e9,
                at,
                divisible: self.candidates.len(),
            });
        }
        groups.sort_by(|a, b| a.compute_ns.total_cmp(&b.compute_ns));
        let shapes = std::mem::take(&mut self.shapes);
        // The builder's workload without its layers (their traffic is in each group's classes;
        // the communicator is set per candidate).
        let spec = WorkloadSpec {
            name: setup.model.name.clone(),
            weight: 1.0,
            workload: crate::model::workload::Workload {
                parallelism: None,
                layers: Vec::new(),
            },
            communicator: Default::default(),
        };
        let frames = shapes
            .iter()
            .map(|s| frame_on(&setup.model, s, &setup.costs, spec.clone()))
            .collect();
        let total = groups.iter().map(|g| g.orders.len() * shapes.len()).sum();
        let n_budgets = self.budgets.len();
        let memory_pruned = memory_pruned(setup, shapes.len());
        Ok(CodesignRun {
            setup: setup.clone(),
            shapes,
            frames,
            groups,
            budgets: std::mem::take(&mut self.budgets),
            rank_budget: self.rank_budget,
            rank_index: self.rank_index,
            cursor: (0, 0, 0),
            done: 0,
            total,
            evaluated: 0,
            pruned: Pruned {
                memory: memory_pruned,
                ..Pruned::default()
            },
            best: vec![None; n_budgets],
            ranked: Vec::new(),
            opts: SolveOptions::default(),
            first_unpriced: None,
            first_unsolved: None,
        })
    }
}

impl CodesignRun {
    /// Check the setup and list the candidates (nothing is solved yet): at once, as
    /// [`CodesignStart`] does a few parallelisms at a time.
    pub fn new(setup: &CodesignSetup) -> Result<CodesignRun, CodesignError> {
        Answering::new(CodesignStart::new(setup)?).finish()
    }

    /// Candidates visited and candidates in all (those that fit in memory).
    pub fn progress(&self) -> (usize, usize) {
        (self.done, self.total)
    }

    pub fn is_done(&self) -> bool {
        self.done >= self.total
    }

    /// Visit up to `n` more candidates; true when all are done.
    pub fn step(&mut self, n: usize) -> bool {
        for _ in 0..n {
            let Some(key) = self.next_key() else {
                break;
            };
            self.visit(key);
            self.done += 1;
        }
        self.is_done()
    }

    /// Run to the end.
    pub fn run(mut self) -> CodesignRun {
        while !self.step(256) {}
        self
    }

    fn next_key(&mut self) -> Option<Key> {
        let (g, s, o) = self.cursor;
        let group = self.groups.get(g)?;
        let key = Key {
            group: g,
            shape: s,
            order: group.orders[o],
        };
        self.cursor = if o + 1 < group.orders.len() {
            (g, s, o + 1)
        } else if s + 1 < self.shapes.len() {
            (g, s + 1, 0)
        } else {
            (g + 1, 0, 0)
        };
        Some(key)
    }

    /// The time a candidate must beat at budget `i` to matter.
    fn threshold(&self, i: usize) -> f64 {
        let best = self.best[i].as_ref().map_or(f64::INFINITY, |b| b.1.time_ns);
        if i == self.rank_index {
            let kth = if self.ranked.len() >= RANKED {
                self.ranked[RANKED - 1].1.time_ns
            } else {
                f64::INFINITY
            };
            best.max(kth)
        } else {
            best
        }
    }

    fn visit(&mut self, key: Key) {
        let group = &self.groups[key.group];
        // The compute time bounds every shape: skip before compiling when it cannot matter.
        if (0..self.budgets.len()).all(|i| group.compute_ns >= self.threshold(i)) {
            self.pruned.bound += 1;
            return;
        }
        let shape = &self.shapes[key.shape];
        let choice = Choice {
            order: key.order,
            ..group.choice
        };
        let Ok(mapping) = choice
            .parallelism
            .map_folded(shape, key.order, choice.cp, choice.ep)
        else {
            self.pruned.lay += 1;
            return;
        };
        let sc = &mut self.frames[key.shape];
        sc.workloads[0].communicator = communicator_of(&self.setup.model, &choice, &mapping);
        let sc = &self.frames[key.shape];
        // The same bound as below's, before compiling.
        if let Some(bounds) = group.classes.time_lower_bounds(sc, &self.budgets) {
            if bounds
                .iter()
                .enumerate()
                .all(|(i, &b)| b >= self.threshold(i))
            {
                self.pruned.bound += 1;
                return;
            }
        }
        let problem = match compile_classes(sc, &group.classes) {
            Ok(p) => p,
            Err(e) => {
                self.pruned.unpriced += 1;
                self.first_unpriced.get_or_insert_with(|| e.to_string());
                return;
            }
        };
        let wanted: Vec<(usize, f64)> = self
            .budgets
            .iter()
            .enumerate()
            .filter(|&(i, &x)| lower_bound(&problem, x) < self.threshold(i))
            .map(|(i, &x)| (i, x))
            .collect();
        if wanted.is_empty() {
            self.pruned.bound += 1;
            return;
        }
        let budgets: Vec<f64> = wanted.iter().map(|w| w.1).collect();
        let front = match pareto(&problem, &budgets, &self.opts) {
            Ok(f) => f,
            Err(e) => {
                self.pruned.unsolved += 1;
                self.first_unsolved.get_or_insert_with(|| e.to_string());
                return;
            }
        };
        self.evaluated += 1;
        for p in front.points {
            let Some(&(i, _)) = wanted.iter().find(|w| w.1 == p.budget_usd) else {
                continue;
            };
            if self.best[i]
                .as_ref()
                .is_none_or(|b| p.time_ns < b.1.time_ns)
            {
                self.best[i] = Some((key, p.clone()));
            }
            if i == self.rank_index {
                let at = self.ranked.partition_point(|r| r.1.time_ns <= p.time_ns);
                if at < RANKED {
                    self.ranked.insert(at, (key, p));
                    self.ranked.truncate(RANKED);
                }
            }
        }
    }

    fn design(&self, key: Key, p: &FrontPoint) -> Design {
        let group = &self.groups[key.group];
        let shape = &self.shapes[key.shape];
        let c = group.choice;
        let mapping = c
            .parallelism
            .map_folded(shape, key.order, c.cp, c.ep)
            .expect("a solved candidate lays");
        let par = c.parallelism;
        Design {
            tp: par.tp,
            pp: par.pp,
            dp: par.dp,
            cp: c.cp,
            ep: c.ep,
            virtual_stages: c.virtual_stages,
            micro_batch: c.micro_batch,
            shape: Design::shape_of(shape),
            shape_label: shape.shape_label(),
            mapping: MappingOut::new(key.order, &mapping),
            budget_usd: p.budget_usd,
            bw_gbps: p.bw_gbps.clone(),
            time_ns: p.time_ns,
            cost_usd: p.cost_usd,
            gap: p.gap,
            memory_gb: group.memory.total_bytes / 1e9,
            compute_ns: group.compute_ns,
        }
    }

    /// The least time at each budget that some candidate meets, with its design.
    pub fn front(&self) -> Vec<Design> {
        self.best
            .iter()
            .flatten()
            .map(|(k, p)| self.design(*k, p))
            .collect()
    }

    /// The front as budget ranges won by one design choice (parallelism, micro-batch, shape,
    /// order): (first budget, last budget, the design at the last budget of the range).
    pub fn winners(&self) -> Vec<(f64, f64, Design)> {
        let mut out: Vec<(f64, f64, Key, Design)> = Vec::new();
        for (k, p) in self.best.iter().flatten() {
            match out.last_mut() {
                Some(last) if last.2 == *k => {
                    last.1 = p.budget_usd;
                    last.3 = self.design(*k, p);
                }
                _ => out.push((p.budget_usd, p.budget_usd, *k, self.design(*k, p))),
            }
        }
        out.into_iter().map(|(a, b, _, d)| (a, b, d)).collect()
    }

    /// The fastest designs at the ranking budget, at most [`RANKED`].
    pub fn ranked(&self) -> Vec<Design> {
        self.ranked
            .iter()
            .map(|(k, p)| self.design(*k, p))
            .collect()
    }

    /// The fastest design at the ranking budget.
    pub fn best(&self) -> Option<Design> {
        self.ranked.first().map(|(k, p)| self.design(*k, p))
    }

    /// After the run: why there is no design, if there is none.
    pub fn outcome(&self) -> Result<(), CodesignError> {
        if self.best.iter().any(Option::is_some) {
            return Ok(());
        }
        let p = &self.pruned;
        if self.is_done() && self.evaluated == 0 && p.lay == self.total {
            return Err(CodesignError::NothingLays {
                candidates: self.total,
            });
        }
        if self.is_done() && self.evaluated == 0 && p.lay + p.unpriced + p.unsolved == self.total {
            return Err(CodesignError::NothingSolved {
                candidates: self.total,
                lay: p.lay,
                unpriced: p.unpriced,
                unsolved: p.unsolved,
                first_unpriced: self.first_unpriced.clone(),
                first_unsolved: self.first_unsolved.clone(),
            });
        }
        if self.is_done() {
            return Err(CodesignError::NoBudgetMet);
        }
        Ok(())
    }

    pub fn setup(&self) -> &CodesignSetup {
        &self.setup
    }

    /// Everything the search found, as the command line prints it and the app draws it.
    pub fn result(&self) -> CodesignResult {
        let (_, candidates) = self.progress();
        CodesignResult {
            model: self.setup.model.name.clone(),
            npus: self.setup.npus,
            hbm_gb: self.setup.hbm_gb,
            budgets: self.budgets.clone(),
            rank_budget_usd: self.rank_budget,
            shapes: self.shapes.len(),
            candidates: candidates + self.pruned.memory,
            evaluated: self.evaluated,
            pruned: self.pruned.total(),
            pruned_by: self.pruned,
            best: self.best(),
            front: self.front(),
            winners: self
                .winners()
                .into_iter()
                .map(|(from_usd, to_usd, design)| Winner {
                    from_usd,
                    to_usd,
                    design,
                })
                .collect(),
            ranked: self.ranked(),
        }
    }
}

/// One budget range of the front won by one design choice.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Winner {
    pub from_usd: f64,
    pub to_usd: f64,
    /// The design at the range's last budget.
    pub design: Design,
}

/// A finished search.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CodesignResult {
    pub model: String,
    pub npus: u32,
    pub hbm_gb: f64,
    /// The budgets of the front, ascending.
    pub budgets: Vec<f64>,
    /// The budget of the ranked table.
    pub rank_budget_usd: f64,
    /// Shapes searched.
    pub shapes: usize,
    /// Candidates (parallelism, micro-batch, shape, order), those that do not fit in memory
    /// included.
    pub candidates: usize,
    /// Candidates whose bandwidths were optimized.
    pub evaluated: usize,
    /// Candidates not optimized, and why.
    pub pruned: usize,
    pub pruned_by: Pruned,
    /// The fastest design at the ranking budget.
    pub best: Option<Design>,
    /// The fastest design at each budget some design meets.
    pub front: Vec<Design>,
    pub winners: Vec<Winner>,
    /// The fastest designs at the ranking budget, at most [`RANKED`].
    pub ranked: Vec<Design>,
}

impl CodesignResult {
    /// What the search did, in words: "436 candidates on 1 shape: 96 optimized, 326 skipped by a
    /// lower bound, 14 that do not fit in memory, 0 that do not lay on a shape".
    pub fn counts(&self) -> String {
        format!(
            "{} candidates on {} shape{}: {} optimized, {} skipped by a lower bound, {} that do not fit in memory, {} that do not lay on a shape",
            self.candidates,
            self.shapes,
            if self.shapes == 1 { "" } else { "s" },
            self.evaluated,
            self.pruned_by.bound,
            self.pruned_by.memory,
            self.pruned_by.lay,
        )
    }
}

/// `LB(X)`: the compute time plus, per pattern, the larger of its largest latency and its time
/// when the whole budget `X` buys its bandwidths alone.
pub fn lower_bound(problem: &Problem, budget_usd: f64) -> f64 {
    problem.compute_ns
        + problem
            .patterns
            .iter()
            .map(|p| {
                let alpha = p.alpha.iter().copied().fold(0.0, f64::max);
                let priced: f64 =
                    p.a.iter()
                        .zip(&problem.cost_per_gbps)
                        .map(|(a, c)| a * c)
                        .sum();
                p.weight * alpha.max(priced / budget_usd)
            })
            .sum::<f64>()
}

fn limits_text(costs: &CostModel) -> String {
    costs
        .tiers
        .iter()
        .map(|t| match t.max_npus {
            Some(m) => format!("{} at most {m}", t.name),
            None => format!("{} no limit", t.name),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The least sequence that context parallelism is searched for: CP splits long sequences (Llama
/// 3 at 128K); at a few thousand tokens a rank's share is too thin to pay its exchange.
pub const CP_FROM_SEQ: u32 = 16_384;

/// Every choice of degrees and micro-batch that passes the divisibility rules, in search order:
/// TP dividing the heads (and the key-value heads), CP dividing the sequence (from
/// [`CP_FROM_SEQ`] tokens), any PP that leaves the last stage a layer (the busiest stages hold
/// `ceil(L / PP)`: Llama 3 405B's 126 layers and DeepSeek-V3's 61 on 16 stages), DP x
/// micro-batch the global batch, EP dividing the experts and the stage's TP x CP x DP ranks.
fn divisible(setup: &CodesignSetup) -> Vec<Choice> {
    let t = &setup.model;
    let n = setup.npus;
    let kv = t.kv_heads.unwrap_or(t.heads);
    let mut out = Vec::new();
    for tp in divisors(n)
        .into_iter()
        .filter(|tp| t.heads.is_multiple_of(*tp) && kv.is_multiple_of(*tp))
    {
        let cps: Vec<u32> = match t.seq_len >= CP_FROM_SEQ {
            true => divisors(n / tp)
                .into_iter()
                .filter(|c| t.seq_len.is_multiple_of(*c))
                .collect(),
            false => vec![1],
        };
        for cp in cps {
            for pp in divisors(n / tp / cp)
                .into_iter()
                .filter(|&pp| t.layers >= pp && t.layers.div_ceil(pp) * (pp - 1) < t.layers)
            {
                let dp = n / tp / cp / pp;
                if !t.global_batch.is_multiple_of(dp) {
                    continue;
                }
                let fold = u64::from(tp) * u64::from(cp) * u64::from(dp);
                let eps: Vec<u32> = match &t.moe {
                    Some(m) => divisors(m.experts)
                        .into_iter()
                        .filter(|e| fold.is_multiple_of(u64::from(*e)))
                        .collect(),
                    None => vec![1],
                };
                for ep in eps {
                    for b in divisors(t.global_batch / dp) {
                        let m = t.global_batch / dp / b;
                        for virtual_stages in interleavings(t.layers, pp, m) {
                            out.push(Choice {
                                parallelism: Parallelism { tp, pp, dp },
                                micro_batch: b,
                                order: LayOrder::TpPpDp,
                                cp,
                                ep,
                                virtual_stages,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// The most model chunks per stage the co-design tries.
pub const MAX_VIRTUAL_STAGES: u32 = 8;

/// The chunks per stage worth trying on `pp` stages with `m` micro-batches: 1, and each `v` up
/// to [`MAX_VIRTUAL_STAGES`] that splits the busiest stage's `ceil(L / PP)` layers evenly, with a
/// layer per chunk everywhere (`L >= PP v`) and `m` a multiple of PP (Megatron's interleaved
/// schedule).
fn interleavings(layers: u32, pp: u32, m: u32) -> Vec<u32> {
    let mut out = vec![1];
    if pp > 1 && m.is_multiple_of(pp) {
        let busiest = layers.div_ceil(pp);
        out.extend((2..=MAX_VIRTUAL_STAGES).filter(|&v| {
            busiest.is_multiple_of(v) && u64::from(layers) >= u64::from(pp) * u64::from(v)
        }));
    }
    out
}

fn memory_pruned(setup: &CodesignSetup, shapes: usize) -> usize {
    divisible(setup)
        .into_iter()
        .filter(|c| !fits(setup, c).1)
        .map(|c| shapes * orders(&c.parallelism).len())
        .sum()
}

fn fits(setup: &CodesignSetup, choice: &Choice) -> (MemoryPerNpu, bool) {
    let m = super::candidate::memory_of(&setup.model, choice, &setup.memory);
    let ok = m.fits(setup.hbm_gb).is_ok();
    (m, ok)
}

fn orders(p: &Parallelism) -> Vec<LayOrder> {
    if p.pp > 1 && p.dp > 1 {
        LayOrder::ALL.to_vec()
    } else {
        vec![LayOrder::TpPpDp]
    }
}

impl Stepping for CodesignRun {
    type Output = CodesignResult;
    type Error = std::convert::Infallible;

    fn step(&mut self, candidates: u64) -> bool {
        CodesignRun::step(self, units(candidates))
    }

    fn progress(&self) -> Progress {
        let (done, total) = CodesignRun::progress(self);
        Progress::of(done, total, "candidates")
    }

    fn finish(mut self) -> Result<CodesignResult, Self::Error> {
        while !CodesignRun::step(&mut self, usize::MAX) {}
        Ok(self.result())
    }
}

impl AnswersOnce for CodesignStart {
    type Output = CodesignRun;
    type Error = CodesignError;

    fn step_once(&mut self, parallelisms: u64) -> Option<Result<CodesignRun, CodesignError>> {
        CodesignStart::step(self, units(parallelisms))
    }

    fn progress(&self) -> Progress {
        let (done, total) = CodesignStart::progress(self);
        Progress::of(done, total, "parallelisms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::shapes::libra_layouts;
    use crate::codesign::candidate::scenario_of;
    use crate::codesign::ModelPreset;
    use crate::optimize::{compile, solve};
    use crate::presets;

    fn setup(shapes: ShapeSpace, budgets: Vec<f64>) -> CodesignSetup {
        let costs = presets::libra_4d_cost_model();
        CodesignSetup::of_preset(ModelPreset::Gpt3, 4096, costs, shapes, budgets)
    }

    #[test]
    fn with_experts_the_search_equals_brute_force_over_every_ep_too() {
        // Mixtral 8x7B on 64 NPUs (8 x 8 on NVLink and NDR): every TP x PP x DP, EP and
        // micro-batch that fits, solved through `scenario --model`'s scenario.
        let spec = crate::systems::system_preset("dgx-h100").unwrap();
        let shape = spec.network(64).unwrap();
        let costs = spec.cost_model();
        let budgets = vec![1e6, 3e6];
        let mut s = CodesignSetup::of_preset(
            ModelPreset::Mixtral8x7b,
            64,
            costs,
            ShapeSpace::Fixed(shape.clone()),
            budgets.clone(),
        );
        s.model.global_batch = 64;
        let run = CodesignRun::new(&s).unwrap().run();
        run.outcome().unwrap();
        let mut all: Vec<Vec<f64>> = vec![Vec::new(); budgets.len()];
        let mut eps = std::collections::BTreeSet::new();
        for c in divisible(&s).into_iter().filter(|c| fits(&s, c).1) {
            eps.insert(c.ep);
            for order in orders(&c.parallelism) {
                let choice = Choice { order, ..c };
                for (i, &x) in budgets.iter().enumerate() {
                    let sc = scenario_of(&s.model, &choice, &shape, &s.costs, Some(x)).unwrap();
                    let Ok(problem) = compile(&sc) else { continue };
                    if let Ok(sol) = solve(&problem, &SolveOptions::default()) {
                        all[i].push(sol.time_ns);
                    }
                }
            }
        }
        assert!(eps.len() >= 3, "EP searched: {eps:?}");
        for (i, d) in run.front().iter().enumerate() {
            let brute = all[i].iter().copied().fold(f64::INFINITY, f64::min);
            assert!(
                (d.time_ns - brute).abs() <= 2e-6 * brute,
                "budget {}: search {} (EP {}) vs brute force {brute}",
                budgets[i],
                d.time_ns,
                d.ep
            );
        }
    }

    #[test]
    fn at_a_fixed_shape_the_search_equals_brute_force_over_every_parallelism() {
        let shape = presets::libra_4d_network();
        let budgets = vec![2e6, 8e6, 3e7];
        let s = setup(ShapeSpace::Fixed(shape.clone()), budgets.clone());
        let run = CodesignRun::new(&s).unwrap().run();
        run.outcome().unwrap();
        // Brute force: every parallelism, micro-batch and order that fits, solved at every budget
        // through the Scenario that `scenario --model` writes.
        let mut all: Vec<Vec<(f64, String)>> = vec![Vec::new(); budgets.len()];
        let mut fitting = 0;
        for c in divisible(&s) {
            if !fits(&s, &c).1 {
                continue;
            }
            let (p, b) = (c.parallelism, c.micro_batch);
            for order in orders(&p) {
                let choice = Choice { order, ..c };
                fitting += 1;
                for (i, &x) in budgets.iter().enumerate() {
                    let sc = scenario_of(&s.model, &choice, &shape, &s.costs, Some(x)).unwrap();
                    let Ok(problem) = compile(&sc) else { continue };
                    if let Ok(sol) = solve(&problem, &SolveOptions::default()) {
                        all[i].push((sol.time_ns, format!("{p:?} b{b} {order:?}")));
                    }
                }
            }
        }
        assert_eq!(fitting, run.progress().1);
        let chunks: std::collections::BTreeSet<u32> =
            divisible(&s).iter().map(|c| c.virtual_stages).collect();
        assert_eq!(chunks.into_iter().collect::<Vec<_>>(), [1, 2, 3, 4, 6, 8]);
        assert_eq!(run.evaluated + run.pruned.bound + run.pruned.lay, fitting);
        assert!(run.pruned.bound > fitting / 2, "{:?}", run.pruned);
        let front = run.front();
        assert_eq!(front.len(), budgets.len());
        for (i, d) in front.iter().enumerate() {
            all[i].sort_by(|a, b| a.0.total_cmp(&b.0));
            let brute = all[i][0].0;
            assert!(
                (d.time_ns - brute).abs() <= 2e-6 * brute,
                "budget {}: search {} vs brute force {} ({})",
                budgets[i],
                d.time_ns,
                brute,
                all[i][0].1
            );
            assert!(d.cost_usd <= budgets[i] * (1.0 + 1e-9));
        }
        // The ranked table (at the largest budget) is brute force's fastest twenty.
        let ranked = run.ranked();
        assert_eq!(ranked.len(), RANKED);
        let last = budgets.len() - 1;
        for (d, b) in ranked.iter().zip(&all[last]) {
            assert!(
                (d.time_ns - b.0).abs() <= 2e-6 * b.0,
                "{} vs {}",
                d.time_ns,
                b.0
            );
        }
    }

    #[test]
    fn gpt3_on_4096_npus_proposes_only_shapes_within_the_tier_limits_and_reproducible_designs() {
        let s = setup(
            ShapeSpace::WithinLimits(libra_layouts()),
            crate::optimize::sweep::budget_range(1e6, 1e8, 5),
        );
        let run = CodesignRun::new(&s).unwrap();
        assert_eq!(run.shapes.len(), 74);
        let run = run.run();
        assert!(run.is_done());
        let mut designs = run.front();
        designs.extend(run.ranked());
        assert!(!designs.is_empty());
        for d in &designs {
            let shape = d.network();
            assert!(s.costs.holds(&shape.dims), "{}", d.shape_label);
            assert!(d.memory_gb <= 80.0);
            assert_eq!(d.tp * d.pp * d.dp, 4096);
            // The Scenario of this design, optimized on its own, gives the same time.
            let choice = d.choice().unwrap();
            let sc = scenario_of(&s.model, &choice, &shape, &s.costs, Some(d.budget_usd)).unwrap();
            let sol = solve(&compile(&sc).unwrap(), &SolveOptions::default()).unwrap();
            assert!(
                (sol.time_ns - d.time_ns).abs() <= 2e-6 * d.time_ns,
                "{} {}: {} vs {}",
                d.parallelism_label(),
                d.shape_label,
                sol.time_ns,
                d.time_ns
            );
        }
        // The front falls with the budget; the winners cover it.
        let front = run.front();
        assert!(front.windows(2).all(|w| w[1].time_ns <= w[0].time_ns));
        let winners = run.winners();
        assert_eq!(winners.first().unwrap().0, front[0].budget_usd);
        assert_eq!(winners.last().unwrap().1, front.last().unwrap().budget_usd);
        assert_eq!(run.best().unwrap(), run.ranked()[0]);
    }

    #[test]
    fn impossible_searches_say_which_limit_fails() {
        let layouts = ShapeSpace::WithinLimits(libra_layouts());
        let mut s = setup(layouts.clone(), vec![1e7]);
        s.npus = 4099;
        assert!(matches!(
            CodesignRun::new(&s),
            Err(CodesignError::NoShape { npus: 4099, .. })
        ));
        let prime = Network {
            dims: vec![Dim {
                topology: Topology::Switch,
                npus: 4099,
                tier: "InterPod".into(),
                latency_ns: 0.0,
            }],
        };
        s.shapes = ShapeSpace::Fixed(prime);
        let Err(e) = CodesignRun::new(&s) else {
            panic!("4099 NPUs cannot be factored")
        };
        assert_eq!(
            e.to_string(),
            "4099 NPUs have no TP x CP x PP x DP = 4099 with TP dividing the 96 heads (and key-value heads), PP at most the 96 layers with a layer on the last stage, and DP the global batch 1536"
        );
        let mut s = setup(layouts.clone(), vec![1e7]);
        s.npus = 16;
        let Err(e) = CodesignRun::new(&s) else {
            panic!("GPT-3 does not fit 16 NPUs")
        };
        let CodesignError::Memory { least_gb, .. } = e else {
            panic!("{e}")
        };
        assert!(least_gb > 80.0);
        assert!(
            e.to_string()
                .starts_with("no parallelism of GPT-3 175B on 16 NPUs fits 80 GB of HBM"),
            "{e}"
        );
        let mut s = setup(layouts, vec![1e7]);
        s.budgets = vec![-1.0];
        assert!(matches!(
            CodesignRun::new(&s),
            Err(CodesignError::BadBudget(-1.0))
        ));
        s.budgets = crate::optimize::sweep::budget_range(1e6, 1e8, 65);
        assert!(matches!(
            CodesignRun::new(&s),
            Err(CodesignError::BudgetCount(65))
        ));
        s.budgets = vec![10.0];
        let run = CodesignRun::new(&s).unwrap().run();
        assert_eq!(run.outcome(), Err(CodesignError::NoBudgetMet));
    }

    #[test]
    fn interleaving_splits_the_busiest_stage_evenly_with_a_layer_per_chunk() {
        // GPT-3's 96 layers on 8 stages (12 each), 24 micro-batches.
        assert_eq!(interleavings(96, 8, 24), [1, 2, 3, 4, 6]);
        // Micro-batches not a multiple of PP, or one stage: plain 1F1B only.
        assert_eq!(interleavings(96, 8, 12), [1]);
        assert_eq!(interleavings(96, 1, 24), [1]);
        // DeepSeek-V3's 61 layers on 16 stages (4 on the busiest): 4 chunks would leave a
        // stage's chunk empty (61 < 64).
        assert_eq!(interleavings(61, 16, 32), [1, 2]);
        // Llama 3 405B's 126 on 16 (8 on the busiest): up to MAX_VIRTUAL_STAGES.
        assert_eq!(interleavings(126, 16, 16), [1, 2, 4]);
    }

    #[test]
    fn divisors_are_complete() {
        assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(1), vec![1]);
        assert_eq!(divisors(4099), vec![1, 4099]);
    }
}
