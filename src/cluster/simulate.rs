//! The cluster over time (docs/cluster.md): jobs of a trace arrive, wait for NICs in
//! arrival order, are placed, and train: each iteration computes, then every ring of the job runs
//! its All-Reduce at the max-min fair rate (`ring_rates.rs`) over the routes that the policy
//! chose; a job leaves after its last iteration. The controller recomputes every route on a
//! trigger (every start or departure, every T seconds, or never: a new job's flows are routed when
//! it starts and keep their routes); a spine that fails or recovers always triggers a full
//! recomputation. A job's rings advance together, as one synchronous collective whose load on a
//! link is the number of its flows there: the iteration waits for the slowest ring, and what a
//! faster ring would leave idle at the very end of its All-Reduce is not handed to other jobs (the
//! Routing view's per-flow fluid model does that for one snapshot; here it would multiply the
//! events by the number of rings). Between events the rates are constant, so the simulation jumps from event to
//! event: arrivals, ends of compute, ends of All-Reduces, failures and the controller's timer.

use super::placement::{Nics, Placement};
use super::ring_rates::RingRates;
use super::trace::{FailedElement, Trace, TraceError, TraceJob, MAX_TIME_S};
use crate::format::number;
use crate::routing::annealing::annealing;
use crate::routing::annealing_authors::{annealing_authors, AUTHORS_SEED};
use crate::routing::edge_coloring::edge_coloring;
use crate::routing::exact::{optimize, Objective};
use crate::routing::multipath::split;
use crate::routing::scenario::{ClosNetwork, Host, Job, RouteError, RouteScenario};
use crate::routing::{ecmp, greedy, greedy_capacity_aware, Algorithm, Instance, Routing};
use crate::stepping::{units, Progress, Stepping};
use serde::{Deserialize, Serialize};
#[cfg(not(target_arch = "wasm32"))]
use std::time::Instant;

/// Routes on `inst`, already split into [`Algorithm::subflows`] per ring edge: the controller's
/// policy is one of the routing algorithms.
fn route_by(policy: Algorithm, inst: &Instance) -> Routing {
    match policy {
        // Each sub-flow hashed on its own.
        Algorithm::Ecmp | Algorithm::MultiFlowEcmp => ecmp(inst),
        Algorithm::Greedy => greedy(inst),
        Algorithm::GreedyCapacityAware => greedy_capacity_aware(inst),
        Algorithm::EdgeColoring => edge_coloring(inst),
        Algorithm::Annealing => annealing(inst, 1, ANNEALING_MOVES),
        Algorithm::AnnealingAuthors => annealing_authors(inst, AUTHORS_SEED),
        // The job-bottleneck objective: the slowest ring of each job sets its pace.
        Algorithm::Optimal => optimize(inst, Objective::JobLex, OPTIMAL_NODES).routing,
    }
}

/// Annealing moves per routing (the Routing view uses 200,000 for one snapshot).
const ANNEALING_MOVES: u64 = 20_000;
/// Search nodes of the exact optimizer per routing (the best found within them is used).
const OPTIMAL_NODES: u64 = 5_000;

/// When the controller recomputes every route.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reroute {
    /// At every job start and departure.
    Arrival,
    /// Every `seconds`.
    Every(f64),
    /// Never (a new job's flows are routed when it starts).
    Never,
}

/// The simulated clock's limit (s): ten times the latest time a trace may name, so that a job
/// arriving at [`MAX_TIME_S`] runs its course; up to here an f64 keeps time to 2 microseconds.
pub const MAX_CLOCK_S: f64 = 10.0 * MAX_TIME_S;

/// The shortest rerouting period (s): a millisecond, finer than any routing controller answers
/// (and a period below it would make the timer, not the jobs, the simulation's work).
pub const MIN_REROUTE_PERIOD_S: f64 = 1e-3;

impl Reroute {
    /// `arrival`, `every:SECONDS` (a period from [`MIN_REROUTE_PERIOD_S`] to [`MAX_TIME_S`]) or
    /// `never`.
    pub fn parse(text: &str) -> Option<Reroute> {
        match text {
            "arrival" => Some(Reroute::Arrival),
            "never" => Some(Reroute::Never),
            _ => text
                .strip_prefix("every:")
                .and_then(|s| s.trim().parse::<f64>().ok())
                .map(Reroute::Every)
                .filter(|r| r.check().is_ok()),
        }
    }

    /// Whether the period, if any, is one the simulation can keep.
    pub fn check(self) -> Result<(), SimError> {
        match self {
            Reroute::Every(s) if !(MIN_REROUTE_PERIOD_S..=MAX_TIME_S).contains(&s) => {
                Err(SimError::ReroutePeriod(s))
            }
            _ => Ok(()),
        }
    }

    /// The first multiple of the period strictly after `t` (None without a period).
    fn next_after(self, t: f64) -> Option<f64> {
        let Reroute::Every(s) = self else {
            return None;
        };
        // floor(t / s) * s + s can round back to t (t = 0.3, s = 0.1): step on until past t.
        let mut k = (t / s).floor() + 1.0;
        while k * s <= t {
            k += 1.0;
        }
        Some(k * s)
    }
}

/// How to simulate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimOptions {
    pub policy: Algorithm,
    pub reroute: Reroute,
    pub placement: Placement,
    /// Seconds from a trigger to the controller's routes taking effect (0: at once). In between,
    /// flows keep their routes and a new job's flows are hashed by the switches (ECMP); a trigger
    /// while the controller is busy waits for it. ECMP has no controller and ignores it.
    pub controller_delay_s: f64,
}

impl SimOptions {
    /// `policy` recomputed on `reroute`, jobs placed on whole ToRs first, routes at once.
    pub fn new(policy: Algorithm, reroute: Reroute) -> SimOptions {
        SimOptions {
            policy,
            reroute,
            placement: Placement::WholeTors,
            controller_delay_s: 0.0,
        }
    }

    /// Whether routes wait for a controller (a delay is set and the policy has a controller;
    /// the ECMPs hash in the switches).
    fn delayed(&self) -> bool {
        self.controller_delay_s > 0.0
            && !matches!(self.policy, Algorithm::Ecmp | Algorithm::MultiFlowEcmp)
    }
}

