//! The Cluster view's question and its answer: a trace generated from a few numbers (or one of the
//! presets), simulated under each chosen routing policy on the same jobs, a few events at a time
//! ([`ClusterRun`]) so that a page can spread the work over animation frames with progress and a
//! cancel. Each policy's [`SimResult`] carries what the view draws: the job completion times, the
//! timeline of running jobs and busy NICs, and the totals.

use super::placement::Placement;
use super::simulate::{Reroute, SimError, SimOptions, SimResult, SimRun, MIN_REROUTE_PERIOD_S};
use super::trace::{generate, ClusterNetwork, Faults, Trace, TraceSpec};
use crate::form::typed::{show, Kind, Value};
use crate::limits::{at_most, product, LimitError};
use crate::routing::Algorithm;
use crate::stepping::{units, Progress, Stepping};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The view's fabric and trace, as a link carries them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterSetup {
    pub tors: u32,
    pub spines: u32,
    pub hosts_per_tor: u32,
    /// Link and NIC rate, Gbps.
    pub gbps: f64,
    pub jobs: u32,
    /// Mean arrivals per second (Poisson).
    pub arrival_rate: f64,
    pub iterations: u32,
    pub compute_s: f64,
    pub ring_size: u32,
    /// The first spines, down from `fail_at_s`.
    pub failed_spines: u32,
    /// ToR uplinks spread over the ToRs (`Faults::links`), down from `fail_at_s`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_links: u32,
    /// When the spines and links fail (s).
    #[serde(default, skip_serializing_if = "is_zero_s")]
    pub fail_at_s: f64,
    /// When they recover (s); never when None.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recover_s: Option<f64>,
    pub seed: u64,
    pub reroute: Reroute,
    pub placement: Placement,
    /// Seconds from a trigger to the controller's routes taking effect.
    #[serde(default, skip_serializing_if = "is_zero_s")]
    pub controller_delay_s: f64,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_s(s: &f64) -> bool {
    *s == 0.0
}

/// Ready-made questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterPreset {
    /// A small cluster that answers at once: 16 ToRs x 8 spines x 16 hosts, 24 jobs.
    Classroom,
    /// The routing paper's fabric (64 ToRs x 32 spines, 2,048 hosts) and 200 jobs.
    PaperFabric,
    /// The paper's fabric with 4 of its 32 spines failed.
    PaperFailedSpines,
    /// The paper's fabric with rings of 8.
    PaperRingsOf8,
}

impl ClusterPreset {
    pub const ALL: [ClusterPreset; 4] = [
        ClusterPreset::Classroom,
        ClusterPreset::PaperFabric,
        ClusterPreset::PaperFailedSpines,
        ClusterPreset::PaperRingsOf8,
    ];

    pub fn key(self) -> &'static str {
        match self {
            ClusterPreset::Classroom => "classroom",
            ClusterPreset::PaperFabric => "paper",
            ClusterPreset::PaperFailedSpines => "paper-failed-spines",
            ClusterPreset::PaperRingsOf8 => "paper-rings-of-8",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ClusterPreset::Classroom => {
                "a classroom cluster: 16 ToRs x 8 spines, 256 hosts, 24 jobs"
            }
            ClusterPreset::PaperFabric => "the paper's fabric: 64 x 32, 2,048 hosts, 200 jobs",
            ClusterPreset::PaperFailedSpines => "the paper's fabric, 4 spines failed",
            ClusterPreset::PaperRingsOf8 => "the paper's fabric, rings of 8",
        }
    }

    pub fn setup(self) -> ClusterSetup {
        let paper = ClusterSetup {
            tors: 64,
            spines: 32,
            hosts_per_tor: 32,
            gbps: 400.0,
            jobs: 200,
            arrival_rate: 0.5,
            iterations: 10,
            compute_s: 1.0,
            ring_size: 4,
            failed_spines: 0,
            failed_links: 0,
            fail_at_s: 0.0,
            recover_s: None,
            seed: 1,
            reroute: Reroute::Arrival,
            placement: Placement::WholeTors,
            controller_delay_s: 0.0,
        };
        match self {
            ClusterPreset::Classroom => ClusterSetup {
                tors: 16,
                spines: 8,
                hosts_per_tor: 16,
                jobs: 24,
                arrival_rate: 0.5,
                ring_size: 2,
                ..paper
            },
            ClusterPreset::PaperFabric => paper,
            ClusterPreset::PaperFailedSpines => ClusterSetup {
                failed_spines: 4,
                ..paper
            },
            ClusterPreset::PaperRingsOf8 => ClusterSetup {
                ring_size: 8,
                ..paper
            },
        }
    }

    /// The preset `setup` is, if it is one unchanged.
    pub fn of(setup: &ClusterSetup) -> Option<ClusterPreset> {
        ClusterPreset::ALL.into_iter().find(|p| p.setup() == *setup)
    }
}

