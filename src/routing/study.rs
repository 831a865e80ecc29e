//! A routing study: what the app's Routing view shows for one setup. The setup is a generator
//! placement (plus an optional degraded link); the study routes it with ECMP, greedy, capacity-aware
//! greedy, the exact optimizer (min static makespan, within a node budget), edge colouring and
//! simulated annealing, and
//! sweeps the number of failed spines for ECMP, greedy and the optimizer.

use super::algorithm::Algorithm;
use super::algorithms::{ecmp, greedy, greedy_capacity_aware};
use super::annealing::{Annealing, DEFAULT_MOVES};
use super::annealing_authors::{AuthorsAnnealing, AUTHORS_SEED};
use super::coupling::{efficiency_of, EtaBasis};
use super::edge_coloring::edge_coloring;
use super::exact::{ExactRun, Objective};
use super::fluid::FluidRun;
use super::generate::{generate, GenerateError, Placement};
use super::metrics::{measure_static, measure_static_rated, rates, Metrics, Routing};
use super::multipath::{fluid_simulated, split, LLAMA3_FLOWS};
use super::paper_jobs::PaperModel;
use super::scenario::{CapacityOverride, Instance, LinkKind, RouteScenario};
use crate::form::typed::Kind;
use crate::stepping::{Progress, Stepping};
use crate::systems::clos::FabricError;
use crate::systems::SystemSpec;
use std::collections::BTreeMap;

/// The presets of the Routing view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoutePreset {
    SingleJob,
    ThreeJobs,
    SpineFailure,
    DegradedLink,
    PaperMix,
}

impl RoutePreset {
    pub const ALL: [RoutePreset; 5] = [
        RoutePreset::SingleJob,
        RoutePreset::ThreeJobs,
        RoutePreset::SpineFailure,
        RoutePreset::DegradedLink,
        RoutePreset::PaperMix,
    ];

    pub fn key(self) -> &'static str {
        match self {
            RoutePreset::SingleJob => "single-job",
            RoutePreset::ThreeJobs => "three-jobs",
            RoutePreset::SpineFailure => "spine-failure",
            RoutePreset::DegradedLink => "degraded-link",
            RoutePreset::PaperMix => "paper-mix",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            RoutePreset::SingleJob => "a single job (rings of 8)",
            RoutePreset::ThreeJobs => "three jobs sharing ToRs",
            RoutePreset::SpineFailure => "three jobs, one spine failed",
            RoutePreset::DegradedLink => "three jobs, one link at 25 Gbps",
            RoutePreset::PaperMix => "the paper: GPT-3, BLOOM, LLaMA2-70B on 64 x 32",
        }
    }

    /// The preset `setup` is, if it is one unchanged.
    pub fn of(setup: &RouteSetup) -> Option<RoutePreset> {
        RoutePreset::ALL.into_iter().find(|p| p.setup() == *setup)
    }

    pub fn setup(self) -> RouteSetup {
        let base = Placement::default();
        match self {
            RoutePreset::SingleJob => RouteSetup {
                placement: Placement {
                    jobs: 1,
                    ring_size: 8,
                    ..base
                },
                degraded_gbps: None,
                typed: BTreeMap::new(),
                system: None,
            },
            RoutePreset::ThreeJobs => RouteSetup {
                placement: base,
                degraded_gbps: None,
                typed: BTreeMap::new(),
                system: None,
            },
            RoutePreset::SpineFailure => RouteSetup {
                placement: Placement {
                    failed_spines: 1,
                    ..base
                },
                degraded_gbps: None,
                typed: BTreeMap::new(),
                system: None,
            },
            RoutePreset::DegradedLink => RouteSetup {
                placement: base,
                degraded_gbps: Some(25.0),
                typed: BTreeMap::new(),
                system: None,
            },
            // The routing paper's fabric and job mix (rings of 8; see `paper_jobs`).
            RoutePreset::PaperMix => RouteSetup {
                placement: Placement {
                    models: PaperModel::ALL.to_vec(),
                    ..Placement::paper(3, 8, 0)
                },
                degraded_gbps: None,
                typed: BTreeMap::new(),
                system: None,
            },
        }
    }
}

/// What the Routing view routes: a generated placement, and optionally `up:tor0:spine0` degraded.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RouteSetup {
    pub placement: Placement,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degraded_gbps: Option<f64>,
    /// The text of each field the view refused, as typed (by [`RouteField::key`]): kept, shown
    /// marked and carried by the link, so that a refused text is never replaced by its last
    /// readable prefix. A setup with any is not studied.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub typed: BTreeMap<String, String>,
    /// The system whose fabric the ToRs, spines, hosts and link rate are (one plane of it;
    /// [`RouteSetup::on_system`]); dropped when one of them is edited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
}

/// The Routing view's number fields, each read by the one typed reader
/// ([`crate::form::typed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteField {
    Tors,
    Spines,
    HostsPerTor,
    Jobs,
    RingSize,
    FailedSpines,
    LinkGbps,
    NicGbps,
}

impl RouteField {
    pub const ALL: [RouteField; 8] = [
        RouteField::Tors,
        RouteField::Spines,
        RouteField::HostsPerTor,
        RouteField::LinkGbps,
        RouteField::NicGbps,
        RouteField::Jobs,
        RouteField::RingSize,
        RouteField::FailedSpines,
    ];