/// One job's life.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobOutcome {
    pub id: u32,
    pub arrival_s: f64,
    pub start_s: f64,
    pub end_s: f64,
    /// Job completion time: end - arrival.
    pub jct_s: f64,
    /// Time in All-Reduces.
    pub comm_s: f64,
    /// The same job alone on its NICs, every flow at its path's line rate.
    pub contention_free_s: f64,
    /// (end - start) / contention-free time.
    pub slowdown: f64,
}

/// The state of the cluster from one event to the next.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sample {
    pub t_s: f64,
    pub running: usize,
    pub waiting: usize,
    /// NICs held by running jobs.
    pub busy_nics: usize,
    /// Rings in an All-Reduce.
    pub communicating: usize,
    /// Iterations completed so far, all jobs together.
    pub iterations_done: u64,
}

/// What `libra-studio simulate` prints.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimResult {
    pub policy: Algorithm,
    pub jobs: Vec<JobOutcome>,
    pub mean_jct_s: f64,
    pub makespan_s: f64,
    /// Iterations completed per second over the makespan.
    pub throughput: f64,
    /// Share of NIC-seconds spent computing, over all NICs and the makespan.
    pub busy_fraction: f64,
    /// Share of the running jobs' time spent in All-Reduces.
    pub comm_fraction: f64,
    /// Full recomputations of the routes.
    pub reroutes: usize,
    /// Wall time the controller spent routing (measured natively, not part of the simulated time;
    /// 0 in the browser build). Not serialized: it differs from run to run (`simulate --timings`
    /// prints it beside the result).
    #[serde(skip)]
    pub controller_s: f64,
    /// The state at each event (not serialized when empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<Sample>,
}

/// Why a simulation stopped.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("the simulation cannot finish: {0}")]
    Stuck(String),
    #[error("controller delay {} must be a number of seconds from 0 to {}", number(*.0), number(MAX_TIME_S))]
    ControllerDelay(f64),
    #[error("the rerouting period {} s must be from {} s to {} s", number(*.0), number(MIN_REROUTE_PERIOD_S), number(MAX_TIME_S))]
    ReroutePeriod(f64),
    #[error("the simulated time passed {} s ({}); the simulation keeps durations to a few microseconds only up to there", number(MAX_CLOCK_S), .0)]
    PastHorizon(String),
}

/// Events at most, so that a pathological trace stops with a reason rather than running on.
const MAX_EVENTS: usize = 5_000_000;
/// Timeline samples kept (every event's state, thinned by two whenever full).
const MAX_SAMPLES: usize = 4_096;

/// The links a job's rings cross, with how many of its flows cross each.
type JobLinks = Vec<(usize, u32)>;

enum Phase {
    Compute { until: f64 },
    Comm,
}

struct Running {
    job: usize,
    nics: Vec<u32>,
    /// NIC ids of each ring, in ring order.
    rings: Vec<Vec<u32>>,
    start: f64,
    done_iterations: u32,
    phase: Phase,
    /// Bits left of the All-Reduce (one entry: the job's rings advance together).
    left: Vec<f64>,
    /// Each ring's links with multiplicity, from the last routing.
    paths: Vec<JobLinks>,
    /// The flows are on the switches' ECMP hashing, waiting for the controller's routes.
    interim: bool,
    comm_s: f64,
}

/// Routes the controller is computing: they take effect `at`, for the jobs (trace indices) that
/// are still running then.
struct Pending {
    at: f64,
    paths: Vec<(usize, Vec<JobLinks>)>,
}

/// Simulate `trace` under `opts`.
pub fn simulate(trace: &Trace, opts: &SimOptions) -> Result<SimResult, SimError> {
    let mut run = SimRun::new(trace, opts)?;
    while !run.step(usize::MAX) {}
    run.result()
}

/// The simulation an event at a time ([`SimRun::step`]), so that a page can spread it over
/// animation frames with progress and a cancel; run to the end it gives [`simulate`].
pub struct SimRun {
    /// Shared, so that an event can read it while it changes the run.
    trace: std::sync::Arc<Trace>,
    opts: SimOptions,
    nics: Nics,
    hosts: Vec<Host>,
    /// Job indices by arrival time.
    arrivals: Vec<usize>,
    /// (time, what, fails), by time.
    changes: Vec<(f64, FailedElement, bool)>,
    /// What is down now.
    failed: Vec<FailedElement>,
    next_arrival: usize,
    next_change: usize,
    queue: std::collections::VecDeque<usize>,
    running: Vec<Running>,
    outcomes: Vec<Option<JobOutcome>>,
    t: f64,
    reroutes: usize,
    controller_s: f64,
    next_timer: f64,
    compute_nic_s: f64,
    iterations_done: u64,
    timeline: Vec<Sample>,
    capacity: Vec<f64>,
    full_reroute: bool,
    /// The controller's routes in the making (with a controller delay).
    pending: Option<Pending>,
    /// A spine or link failed or recovered since the last routing.
    fabric_changed: bool,
    sharing: RingRates,
    events: usize,
    /// Set when the simulation has ended, with the reason if it could not finish.
    ended: Option<Result<(), SimError>>,
}

impl SimRun {
    pub fn new(trace: &Trace, opts: &SimOptions) -> Result<SimRun, SimError> {
        trace.validate()?;
        let delay = opts.controller_delay_s;
        if !(0.0..=MAX_TIME_S).contains(&delay) {
            return Err(SimError::ControllerDelay(delay));
        }
        opts.reroute.check()?;
        let net = &trace.network;
        let mut arrivals: Vec<usize> = (0..trace.jobs.len()).collect();
        arrivals.sort_by(|&a, &b| trace.jobs[a].arrival_s.total_cmp(&trace.jobs[b].arrival_s));
        let mut changes: Vec<(f64, FailedElement, bool)> = trace
            .failures
            .iter()
            .flat_map(|f| {
                std::iter::once((f.at_s, f.element, true))
                    .chain(f.recover_s.map(|r| (r, f.element, false)))
            })
            .collect();
        changes.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(SimRun {
            nics: Nics::new(net.tors, net.hosts_per_tor),
            hosts: (0..trace.hosts() as u32)
                .map(|id| Host {
                    id,
                    tor: id / net.hosts_per_tor,
                })
                .collect(),
            arrivals,
            changes,
            failed: Vec::new(),
            next_arrival: 0,
            next_change: 0,
            queue: Default::default(),
            running: Vec::new(),
            outcomes: vec![None; trace.jobs.len()],
            t: 0.0,
            reroutes: 0,
            controller_s: 0.0,
            next_timer: opts.reroute.next_after(0.0).unwrap_or(f64::INFINITY),
            compute_nic_s: 0.0,
            iterations_done: 0,
            timeline: Vec::new(),
            capacity: Vec::new(),
            full_reroute: true,
            pending: None,
            fabric_changed: false,
            sharing: RingRates::default(),
            events: 0,
            ended: None,
            trace: std::sync::Arc::new(trace.clone()),
            opts: *opts,
        })
    }