/// The Cluster view's state as a link carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterLink {
    pub setup: ClusterSetup,
    /// The policies compared, in the order shown.
    pub policies: Vec<Algorithm>,
    /// The policy whose timeline of jobs is drawn.
    pub shown: Algorithm,
    /// The text of each field the view refused, as typed (by [`ClusterField::key`]): kept,
    /// shown marked and carried by the link, never replaced by its last readable prefix. A state
    /// with any is not simulated.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub typed: BTreeMap<String, String>,
}

/// The Cluster view's number fields, each read by the one typed reader
/// ([`crate::form::typed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterField {
    Tors,
    Spines,
    HostsPerTor,
    Gbps,
    Jobs,
    ArrivalRate,
    Iterations,
    ComputeS,
    RingSize,
    FailedSpines,
    FailedLinks,
    FailAt,
    RecoverAt,
    Seed,
    /// The period of "re-route every T seconds" (a field only with that trigger).
    Every,
    Delay,
}

/// The largest time the view takes (s): the core's limit on trace times and periods
/// ([`MAX_TIME_S`](super::trace::MAX_TIME_S), 1e9 s), named at the field.
pub const VIEW_MAX_SECONDS: f64 = super::trace::MAX_TIME_S;

impl ClusterField {
    pub const ALL: [ClusterField; 16] = [
        ClusterField::Tors,
        ClusterField::Spines,
        ClusterField::HostsPerTor,
        ClusterField::Gbps,
        ClusterField::Jobs,
        ClusterField::ArrivalRate,
        ClusterField::Iterations,
        ClusterField::ComputeS,
        ClusterField::RingSize,
        ClusterField::FailedSpines,
        ClusterField::FailedLinks,
        ClusterField::FailAt,
        ClusterField::RecoverAt,
        ClusterField::Seed,
        ClusterField::Every,
        ClusterField::Delay,
    ];

