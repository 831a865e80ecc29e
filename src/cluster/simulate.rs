//! The cluster over time (README "Cluster simulation"): jobs of a trace arrive, wait for NICs in
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
use super::trace::{Trace, TraceError, TraceJob};
use crate::routing::annealing::annealing;
use crate::routing::edge_coloring::edge_coloring;
use crate::routing::exact::{optimize, Objective};
use crate::routing::scenario::{ClosNetwork, Host, Job, RouteScenario};
use crate::routing::{ecmp, greedy, Instance, Routing};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The routing policy of the controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    Ecmp,
    Greedy,
    EdgeColoring,
    Annealing,
    Optimal,
}

impl Policy {
    pub const ALL: [Policy; 5] = [
        Policy::Ecmp,
        Policy::Greedy,
        Policy::EdgeColoring,
        Policy::Annealing,
        Policy::Optimal,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Policy::Ecmp => "ecmp",
            Policy::Greedy => "greedy",
            Policy::EdgeColoring => "edge-coloring",
            Policy::Annealing => "annealing",
            Policy::Optimal => "optimal",
        }
    }

    pub fn from_key(key: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.key() == key)
    }

    fn route(self, inst: &Instance) -> Routing {
        match self {
            Policy::Ecmp => ecmp(inst),
            Policy::Greedy => greedy(inst),
            Policy::EdgeColoring => edge_coloring(inst),
            Policy::Annealing => annealing(inst, 1, ANNEALING_MOVES),
            // The job-bottleneck objective: the slowest ring of each job sets its pace.
            Policy::Optimal => optimize(inst, Objective::JobLex, OPTIMAL_NODES).routing,
        }
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

impl Reroute {
    /// `arrival`, `every:SECONDS` or `never`.
    pub fn parse(text: &str) -> Option<Reroute> {
        match text {
            "arrival" => Some(Reroute::Arrival),
            "never" => Some(Reroute::Never),
            _ => text
                .strip_prefix("every:")
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s > 0.0)
                .map(Reroute::Every),
        }
    }
}

/// How to simulate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimOptions {
    pub policy: Policy,
    pub reroute: Reroute,
    pub placement: Placement,
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
}

/// What `libra-studio simulate` prints.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimResult {
    pub policy: Policy,
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
    /// Wall time the controller spent routing (measured, not part of the simulated time).
    pub controller_s: f64,
    pub timeline: Vec<Sample>,
}

/// Why a simulation stopped.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("the simulation cannot finish: {0}")]
    Stuck(String),
}

/// Events at most, so that a pathological trace stops with a reason rather than running on.
const MAX_EVENTS: usize = 5_000_000;
/// Timeline samples kept (every event's state, thinned by two whenever full).
const MAX_SAMPLES: usize = 4_096;

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
    paths: Vec<Vec<(usize, u32)>>,
    comm_s: f64,
}