    /// Simulate up to `events` more events; true when the simulation has ended.
    pub fn step(&mut self, events: usize) -> bool {
        for _ in 0..events {
            if self.ended.is_some() {
                break;
            }
            if self.events == MAX_EVENTS {
                self.ended = Some(Err(SimError::Stuck(format!(
                    "{MAX_EVENTS} events were simulated and {} jobs are not done",
                    self.outcomes.iter().filter(|o| o.is_none()).count()
                ))));
                break;
            }
            self.events += 1;
            match self.event() {
                Ok(false) => {}
                Ok(true) => self.ended = Some(Ok(())),
                Err(e) => self.ended = Some(Err(e)),
            }
        }
        self.ended.is_some()
    }

    /// The share of the jobs done, from 0 to 1.
    pub fn progress(&self) -> f64 {
        let done = self.outcomes.iter().filter(|o| o.is_some()).count();
        done as f64 / self.outcomes.len().max(1) as f64
    }

    /// The simulated time so far (s).
    pub fn now_s(&self) -> f64 {
        self.t
    }

    /// One event; true when the simulation has ended.
    fn event(&mut self) -> Result<bool, SimError> {
        let trace = std::sync::Arc::clone(&self.trace);
        let trace = trace.as_ref();
        let opts = self.opts;
        let t = self.t;
        // Arrivals, failures and recoveries due now.
        while self.next_arrival < self.arrivals.len()
            && trace.jobs[self.arrivals[self.next_arrival]].arrival_s <= t
        {
            self.queue.push_back(self.arrivals[self.next_arrival]);
            self.next_arrival += 1;
        }
        while self.next_change < self.changes.len() && self.changes[self.next_change].0 <= t {
            let (_, element, fails) = self.changes[self.next_change];
            self.failed.retain(|s| *s != element);
            if fails {
                self.failed.push(element);
            }
            self.full_reroute = true;
            self.fabric_changed = true;
            self.next_change += 1;
        }
        if self.next_timer <= t {
            self.full_reroute = true;
            self.next_timer = opts.reroute.next_after(t).unwrap_or(f64::INFINITY);
        }
        // Start waiting jobs in arrival order while they fit (no overtaking).
        let mut started = Vec::new();
        while let Some(&j) = self.queue.front() {
            let job = &trace.jobs[j];
            let Some(held) = self.nics.take(job.hosts() as usize, opts.placement) else {
                break;
            };
            self.queue.pop_front();
            let shards = job.model.shards() as usize;
            let rings = (0..shards)
                .map(|k| {
                    (0..job.ring_size as usize)
                        .map(|r| held[r * shards + k])
                        .collect()
                })
                .collect::<Vec<Vec<u32>>>();
            started.push(self.running.len());
            self.running.push(Running {
                job: j,
                rings,
                nics: held,
                start: t,
                done_iterations: 0,
                phase: Phase::Compute {
                    until: t + job.compute_s,
                },
                left: Vec::new(),
                paths: Vec::new(),
                interim: opts.delayed(),
                comm_s: 0.0,
            });
        }
        if !started.is_empty() && opts.reroute == Reroute::Arrival {
            self.full_reroute = true;
        }
        // Routes: every job's on a full recomputation, otherwise the new jobs' only.
        match opts.delayed() {
            false => self.route_now(&started)?,
            true => self.route_delayed(&started)?,
        }
        // Rates of the jobs in an All-Reduce.
        let mut comm: Vec<(usize, usize)> = Vec::new();
        let mut comm_paths: Vec<JobLinks> = Vec::new();
        for (i, r) in self.running.iter().enumerate() {
            if matches!(r.phase, Phase::Comm) {
                for (k, p) in r.paths.iter().enumerate() {
                    if r.left[k] > 0.0 {
                        comm.push((i, k));
                        comm_paths.push(p.clone());
                    }
                }
            }
        }
        let rates = self.sharing.rates(&comm_paths, &self.capacity);
        push_sample(
            &mut self.timeline,
            Sample {
                t_s: t,
                running: self.running.len(),
                waiting: self.queue.len(),
                busy_nics: self.running.iter().map(|r| r.nics.len()).sum(),
                communicating: comm.len(),
                iterations_done: self.iterations_done,
            },
        );
        // The next event.
        let mut next = f64::INFINITY;
        if self.next_arrival < self.arrivals.len() {
            next = next.min(trace.jobs[self.arrivals[self.next_arrival]].arrival_s);
        }
        if self.next_change < self.changes.len() {
            next = next.min(self.changes[self.next_change].0);
        }
        if !self.running.is_empty() {
            next = next.min(self.next_timer);
            if let Some(p) = &self.pending {
                next = next.min(p.at);
            }
        }
        for r in &self.running {
            if let Phase::Compute { until } = r.phase {
                next = next.min(until);
            }
        }
        for (&(i, k), rate) in comm.iter().zip(&rates) {
            if *rate > 0.0 {
                next = next.min(t + self.running[i].left[k] / (rate * 1e9));
            }
        }
        if !next.is_finite() {
            if self.running.is_empty() && self.queue.is_empty() {
                return Ok(true);
            }
            let why = match self.running.is_empty() {
                true => format!(
                    "job {} waits for NICs that no job will free",
                    trace.jobs[self.queue[0]].id
                ),
                false => format!(
                    "job {}'s rings have no live path (every spine or link they could use has failed, and none recovers)",
                    trace.jobs[self.running[0].job].id
                ),
            };
            return Err(SimError::Stuck(why));
        }
        if next > MAX_CLOCK_S {
            return Err(SimError::PastHorizon(format!(
                "{} of {} jobs done",
                self.outcomes.iter().filter(|o| o.is_some()).count(),
                self.outcomes.len()
            )));
        }
        let dt = (next - t).max(0.0);
        // Progress to `next`.
        for (&(i, k), rate) in comm.iter().zip(&rates) {
            let r = &mut self.running[i];
            let end = t + r.left[k] / (rate * 1e9);
            r.left[k] = if end <= next || *rate * 1e9 * dt >= r.left[k] * (1.0 - 1e-12) {
                0.0
            } else {
                r.left[k] - rate * 1e9 * dt
            };
        }
        for r in &mut self.running {
            match r.phase {
                Phase::Compute { .. } => self.compute_nic_s += dt * r.nics.len() as f64,
                Phase::Comm => r.comm_s += dt,
            }
        }
        let t = next;
        self.t = t;
        // Ends of compute and of All-Reduces.
        let mut leaving = Vec::new();
        for (i, r) in self.running.iter_mut().enumerate() {
            let job = &trace.jobs[r.job];
            match r.phase {
                Phase::Compute { until } if until <= t => {
                    r.phase = Phase::Comm;
                    // Each of a ring edge's sub-flows carries its share; rates are per sub-flow.
                    let bits = 2.0 * f64::from(job.ring_size - 1) * job.chunk_bytes * 8.0
                        / f64::from(opts.policy.subflows());
                    r.left = vec![bits; r.paths.len()];
                }
                Phase::Comm if r.left.iter().all(|b| *b <= 0.0) => {
                    r.done_iterations += 1;
                    self.iterations_done += 1;
                    if r.done_iterations == job.iterations {
                        leaving.push(i);
                    } else {
                        r.phase = Phase::Compute {
                            until: t + job.compute_s,
                        };
                    }
                }
                _ => {}
            }
        }
        for &i in leaving.iter().rev() {
            let r = self.running.remove(i);
            let job = &trace.jobs[r.job];
            self.nics.give_back(&r.nics);
            let free_s = contention_free_s(trace, job, &r.rings);
            self.outcomes[r.job] = Some(JobOutcome {
                id: job.id,
                arrival_s: job.arrival_s,
                start_s: r.start,
                end_s: t,
                jct_s: t - job.arrival_s,
                comm_s: r.comm_s,
                contention_free_s: free_s,
                slowdown: (t - r.start) / free_s.max(f64::MIN_POSITIVE),
            });
        }
        if !leaving.is_empty() && opts.reroute == Reroute::Arrival && !self.running.is_empty() {
            self.full_reroute = true;
        }
        Ok(self.running.is_empty()
            && self.queue.is_empty()
            && self.next_arrival == self.arrivals.len())
    }

