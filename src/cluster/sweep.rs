//! The routing paper's three axes as ready-made sweeps: failed spines (0, 1, 4, 8), ring size (2,
//! 4, 8) and concurrent jobs (1 to 5, all arriving at once), each policy on the same traces.

use super::placement::Placement;
use super::simulate::{simulate, Reroute, SimError, SimOptions};
use super::trace::{generate, TraceSpec};
use crate::routing::Algorithm;
use serde::Serialize;

/// Which axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Axis {
    FailedSpines,
    RingSize,
    ConcurrentJobs,
}

impl Axis {
    pub const ALL: [Axis; 3] = [Axis::FailedSpines, Axis::RingSize, Axis::ConcurrentJobs];

    pub fn key(self) -> &'static str {
        match self {
            Axis::FailedSpines => "failed-spines",
            Axis::RingSize => "ring-size",
            Axis::ConcurrentJobs => "concurrent-jobs",
        }
    }

    pub fn from_key(key: &str) -> Option<Axis> {
        Axis::ALL.into_iter().find(|a| a.key() == key)
    }

    /// The paper's values (failed spines only below the fabric's count).
    pub fn values(self, spines: u32) -> Vec<u32> {
        match self {
            Axis::FailedSpines => [0, 1, 4, 8].into_iter().filter(|&f| f < spines).collect(),
            Axis::RingSize => vec![2, 4, 8],
            Axis::ConcurrentJobs => (1..=5).collect(),
        }
    }
}

/// One point of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepRow {
    pub value: u32,
    pub policy: Algorithm,
    pub mean_jct_s: f64,
    pub makespan_s: f64,
    pub throughput: f64,
    pub mean_slowdown: f64,
}

/// Every policy of `policies` at every value of `axis`, on traces from `spec` (its seed, so every
/// policy sees the same jobs).
pub fn sweep(
    spec: &TraceSpec,
    axis: Axis,
    policies: &[Algorithm],
    reroute: Reroute,
    placement: Placement,
) -> Result<Vec<SweepRow>, SimError> {
    let mut rows = Vec::new();
    for value in axis.values(spec.network.spines) {
        let mut s = spec.clone();
        match axis {
            Axis::FailedSpines => s.faults.spines = value,
            Axis::RingSize => s.ring_size = value,
            Axis::ConcurrentJobs => s.jobs = value,
        }
        let mut trace = generate(&s)?;
        if axis == Axis::ConcurrentJobs {
            trace.jobs.iter_mut().for_each(|j| j.arrival_s = 0.0);
        }
        for &policy in policies {
            let r = simulate(
                &trace,
                &SimOptions {
                    placement,
                    ..SimOptions::new(policy, reroute)
                },
            )?;
            rows.push(SweepRow {
                value,
                policy,
                mean_jct_s: r.mean_jct_s,
                makespan_s: r.makespan_s,
                throughput: r.throughput,
                mean_slowdown: r.jobs.iter().map(|j| j.slowdown).sum::<f64>()
                    / r.jobs.len().max(1) as f64,
            });
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::trace::{ClusterNetwork, Faults};

    #[test]
    fn failed_spines_never_help_and_edge_coloring_is_contention_free_when_whole() {
        let spec = TraceSpec {
            network: ClusterNetwork {
                tors: 16,
                spines: 32,
                hosts_per_tor: 32,
                link_gbps: 400.0,
                nic_gbps: 400.0,
            },
            jobs: 6,
            arrival_rate: 1.0,
            iterations: 2,
            compute_s: 0.5,
            ring_size: 2,
            chunk_bytes: None,
            mix: Vec::new(),
            faults: Faults::spines(0),
            seed: 9,
        };
        let rows = sweep(
            &spec,
            Axis::FailedSpines,
            &[Algorithm::EdgeColoring],
            Reroute::Arrival,
            Placement::WholeTors,
        )
        .unwrap();
        assert_eq!(
            rows.iter().map(|r| r.value).collect::<Vec<_>>(),
            vec![0, 1, 4, 8]
        );
        assert!((rows[0].mean_slowdown - 1.0).abs() < 1e-9);
        for w in rows.windows(2) {
            assert!(
                w[1].mean_jct_s >= w[0].mean_jct_s * (1.0 - 1e-9),
                "{rows:?}"
            );
        }
        assert!(rows[3].mean_jct_s > rows[0].mean_jct_s);
        let c = sweep(
            &spec,
            Axis::ConcurrentJobs,
            &[Algorithm::Ecmp],
            Reroute::Arrival,
            Placement::WholeTors,
        )
        .unwrap();
        assert_eq!(c.len(), 5);
    }
}
