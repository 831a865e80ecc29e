//! Per-dimension message sizes of a collective and its time (LIBRA src/model/model.py).
//!
//! For a collective of `m` bytes over group sizes `g_d` (unused dimensions skipped):
//! - AllReduce, d ascending: `msg_d = 2 m (g_d - 1) / g_d`, then `m = m / g_d`
//! - ReduceScatter, d ascending: `msg_d = m (g_d - 1) / g_d`, then `m = m / g_d`
//! - AllGather, d descending: `msg_d = m (g_d - 1)`, then `m = m * g_d`
//! - AllToAll, d ascending: `msg_d = m (g_d - 1) / g_d`, `m` unchanged
//! - SendRecv (ours, pipeline stages): `msg_d = m` on every used dimension: a stage boundary lies
//!   on one of the pipeline's dimensions, and the slowest of them bounds the pipeline
//!
//! Time: bytes / (GB/s) = ns. The chunks are pipelined across dimensions, so the collective takes
//! `max_d msg_d / B_d` (LIBRA); the hierarchical, non-pipelined alternative is `sum_d msg_d / B_d`.
//! An optional latency `alpha_d` per step adds `count * steps_d * alpha_d` to each used dimension,
//! `count` the number of collectives the phase's bytes are issued as.

use super::communicator::Groups;
use super::network::{Network, Topology};
use super::workload::Collective;
use serde::{Deserialize, Serialize};

/// How the per-dimension times of one collective combine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DimCombine {
    /// Pipelined across dimensions: the slowest dimension dominates (LIBRA).
    #[default]
    Max,
    /// Hierarchical, one dimension after the other.
    Sum,
}

/// Bytes each NPU sends in each dimension for a collective of `size_bytes` over `groups`.
pub fn message_sizes(collective: Collective, size_bytes: f64, groups: &Groups) -> Vec<f64> {
    message_sizes_on(collective, size_bytes, groups, &[])
}

/// [`message_sizes`] where the dimensions marked in `in_network` reduce in the switch (NVLink
/// SHARP, InfiniBand SHARP): an All-Reduce there sends its `m` bytes once up to the switch and
/// receives the sum, `m` instead of `2 m (g-1)/g`; the other collectives are unchanged.
pub fn message_sizes_on(
    collective: Collective,
    size_bytes: f64,
    groups: &Groups,
    in_network: &[bool],
) -> Vec<f64> {
    let mut msg = vec![0.0; groups.len()];
    let mut m = size_bytes;
    let used = |d: usize| groups[d].map(f64::from);
    match collective {
        Collective::None => {}
        Collective::AllReduce => {
            for (d, out) in msg.iter_mut().enumerate() {
                if let Some(g) = used(d) {
                    *out = match in_network.get(d) {
                        Some(true) => m,
                        _ => 2.0 * m / g * (g - 1.0),
                    };
                    m /= g;
                }
            }
        }
        Collective::ReduceScatter => {
            for (d, out) in msg.iter_mut().enumerate() {
                if let Some(g) = used(d) {
                    *out = m / g * (g - 1.0);
                    m /= g;
                }
            }
        }
        Collective::AllGather => {
            for (d, out) in msg.iter_mut().enumerate().rev() {
                if let Some(g) = used(d) {
                    *out = m * (g - 1.0);
                    m *= g;
                }
            }
        }
        Collective::AllToAll => {
            for (d, out) in msg.iter_mut().enumerate() {
                if let Some(g) = used(d) {
                    *out = m / g * (g - 1.0);
                }
            }
        }
        Collective::SendRecv => {
            for (d, out) in msg.iter_mut().enumerate() {
                if used(d).is_some() {
                    *out = m;
                }
            }
        }
    }
    msg
}

/// Latency steps of a collective in a dimension of group size `g` (the alpha term): a ring takes
/// `2 (g - 1)` steps for an AllReduce and `g - 1` for the one-pass collectives; FullyConnected and
/// Switch take 2 for an AllReduce and 1 otherwise; a SendRecv is one step anywhere.
pub fn latency_steps(collective: Collective, topology: Topology, g: u32) -> u32 {
    let passes = match collective {
        Collective::None => return 0,
        Collective::SendRecv => return 1,
        Collective::AllReduce => 2,
        _ => 1,
    };
    match topology {
        Topology::Ring => passes * (g - 1),
        Topology::FullyConnected | Topology::Switch => passes,
    }
}

/// Time of each dimension, ns: `count steps_d alpha_d + msg_d / B_d` for used dimensions, 0
/// elsewhere (`msg` is the bytes of all `count` collectives together).
pub fn dim_times(
    net: &Network,
    collective: Collective,
    count: u32,
    msg: &[f64],
    groups: &Groups,
    bw_gbps: &[f64],
    latency: bool,
) -> Vec<f64> {
    (0..msg.len())
        .map(|d| match groups[d] {
            Some(g) if collective != Collective::None => {
                let alpha = if latency {
                    f64::from(count)
                        * f64::from(latency_steps(collective, net.dims[d].topology, g))
                        * net.dims[d].latency_ns
                } else {
                    0.0
                };
                alpha + msg[d] / bw_gbps[d]
            }
            _ => 0.0,
        })
        .collect()
}