    /// Routes that take effect at once: every running job's on a full recomputation, otherwise the
    /// jobs that `started` now.
    fn route_now(&mut self, started: &[usize]) -> Result<(), SimError> {
        if !self.running.is_empty() && (self.full_reroute || !started.is_empty()) {
            #[cfg(not(target_arch = "wasm32"))]
            let clock = Instant::now();
            let routed = route_all(&self.trace, &self.hosts, &self.failed, &self.running)?
                .split(self.opts.policy.subflows());
            let routing = routed.route(self.opts.policy);
            #[cfg(not(target_arch = "wasm32"))]
            {
                self.controller_s += clock.elapsed().as_secs_f64();
            }
            self.capacity = routed.capacities();
            let renew: Vec<usize> = match self.full_reroute {
                true => (0..self.running.len()).collect(),
                false => started.to_vec(),
            };
            for i in renew {
                self.running[i].paths = routed.paths(&routing, i);
            }
            if self.full_reroute {
                self.reroutes += 1;
            }
        }
        self.full_reroute = false;
        Ok(())
    }

    /// Routes from a controller that takes `controller_delay_s` to answer: the routes it computed
    /// take effect when due; new jobs' flows are hashed by the switches (ECMP) until then; the
    /// fabric's capacities follow failures at once; a trigger while the controller is busy starts
    /// its next computation when the current one is done.
    fn route_delayed(&mut self, started: &[usize]) -> Result<(), SimError> {
        let t = self.t;
        if let Some(p) = self.pending.take_if(|p| p.at <= t) {
            for (job, paths) in p.paths {
                if let Some(r) = self.running.iter_mut().find(|r| r.job == job) {
                    r.paths = paths;
                    r.interim = false;
                }
            }
        }
        if self.running.is_empty() {
            self.pending = None;
            return Ok(());
        }
        let compute =
            self.pending.is_none() && (self.full_reroute || self.running.iter().any(|r| r.interim));
        if !(compute || self.fabric_changed || !started.is_empty()) {
            return Ok(());
        }
        self.fabric_changed = false;
        // The fabric now, and the switches' hashing for the jobs that start now.
        let routed = route_all(&self.trace, &self.hosts, &self.failed, &self.running)?;
        let hashed = routed.route(Algorithm::Ecmp);
        self.capacity = routed.capacities();
        for &i in started {
            self.running[i].paths = routed.paths(&hashed, i);
        }
        if !compute {
            return Ok(());
        }
        #[cfg(not(target_arch = "wasm32"))]
        let clock = Instant::now();
        let routing = routed.route(self.opts.policy);
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.controller_s += clock.elapsed().as_secs_f64();
        }
        let full = self.full_reroute;
        let paths = (0..self.running.len())
            .filter(|&i| full || self.running[i].interim)
            .map(|i| (self.running[i].job, routed.paths(&routing, i)))
            .collect();
        self.pending = Some(Pending {
            at: t + self.opts.controller_delay_s,
            paths,
        });
        if full {
            self.reroutes += 1;
        }
        self.full_reroute = false;
        Ok(())
    }

    /// The outcome, once [`SimRun::step`] has returned true (before, an error saying so).
    pub fn result(self) -> Result<SimResult, SimError> {
        match self.ended {
            None => return Err(SimError::Stuck("the simulation has not ended yet".into())),
            Some(Err(e)) => return Err(e),
            Some(Ok(())) => {}
        }
        let total = self.trace.jobs.len();
        let jobs: Vec<JobOutcome> = self.outcomes.into_iter().flatten().collect();
        if jobs.len() < total {
            return Err(SimError::Stuck(format!(
                "{} jobs are not done",
                total - jobs.len()
            )));
        }
        let makespan = jobs.iter().map(|j| j.end_s).fold(0.0, f64::max);
        let first = jobs
            .iter()
            .map(|j| j.arrival_s)
            .fold(f64::INFINITY, f64::min);
        let span = (makespan - first.min(makespan)).max(f64::MIN_POSITIVE);
        let held: f64 = jobs.iter().fold(0.0, |a, j| a + (j.end_s - j.start_s));
        // The cluster as the last job leaves it: empty, every iteration done.
        let mut timeline = self.timeline;
        if timeline.last().is_some_and(|s| s.t_s < makespan) {
            push_sample(
                &mut timeline,
                Sample {
                    t_s: makespan,
                    running: 0,
                    waiting: 0,
                    busy_nics: 0,
                    communicating: 0,
                    iterations_done: self.iterations_done,
                },
            );
        }
        Ok(SimResult {
            policy: self.opts.policy,
            // Sums from +0 (an empty f64 sum is -0.0, which an empty trace printed).
            mean_jct_s: jobs.iter().fold(0.0, |a, j| a + j.jct_s) / jobs.len().max(1) as f64,
            makespan_s: makespan,
            throughput: self.iterations_done as f64 / span,
            busy_fraction: self.compute_nic_s / (self.trace.hosts() as f64 * span),
            comm_fraction: jobs.iter().fold(0.0, |a, j| a + j.comm_s) / held.max(f64::MIN_POSITIVE),
            reroutes: self.reroutes,
            controller_s: self.controller_s,
            jobs,
            timeline,
        })
    }
}