    /// Its key in [`RouteSetup::typed`], and its test id after `route-`.
    pub fn key(self) -> &'static str {
        match self {
            RouteField::Tors => "tors",
            RouteField::Spines => "spines",
            RouteField::HostsPerTor => "hosts",
            RouteField::Jobs => "jobs",
            RouteField::RingSize => "ring",
            RouteField::FailedSpines => "failed",
            RouteField::LinkGbps => "gbps",
            RouteField::NicGbps => "nic",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            RouteField::Tors => "ToRs",
            RouteField::Spines => "spines",
            RouteField::HostsPerTor => "hosts per ToR",
            RouteField::Jobs => "jobs",
            RouteField::RingSize => "ring size",
            RouteField::FailedSpines => "failed spines",
            RouteField::LinkGbps => "link Gb/s",
            RouteField::NicGbps => "NIC Gb/s",
        }
    }

    /// What the field takes: within the view's limits, each on its own.
    pub fn kind(self) -> Kind {
        match self {
            RouteField::Tors | RouteField::HostsPerTor => Kind::whole(1, VIEW_MAX_HOSTS),
            RouteField::Spines => Kind::whole(1, VIEW_MAX_SPINES),
            RouteField::Jobs => Kind::whole(1, crate::limits::MAX_JOBS),
            RouteField::RingSize => Kind::whole(2, VIEW_MAX_HOSTS),
            RouteField::FailedSpines => Kind::whole(0, VIEW_MAX_SPINES),
            RouteField::LinkGbps | RouteField::NicGbps => Kind::Real {
                least: 0.0,
                open: true,
                most: 1.0e6,
            },
        }
    }

    /// Whether the field is part of the fabric (a system's fabric sets these).
    pub fn is_fabric(self) -> bool {
        matches!(
            self,
            RouteField::Tors
                | RouteField::Spines
                | RouteField::HostsPerTor
                | RouteField::LinkGbps
                | RouteField::NicGbps
        )
    }

    /// The whole-number fields' values (None: the link and NIC rates, real numbers).
    fn value(self, p: &mut Placement) -> Option<&mut u32> {
        match self {
            RouteField::LinkGbps | RouteField::NicGbps => None,
            RouteField::Tors => Some(&mut p.tors),
            RouteField::Spines => Some(&mut p.spines),
            RouteField::HostsPerTor => Some(&mut p.hosts_per_tor),
            RouteField::Jobs => Some(&mut p.jobs),
            RouteField::RingSize => Some(&mut p.ring_size),
            RouteField::FailedSpines => Some(&mut p.failed_spines),
        }
    }
}

impl RouteSetup {
    /// The text `field` shows: as typed when it was refused, else its value.
    pub fn text(&self, field: RouteField) -> String {
        match self.typed.get(field.key()) {
            Some(t) => t.clone(),
            None => match field.value(&mut self.placement.clone()) {
                Some(n) => n.to_string(),
                None => crate::form::typed::show(match field {
                    RouteField::NicGbps => {
                        self.placement.nic_gbps.unwrap_or(self.placement.link_gbps)
                    }
                    _ => self.placement.link_gbps,
                }),
            },
        }
    }

    /// Take what was typed in `field`: its value when it reads, else the text is kept as typed
    /// (and the value left alone) and the reason returned.
    pub fn set_text(&mut self, field: RouteField, text: &str) -> Result<(), String> {
        match field.kind().read(text) {
            Ok(v) => {
                self.typed.remove(field.key());
                if field.is_fabric() {
                    self.system = None;
                }
                match (field, field.value(&mut self.placement)) {
                    (_, Some(n)) => *n = u32::try_from(v.whole()).unwrap_or(u32::MAX),
                    (RouteField::NicGbps, None) => self.placement.nic_gbps = Some(v.real()),
                    (_, None) => self.placement.link_gbps = v.real(),
                }
                if field == RouteField::Jobs {
                    // A number of equal jobs replaces the paper's mix.
                    self.placement.models.clear();
                }
                Ok(())
            }
            Err(e) => {
                self.typed.insert(field.key().into(), text.to_string());
                Err(e)
            }
        }
    }

    /// Why `field`'s text (as shown) is refused, if it is.
    pub fn refusal(&self, field: RouteField) -> Option<String> {
        match field.kind().read(&self.text(field)) {
            Err(e) => Some(e),
            // A text kept as typed that reads (a hand-edited link) is not the value studied.
            Ok(_) if self.typed.contains_key(field.key()) => Some(format!(
                "\"{}\" was kept as typed: type it again",
                self.text(field)
            )),
            Ok(_) => None,
        }
    }

    /// Every refused field with its reason, in the view's order: a setup with any is not studied.
    pub fn refusals(&self) -> Vec<(RouteField, String)> {
        RouteField::ALL
            .into_iter()
            .filter_map(|f| self.refusal(f).map(|e| (f, e)))
            .collect()
    }
}

impl RouteSetup {
    /// This setup's jobs on one plane of `spec`'s fabric, as much of it as the view routes (a
    /// DGX SuperPOD's rail: 64 leaves of 32 NICs under 32 spines at 400 Gb/s); its failed
    /// spines kept while one spine stays up.
    pub fn on_system(&self, spec: &SystemSpec) -> Result<RouteSetup, FabricError> {
        let f = spec.route_fabric(VIEW_MAX_HOSTS, VIEW_MAX_SPINES)?;
        let mut next = self.clone();
        let p = &mut next.placement;
        (p.tors, p.spines, p.hosts_per_tor, p.link_gbps, p.nic_gbps) =
            (f.tors, f.spines, f.hosts_per_tor, f.link_gbps, None);
        p.failed_spines = p.failed_spines.min(f.spines - 1);
        for field in RouteField::ALL.into_iter().filter(|f| f.is_fabric()) {
            next.typed.remove(field.key());
        }
        next.typed.remove(RouteField::FailedSpines.key());
        next.system = Some(spec.name.clone());
        Ok(next)
    }