    /// Its key in [`ClusterLink::typed`].
    pub fn key(self) -> &'static str {
        match self {
            ClusterField::Tors => "tors",
            ClusterField::Spines => "spines",
            ClusterField::HostsPerTor => "hosts",
            ClusterField::Gbps => "gbps",
            ClusterField::Jobs => "jobs",
            ClusterField::ArrivalRate => "rate",
            ClusterField::Iterations => "iterations",
            ClusterField::ComputeS => "compute",
            ClusterField::RingSize => "ring",
            ClusterField::FailedSpines => "failed",
            ClusterField::FailedLinks => "failed-links",
            ClusterField::FailAt => "fail-at",
            ClusterField::RecoverAt => "recover-at",
            ClusterField::Seed => "seed",
            ClusterField::Every => "every",
            ClusterField::Delay => "delay",
        }
    }

    /// The field's `data-testid`.
    pub fn testid(self) -> &'static str {
        match self {
            ClusterField::Tors => "cluster-tors",
            ClusterField::Spines => "cluster-spines",
            ClusterField::HostsPerTor => "cluster-hosts",
            ClusterField::Gbps => "cluster-gbps",
            ClusterField::Jobs => "cluster-jobs",
            ClusterField::ArrivalRate => "cluster-rate",
            ClusterField::Iterations => "cluster-iterations",
            ClusterField::ComputeS => "cluster-compute",
            ClusterField::RingSize => "cluster-ring",
            ClusterField::FailedSpines => "cluster-failed",
            ClusterField::FailedLinks => "cluster-failed-links",
            ClusterField::FailAt => "cluster-fail-at",
            ClusterField::RecoverAt => "cluster-recover-at",
            ClusterField::Seed => "cluster-seed",
            ClusterField::Every => "cluster-every",
            ClusterField::Delay => "cluster-delay",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ClusterField::Tors => "ToRs",
            ClusterField::Spines => "spines",
            ClusterField::HostsPerTor => "hosts per ToR",
            ClusterField::Gbps => "link and NIC Gbps",
            ClusterField::Jobs => "jobs",
            ClusterField::ArrivalRate => "arrivals per s",
            ClusterField::Iterations => "iterations",
            ClusterField::ComputeS => "compute s per iteration",
            ClusterField::RingSize => "ring size",
            ClusterField::FailedSpines => "failed spines",
            ClusterField::FailedLinks => "failed uplinks",
            ClusterField::FailAt => "fail at s",
            ClusterField::RecoverAt => "recover at s (empty: never)",
            ClusterField::Seed => "seed",
            ClusterField::Every => "T (s)",
            ClusterField::Delay => "controller delay s",
        }
    }

    /// What the field takes: within the view's limits, each on its own. The re-routing period is
    /// at least [`MIN_REROUTE_PERIOD_S`].
    pub fn kind(self) -> Kind {
        let time = Kind::Real {
            least: 0.0,
            open: false,
            most: VIEW_MAX_SECONDS,
        };
        match self {
            ClusterField::Tors | ClusterField::HostsPerTor => Kind::whole(1, VIEW_MAX_HOSTS),
            ClusterField::Spines => Kind::whole(1, VIEW_MAX_SPINES),
            ClusterField::Jobs => Kind::whole(1, VIEW_MAX_JOBS),
            ClusterField::Iterations => Kind::whole(1, VIEW_MAX_ITERATIONS),
            ClusterField::RingSize => Kind::whole(2, VIEW_MAX_HOSTS),
            ClusterField::FailedSpines => Kind::whole(0, VIEW_MAX_SPINES),
            ClusterField::FailedLinks => Kind::whole(0, crate::limits::MAX_GENERATED_FAILED_LINKS),
            ClusterField::Seed => Kind::whole(0, u64::MAX),
            ClusterField::Gbps => Kind::Real {
                least: crate::limits::MIN_LINK_GBPS,
                open: false,
                most: crate::limits::MAX_LINK_GBPS,
            },
            ClusterField::ArrivalRate => Kind::Real {
                least: 0.0,
                open: true,
                most: 1e9,
            },
            ClusterField::Every => Kind::Real {
                least: MIN_REROUTE_PERIOD_S,
                open: false,
                most: VIEW_MAX_SECONDS,
            },
            ClusterField::RecoverAt => Kind::Optional {
                least: 0.0,
                most: VIEW_MAX_SECONDS,
            },
            ClusterField::ComputeS | ClusterField::FailAt | ClusterField::Delay => time,
        }
    }

    /// Whether the field is on the page for `setup` (the period only with "every T seconds").
    pub fn applies(self, setup: &ClusterSetup) -> bool {
        self != ClusterField::Every || matches!(setup.reroute, Reroute::Every(_))
    }

    /// The field's value in `setup`, as its text.
    fn value_text(self, s: &ClusterSetup) -> String {
        let whole = |n: u32| n.to_string();
        match self {
            ClusterField::Tors => whole(s.tors),
            ClusterField::Spines => whole(s.spines),
            ClusterField::HostsPerTor => whole(s.hosts_per_tor),
            ClusterField::Gbps => show(s.gbps),
            ClusterField::Jobs => whole(s.jobs),
            ClusterField::ArrivalRate => show(s.arrival_rate),
            ClusterField::Iterations => whole(s.iterations),
            ClusterField::ComputeS => show(s.compute_s),
            ClusterField::RingSize => whole(s.ring_size),
            ClusterField::FailedSpines => whole(s.failed_spines),
            ClusterField::FailedLinks => whole(s.failed_links),
            ClusterField::FailAt => show(s.fail_at_s),
            ClusterField::RecoverAt => s.recover_s.map(show).unwrap_or_default(),
            ClusterField::Seed => s.seed.to_string(),
            ClusterField::Every => match s.reroute {
                Reroute::Every(t) => show(t),
                _ => show(DEFAULT_REROUTE_PERIOD_S),
            },
            ClusterField::Delay => show(s.controller_delay_s),
        }
    }

    fn put(self, s: &mut ClusterSetup, v: Value) {
        let n = || u32::try_from(v.whole()).unwrap_or(u32::MAX);
        match self {
            ClusterField::Tors => s.tors = n(),
            ClusterField::Spines => s.spines = n(),
            ClusterField::HostsPerTor => s.hosts_per_tor = n(),
            ClusterField::Gbps => s.gbps = v.real(),
            ClusterField::Jobs => s.jobs = n(),
            ClusterField::ArrivalRate => s.arrival_rate = v.real(),
            ClusterField::Iterations => s.iterations = n(),
            ClusterField::ComputeS => s.compute_s = v.real(),
            ClusterField::RingSize => s.ring_size = n(),
            ClusterField::FailedSpines => s.failed_spines = n(),
            ClusterField::FailedLinks => s.failed_links = n(),
            ClusterField::FailAt => s.fail_at_s = v.real(),
            ClusterField::RecoverAt => s.recover_s = v.optional(),
            ClusterField::Seed => s.seed = v.whole(),
            ClusterField::Every => s.reroute = Reroute::Every(v.real()),
            ClusterField::Delay => s.controller_delay_s = v.real(),
        }
    }
}