fn push_sample(timeline: &mut Vec<Sample>, s: Sample) {
    if timeline.last().is_some_and(|l| {
        l.running == s.running
            && l.waiting == s.waiting
            && l.busy_nics == s.busy_nics
            && l.communicating == s.communicating
            && l.iterations_done == s.iterations_done
    }) {
        return;
    }
    if timeline.len() == MAX_SAMPLES {
        let kept: Vec<Sample> = timeline.iter().step_by(2).cloned().collect();
        *timeline = kept;
    }
    timeline.push(s);
}

/// The running jobs on the live fabric: the routing instance of those whose every flow has a live
/// path, and each running job's place in it. A job with a flow that no live spine can carry is
/// stranded: its rings stand on a link of capacity 0 (rate 0) until a recovery reroutes them.
struct Routed {
    inst: Option<Instance>,
    /// Running job -> its job in `inst` (None: stranded).
    of_running: Vec<Option<usize>>,
    /// The link of capacity 0 that stranded rings stand on (after the fabric's and NICs' links).
    dead_link: usize,
}

impl Routed {
    /// The same jobs with every ring edge split into `k` sub-flows (`k = 1`: unchanged).
    fn split(self, k: u32) -> Routed {
        match k {
            1 => self,
            _ => Routed {
                inst: self.inst.map(|i| split(&i, k)),
                ..self
            },
        }
    }

    /// The policy's routes for the jobs with live paths.
    fn route(&self, policy: Algorithm) -> Routing {
        self.inst
            .as_ref()
            .map_or_else(|| Routing(Vec::new()), |inst| route_by(policy, inst))
    }

    /// Every link's capacity (Gbit/s), the dead link's 0 last.
    fn capacities(&self) -> Vec<f64> {
        let mut c = self
            .inst
            .as_ref()
            .map_or_else(|| vec![0.0; self.dead_link], Instance::capacities);
        c.resize(self.dead_link + 1, 0.0);
        c
    }

    /// Running job `i`'s links under `routing`.
    fn paths(&self, routing: &Routing, i: usize) -> Vec<JobLinks> {
        match (&self.inst, self.of_running[i]) {
            (Some(inst), Some(k)) => ring_paths(inst, routing, k),
            _ => vec![vec![(self.dead_link, 1)]],
        }
    }
}

/// The routing instance of the running jobs on the live fabric (see [`Routed`]).
fn route_all(
    trace: &Trace,
    hosts: &[Host],
    failed: &[FailedElement],
    running: &[Running],
) -> Result<Routed, SimError> {
    let net = &trace.network;
    let dead_link = 2 * (net.spines as usize * net.tors as usize) + 2 * hosts.len();
    let mut stranded = vec![false; running.len()];
    loop {
        let of_running: Vec<Option<usize>> = stranded
            .iter()
            .scan(0, |k, &s| {
                Some((!s).then(|| {
                    *k += 1;
                    *k - 1
                }))
            })
            .collect();
        let live: Vec<usize> = (0..running.len()).filter(|&i| !stranded[i]).collect();
        if live.is_empty() {
            return Ok(Routed {
                inst: None,
                of_running,
                dead_link,
            });
        }
        let scenario = RouteScenario {
            network: ClosNetwork {
                num_spines: net.spines,
                num_tors: net.tors,
                link_gbps: net.link_gbps,
                nic_gbps: net.nic_gbps,
                failed_spines: {
                    let mut spines: Vec<u32> = failed
                        .iter()
                        .filter_map(|f| match f {
                            FailedElement::Spine(s) => Some(*s),
                            FailedElement::Link(_) => None,
                        })
                        .collect();
                    spines.sort_unstable();
                    spines
                },
                failed_links: failed
                    .iter()
                    .filter_map(|f| match f {
                        FailedElement::Link(l) => Some(*l),
                        FailedElement::Spine(_) => None,
                    })
                    .collect(),
                link_capacity_overrides: Vec::new(),
            },
            hosts: hosts.to_vec(),
            jobs: live
                .iter()
                .map(|&i| {
                    let r = &running[i];
                    Job {
                        name: trace.jobs[r.job].id.to_string(),
                        chunk_bytes: trace.jobs[r.job].chunk_bytes,
                        rings: r.rings.clone(),
                        model_hint: None,
                    }
                })
                .collect(),
        };
        match scenario.instance() {
            Ok(inst) => {
                return Ok(Routed {
                    inst: Some(inst),
                    of_running,
                    dead_link,
                })
            }
            Err(RouteError::NoCandidate { job, .. }) => stranded[live[job]] = true,
            Err(e) => return Err(SimError::Stuck(format!("the routing instance failed: {e}"))),
        }
    }
}