/// Simulate `trace` under `opts`.
pub fn simulate(trace: &Trace, opts: &SimOptions) -> Result<SimResult, SimError> {
    trace.validate()?;
    let net = &trace.network;
    let mut nics = Nics::new(net.tors, net.hosts_per_tor);
    let hosts: Vec<Host> = (0..trace.hosts() as u32)
        .map(|id| Host {
            id,
            tor: id / net.hosts_per_tor,
        })
        .collect();
    let mut arrivals: Vec<usize> = (0..trace.jobs.len()).collect();
    arrivals.sort_by(|&a, &b| trace.jobs[a].arrival_s.total_cmp(&trace.jobs[b].arrival_s));
    // (time, spine, fails)
    let mut changes: Vec<(f64, u32, bool)> = trace
        .failures
        .iter()
        .flat_map(|f| {
            std::iter::once((f.at_s, f.spine, true)).chain(f.recover_s.map(|r| (r, f.spine, false)))
        })
        .collect();
    changes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut failed: Vec<u32> = Vec::new();
    let (mut next_arrival, mut next_change) = (0, 0);
    let mut queue: std::collections::VecDeque<usize> = Default::default();
    let mut running: Vec<Running> = Vec::new();
    let mut outcomes: Vec<Option<JobOutcome>> = vec![None; trace.jobs.len()];
    let (mut t, mut reroutes, mut controller_s) = (0.0f64, 0usize, 0.0f64);
    let mut next_timer = match opts.reroute {
        Reroute::Every(s) => s,
        _ => f64::INFINITY,
    };
    let (mut compute_nic_s, mut iterations_done) = (0.0f64, 0u64);
    let mut timeline: Vec<Sample> = Vec::new();
    let mut capacity: Vec<f64> = Vec::new();
    let mut full_reroute = true;
    let mut sharing = RingRates::default();
    for _ in 0..MAX_EVENTS {
        // Arrivals, failures and recoveries due now.
        while next_arrival < arrivals.len() && trace.jobs[arrivals[next_arrival]].arrival_s <= t {
            queue.push_back(arrivals[next_arrival]);
            next_arrival += 1;
        }
        while next_change < changes.len() && changes[next_change].0 <= t {
            let (_, spine, fails) = changes[next_change];
            failed.retain(|s| *s != spine);
            if fails {
                failed.push(spine);
            }
            failed.sort_unstable();
            full_reroute = true;
            next_change += 1;
        }
        if next_timer <= t {
            full_reroute = true;
            if let Reroute::Every(s) = opts.reroute {
                next_timer = (t / s).floor() * s + s;
            }
        }
        // Start waiting jobs in arrival order while they fit (no overtaking).
        let mut started = Vec::new();
        while let Some(&j) = queue.front() {
            let job = &trace.jobs[j];
            let Some(held) = nics.take(job.hosts() as usize, opts.placement) else {
                break;
            };
            queue.pop_front();
            let shards = job.model.shards() as usize;
            let rings = (0..shards)
                .map(|k| {
                    (0..job.ring_size as usize)
                        .map(|r| held[r * shards + k])
                        .collect()
                })
                .collect::<Vec<Vec<u32>>>();
            started.push(running.len());
            running.push(Running {
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
                comm_s: 0.0,
            });
        }
        if !started.is_empty() && opts.reroute == Reroute::Arrival {
            full_reroute = true;
        }
        // Routes: every job's on a full recomputation, otherwise the new jobs' only.
        if !running.is_empty() && (full_reroute || !started.is_empty()) {
            let clock = Instant::now();
            let (inst, routing) = route_all(trace, &hosts, &failed, &running, opts.policy)?;
            controller_s += clock.elapsed().as_secs_f64();
            capacity = inst.capacities();
            let renew: Vec<usize> = match full_reroute {
                true => (0..running.len()).collect(),
                false => started.clone(),
            };
            for i in renew {
                running[i].paths = ring_paths(&inst, &routing, i);
            }
            if full_reroute {
                reroutes += 1;
            }
        }
        full_reroute = false;
        // Rates of the rings in an All-Reduce.
        let mut comm_rings: Vec<(usize, usize)> = Vec::new();
        let mut comm_paths: Vec<Vec<(usize, u32)>> = Vec::new();
        for (i, r) in running.iter().enumerate() {
            if matches!(r.phase, Phase::Comm) {
                for (k, p) in r.paths.iter().enumerate() {
                    if r.left[k] > 0.0 {
                        comm_rings.push((i, k));
                        comm_paths.push(p.clone());
                    }
                }
            }
        }
        let rates = sharing.rates(&comm_paths, &capacity);
        push_sample(
            &mut timeline,
            Sample {
                t_s: t,
                running: running.len(),
                waiting: queue.len(),
                busy_nics: running.iter().map(|r| r.nics.len()).sum(),
                communicating: comm_rings.len(),
            },
        );
        // The next event.
        let mut next = f64::INFINITY;
        if next_arrival < arrivals.len() {
            next = next.min(trace.jobs[arrivals[next_arrival]].arrival_s);
        }
        if next_change < changes.len() {
            next = next.min(changes[next_change].0);
        }
        if !running.is_empty() {
            next = next.min(next_timer);
        }
        for r in &running {
            if let Phase::Compute { until } = r.phase {
                next = next.min(until);
            }
        }
        for (&(i, k), rate) in comm_rings.iter().zip(&rates) {
            if *rate > 0.0 {
                next = next.min(t + running[i].left[k] / (rate * 1e9));
            }
        }
        if !next.is_finite() {
            if running.is_empty() && queue.is_empty() {
                break;
            }
            let why = match running.is_empty() {
                true => format!(
                    "job {} waits for NICs that no job will free",
                    trace.jobs[queue[0]].id
                ),
                false => format!(
                    "job {}'s rings have no live path (every spine they could use has failed)",
                    trace.jobs[running[0].job].id
                ),
            };
            return Err(SimError::Stuck(why));
        }
        let dt = (next - t).max(0.0);
        // Progress to `next`.
        for (&(i, k), rate) in comm_rings.iter().zip(&rates) {
            let r = &mut running[i];
            let end = t + r.left[k] / (rate * 1e9);
            r.left[k] = if end <= next || *rate * 1e9 * dt >= r.left[k] * (1.0 - 1e-12) {
                0.0
            } else {
                r.left[k] - rate * 1e9 * dt
            };
        }
        for r in &mut running {
            match r.phase {
                Phase::Compute { .. } => compute_nic_s += dt * r.nics.len() as f64,
                Phase::Comm => r.comm_s += dt,
            }
        }
        t = next;
        // Ends of compute and of All-Reduces.
        let mut leaving = Vec::new();
        for (i, r) in running.iter_mut().enumerate() {
            let job = &trace.jobs[r.job];
            match r.phase {
                Phase::Compute { until } if until <= t => {
                    r.phase = Phase::Comm;
                    let bits = 2.0 * f64::from(job.ring_size - 1) * job.chunk_bytes * 8.0;
                    r.left = vec![bits; r.paths.len()];
                }
                Phase::Comm if r.left.iter().all(|b| *b <= 0.0) => {
                    r.done_iterations += 1;
                    iterations_done += 1;
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
            let r = running.remove(i);
            let job = &trace.jobs[r.job];
            nics.give_back(&r.nics);
            let free_s = contention_free_s(trace, job, &r.rings);
            outcomes[r.job] = Some(JobOutcome {
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
        if !leaving.is_empty() && opts.reroute == Reroute::Arrival && !running.is_empty() {
            full_reroute = true;
        }
        if running.is_empty() && queue.is_empty() && next_arrival == arrivals.len() {
            break;
        }
    }
    let jobs: Vec<JobOutcome> = outcomes.into_iter().flatten().collect();
    if jobs.len() < trace.jobs.len() {
        return Err(SimError::Stuck(format!(
            "{MAX_EVENTS} events were simulated and {} jobs are not done",
            trace.jobs.len() - jobs.len()
        )));
    }
    let makespan = jobs.iter().map(|j| j.end_s).fold(0.0, f64::max);
    let first = jobs
        .iter()
        .map(|j| j.arrival_s)
        .fold(f64::INFINITY, f64::min);
    let span = (makespan - first.min(makespan)).max(f64::MIN_POSITIVE);
    let held: f64 = jobs.iter().map(|j| j.end_s - j.start_s).sum();
    Ok(SimResult {
        policy: opts.policy,
        mean_jct_s: jobs.iter().map(|j| j.jct_s).sum::<f64>() / jobs.len().max(1) as f64,
        makespan_s: makespan,
        throughput: iterations_done as f64 / span,
        busy_fraction: compute_nic_s / (trace.hosts() as f64 * span),
        comm_fraction: jobs.iter().map(|j| j.comm_s).sum::<f64>() / held.max(f64::MIN_POSITIVE),
        reroutes,
        controller_s,
        jobs,
        timeline,
    })
}

fn push_sample(timeline: &mut Vec<Sample>, s: Sample) {
    if timeline.last().is_some_and(|l| {
        l.running == s.running
            && l.waiting == s.waiting
            && l.busy_nics == s.busy_nics
            && l.communicating == s.communicating
    }) {
        return;
    }
    if timeline.len() == MAX_SAMPLES {
        let kept: Vec<Sample> = timeline.iter().step_by(2).cloned().collect();
        *timeline = kept;
    }
    timeline.push(s);
}

/// The routing instance of the running jobs on the live fabric, and the policy's routes.
fn route_all(
    trace: &Trace,
    hosts: &[Host],
    failed: &[u32],
    running: &[Running],
    policy: Policy,
) -> Result<(Instance, Routing), SimError> {
    let net = &trace.network;
    let scenario = RouteScenario {
        network: ClosNetwork {
            num_spines: net.spines,
            num_tors: net.tors,
            link_gbps: net.link_gbps,
            nic_gbps: net.nic_gbps,
            failed_spines: failed.to_vec(),
            failed_links: Vec::new(),
            link_capacity_overrides: Vec::new(),
        },
        hosts: hosts.to_vec(),
        jobs: running
            .iter()
            .map(|r| Job {
                name: trace.jobs[r.job].id.to_string(),
                chunk_bytes: trace.jobs[r.job].chunk_bytes,
                rings: r.rings.clone(),
                model_hint: None,
            })
            .collect(),
    };
    let inst = scenario
        .instance()
        .map_err(|e| SimError::Stuck(format!("the routing instance failed: {e}")))?;
    let routing = policy.route(&inst);
    Ok((inst, routing))
}

/// Running job `i`'s links with multiplicity over all its rings, as one unit: the job's rings
/// advance together (an iteration waits for its slowest ring), so the job shares the fabric as one
/// synchronous collective.
fn ring_paths(inst: &Instance, routing: &Routing, i: usize) -> Vec<Vec<(usize, u32)>> {
    let mut links: Vec<(usize, u32)> = Vec::new();
    let mut at: std::collections::HashMap<usize, usize> = Default::default();
    for &ring in &inst.jobs[i].1 {
        for &f in &inst.rings[ring].flows {
            for l in inst.flows[f].path(&inst.fabric, routing.0[f]) {
                match at.get(&l) {
                    Some(&x) => links[x].1 += 1,
                    None => {
                        at.insert(l, links.len());
                        links.push((l, 1));
                    }
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::trace::{generate, ClusterNetwork, JobModel, SpineFailure, TraceSpec};
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

    fn opts(policy: Policy, reroute: Reroute) -> SimOptions {
        SimOptions {
            policy,
            reroute,
            placement: Placement::WholeTors,
        }
    }

    /// iterations x (compute + 2 (n - 1) chunk x 8 / line rate).
    fn hand(iterations: f64, compute: f64, n: f64, chunk: f64, gbps: f64) -> f64 {
        iterations * (compute + 2.0 * (n - 1.0) * chunk * 8.0 / (gbps * 1e9))
    }

    #[test]
    fn a_single_job_takes_the_hand_formula() {
        // Within one ToR (NIC rate), and across two ToRs routed without sharing a spine link.
        for (tors, per_tor, policy) in [
            (2, 4, Policy::Ecmp),
            (2, 2, Policy::EdgeColoring),
            (2, 2, Policy::Optimal),
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
            failed_spines: 0,
            seed: 3,
        };
        let trace = generate(&spec).unwrap();
        let r = simulate(&trace, &opts(Policy::EdgeColoring, Reroute::Arrival)).unwrap();
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
        let e = simulate(&trace, &opts(Policy::Ecmp, Reroute::Arrival)).unwrap();
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
            failed_spines: 1,
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
        let cases = Policy::ALL
            .map(|p| (p, Reroute::Arrival))
            .into_iter()
            .chain([Reroute::Every(0.5), Reroute::Never].map(|r| (Policy::Greedy, r)));
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
            simulate(&base(failures), &opts(Policy::EdgeColoring, Reroute::Never)).unwrap()
        };
        let healthy = run(Vec::new());
        assert!((healthy.jobs[0].jct_s - hand(3.0, 0.5, 2.0, 1e9, 100.0)).abs() < 1e-9);
        let down = run(vec![SpineFailure {
            spine: 1,
            at_s: 0.0,
            recover_s: None,
        }]);
        assert!((down.jobs[0].jct_s - hand(3.0, 0.5, 2.0, 1e9, 50.0)).abs() < 1e-9);
        let back = run(vec![SpineFailure {
            spine: 1,
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
                SpineFailure {
                    spine: 0,
                    at_s: 0.0,
                    recover_s: None,
                },
                SpineFailure {
                    spine: 1,
                    at_s: 0.0,
                    recover_s: None,
                },
            ]),
            &opts(Policy::Ecmp, Reroute::Arrival),
        )
        .unwrap_err();
        assert!(e.to_string().contains("cannot finish"), "{e}");
    }
}
