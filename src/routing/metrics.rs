//! A routing and everything docs/routing.md section 2 measures of it: link loads, max-min fair flow
//! rates, job bottlenecks, static and fluid All-Reduce times, the contention-free bound.

use super::fluid::fluid_times;
use super::rates::max_min_rates;
use super::scenario::Instance;
use serde::Serialize;
use std::collections::BTreeMap;

/// One spine per inter-ToR flow (None for intra-ToR flows), indexed by flow id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Routing(pub Vec<Option<u32>>);

impl Routing {
    /// Each flow's path under this routing.
    pub fn paths(&self, inst: &Instance) -> Vec<Vec<usize>> {
        inst.flows
            .iter()
            .map(|f| f.path(&inst.fabric, self.0[f.id]))
            .collect()
    }

    /// Flows on each directed ToR-spine link (indexed as the fabric's links).
    pub fn loads(&self, inst: &Instance) -> Vec<u32> {
        let mut n = vec![0u32; inst.fabric.capacity.len()];
        for f in inst.flows.iter().filter(|f| f.inter_tor()) {
            if let Some(s) = self.0[f.id] {
                n[inst.fabric.up(f.src_tor, s)] += 1;
                n[inst.fabric.down(f.dst_tor, s)] += 1;
            }
        }
        n
    }
}

/// Max-min fair rates of `routing` (Gbps, by flow id).
pub fn rates(inst: &Instance, routing: &Routing) -> Vec<f64> {
    let cap = inst.capacities();
    max_min_rates(&routing.paths(inst), &cap)
}

/// Everything measured of one routing, with the spec's field names.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metrics {
    pub routing: BTreeMap<usize, u32>,
    pub link_loads: BTreeMap<String, u32>,
    pub max_link_load: u32,
    pub flow_rates_gbps: Vec<f64>,
    pub flow_rates_sorted_gbps: Vec<f64>,
    pub min_flow_rate_gbps: f64,
    pub total_throughput_gbps: f64,
    pub job_bottleneck_rates_gbps: Vec<f64>,
    pub job_bottleneck_rates_gbps_sorted: Vec<f64>,
    pub job_allreduce_time_static_s: Vec<f64>,
    pub makespan_static_s: f64,
    pub contention_free_allreduce_time_s: Vec<f64>,
    pub job_allreduce_time_fluid_s: Vec<f64>,
    pub makespan_fluid_s: f64,
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

/// The All-Reduce time of a ring of `n` hosts whose slowest flow runs at `rate_gbps`.
pub fn ring_time_s(n: usize, chunk_bytes: f64, rate_gbps: f64) -> f64 {
    2.0 * (n as f64 - 1.0) * chunk_bytes * 8.0 / (rate_gbps * 1e9)
}

/// Measure `routing` on `inst`.
pub fn measure(inst: &Instance, routing: &Routing) -> Metrics {
    measure_static(inst, routing).with_fluid(fluid_times(inst, &routing.paths(inst)))
}

impl Metrics {
    /// The metrics with the fluid simulation's job times (see [`measure_static`]).
    pub fn with_fluid(mut self, fluid: Vec<f64>) -> Metrics {
        self.makespan_fluid_s = fluid.iter().copied().fold(0.0, f64::max);
        self.job_allreduce_time_fluid_s = fluid;
        self
    }

    /// The metrics with the static times in place of the fluid simulation's (where it is not
    /// run: multi-flow ECMP beyond `multipath::FLUID_LIMIT` sub-flows).
    pub fn with_static_as_fluid(self) -> Metrics {
        let times = self.job_allreduce_time_static_s.clone();
        self.with_fluid(times)
    }
}

/// [`measure`] without the fluid simulation (its fields empty and NaN until
/// [`Metrics::with_fluid`]): what the static times need, a fraction of the work at scale.
pub fn measure_static(inst: &Instance, routing: &Routing) -> Metrics {
    measure_static_rated(inst, routing, rates(inst, routing))
}

/// [`measure_static`] given the routing's max-min [`rates`] (a page computes them in a slice of
/// their own: 32,768 sub-flows take tens of milliseconds).
pub fn measure_static_rated(inst: &Instance, routing: &Routing, rates: Vec<f64>) -> Metrics {
    let fabric = &inst.fabric;
    let loads = routing.loads(inst);
    let link_loads: BTreeMap<String, u32> = loads
        .iter()
        .enumerate()
        .filter(|(e, n)| **n > 0 && fabric.is_spine_link(*e))
        .map(|(e, n)| (fabric.link_name(e), *n))
        .collect();
    let ring_min = |r: usize| {
        inst.rings[r]
            .flows
            .iter()
            .map(|&f| rates[f])
            .fold(f64::INFINITY, f64::min)
    };
    let bottleneck: Vec<f64> = inst
        .jobs
        .iter()
        .map(|(_, rings)| {
            rings
                .iter()
                .map(|&r| ring_min(r))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let static_s: Vec<f64> = inst
        .jobs
        .iter()
        .map(|(chunk, rings)| {
            rings
                .iter()
                .map(|&r| ring_time_s(inst.rings[r].members, *chunk, ring_min(r)))
                .fold(0.0, f64::max)
        })
        .collect();
    let contention_free: Vec<f64> = (0..inst.jobs.len())
        .map(|j| {
            let n = inst.ring_sizes(j).max().unwrap_or(0);
            // The whole chunk at the NIC's rate, however many sub-flows carry it.
            ring_time_s(
                n,
                inst.jobs[j].0 * f64::from(inst.subflows),
                fabric.nic_gbps,
            )
        })
        .collect();
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    Metrics {
        routing: routing
            .0
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.map(|s| (i, s)))
            .collect(),
        max_link_load: link_loads.values().copied().max().unwrap_or(0),
        link_loads,
        flow_rates_sorted_gbps: sorted(&rates),
        min_flow_rate_gbps: rates.iter().copied().fold(f64::INFINITY, f64::min),
        total_throughput_gbps: rates.iter().sum(),
        flow_rates_gbps: rates,
        job_bottleneck_rates_gbps_sorted: sorted(&bottleneck),
        job_bottleneck_rates_gbps: bottleneck,
        makespan_static_s: max(&static_s),
        job_allreduce_time_static_s: static_s,
        contention_free_allreduce_time_s: contention_free,
        makespan_fluid_s: f64::NAN,
        job_allreduce_time_fluid_s: Vec::new(),
    }
}