/// Running job `i`'s links with multiplicity over all its rings, as one unit: the job's rings
/// advance together (an iteration waits for its slowest ring), so the job shares the fabric as one
/// synchronous collective.
fn ring_paths(inst: &Instance, routing: &Routing, i: usize) -> Vec<JobLinks> {
    let mut crossed: Vec<usize> = Vec::new();
    for &ring in &inst.jobs[i].1 {
        for &f in &inst.rings[ring].flows {
            crossed.extend(inst.flows[f].path(&inst.fabric, routing.0[f]));
        }
    }
    crossed.sort_unstable();
    let mut links: JobLinks = Vec::new();
    for l in crossed {
        match links.last_mut() {
            Some((last, n)) if *last == l => *n += 1,
            _ => links.push((l, 1)),
        }
    }
    vec![links]
}

/// The job alone on its NICs: every ring at the line rate of its slowest flow (the NIC, and the
/// ToR-spine links for a flow between ToRs).
fn contention_free_s(trace: &Trace, job: &TraceJob, rings: &[Vec<u32>]) -> f64 {
    let net = &trace.network;
    let per_tor = net.hosts_per_tor;
    let rate = rings
        .iter()
        .map(|ring| {
            let crosses =
                (0..ring.len()).any(|i| ring[i] / per_tor != ring[(i + 1) % ring.len()] / per_tor);
            match crosses {
                true => net.nic_gbps.min(net.link_gbps),
                false => net.nic_gbps,
            }
        })
        .fold(f64::INFINITY, f64::min);
    let comm = 2.0 * f64::from(job.ring_size - 1) * job.chunk_bytes * 8.0 / (rate * 1e9);
    f64::from(job.iterations) * (job.compute_s + comm)
}

impl Stepping for SimRun {
    type Output = SimResult;
    type Error = SimError;

    fn step(&mut self, events: u64) -> bool {
        SimRun::step(self, units(events))
    }

    fn progress(&self) -> Progress {
        Progress {
            fraction: SimRun::progress(self),
            doing: format!(
                "{:.0} % of the jobs done, simulated time {:.0} s",
                100.0 * SimRun::progress(self),
                self.now_s()
            ),
        }
    }