/// The period "every T seconds" starts from when it is chosen.
pub const DEFAULT_REROUTE_PERIOD_S: f64 = 10.0;

impl ClusterLink {
    /// The text `field` shows: as typed when it was refused, else its value.
    pub fn text(&self, field: ClusterField) -> String {
        match self.typed.get(field.key()) {
            Some(t) => t.clone(),
            None => field.value_text(&self.setup),
        }
    }

    /// Take what was typed in `field`: its value when it reads, else the text is kept as typed
    /// (the value left alone) and the reason returned.
    pub fn set_text(&mut self, field: ClusterField, text: &str) -> Result<(), String> {
        match field.kind().read(text) {
            Ok(v) => {
                self.typed.remove(field.key());
                field.put(&mut self.setup, v);
                Ok(())
            }
            Err(e) => {
                self.typed.insert(field.key().into(), text.to_string());
                Err(e)
            }
        }
    }

    /// Why `field`'s text (as shown) is refused, if it is (a field not on the page never is).
    pub fn refusal(&self, field: ClusterField) -> Option<String> {
        if !field.applies(&self.setup) {
            return None;
        }
        match field.kind().read(&self.text(field)) {
            Err(e) => Some(e),
            // A text kept as typed that reads (a hand-edited link) is not the value simulated.
            Ok(_) if self.typed.contains_key(field.key()) => Some(format!(
                "\"{}\" was kept as typed: type it again",
                self.text(field)
            )),
            Ok(_) => None,
        }
    }

    /// Every refused field with its reason, in the view's order: a state with any is not
    /// simulated (nor restarted on a later visit).
    pub fn refusals(&self) -> Vec<(ClusterField, String)> {
        ClusterField::ALL
            .into_iter()
            .filter_map(|f| self.refusal(f).map(|e| (f, e)))
            .collect()
    }
}

impl Default for ClusterLink {
    fn default() -> ClusterLink {
        ClusterLink {
            setup: ClusterPreset::Classroom.setup(),
            policies: Algorithm::CLUSTER.to_vec(),
            shown: Algorithm::Greedy,
            typed: BTreeMap::new(),
        }
    }
}

/// The most jobs the view simulates (the command line takes up to 10,000).
pub const VIEW_MAX_JOBS: u64 = 500;
/// The most hosts the view simulates: the routing paper's fabric.
pub const VIEW_MAX_HOSTS: u64 = 2048;
/// The most spines the view simulates.
pub const VIEW_MAX_SPINES: u64 = 64;
/// The most iterations per job the view simulates.
pub const VIEW_MAX_ITERATIONS: u64 = 1000;