    /// What the fabric is, in words: the system's plane, or the links' rate.
    pub fn fabric_summary(&self) -> String {
        let gbps = crate::format::number(self.placement.link_gbps);
        let nic =
            crate::format::number(self.placement.nic_gbps.unwrap_or(self.placement.link_gbps));
        self.system
            .as_deref()
            .and_then(crate::systems::system_preset)
            .and_then(|s| s.route_fabric(VIEW_MAX_HOSTS, VIEW_MAX_SPINES).ok())
            .map_or_else(
                || format!("Links: {gbps} Gbps, NICs: {nic} Gbps."),
                |f| format!("The fabric of {}.", f.summary),
            )
    }
}

/// The Routing view's state as a permalink carries it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RouteLink {
    pub setup: RouteSetup,
    /// The algorithm shown (by key; links made before the keys give its position in
    /// [`Algorithm::ALL`], and still open).
    pub algorithm: Algorithm,
}

/// The largest setup the Routing view studies: the routing paper's fabric (64 ToRs x 32 NICs,
/// 32 spines). Its study (six routings with their fluid simulations, and a sweep over every
/// number of failed spines) runs on the page a slice per animation frame ([`RouteStudyRun`]): at
/// the paper's scale about 1.5 s of work natively, no piece over 10 ms.
pub const VIEW_MAX_HOSTS: u64 = 2048;
/// See [`VIEW_MAX_HOSTS`].
pub const VIEW_MAX_SPINES: u64 = 32;

/// Why the Routing view cannot study a setup; each names the setting.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RouteStudyError {
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
    #[error(transparent)]
    Generate(#[from] GenerateError),
    #[error(transparent)]
    Route(#[from] super::scenario::RouteError),
    #[error("{field}: {reason}")]
    Refused { field: &'static str, reason: String },
}

impl RouteSetup {
    /// The Routing view's own limits, checked before anything is generated.
    pub fn check_view_limits(&self) -> Result<(), RouteStudyError> {
        use crate::limits::{at_most, product};
        let p = &self.placement;
        let hosts = product(u64::from(p.tors), u64::from(p.hosts_per_tor));
        at_most(
            "ToRs x hosts per ToR",
            "hosts in the Routing view (use `libra-studio route` for larger fabrics)",
            hosts,
            VIEW_MAX_HOSTS,
        )
        .and(at_most(
            "spines",
            "spines in the Routing view (use `libra-studio route` for larger fabrics)",
            u64::from(p.spines),
            VIEW_MAX_SPINES,
        ))
        .map(|_| ())
        .map_err(RouteStudyError::from)
    }

    pub fn scenario(&self) -> Result<RouteScenario, GenerateError> {
        let mut sc = generate(&self.placement)?;
        if let Some(gbps) = self.degraded_gbps {
            sc.network.link_capacity_overrides.push(CapacityOverride {
                kind: LinkKind::Up,
                tor: 0,
                spine: sc
                    .network
                    .failed_spines
                    .iter()
                    .max()
                    .map_or(0, |s| (s + 1) % sc.network.num_spines),
                gbps,
            });
        }
        sc.instance()?;
        Ok(sc)
    }
}

impl Default for RouteLink {
    /// Three jobs sharing ToRs, greedy shown.
    fn default() -> Self {
        RouteLink {
            setup: RoutePreset::ThreeJobs.setup(),
            algorithm: Algorithm::Greedy,
        }
    }
}

/// One algorithm's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Routed {
    pub name: &'static str,
    pub metrics: Metrics,
    /// `eta` from the static All-Reduce times (docs/routing.md section 5).
    pub efficiency: f64,
    /// `eta` from the fluid simulation's times (the optional variant).
    pub efficiency_fluid: f64,
    /// For the optimizer: whether it proved optimality within its node budget.
    pub proven: Option<bool>,
    /// False when the fluid times are the static ones (multi-flow ECMP beyond
    /// `multipath::FLUID_LIMIT` sub-flows).
    pub fluid_simulated: bool,
    /// Sub-flows per ring edge (multi-flow ECMP): its routing, loads and rates are theirs.
    pub subflows: u32,
}

impl Routed {
    fn new(name: &'static str, metrics: Metrics, proven: Option<bool>) -> Routed {
        Routed {
            name,
            efficiency: efficiency_of(&metrics, EtaBasis::Static),
            efficiency_fluid: efficiency_of(&metrics, EtaBasis::Fluid),
            metrics,
            proven,
            fluid_simulated: true,
            subflows: 1,
        }
    }
}

/// Makespans against the number of failed spines.
#[derive(Clone, Debug, PartialEq)]
pub struct FailureCurve {
    pub failed: Vec<u32>,
    pub ecmp_s: Vec<f64>,
    pub greedy_s: Vec<f64>,
    /// The optimizer's least static makespan (within a quarter of the view's node budget).
    pub optimal_s: Vec<f64>,
    /// Whether each optimal point is proven.
    pub optimal_proven: Vec<bool>,
}

/// Everything the Routing view shows.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteStudy {
    pub scenario: RouteScenario,
    pub instance: Instance,
    pub routed: Vec<Routed>,
    pub failures: FailureCurve,
}