/// The collective's time and the dimension (0-based) that bounds it, if any.
pub fn combine(times: &[f64], how: DimCombine) -> (f64, Option<usize>) {
    let arg = times
        .iter()
        .enumerate()
        .filter(|(_, t)| **t > 0.0)
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(d, _)| d);
    match how {
        DimCombine::Max => (arg.map_or(0.0, |d| times[d]), arg),
        DimCombine::Sum => (times.iter().sum(), arg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_all_reduce_reduced_in_the_switch_sends_m_there() {
        // 8 GPUs on an NVSwitch with SHARP, then 4 nodes without: m up to the switch once,
        // then 2 (m/8) 3/4 across the nodes. Other collectives are unchanged.
        let g = groups(&[8, 4]);
        let msg = message_sizes_on(Collective::AllReduce, 800.0, &g, &[true, false]);
        assert_eq!(msg, vec![800.0, 2.0 * 100.0 * 3.0 / 4.0]);
        assert_eq!(
            message_sizes_on(Collective::AllGather, 8.0, &g, &[true, false]),
            message_sizes(Collective::AllGather, 8.0, &g)
        );
        assert_eq!(
            message_sizes_on(Collective::AllReduce, 800.0, &g, &[]),
            message_sizes(Collective::AllReduce, 800.0, &g)
        );
    }

    fn groups(v: &[i64]) -> Groups {
        v.iter()
            .map(|&g| if g < 0 { None } else { Some(g as u32) })
            .collect()
    }

    #[test]
    fn allreduce_halves_down_the_dimensions() {
        let msg = message_sizes(Collective::AllReduce, 1024.0, &groups(&[4, 4, -1, -1]));
        // 2 * 1024 * 3/4 = 1536, then m = 256: 2 * 256 * 3/4 = 384.
        assert_eq!(msg, vec![1536.0, 384.0, 0.0, 0.0]);
    }

    #[test]
    fn allgather_walks_the_dimensions_backwards() {
        let msg = message_sizes(Collective::AllGather, 10.0, &groups(&[2, -1, 4]));
        // d3 first: 10 * 3 = 30, m = 40; d1: 40 * 1 = 40.
        assert_eq!(msg, vec![40.0, 0.0, 30.0]);
    }

    #[test]
    fn alltoall_keeps_the_size() {
        let msg = message_sizes(Collective::AllToAll, 64.0, &groups(&[4, 8]));
        assert_eq!(msg, vec![48.0, 56.0]);
        assert_eq!(
            message_sizes(Collective::None, 64.0, &groups(&[4, 8])),
            vec![0.0; 2]
        );
    }

    #[test]
    fn reduce_scatter_then_all_gather_is_an_all_reduce() {
        // A ReduceScatter of m followed by an AllGather of its m/G result puts on every dimension the
        // bytes of an AllReduce of m.
        for (m, g) in [
            (805306368.0, groups(&[4, 4, -1, -1])),
            (452984832.0, groups(&[-1, 2, 4, 32])),
            (1e6, groups(&[16, 8, 32])),
            (7.0, groups(&[2, -1, 3])),
        ] {
            let total_g: f64 = g.iter().flatten().map(|&x| f64::from(x)).product();
            let rs = message_sizes(Collective::ReduceScatter, m, &g);
            let ag = message_sizes(Collective::AllGather, m / total_g, &g);
            let ar = message_sizes(Collective::AllReduce, m, &g);
            for d in 0..g.len() {
                let sum = rs[d] + ag[d];
                assert!(
                    (sum - ar[d]).abs() <= 1e-12 * ar[d].max(1.0),
                    "dim {d}: {sum} vs {}",
                    ar[d]
                );
            }
        }
    }

    #[test]
    fn combine_max_and_sum() {
        assert_eq!(combine(&[1.0, 3.0, 2.0], DimCombine::Max), (3.0, Some(1)));
        assert_eq!(combine(&[1.0, 3.0, 2.0], DimCombine::Sum), (6.0, Some(1)));
        assert_eq!(combine(&[0.0, 0.0], DimCombine::Max), (0.0, None));
    }

    #[test]
    fn latency_steps_by_topology() {
        assert_eq!(latency_steps(Collective::AllReduce, Topology::Ring, 4), 6);
        assert_eq!(latency_steps(Collective::AllGather, Topology::Ring, 4), 3);
        assert_eq!(
            latency_steps(Collective::AllReduce, Topology::Switch, 32),
            2
        );
        assert_eq!(
            latency_steps(Collective::ReduceScatter, Topology::FullyConnected, 8),
            1
        );
        assert_eq!(latency_steps(Collective::None, Topology::Ring, 4), 0);
        assert_eq!(latency_steps(Collective::SendRecv, Topology::Ring, 8), 1);
    }

    #[test]
    fn sendrecv_carries_the_whole_size_on_each_pipeline_dimension() {
        assert_eq!(
            message_sizes(Collective::SendRecv, 96.0, &groups(&[-1, 2, 4, -1])),
            vec![0.0, 96.0, 96.0, 0.0]
        );
    }
}