/// Why the view cannot study a setup; each names the field.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ClusterError {
    #[error(transparent)]
    Limit(#[from] LimitError),
    #[error("choose at least one routing policy")]
    NoPolicy,
    #[error(transparent)]
    Sim(#[from] SimError),
    /// A field the view refuses (a text kept as typed, or a value out of its range in a link).
    #[error("{field}: {reason}")]
    Refused { field: &'static str, reason: String },
}

impl ClusterSetup {
    /// What `libra-studio trace` would be asked for this setup.
    pub fn spec(&self) -> TraceSpec {
        TraceSpec {
            network: ClusterNetwork {
                tors: self.tors,
                spines: self.spines,
                hosts_per_tor: self.hosts_per_tor,
                link_gbps: self.gbps,
                nic_gbps: self.gbps,
            },
            jobs: self.jobs,
            arrival_rate: self.arrival_rate,
            iterations: self.iterations,
            compute_s: self.compute_s,
            ring_size: self.ring_size,
            chunk_bytes: None,
            mix: Vec::new(),
            faults: Faults {
                spines: self.failed_spines,
                links: self.failed_links,
                at_s: self.fail_at_s,
                recover_s: self.recover_s,
            },
            seed: self.seed,
        }
    }

    /// How each policy is simulated.
    pub fn options(&self, policy: Algorithm) -> SimOptions {
        SimOptions {
            placement: self.placement,
            controller_delay_s: self.controller_delay_s,
            ..SimOptions::new(policy, self.reroute)
        }
    }

    /// The view's own limits, checked before anything is generated.
    pub fn check_view_limits(&self) -> Result<(), ClusterError> {
        let hosts = product(self.tors.into(), self.hosts_per_tor.into());
        at_most(
            "jobs",
            "jobs in the Cluster view (use `libra-studio simulate` for more)",
            self.jobs.into(),
            VIEW_MAX_JOBS,
        )?;
        at_most(
            "ToRs x hosts per ToR",
            "hosts in the Cluster view (use `libra-studio simulate` for more)",
            hosts,
            VIEW_MAX_HOSTS,
        )?;
        at_most(
            "spines",
            "spines in the Cluster view (use `libra-studio simulate` for more)",
            self.spines.into(),
            VIEW_MAX_SPINES,
        )?;
        at_most(
            "iterations",
            "iterations per job in the Cluster view (use `libra-studio simulate` for more)",
            self.iterations.into(),
            VIEW_MAX_ITERATIONS,
        )?;
        Ok(())
    }

    /// The trace of this setup (the same for every policy).
    pub fn trace(&self) -> Result<Trace, ClusterError> {
        self.check_view_limits()?;
        generate(&self.spec()).map_err(|e| ClusterError::Sim(e.into()))
    }
}

/// The answer: the trace and each policy's simulation of it, in the link's order.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterStudy {
    pub trace: Trace,
    pub results: Vec<SimResult>,
}

/// The study a few events at a time: one policy after the other.
pub struct ClusterRun {
    trace: Trace,
    options: Vec<SimOptions>,
    current: Option<SimRun>,
    results: Vec<SimResult>,
    outcome: Result<(), ClusterError>,
}

impl ClusterRun {
    pub fn new(link: &ClusterLink) -> Result<ClusterRun, ClusterError> {
        if link.policies.is_empty() {
            return Err(ClusterError::NoPolicy);
        }
        // What the view's fields refuse is never simulated (a link with a re-routing period of
        // -1 or 1e-300 s, a text kept as typed).
        if let Some((f, reason)) = link.refusals().into_iter().next() {
            return Err(ClusterError::Refused {
                field: f.label(),
                reason,
            });
        }
        let trace = link.setup.trace()?;
        let options: Vec<SimOptions> = link
            .policies
            .iter()
            .map(|&policy| link.setup.options(policy))
            .collect();
        // Every policy's run is checked (the trace, the placements) before any work.
        let current = Some(SimRun::new(&trace, &options[0])?);
        Ok(ClusterRun {
            trace,
            options,
            current,
            results: Vec::new(),
            outcome: Ok(()),
        })
    }

    /// Simulate up to `events` more events; true when every policy is done (or one failed).
    pub fn step(&mut self, events: usize) -> bool {
        let Some(run) = self.current.as_mut() else {
            return true;
        };
        if !run.step(events) {
            return false;
        }
        let run = self.current.take().expect("a run under way");
        match run.result() {
            Ok(r) => self.results.push(r),
            Err(e) => {
                self.outcome = Err(e.into());
                return true;
            }
        }
        if let Some(opts) = self.options.get(self.results.len()) {
            match SimRun::new(&self.trace, opts) {
                Ok(r) => self.current = Some(r),
                Err(e) => {
                    self.outcome = Err(e.into());
                    return true;
                }
            }
        }
        self.current.is_none()
    }

    pub fn progress(&self) -> Progress {
        let n = self.options.len() as f64;
        let done = self.results.len();
        match (&self.current, self.options.get(done)) {
            (Some(run), Some(opts)) => Progress {
                fraction: (done as f64 + run.progress()) / n,
                doing: format!(
                    "{}: {:.0} % of the jobs done, simulated time {:.0} s",
                    opts.policy.label(),
                    100.0 * run.progress(),
                    run.now_s()
                ),
            },
            _ => Progress {
                fraction: 1.0,
                doing: "done".into(),
            },
        }
    }
}

impl Stepping for ClusterRun {
    type Output = ClusterStudy;
    type Error = ClusterError;

    fn step(&mut self, events: u64) -> bool {
        ClusterRun::step(self, units(events))
    }

    fn progress(&self) -> Progress {
        ClusterRun::progress(self)
    }

    /// The study, or why a policy's simulation stopped.
    fn finish(mut self) -> Result<ClusterStudy, ClusterError> {
        while !ClusterRun::step(&mut self, usize::MAX) {}
        self.outcome?;
        Ok(ClusterStudy {
            trace: self.trace,
            results: self.results,
        })
    }
}

impl ClusterStudy {
    /// The first earlier policy whose every job started and ended at the same times as under
    /// result `k`'s (their lines coincide on every chart).
    pub fn twin(&self, k: usize) -> Option<Algorithm> {
        let r = self.results.get(k)?;
        let same = |a: &SimResult| {
            a.jobs.len() == r.jobs.len()
                && a.jobs
                    .iter()
                    .zip(&r.jobs)
                    .all(|(x, y)| x.id == y.id && x.start_s == y.start_s && x.end_s == y.end_s)
        };
        self.results[..k].iter().find(|a| same(a)).map(|a| a.policy)
    }

    /// The answer in one sentence: the policy with the least mean job completion time, against
    /// ECMP's when ECMP was simulated.
    pub fn headline(&self) -> String {
        let Some(best) = self
            .results
            .iter()
            .min_by(|a, b| a.mean_jct_s.total_cmp(&b.mean_jct_s))
        else {
            return String::new();
        };
        let jobs = self.trace.jobs.len();
        let ecmp = self.results.iter().find(|r| r.policy == Algorithm::Ecmp);
        match ecmp {
            Some(e) if e.policy != best.policy && best.mean_jct_s > 0.0 => format!(
                "{} completes the mean job of {jobs} in {:.1} s, {:.2}x sooner than ECMP ({:.1} s); \
                 mean slowdown against each job alone {:.2} against ECMP's {:.2}.",
                capitalized(best.policy.label()),
                best.mean_jct_s,
                e.mean_jct_s / best.mean_jct_s,
                e.mean_jct_s,
                best.mean_slowdown(),
                e.mean_slowdown()
            ),
            _ => format!(
                "{} completes the mean job of {jobs} in {:.1} s (mean slowdown against each job \
                 alone {:.2}).",
                capitalized(best.policy.label()),
                best.mean_jct_s,
                best.mean_slowdown()
            ),
        }
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Run `link` to the end at once.
pub fn cluster_study(link: &ClusterLink) -> Result<ClusterStudy, ClusterError> {
    ClusterRun::new(link)?.finish()
}

/// The `q`-quantile (0 to 1) of `values` (nearest rank), None when empty.
pub fn quantile(values: &[f64], q: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let rank = ((q.clamp(0.0, 1.0) * v.len() as f64).ceil() as usize).clamp(1, v.len());
    Some(v[rank - 1])
}

impl SimResult {
    /// The jobs' completion times, s.
    pub fn jcts(&self) -> Vec<f64> {
        self.jobs.iter().map(|j| j.jct_s).collect()
    }

    /// The mean slowdown against each job's contention-free time.
    pub fn mean_slowdown(&self) -> f64 {
        self.jobs.iter().map(|j| j.slowdown).sum::<f64>() / self.jobs.len().max(1) as f64
    }

    /// Cluster throughput over time: iterations completed per second in `windows` equal windows
    /// from 0 to the makespan, as (window start, window end, rate). The count at a time is the
    /// last timeline sample's at or before it (samples are taken at events, where counts change).
    pub fn throughput_over_time(&self, windows: usize) -> Vec<(f64, f64, f64)> {
        let end = self.makespan_s;
        if !(end > 0.0 && end.is_finite()) || windows == 0 {
            return Vec::new();
        }
        let done_at = |t: f64| {
            let k = self.timeline.partition_point(|s| s.t_s <= t);
            k.checked_sub(1)
                .map_or(0, |k| self.timeline[k].iterations_done)
        };
        // Window edges; the last is the makespan itself, not a rounded multiple of the width.
        let edge = |k: usize| match k == windows {
            true => end,
            false => end * k as f64 / windows as f64,
        };
        (0..windows)
            .map(|k| {
                let (a, b) = (edge(k), edge(k + 1));
                let done = done_at(b).saturating_sub(if k == 0 { 0 } else { done_at(a) });
                (a, b, done as f64 / (b - a))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::simulate::simulate;

    #[test]
    fn the_run_equals_one_simulation_per_policy_on_the_same_trace() {
        let link = ClusterLink::default();
        let mut run = ClusterRun::new(&link).unwrap();
        let mut last = 0.0;
        while !run.step(7) {
            let p = run.progress();
            assert!(p.fraction >= last && p.fraction <= 1.0, "{p:?}");
            last = p.fraction;
        }
        let study = run.finish().unwrap();
        let trace = link.setup.trace().unwrap();
        assert_eq!(study.trace, trace);
        assert_eq!(study.results.len(), Algorithm::CLUSTER.len());
        for (r, &policy) in study.results.iter().zip(&link.policies) {
            let mut alone = simulate(&trace, &link.setup.options(policy)).unwrap();
            // Only the controller's wall time may differ.
            alone.controller_s = r.controller_s;
            assert_eq!(*r, alone);
        }
        // Edge colouring is contention-free on whole ToRs: never slower than ECMP on average.
        let mean = |p: Algorithm| {
            study.results[link.policies.iter().position(|&q| q == p).unwrap()].mean_jct_s
        };
        assert!(mean(Algorithm::EdgeColoring) <= mean(Algorithm::Ecmp) + 1e-9);
        // Sixteen hashed flows per ring edge spread what one hashed flow piles up, without a
        // controller's contention-free routes.
        eprintln!(
            "mean JCT: ECMP {:.2} s, 16 flows {:.2} s, edge colouring {:.2} s",
            mean(Algorithm::Ecmp),
            mean(Algorithm::MultiFlowEcmp),
            mean(Algorithm::EdgeColoring)
        );
        assert!(mean(Algorithm::MultiFlowEcmp) < mean(Algorithm::Ecmp));
        assert!(mean(Algorithm::EdgeColoring) <= mean(Algorithm::MultiFlowEcmp) + 1e-9);
        let best = study
            .results
            .iter()
            .min_by(|a, b| a.mean_jct_s.total_cmp(&b.mean_jct_s))
            .unwrap();
        let headline = study.headline();
        assert!(
            headline.contains(&format!("{:.1} s", best.mean_jct_s)) && headline.contains("ECMP"),
            "{headline}"
        );
    }

    #[test]
    fn presets_are_recognised_and_within_the_view_limits() {
        for p in ClusterPreset::ALL {
            assert_eq!(ClusterPreset::of(&p.setup()), Some(p));
            p.setup().check_view_limits().unwrap();
        }
        let paper = ClusterPreset::PaperFabric.setup();
        assert_eq!(paper.tors * paper.hosts_per_tor, 2048);
        assert_eq!((paper.spines, paper.jobs), (32, 200));
    }

    #[test]
    fn bad_setups_are_refused_by_name_before_any_work() {
        let mut link = ClusterLink::default();
        link.setup.jobs = 100_000;
        let e = ClusterRun::new(&link).err().unwrap().to_string();
        assert!(e.contains("jobs"), "{e}");
        let mut link = ClusterLink::default();
        link.setup.tors = 1_000;
        let e = ClusterRun::new(&link).err().unwrap().to_string();
        assert!(e.contains("hosts"), "{e}");
        let mut link = ClusterLink::default();
        link.policies.clear();
        assert_eq!(ClusterRun::new(&link).err(), Some(ClusterError::NoPolicy));
        // A job larger than the cluster is named by the trace's own check.
        let mut link = ClusterLink::default();
        link.setup.ring_size = 3;
        let e = ClusterRun::new(&link).err().unwrap().to_string();
        assert!(e.contains("job"), "{e}");
        let mut link = ClusterLink::default();
        link.setup.arrival_rate = -1.0;
        assert!(ClusterRun::new(&link).is_err());
    }

    #[test]
    fn throughput_over_time_adds_up_to_every_iteration() {
        let study = cluster_study(&ClusterLink::default()).unwrap();
        for r in &study.results {
            let total: u64 = study
                .trace
                .jobs
                .iter()
                .map(|j| u64::from(j.iterations))
                .sum();
            assert_eq!(r.timeline.last().unwrap().iterations_done, total);
            assert_eq!(r.timeline.last().unwrap().t_s, r.makespan_s);
            let series = r.throughput_over_time(40);
            assert_eq!(series.len(), 40);
            assert_eq!(series[39].1, r.makespan_s);
            let integral: f64 = series.iter().map(|(a, b, rate)| rate * (b - a)).sum();
            assert!(
                (integral - total as f64).abs() < 1e-6,
                "{integral} vs {total}"
            );
            assert!(series.iter().all(|w| w.2 >= 0.0 && w.0 < w.1));
            // The counts never go down along the timeline.
            assert!(r
                .timeline
                .windows(2)
                .all(|w| w[1].iterations_done >= w[0].iterations_done && w[1].t_s >= w[0].t_s));
        }
    }

    #[test]
    fn policies_that_coincide_are_named_as_twins() {
        // The classroom preset: greedy, edge colouring, annealing and the optimizer schedule
        // every job alike; ECMP and multi-flow ECMP do not.
        let study = cluster_study(&ClusterLink::default()).unwrap();
        assert_eq!(study.twin(0), None);
        assert_eq!(study.twin(1), None);
        assert_eq!(study.results[5].policy, Algorithm::MultiFlowEcmp);
        assert_eq!(study.twin(5), None);
        for k in 2..5 {
            assert_eq!(
                study.twin(k),
                Some(Algorithm::Greedy),
                "{:?}",
                study.results[k].policy
            );
        }
        assert_eq!(study.twin(9), None);
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        let v = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(quantile(&v, 0.5), Some(2.0));
        assert_eq!(quantile(&v, 0.95), Some(4.0));
        assert_eq!(quantile(&v, 0.0), Some(1.0));
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn the_link_state_round_trips_through_json() {
        let mut link = ClusterLink::default();
        link.setup.reroute = Reroute::Every(5.0);
        link.policies = vec![Algorithm::Optimal, Algorithm::Ecmp];
        let text = serde_json::to_string(&link).unwrap();
        assert_eq!(serde_json::from_str::<ClusterLink>(&text).unwrap(), link);
    }
}