/// Nodes the view's exact optimizer may explore (it stays interactive; larger setups report
/// `proven: false`).
pub const VIEW_NODE_BUDGET: u64 = 20_000;

/// Route `setup` every way the view compares, at once.
pub fn route_study(setup: &RouteSetup) -> Result<RouteStudy, RouteStudyError> {
    let Ok(study) = RouteStudyRun::new(setup)?.finish();
    Ok(study)
}

/// Nodes of the optimizer's search per point of the failure sweep.
const SWEEP_NODE_BUDGET: u64 = VIEW_NODE_BUDGET / 4;

/// How the study names algorithm `k` of [`Algorithm::ALL`] (it routes with every one, in that
/// order; its exact search minimizes the static makespan).
pub fn study_label(k: usize) -> &'static str {
    match Algorithm::ALL[k] {
        Algorithm::Optimal => "optimal (min makespan)",
        a => a.label(),
    }
}

/// Annealing's moves in one piece of a study (its 200,000 took 8-15 ms natively at the paper's
/// scale, too long for one frame in a browser).
const ANNEAL_MOVES_PER_PIECE: u64 = 25_000;
/// Steps of the authors' annealing in one piece (917 took 12-19 ms natively at the paper's scale).
const AUTHORS_STEPS_PER_PIECE: usize = 100;

/// The position of the exact optimizer in [`Algorithm::ALL`].
const OPTIMAL: usize = 3;

/// What a [`RouteStudyRun`] does next.
enum Stage {
    /// Route with algorithm `k` of [`Algorithm::ALL`] (the optimizer starts its search).
    Route(usize),
    /// The exact search for the least static makespan.
    Optimal(Box<ExactRun>),
    /// Route the split instance with ECMP (multi-flow ECMP, algorithm `k`).
    RouteSplit(usize),
    /// Annealing (algorithm `k`), a slice of moves a piece.
    Anneal(usize, Box<Annealing>),
    /// The authors' annealing (algorithm `k`), a slice of its schedule a piece.
    AnnealAuthors(usize, Box<AuthorsAnnealing>),
    /// Measure algorithm `k`'s routing (pieces of their own for multi-flow ECMP, whose split
    /// instance has 16 times the flows: its max-min rates, then the rest of its metrics).
    Measure(usize, Box<Routing>, Option<Vec<f64>>),
    /// The fluid simulation of algorithm `k`'s routing (its static metrics are in already).
    Fluid(usize, Box<FluidRun>),
    /// Generate the failure sweep's fabric with `failed` failed spines (a piece of its own: at
    /// 2,048 ToRs it takes milliseconds).
    SweepStart(u32),
    /// The failure sweep at `failed` failed spines: ECMP, then greedy, then the optimizer (static
    /// makespans only).
    Sweep {
        failed: u32,
        instance: Box<Instance>,
        part: SweepPart,
    },
    Done,
}

enum SweepPart {
    Ecmp,
    Greedy,
    StartSearch,
    Optimal(Box<ExactRun>),
}

/// A routing study computed a piece at a time: [`RouteStudyRun::step`] does one routing, a few
/// events of a fluid simulation, one point of the failure sweep's heuristics, or a slice of an
/// exact search, so the app can spread the study over animation frames with a progress bar and
/// drop it to cancel. The pieces give the same study as [`route_study`].
pub struct RouteStudyRun {
    setup: RouteSetup,
    scenario: RouteScenario,
    instance: Instance,
    /// The instance split into sub-flows, once multi-flow ECMP has routed it.
    split: Option<Instance>,
    routed: Vec<Routed>,
    failures: FailureCurve,
    stage: Stage,
}

impl RouteStudyRun {
    /// Check the view's limits and build the fabric; nothing is routed yet.
    pub fn new(setup: &RouteSetup) -> Result<RouteStudyRun, RouteStudyError> {
        setup.check_view_limits()?;
        // A text the view refused is never studied as the value it replaced.
        if let Some(f) = RouteField::ALL
            .into_iter()
            .find(|f| setup.typed.contains_key(f.key()))
        {
            return Err(RouteStudyError::Refused {
                field: f.label(),
                reason: setup.refusal(f).unwrap_or_default(),
            });
        }
        let scenario = setup.scenario()?;
        let instance = scenario.instance()?;
        Ok(RouteStudyRun {
            setup: setup.clone(),
            scenario,
            instance,
            split: None,
            routed: Vec::new(),
            failures: FailureCurve {
                failed: Vec::new(),
                ecmp_s: Vec::new(),
                greedy_s: Vec::new(),
                optimal_s: Vec::new(),
                optimal_proven: Vec::new(),
            },
            stage: Stage::Route(0),
        })
    }