    fn finish(mut self) -> Result<SimResult, SimError> {
        while !SimRun::step(&mut self, usize::MAX) {}
        self.result()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::trace::{
        generate, ClusterNetwork, FailedElement, Failure, Faults, JobModel, TraceSpec,
    };
    use crate::routing::paper_jobs::PaperModel;

    fn small(tors: u32, per_tor: u32, spines: u32) -> ClusterNetwork {
        ClusterNetwork {
            tors,
            spines,
            hosts_per_tor: per_tor,
            link_gbps: 100.0,
            nic_gbps: 100.0,
        }
    }

    fn job(id: u32, arrival_s: f64, shards: u32, ring_size: u32) -> TraceJob {
        TraceJob {
            id,
            arrival_s,
            model: JobModel::Custom { shards },
            iterations: 3,
            compute_s: 0.5,
            ring_size,
            chunk_bytes: 1e9,
        }
    }

    fn opts(policy: Algorithm, reroute: Reroute) -> SimOptions {
        SimOptions::new(policy, reroute)
    }

    /// iterations x (compute + 2 (n - 1) chunk x 8 / line rate).
    fn hand(iterations: f64, compute: f64, n: f64, chunk: f64, gbps: f64) -> f64 {
        iterations * (compute + 2.0 * (n - 1.0) * chunk * 8.0 / (gbps * 1e9))
    }

    #[test]
    fn a_single_job_takes_the_hand_formula() {
        // Within one ToR (NIC rate), and across two ToRs routed without sharing a spine link.
        for (tors, per_tor, policy) in [
            (2, 4, Algorithm::Ecmp),
            (2, 2, Algorithm::EdgeColoring),
            (2, 2, Algorithm::Optimal),
        ] {
            let trace = Trace {
                network: small(tors, per_tor, 2),
                jobs: vec![job(7, 1.0, 2, 2)],
                failures: Vec::new(),
            };
            let r = simulate(&trace, &opts(policy, Reroute::Arrival)).unwrap();
            let want = hand(3.0, 0.5, 2.0, 1e9, 100.0);
            let j = &r.jobs[0];
            assert_eq!((j.id, j.arrival_s, j.start_s), (7, 1.0, 1.0));
            assert!(
                (j.jct_s - want).abs() < 1e-9 * want,
                "{policy:?}: {}",
                j.jct_s
            );
            assert!((j.slowdown - 1.0).abs() < 1e-9);
            assert!((r.makespan_s - (1.0 + want)).abs() < 1e-9);
            assert!((j.comm_s - (want - 1.5)).abs() < 1e-9);
        }
    }

    #[test]
    fn edge_coloring_runs_every_job_at_its_contention_free_time_on_the_papers_fabric() {
        let spec = TraceSpec {
            network: ClusterNetwork {
                tors: 64,
                spines: 32,
                hosts_per_tor: 32,
                link_gbps: 400.0,
                nic_gbps: 400.0,
            },
            jobs: 40,
            arrival_rate: 5.0,
            iterations: 4,
            compute_s: 1.0,
            ring_size: 4,
            chunk_bytes: None,
            mix: PaperModel::ALL.to_vec(),
            faults: Faults::spines(0),
            seed: 3,
        };
        let trace = generate(&spec).unwrap();
        let r = simulate(&trace, &opts(Algorithm::EdgeColoring, Reroute::Arrival)).unwrap();
        assert_eq!(r.jobs.len(), 40);
        // Several jobs ran at once, and some waited.
        assert!(r.timeline.iter().any(|s| s.running >= 3));
        assert!(r.jobs.iter().any(|j| j.start_s > j.arrival_s));
        for j in &r.jobs {
            assert!(
                (j.slowdown - 1.0).abs() < 1e-9,
                "job {}: {}",
                j.id,
                j.slowdown
            );
        }
        // ECMP's hashing collides on the same trace: some job is slower.
        let e = simulate(&trace, &opts(Algorithm::Ecmp, Reroute::Arrival)).unwrap();
        assert!(e.jobs.iter().any(|j| j.slowdown > 1.01));
        assert!(e.mean_jct_s > r.mean_jct_s);
    }

    #[test]
    fn a_seed_gives_the_same_simulation() {
        let spec = TraceSpec {
            network: ClusterNetwork {
                tors: 64,
                spines: 32,
                hosts_per_tor: 32,
                link_gbps: 400.0,
                nic_gbps: 400.0,
            },
            jobs: 30,
            arrival_rate: 2.0,
            iterations: 5,
            compute_s: 0.2,
            ring_size: 2,
            chunk_bytes: Some(1e8),
            mix: Vec::new(),
            faults: Faults::spines(1),
            seed: 11,
        };
        let mut trace = generate(&spec).unwrap();
        // Small custom jobs on a small fabric, with a spine down from the start.
        trace.network = small(8, 8, 4);
        for (i, j) in trace.jobs.iter_mut().enumerate() {
            j.model = JobModel::Custom {
                shards: 1 + (i as u32 % 8),
            };
        }
        let cases = Algorithm::ALL
            .map(|p| (p, Reroute::Arrival))
            .into_iter()
            .chain([Reroute::Every(0.5), Reroute::Never].map(|r| (Algorithm::Greedy, r)));
        for (policy, reroute) in cases {
            {
                let a = simulate(&trace, &opts(policy, reroute)).unwrap();
                let b = simulate(&trace, &opts(policy, reroute)).unwrap();
                assert_eq!(a.jobs, b.jobs, "{policy:?} {reroute:?}");
                assert_eq!(a.reroutes, b.reroutes);
                assert!(a.jobs.iter().all(|j| j.slowdown >= 1.0 - 1e-9));
            }
        }
    }

    #[test]
    fn failures_slow_the_rings_and_recoveries_restore_them() {
        // Two ToRs of 2 NICs, 2 spines: the two rings cross between the ToRs; with spine 1 down
        // both ToR 0 -> ToR 1 flows share one spine link, each at half the rate.
        let base = |failures| Trace {
            network: small(2, 2, 2),
            jobs: vec![job(0, 0.0, 2, 2)],
            failures,
        };
        let run = |failures| {
            simulate(
                &base(failures),
                &opts(Algorithm::EdgeColoring, Reroute::Never),
            )
            .unwrap()
        };
        let healthy = run(Vec::new());
        assert!((healthy.jobs[0].jct_s - hand(3.0, 0.5, 2.0, 1e9, 100.0)).abs() < 1e-9);
        let down = run(vec![Failure {
            element: FailedElement::Spine(1),
            at_s: 0.0,
            recover_s: None,
        }]);
        assert!((down.jobs[0].jct_s - hand(3.0, 0.5, 2.0, 1e9, 50.0)).abs() < 1e-9);
        let back = run(vec![Failure {
            element: FailedElement::Spine(1),
            at_s: 0.0,
            recover_s: Some(2.0),
        }]);
        let t = back.jobs[0].jct_s;
        assert!(
            t > healthy.jobs[0].jct_s + 1e-6 && t < down.jobs[0].jct_s - 1e-6,
            "{t}"
        );
        // Failure and recovery each recompute the routes (beside the first routing).
        assert!(back.reroutes >= 2, "{}", back.reroutes);
        // Every spine down: the rings have no path, said rather than looping.
        let e = simulate(
            &base(vec![
                Failure {
                    element: FailedElement::Spine(0),
                    at_s: 0.0,
                    recover_s: None,
                },
                Failure {
                    element: FailedElement::Spine(1),
                    at_s: 0.0,
                    recover_s: None,
                },
            ]),
            &opts(Algorithm::Ecmp, Reroute::Arrival),
        )
        .unwrap_err();
        assert!(e.to_string().contains("cannot finish"), "{e}");
    }

    #[test]
    fn a_failed_link_slows_only_the_flows_that_need_it() {
        use crate::routing::scenario::{LinkKind, LinkRef};
        // As above, but only ToR 0's uplink to spine 1 fails: the two ToR 0 -> ToR 1 flows share
        // spine 0's uplink at half the rate, and the ring's All-Reduce waits for them.
        let base = |failures| Trace {
            network: small(2, 2, 2),
            jobs: vec![job(0, 0.0, 2, 2)],
            failures,
        };
        let link = FailedElement::Link(LinkRef {
            kind: LinkKind::Up,
            tor: 0,
            spine: 1,
        });
        for policy in [
            Algorithm::Greedy,
            Algorithm::EdgeColoring,
            Algorithm::Optimal,
        ] {
            let run = |recover_s| {
                simulate(
                    &base(vec![Failure {
                        element: link,
                        at_s: 0.0,
                        recover_s,
                    }]),
                    &opts(policy, Reroute::Never),
                )
                .unwrap()
            };
            let down = run(None);
            let want = hand(3.0, 0.5, 2.0, 1e9, 50.0);
            assert!(
                (down.jobs[0].jct_s - want).abs() < 1e-9,
                "{policy:?}: {}",
                down.jobs[0].jct_s
            );
            let back = run(Some(2.0));
            let t = back.jobs[0].jct_s;
            assert!(
                t < want - 1e-6 && t > hand(3.0, 0.5, 2.0, 1e9, 100.0) + 1e-6,
                "{policy:?}: {t}"
            );
        }
        // Read from JSON as the trace format says, and a link off the fabric named.
        let text = r#"{"link": {"kind": "up", "tor": 0, "spine": 1}, "at_s": 0.5}"#;
        let f: Failure = serde_json::from_str(text).unwrap();
        assert_eq!((f.element, f.at_s, f.recover_s), (link, 0.5, None));
        let spine: Failure =
            serde_json::from_str(r#"{"spine": 3, "at_s": 1, "recover_s": 2}"#).unwrap();
        assert_eq!(spine.element, FailedElement::Spine(3));
        let mut bad = base(vec![Failure {
            element: FailedElement::Link(LinkRef {
                kind: LinkKind::Down,
                tor: 7,
                spine: 0,
            }),
            at_s: 0.0,
            recover_s: None,
        }]);
        let e = simulate(&bad, &opts(Algorithm::Greedy, Reroute::Never)).unwrap_err();
        assert!(
            e.to_string()
                .contains("failures[0]: ToR 7 is not among the 2 ToRs"),
            "{e}"
        );
        bad.failures.clear();
        assert!(simulate(&bad, &opts(Algorithm::Greedy, Reroute::Never)).is_ok());
    }

    #[test]
    fn a_controller_delay_keeps_stale_routes_until_the_new_ones_take_effect() {
        // Spine 1 is down until 0.2 s, when it recovers and spine 0 fails for good. The job starts
        // at 0 on spine 0 (the only live one) and its first All-Reduce starts at 0.5 s.
        let trace = Trace {
            network: small(2, 1, 2),
            jobs: vec![job(0, 0.0, 1, 2)],
            failures: vec![
                Failure {
                    element: FailedElement::Spine(1),
                    at_s: 0.0,
                    recover_s: Some(0.2),
                },
                Failure {
                    element: FailedElement::Spine(0),
                    at_s: 0.2,
                    recover_s: None,
                },
            ],
        };
        let run = |delay| {
            let o = SimOptions {
                controller_delay_s: delay,
                ..opts(Algorithm::Greedy, Reroute::Arrival)
            };
            simulate(&trace, &o).unwrap().jobs[0].jct_s
        };
        // At once: moved to spine 1 at 0.2 s, long before the All-Reduce.
        let at_once = hand(3.0, 0.5, 2.0, 1e9, 100.0);
        assert!((run(0.0) - at_once).abs() < 1e-9, "{}", run(0.0));
        // 0.4 s: the routes computed at the start (spine 0) take effect at 0.4 s, the failure's
        // recomputation waits for the busy controller and takes effect at 0.8 s, so the first
        // All-Reduce stands still from 0.5 s to 0.8 s.
        assert!((run(0.4) - (at_once + 0.3)).abs() < 1e-9, "{}", run(0.4));
        // 0.1 s: the failure's routes take effect at 0.3 s, before the All-Reduce.
        assert!((run(0.1) - at_once).abs() < 1e-9, "{}", run(0.1));
        // A delay that is not a time is refused by name.
        let bad = SimOptions {
            controller_delay_s: -1.0,
            ..opts(Algorithm::Greedy, Reroute::Arrival)
        };
        let e = simulate(&trace, &bad).unwrap_err();
        assert!(e.to_string().contains("controller delay -1"), "{e}");
    }

    #[test]
    fn with_a_controller_slower_than_the_run_every_flow_stays_on_ecmp_hashing() {
        let trace = Trace {
            network: small(8, 4, 4),
            jobs: (0..10).map(|i| job(i, 0.3 * f64::from(i), 2, 4)).collect(),
            failures: Vec::new(),
        };
        let ends = |r: SimResult| r.jobs.iter().map(|j| j.end_s).collect::<Vec<_>>();
        let ecmp = ends(simulate(&trace, &opts(Algorithm::Ecmp, Reroute::Arrival)).unwrap());
        let greedy = ends(simulate(&trace, &opts(Algorithm::Greedy, Reroute::Arrival)).unwrap());
        assert_ne!(ecmp, greedy, "the trace must tell the two apart");
        let slow = SimOptions {
            controller_delay_s: 1e6,
            ..opts(Algorithm::Greedy, Reroute::Arrival)
        };
        let stale = simulate(&trace, &slow).unwrap();
        assert_eq!(ends(stale.clone()), ecmp);
        // ECMP has no controller: a delay changes nothing.
        let ecmp_slow = SimOptions {
            controller_delay_s: 5.0,
            ..opts(Algorithm::Ecmp, Reroute::Arrival)
        };
        assert_eq!(ends(simulate(&trace, &ecmp_slow).unwrap()), ecmp);
    }
}

#[cfg(test)]
mod stepping {
    use super::*;
    use crate::cluster::trace::{generate, ClusterNetwork, Faults, TraceSpec};

    /// Stepped a few events at a time (as a page would, between frames), the run gives what
    /// `simulate` gives, and its progress only grows.
    #[test]
    fn stepping_in_slices_equals_one_run() {
        let spec = TraceSpec {
            network: ClusterNetwork {
                tors: 32,
                spines: 32,
                hosts_per_tor: 32,
                link_gbps: 400.0,
                nic_gbps: 400.0,
            },
            jobs: 12,
            arrival_rate: 1.0,
            iterations: 3,
            compute_s: 0.5,
            ring_size: 2,
            chunk_bytes: None,
            mix: Vec::new(),
            faults: Faults::spines(2),
            seed: 4,
        };
        let trace = generate(&spec).unwrap();
        let opts = SimOptions {
            controller_delay_s: 0.7,
            ..SimOptions::new(Algorithm::Greedy, Reroute::Every(1.5))
        };
        let whole = simulate(&trace, &opts).unwrap();
        let mut run = SimRun::new(&trace, &opts).unwrap();
        let mut last = 0.0;
        let mut slices = 0;
        while !run.step(3) {
            assert!(run.progress() >= last);
            last = run.progress();
            slices += 1;
        }
        assert!(slices > 5, "{slices}");
        assert_eq!(run.progress(), 1.0);
        let stepped = run.result().unwrap();
        assert_eq!(stepped.jobs, whole.jobs);
        assert_eq!(stepped.timeline, whole.timeline);
        assert_eq!(stepped.reroutes, whole.reroutes);
        // Asked before the end, the run says so.
        let early = SimRun::new(&trace, &opts).unwrap();
        assert!(early.result().is_err());
    }
}