    /// Do the next piece, exploring at most about `nodes` nodes if it is an exact search (at
    /// least [`super::exact::WATCH_EVERY`]) and `nodes / 64` events of a fluid simulation. True
    /// when the study is complete.
    pub fn step(&mut self, nodes: u64) -> bool {
        let inst = &self.instance;
        self.stage = match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::Route(k) => {
                let r = match Algorithm::ALL[k] {
                    Algorithm::Optimal => {
                        self.stage = Stage::Optimal(Box::new(ExactRun::new(
                            inst,
                            Objective::MinMakespan,
                            VIEW_NODE_BUDGET,
                        )));
                        return false;
                    }
                    Algorithm::Ecmp => ecmp(inst),
                    Algorithm::Greedy => greedy(inst),
                    Algorithm::GreedyCapacityAware => greedy_capacity_aware(inst),
                    Algorithm::EdgeColoring => edge_coloring(inst),
                    Algorithm::Annealing => {
                        let run = Annealing::new(inst, 1, DEFAULT_MOVES);
                        self.stage = Stage::Anneal(k, Box::new(run));
                        return false;
                    }
                    Algorithm::AnnealingAuthors => {
                        let run = AuthorsAnnealing::new(inst, AUTHORS_SEED);
                        self.stage = Stage::AnnealAuthors(k, Box::new(run));
                        return false;
                    }
                    Algorithm::MultiFlowEcmp => {
                        // Split first, route the split in the next piece (each about 5 ms at
                        // the paper's 32,640 sub-flows).
                        self.split = Some(split(inst, LLAMA3_FLOWS));
                        self.stage = Stage::RouteSplit(k);
                        return false;
                    }
                };
                self.routed_static(k, &r, None)
            }
            Stage::RouteSplit(k) => {
                let r = ecmp(routed_on(inst, &self.split, k));
                Stage::Measure(k, Box::new(r), None)
            }
            Stage::Anneal(k, mut run) => match run.step(inst, ANNEAL_MOVES_PER_PIECE) {
                true => self.routed_static(k, &run.finish(), None),
                false => Stage::Anneal(k, run),
            },
            Stage::AnnealAuthors(k, mut run) => match run.step(inst, AUTHORS_STEPS_PER_PIECE) {
                true => self.routed_static(k, &run.finish(inst), None),
                false => Stage::AnnealAuthors(k, run),
            },
            Stage::Measure(k, r, None) => {
                let x = rates(routed_on(inst, &self.split, k), &r);
                Stage::Measure(k, r, Some(x))
            }
            Stage::Measure(k, r, Some(x)) => self.routed_static_rated(k, &r, None, x),
            Stage::Optimal(mut run) => {
                // Seeding routes four ways: one heuristic a piece, then the search.
                if run.seed_step(inst) {
                    Stage::Optimal(run)
                } else if advance(&mut run, inst, nodes) {
                    let opt = run.optimum(inst);
                    self.routed_static(OPTIMAL, &opt.routing, Some(opt.proven))
                } else {
                    Stage::Optimal(run)
                }
            }
            Stage::Fluid(k, mut run) => {
                let events = usize::try_from(nodes / 64).unwrap_or(usize::MAX).max(1);
                let inst = routed_on(inst, &self.split, k);
                if run.step(inst, events) {
                    let r = &mut self.routed[k];
                    let metrics = r.metrics.clone().with_fluid(run.times(inst));
                    *r = Routed {
                        subflows: r.subflows,
                        ..Routed::new(r.name, metrics, r.proven)
                    };
                    self.after_fluid(k)
                } else {
                    Stage::Fluid(k, run)
                }
            }
            Stage::SweepStart(failed) => self.sweep_at(failed),
            Stage::Sweep {
                failed,
                instance,
                part,
            } => {
                let i = &*instance;
                let curve = &mut self.failures;
                match part {
                    SweepPart::Ecmp => {
                        curve.failed.push(failed);
                        curve
                            .ecmp_s
                            .push(measure_static(i, &ecmp(i)).makespan_static_s);
                        Stage::Sweep {
                            failed,
                            instance,
                            part: SweepPart::Greedy,
                        }
                    }
                    SweepPart::Greedy => {
                        curve
                            .greedy_s
                            .push(measure_static(i, &greedy(i)).makespan_static_s);
                        Stage::Sweep {
                            failed,
                            instance,
                            part: SweepPart::StartSearch,
                        }
                    }
                    SweepPart::StartSearch => {
                        let run = ExactRun::new(i, Objective::MinMakespan, SWEEP_NODE_BUDGET);
                        Stage::Sweep {
                            failed,
                            instance,
                            part: SweepPart::Optimal(Box::new(run)),
                        }
                    }
                    SweepPart::Optimal(mut run) => {
                        if run.seed_step(i) {
                            Stage::Sweep {
                                failed,
                                instance,
                                part: SweepPart::Optimal(run),
                            }
                        } else if advance(&mut run, i, nodes) {
                            let best = run.optimum(i);
                            curve
                                .optimal_s
                                .push(measure_static(i, &best.routing).makespan_static_s);
                            curve.optimal_proven.push(best.proven);
                            Stage::SweepStart(failed + 1)
                        } else {
                            Stage::Sweep {
                                failed,
                                instance,
                                part: SweepPart::Optimal(run),
                            }
                        }
                    }
                }
            }
            Stage::Done => Stage::Done,
        };
        matches!(self.stage, Stage::Done)
    }

    /// Add algorithm `k`'s routing with its static metrics; its fluid simulation comes next.
    /// What follows algorithm `k`'s fluid simulation: the next algorithm, or the sweep.
    fn after_fluid(&self, k: usize) -> Stage {
        if k + 1 < Algorithm::ALL.len() {
            Stage::Route(k + 1)
        } else {
            Stage::SweepStart(0)
        }
    }

    fn routed_static(&mut self, k: usize, r: &Routing, proven: Option<bool>) -> Stage {
        let x = rates(routed_on(&self.instance, &self.split, k), r);
        self.routed_static_rated(k, r, proven, x)
    }

    /// [`RouteStudyRun::routed_static`] given the routing's rates.
    fn routed_static_rated(
        &mut self,
        k: usize,
        r: &Routing,
        proven: Option<bool>,
        rates: Vec<f64>,
    ) -> Stage {
        let inst = routed_on(&self.instance, &self.split, k);
        let metrics = measure_static_rated(inst, r, rates);
        let simulate = inst.subflows == 1 || fluid_simulated(inst);
        let metrics = match simulate {
            true => metrics,
            false => metrics.with_static_as_fluid(),
        };
        let mut routed = Routed::new(study_label(k), metrics, proven);
        routed.fluid_simulated = simulate;
        routed.subflows = inst.subflows;
        self.routed.push(routed);
        match simulate {
            true => Stage::Fluid(k, Box::new(FluidRun::new(inst, r.paths(inst)))),
            false => self.after_fluid(k),
        }
    }

    /// The sweep's point at `failed` failed spines, or the end when the fabric has no such point
    /// (every spine failed, or a placement that no longer fits).
    fn sweep_at(&self, failed: u32) -> Stage {
        if failed >= self.setup.placement.spines {
            return Stage::Done;
        }
        let mut s = self.setup.clone();
        s.placement.failed_spines = failed;
        match s.scenario().map(|sc| sc.instance()) {
            Ok(Ok(i)) => Stage::Sweep {
                failed,
                instance: Box::new(i),
                part: SweepPart::Ecmp,
            },
            _ => Stage::Done,
        }
    }

    /// How far the study is: each algorithm's routing and its fluid simulation, and each of the
    /// three pieces of every point of the sweep count as one piece (an exact search by its nodes
    /// against its budget).
    pub fn progress(&self) -> Progress {
        let algorithms = Algorithm::ALL.len() as f64;
        let total = 2.0 * algorithms + 3.0 * f64::from(self.setup.placement.spines);
        let searched = |run: &ExactRun| run.nodes() as f64 / run.budget().max(1) as f64;
        let (done, doing) = match &self.stage {
            Stage::Route(k) => (2.0 * *k as f64, format!("routing with {}", study_label(*k))),
            Stage::Anneal(k, run) => (
                2.0 * *k as f64 + 0.5 * (1.0 - run.left() as f64 / DEFAULT_MOVES as f64),
                format!("routing with {}", study_label(*k)),
            ),
            Stage::RouteSplit(k) | Stage::AnnealAuthors(k, _) => {
                (2.0 * *k as f64, format!("routing with {}", study_label(*k)))
            }
            Stage::Measure(k, ..) => (
                2.0 * *k as f64 + 0.5,
                format!("measuring {}", study_label(*k)),
            ),
            Stage::Optimal(run) => (
                2.0 * OPTIMAL as f64 + searched(run).min(0.99),
                format!(
                    "searching for the least makespan ({} of at most {} nodes)",
                    run.nodes(),
                    run.budget()
                ),
            ),
            Stage::Fluid(k, run) => (
                2.0 * *k as f64 + 1.0,
                format!(
                    "simulating {}'s All-Reduce ({} events)",
                    study_label(*k),
                    run.events
                ),
            ),
            Stage::SweepStart(failed) => (
                2.0 * algorithms + 3.0 * f64::from(*failed),
                format!(
                    "failure sweep: {failed} of {} spines failed",
                    self.setup.placement.spines
                ),
            ),
            Stage::Sweep { failed, part, .. } => {
                let base = 2.0 * algorithms + 3.0 * f64::from(*failed);
                let within = match part {
                    SweepPart::Ecmp => 0.0,
                    SweepPart::Greedy => 1.0,
                    SweepPart::StartSearch => 2.0,
                    SweepPart::Optimal(run) => 2.0 + searched(run).min(0.99),
                };
                (
                    base + within,
                    format!(
                        "failure sweep: {failed} of {} spines failed",
                        self.setup.placement.spines
                    ),
                )
            }
            Stage::Done => (total, "done".to_string()),
        };
        Progress {
            fraction: (done / total).clamp(0.0, 1.0),
            doing,
        }
    }

    /// The study (complete once [`RouteStudyRun::step`] has returned true).
    fn into_study(self) -> RouteStudy {
        RouteStudy {
            scenario: self.scenario,
            instance: self.instance,
            routed: self.routed,
            failures: self.failures,
        }
    }
}

impl Stepping for RouteStudyRun {
    type Output = RouteStudy;
    type Error = std::convert::Infallible;

    fn step(&mut self, nodes: u64) -> bool {
        RouteStudyRun::step(self, nodes)
    }

    fn progress(&self) -> Progress {
        RouteStudyRun::progress(self)
    }

    fn finish(mut self) -> Result<RouteStudy, Self::Error> {
        while !RouteStudyRun::step(&mut self, u64::MAX) {}
        Ok(self.into_study())
    }
}

/// The instance algorithm `k` routes: the split one for multi-flow ECMP.
fn routed_on<'a>(instance: &'a Instance, split: &'a Option<Instance>, k: usize) -> &'a Instance {
    match (Algorithm::ALL[k], split) {
        (Algorithm::MultiFlowEcmp, Some(s)) => s,
        _ => instance,
    }
}

/// Advance `run` by about `nodes` nodes; true when its search is over.
fn advance(run: &mut ExactRun, inst: &Instance, nodes: u64) -> bool {
    let stop_at = run.nodes().saturating_add(nodes);
    run.advance(inst, &mut |n| n < stop_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_name_the_algorithm_by_key_and_old_links_by_position_still_open() {
        let link = RouteLink {
            algorithm: Algorithm::EdgeColoring,
            ..RouteLink::default()
        };
        let json = serde_json::to_string(&link).unwrap();
        assert!(json.contains("\"algorithm\":\"edge-coloring\""), "{json}");
        assert_eq!(serde_json::from_str::<RouteLink>(&json).unwrap(), link);
        // Before the keys, links carried the position in the view's list: 3 was the optimizer.
        let old = json.replace("\"edge-coloring\"", "3");
        let read: RouteLink = serde_json::from_str(&old).unwrap();
        assert_eq!(read.algorithm, Algorithm::Optimal);
        assert_eq!(
            study_label(read.algorithm.index()),
            "optimal (min makespan)"
        );
    }

    #[test]
    fn the_view_refuses_setups_beyond_its_limits_before_generating() {
        // Finding 1: ring size 1, 65536 ToRs, 65535 hosts per ToR, then ring size 2 panicked with
        // "capacity overflow" (and, saved, blanked every later visit).
        let mut setup = RoutePreset::ThreeJobs.setup();
        setup.placement.tors = 65_536;
        setup.placement.hosts_per_tor = 65_535;
        setup.placement.ring_size = 2;
        let e = route_study(&setup).unwrap_err().to_string();
        assert!(
            e.contains("4294901760 is more than the limit of 2048 hosts"),
            "{e}"
        );
        setup.placement.tors = 8;
        setup.placement.hosts_per_tor = 8;
        setup.placement.spines = u32::MAX;
        let e = route_study(&setup).unwrap_err().to_string();
        assert!(
            e.contains("spines: 4294967295 is more than the limit of 32"),
            "{e}"
        );
        // The largest setup the view allows, the paper's fabric, starts (and routes: its first
        // pieces); one ToR more does not.
        setup.placement.spines = 32;
        setup.placement.tors = 64;
        setup.placement.hosts_per_tor = 32;
        let mut run = RouteStudyRun::new(&setup).unwrap();
        for _ in 0..4 {
            assert!(!run.step(256));
        }
        assert!(run.progress().fraction > 0.0);
        setup.placement.tors = 65;
        assert!(RouteStudyRun::new(&setup).is_err());
    }

    #[test]
    fn a_study_in_small_pieces_equals_the_study_at_once_and_reports_its_progress() {
        let mut wide = RoutePreset::ThreeJobs.setup();
        // Three failed single links: 14,033 nodes to prove its least makespan.
        wide.placement.failed_links = 3;
        let mut setups: Vec<RouteSetup> = RoutePreset::ALL.iter().map(|p| p.setup()).collect();
        setups.push(wide);
        let mut searched = 0;
        for setup in setups {
            let whole = route_study(&setup).unwrap();
            let mut run = RouteStudyRun::new(&setup).unwrap();
            let mut last = run.progress();
            assert_eq!(last.fraction, 0.0);
            let mut steps = 0;
            while !run.step(64) {
                steps += 1;
                let p = run.progress();
                assert!(
                    p.fraction >= last.fraction && p.fraction <= 1.0,
                    "{p:?} after {last:?}"
                );
                if p.doing.starts_with("searching") && last.doing.starts_with("searching") {
                    searched += 1;
                }
                last = p;
            }
            assert_eq!(run.progress().fraction, 1.0);
            // Three heuristics, the search, and three pieces per point of the sweep at least.
            assert!(steps >= 3 + 3 * whole.failures.failed.len(), "{steps}");
            assert!(Stepping::finish(run) == Ok(whole), "{setup:?}");
        }
        // Some search took several slices.
        assert!(searched >= 5, "{searched}");
    }

    #[test]
    fn every_preset_routes_and_greedy_beats_or_ties_ecmp() {
        // (The paper's mix is the paper's scale: its own test below.)
        for p in RoutePreset::ALL
            .into_iter()
            .filter(|p| *p != RoutePreset::PaperMix)
        {
            let s = route_study(&p.setup()).unwrap();
            assert_eq!(s.routed.len(), 8);
            // Multi-flow ECMP: 16 sub-flows per ring edge, each on one up and one down link.
            let multi = &s.routed[6];
            let inter = s.instance.flows.iter().filter(|f| f.inter_tor()).count() as u32;
            assert_eq!(multi.subflows, 16);
            assert_eq!(
                multi.metrics.link_loads.values().sum::<u32>(),
                2 * 16 * inter
            );
            assert_eq!(s.routed[0].subflows, 1);
            let make = |i: usize| s.routed[i].metrics.makespan_static_s;
            assert!(make(1) <= make(0) * (1.0 + 1e-9), "{p:?}");
            assert!(make(3) <= make(1) * (1.0 + 1e-9), "{p:?}");
            assert!(s
                .routed
                .iter()
                .all(|r| r.efficiency > 0.0 && r.efficiency <= 1.0));
            assert!(s
                .routed
                .iter()
                .all(|r| r.efficiency_fluid > 0.0 && r.efficiency_fluid <= 1.0 + 1e-12));
            assert_eq!(s.failures.failed.first(), Some(&0));
        }
        // The degraded link: the capacity-aware greedy avoids it.
        let s = route_study(&RoutePreset::DegradedLink.setup()).unwrap();
        assert!(s.routed[2].metrics.min_flow_rate_gbps >= s.routed[1].metrics.min_flow_rate_gbps);
        // More failed spines never help greedy here.
        let f = route_study(&RoutePreset::ThreeJobs.setup())
            .unwrap()
            .failures;
        assert_eq!(f.failed, vec![0, 1, 2, 3]);
        assert!(f.greedy_s.windows(2).all(|w| w[1] >= w[0] * (1.0 - 1e-9)));
        // The optimum is never worse than greedy, and (proven) never improves with a failure.
        for (o, g) in f.optimal_s.iter().zip(&f.greedy_s) {
            assert!(o <= &(g * (1.0 + 1e-9)));
        }
        assert!(f.optimal_proven.iter().all(|p| *p));
        assert!(f.optimal_s.windows(2).all(|w| w[1] >= w[0] * (1.0 - 1e-9)));
    }

    #[test]
    fn the_papers_mix_preset_is_the_papers_jobs_on_the_papers_fabric() {
        let setup = RoutePreset::PaperMix.setup();
        let sc = setup.scenario().unwrap();
        assert_eq!((sc.network.num_tors, sc.network.num_spines), (64, 32));
        let names: Vec<&str> = sc.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, vec!["gpt3-0", "bloom-1", "llama2-2"]);
        // Its first pieces run (the whole study is the browser test's, in release code).
        let mut run = RouteStudyRun::new(&setup).unwrap();
        assert!(!run.step(256));
    }

    #[test]
    fn a_setup_is_named_by_its_preset_until_it_is_edited() {
        for p in RoutePreset::ALL {
            assert_eq!(RoutePreset::of(&p.setup()), Some(p));
        }
        let mut s = RoutePreset::SpineFailure.setup();
        s.placement.tors += 1;
        assert_eq!(RoutePreset::of(&s), None);
    }

    #[test]
    fn a_systems_fabric_is_routed_at_its_link_rate_until_a_fabric_field_is_edited() {
        let h100 = crate::systems::system_preset("dgx-h100").unwrap();
        let base = RoutePreset::SpineFailure.setup();
        let s = base.on_system(&h100).unwrap();
        let p = &s.placement;
        assert_eq!((p.tors, p.spines, p.hosts_per_tor), (64, 32, 32));
        assert_eq!(p.link_gbps, 400.0);
        assert_eq!((p.jobs, p.failed_spines), (base.placement.jobs, 1));
        assert!(
            s.fabric_summary().contains("one of its 8 rails"),
            "{}",
            s.fabric_summary()
        );
        // The scenario's links and NICs run at the system's rate.
        let sc = s.scenario().unwrap();
        assert_eq!((sc.network.link_gbps, sc.network.nic_gbps), (400.0, 400.0));
        // The link carries the system; a fabric field edited drops it, a job field keeps it.
        let back: RouteSetup = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let mut jobs = s.clone();
        jobs.set_text(RouteField::Jobs, "2").unwrap();
        assert_eq!(jobs.system.as_deref(), Some("dgx-h100"));
        let mut edited = s.clone();
        edited.set_text(RouteField::LinkGbps, "200").unwrap();
        assert_eq!(edited.system, None);
        assert_eq!(edited.fabric_summary(), "Links: 200 Gbps, NICs: 200 Gbps.");
        // NICs slower than the links (an oversubscribed edge): the hosts' links run at theirs.
        edited.set_text(RouteField::NicGbps, "100").unwrap();
        assert_eq!(edited.text(RouteField::NicGbps), "100");
        assert_eq!(edited.fabric_summary(), "Links: 200 Gbps, NICs: 100 Gbps.");
        let sc = edited.scenario().unwrap();
        assert_eq!((sc.network.link_gbps, sc.network.nic_gbps), (200.0, 100.0));
        let slow = route_study(&edited).unwrap();
        let fast = route_study(&{
            let mut f = edited.clone();
            f.set_text(RouteField::NicGbps, "200").unwrap();
            f
        })
        .unwrap();
        // Every flow crosses its NICs: none runs faster than 100 Gbps now.
        for r in &slow.routed {
            assert!(r.metrics.flow_rates_gbps.iter().all(|x| *x <= 100.0 + 1e-9));
        }
        assert!(
            slow.routed[0].metrics.makespan_static_s >= fast.routed[0].metrics.makespan_static_s
        );
        // A refused rate is kept as typed and named.
        assert!(edited.set_text(RouteField::LinkGbps, "-5").is_err());
        assert_eq!(edited.text(RouteField::LinkGbps), "-5");
        assert_eq!(edited.refusals().len(), 1);
        // A torus has no Clos: refused, the setup unchanged.
        let tpu = crate::systems::system_preset("tpu-v5p").unwrap();
        assert!(base.on_system(&tpu).is_err());
        // Meta's pod: 192 racks of 16 NICs, of which the view routes 128 (its 2,048 hosts).
        let meta = crate::systems::system_preset("meta-roce-24k").unwrap();
        let m = base.on_system(&meta).unwrap();
        assert_eq!((m.placement.hosts_per_tor, m.placement.spines), (16, 16));
        assert_eq!(m.placement.tors, 128);
        assert!(m.fabric_summary().contains("of the plane's 192 leaves"));
        m.scenario().unwrap();
    }
}
