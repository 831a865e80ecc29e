//! Training loops: how compute and collectives of one iteration add up to its time.
//!
//! With `f_l, i_l, w_l` the forward, input-gradient and weight-gradient compute times of layer `l` and
//! `F_l, I_l, W_l` the times of their collectives:
//!
//! - **NoOverlap** (LIBRA `inputs/training_loop/no_overlap.py`): everything in sequence,
//!   `T = sum_l (f_l + F_l) + sum_l (i_l + I_l + w_l + W_l)`.
//! - **OverlapWeightGrad** (ours): the weight-gradient collective of a layer runs on its own stream,
//!   concurrently with the rest of the backward pass; weight-gradient collectives run one at a time, in
//!   order. Backward goes from the last layer to the first. With `t` the compute stream's clock and `c`
//!   the collective stream's, both starting at the end of the forward pass `t = c = sum_l (f_l + F_l)`:
//!   for `l = L..1`: `t += i_l + I_l + w_l`, then `c = max(c, t) + W_l`; and `T = max(t, c)`.
//!   Input-gradient collectives block (the previous layer needs their result).
//!
//! The exposed communication of each collective is attributed to the dimension that bounds it (for
//! the max combination) or to each dimension's own share (for the sum). In the overlap loop the exposed
//! part of the weight-gradient collectives is `T` minus everything else, split over dimensions in
//! proportion to their weight-gradient collective time.

use super::collective::{combine, dim_times, message_sizes_on, DimCombine};
use super::communicator::{Communicator, CommunicatorError};
use super::network::{Network, NetworkError};
use super::workload::{Collective, Over, PhaseKind, Traffic, Workload, WorkloadError};
use serde::{Deserialize, Serialize};

/// Which training loop turns per-phase times into an iteration time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TrainingLoop {
    /// LIBRA's: no overlap of compute and communication.
    #[default]
    NoOverlap,
    /// Weight-gradient collectives overlap with the remaining backward compute.
    OverlapWeightGrad,
}

/// The modelling choices; the default is LIBRA-compatible.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelOptions {
    #[serde(default)]
    pub combine: DimCombine,
    /// Add the per-dimension latency term (`latency_ns` per step); off in LIBRA-compatible mode.
    #[serde(default)]
    pub latency: bool,
    #[serde(default)]
    pub training_loop: TrainingLoop,
}

impl ModelOptions {
    pub fn is_libra_compatible(&self) -> bool {
        *self == ModelOptions::default()
    }
}

/// Why a time cannot be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TimeError {
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    #[error(transparent)]
    Communicator(#[from] CommunicatorError),
    #[error("{given} bandwidths given for a network of {dims} dimensions")]
    BandwidthCount { given: usize, dims: usize },
    #[error("layer {layer} (\"{name}\") sends point-to-point (SendRecv), but the communicator has no pipeline groups")]
    NoPipeline { layer: usize, name: String },
    #[error("layer {layer} (\"{name}\") runs a collective over the {over} groups, but the communicator has none")]
    NoGroups {
        layer: usize,
        name: String,
        over: &'static str,
    },
    #[error("dimension {dim}: bandwidth must be a positive finite number of GB/s, got {}", crate::format::number(*.value))]
    BadBandwidth { dim: usize, value: f64 },
}

/// One iteration's time with its breakdown, in ns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimeBreakdown {
    pub time_ns: f64,
    pub compute_ns: f64,
    /// Exposed communication by phase kind (Forward, InputGrad, WeightGrad), then by dimension.
    pub exposed_ns: [Vec<f64>; 3],
    /// The same by kind of traffic ([`Traffic::ALL`]: TP, CP, EP, PP, DP), then by dimension.
    pub by_traffic_ns: [Vec<f64>; 5],
}

impl TimeBreakdown {
    /// Exposed communication of all phase kinds, ns.
    pub fn comm_ns(&self) -> f64 {
        self.exposed_ns.iter().flatten().sum()
    }

    /// Exposed communication of each dimension, summed over phase kinds.
    pub fn exposed_per_dim(&self) -> Vec<f64> {
        let dims = self.exposed_ns[0].len();
        (0..dims)
            .map(|d| self.exposed_ns.iter().map(|v| v[d]).sum())
            .collect()
    }
}

/// Check the per-NPU bandwidths: one per dimension, each positive and finite.
pub fn check_bandwidths(net: &Network, bw_gbps: &[f64]) -> Result<(), TimeError> {
    if bw_gbps.len() != net.dims.len() {
        return Err(TimeError::BandwidthCount {
            given: bw_gbps.len(),
            dims: net.dims.len(),
        });
    }
    match bw_gbps.iter().position(|b| !(b.is_finite() && *b > 0.0)) {
        Some(d) => Err(TimeError::BadBandwidth {
            dim: d + 1,
            value: bw_gbps[d],
        }),
        None => Ok(()),
    }
}

/// The time of one training iteration of `workload` on `net` at bandwidths `bw_gbps`.
pub fn iteration_time(
    net: &Network,
    workload: &Workload,
    comm: &Communicator,
    bw_gbps: &[f64],
    opts: &ModelOptions,
) -> Result<TimeBreakdown, TimeError> {
    iteration_time_on(net, workload, comm, bw_gbps, opts, &[])
}

/// [`iteration_time`] with the dimensions marked in `in_network` reducing in the switch
/// ([`super::collective::message_sizes_on`]).
pub fn iteration_time_on(
    net: &Network,
    workload: &Workload,
    comm: &Communicator,
    bw_gbps: &[f64],
    opts: &ModelOptions,
    in_network: &[bool],
) -> Result<TimeBreakdown, TimeError> {
    net.validate()?;
    workload.validate()?;
    comm.validate(net)?;
    check_bandwidths(net, bw_gbps)?;
    let dims = net.dims.len();
    let mut exposed: [Vec<f64>; 3] = std::array::from_fn(|_| vec![0.0; dims]);
    let mut traffic: [Vec<f64>; 5] = std::array::from_fn(|_| vec![0.0; dims]);
    // The weight-gradient phases' share of `traffic` (what an overlapping loop may hide).
    let mut wg_traffic: [Vec<f64>; 5] = std::array::from_fn(|_| vec![0.0; dims]);
    // Collective time of every layer and phase kind: [layer][kind].
    let mut coll = vec![[0.0; 3]; workload.layers.len()];
    for (l, layer) in workload.layers.iter().enumerate() {
        for kind in PhaseKind::ALL {
            let phase = layer.phase(kind);
            let groups = comm.groups_for(kind, phase.collective, phase.over);
            if phase.collective != Collective::None && groups.is_empty() {
                return Err(match phase.over {
                    Over::Phase if phase.collective == Collective::SendRecv => {
                        TimeError::NoPipeline {
                            layer: l + 1,
                            name: layer.name.clone(),
                        }
                    }
                    over => TimeError::NoGroups {
                        layer: l + 1,
                        name: layer.name.clone(),
                        over: over.name(),
                    },
                });
            }
            let msg = message_sizes_on(phase.collective, phase.size_bytes, groups, in_network);
            let times = dim_times(
                net,
                phase.collective,
                phase.count,
                &msg,
                groups,
                bw_gbps,
                opts.latency,
            );
            let (t, arg) = combine(&times, opts.combine);
            coll[l][kind.index()] = t;
            let by = Traffic::of(kind, phase).index();
            let mut shares = vec![&mut exposed[kind.index()], &mut traffic[by]];
            if kind == PhaseKind::WeightGrad {
                shares.push(&mut wg_traffic[by]);
            }
            for share in shares {
                match opts.combine {
                    DimCombine::Max => {
                        if let Some(d) = arg {
                            share[d] += t;
                        }
                    }
                    DimCombine::Sum => share.iter_mut().zip(&times).for_each(|(s, t)| *s += t),
                }
            }
        }
    }
    let compute_ns = workload.compute_ns();
    let forward: f64 = workload
        .layers
        .iter()
        .zip(&coll)
        .map(|(l, c)| l.forward.compute_ns + c[0])
        .sum();
    let time_ns = match opts.training_loop {
        TrainingLoop::NoOverlap => {
            let backward: f64 = workload
                .layers
                .iter()
                .zip(&coll)
                .map(|(l, c)| l.input_grad.compute_ns + c[1] + l.weight_grad.compute_ns + c[2])
                .sum();
            forward + backward
        }
        TrainingLoop::OverlapWeightGrad => {
            let (mut t, mut c) = (forward, forward);
            for (l, cl) in workload.layers.iter().zip(&coll).rev() {
                t += l.input_grad.compute_ns + cl[1] + l.weight_grad.compute_ns;
                c = c.max(t) + cl[2];
            }
            let time = t.max(c);
            // Exposed weight-gradient communication: what the iteration takes beyond everything else.
            let wg_exposed = time - t;
            let wg_total: f64 = exposed[2].iter().sum();
            let scale = if wg_total > 0.0 {
                wg_exposed / wg_total
            } else {
                0.0
            };
            exposed[2].iter_mut().for_each(|e| *e *= scale);
            // Only weight-gradient phases overlap: their traffic shrinks by the same share.
            for (t, w) in traffic.iter_mut().zip(&wg_traffic) {
                for (t, w) in t.iter_mut().zip(w) {
                    *t -= w * (1.0 - scale);
                }
            }
            time
        }
    };
    Ok(TimeBreakdown {
        time_ns,
        compute_ns,
        exposed_ns: exposed,
        by_traffic_ns: traffic,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::workload::{Layer, Phase};
    use crate::presets;

    fn phase(compute_ns: f64, collective: Collective, size_bytes: f64) -> Phase {
        Phase::new(compute_ns, collective, size_bytes)
    }

    /// Two layers on a 2D network Ring 2 x Switch 4, all collectives on both dimensions.
    fn small() -> (Network, Workload, Communicator) {
        let mut net = presets::libra_4d_network();
        net.dims.truncate(2);
        net.dims[0].npus = 2;
        net.dims[1].npus = 4;
        let layer = |name: &str, wg_bytes: f64| Layer {
            name: name.into(),
            reserved: -1,
            forward: phase(100.0, Collective::None, 0.0),
            input_grad: phase(50.0, Collective::AllReduce, 400.0),
            weight_grad: phase(30.0, Collective::AllReduce, wg_bytes),
            update_ns: 0.0,
        };
        let w = Workload {
            parallelism: None,
            layers: vec![layer("a", 800.0), layer("b", 1600.0)],
        };
        let c = Communicator::uniform(vec![Some(2), Some(4)]);
        (net, w, c)
    }

    #[test]
    fn no_overlap_by_hand() {
        let (net, w, c) = small();
        // AllReduce of 400 B over [2, 4]: d1 2*400*1/2 = 400 B, d2 2*200*3/4 = 300 B.
        // At B = [10, 1] GB/s: 40 ns and 300 ns, max 300. wg 800 B: 80, 600 -> 600. wg 1600: 1200.
        let t = iteration_time(&net, &w, &c, &[10.0, 1.0], &ModelOptions::default()).unwrap();
        let compute = 2.0 * (100.0 + 50.0 + 30.0);
        assert_eq!(t.compute_ns, compute);
        assert_eq!(t.time_ns, compute + 300.0 * 2.0 + 600.0 + 1200.0);
        assert_eq!(t.exposed_ns[1], vec![0.0, 600.0]);
        assert_eq!(t.exposed_ns[2], vec![0.0, 1800.0]);
        assert_eq!(t.comm_ns(), 2400.0);
        // Sum over dimensions instead of max: 340 per input-gradient, 680 and 1360 for weights.
        let opts = ModelOptions {
            combine: DimCombine::Sum,
            ..ModelOptions::default()
        };
        let t = iteration_time(&net, &w, &c, &[10.0, 1.0], &opts).unwrap();
        assert_eq!(t.time_ns, compute + 680.0 + 680.0 + 1360.0);
        assert_eq!(
            t.exposed_per_dim(),
            vec![40.0 * 2.0 + 80.0 + 160.0, 300.0 * 2.0 + 600.0 + 1200.0]
        );
    }

    #[test]
    fn overlap_by_hand() {
        let (net, w, c) = small();
        let opts = ModelOptions {
            training_loop: TrainingLoop::OverlapWeightGrad,
            ..ModelOptions::default()
        };
        let t = iteration_time(&net, &w, &c, &[10.0, 1.0], &opts).unwrap();
        // forward: 200. Backward, layer b first: t = 200 + 50 + 300 + 30 = 580; c = 580 + 1200 = 1780.
        // layer a: t = 580 + 380 = 960; c = max(1780, 960) + 600 = 2380. T = 2380.
        assert_eq!(t.time_ns, 2380.0);
        // Exposed weight-gradient time: 2380 - 960 = 1420, all on dimension 2 (it bounds both).
        assert_eq!(t.exposed_ns[2], vec![0.0, 1420.0]);
        assert_eq!(t.time_ns, t.compute_ns + t.comm_ns());
        // With fast links layer b's weight-gradient collective (1.6 ns) hides behind layer a's backward
        // compute; layer a's (0.8 ns) comes last and has nothing left to hide behind.
        let t = iteration_time(&net, &w, &c, &[1000.0, 1000.0], &opts).unwrap();
        let no = iteration_time(&net, &w, &c, &[1000.0, 1000.0], &ModelOptions::default()).unwrap();
        assert!(t.time_ns < no.time_ns);
        assert!(
            (t.time_ns - (no.time_ns - 1.6)).abs() < 1e-9,
            "{}",
            t.time_ns
        );
    }

    #[test]
    fn latency_adds_alpha_per_step() {
        let (mut net, w, c) = small();
        net.dims[0].latency_ns = 5.0; // Ring 2: AllReduce takes 2 steps.
        net.dims[1].latency_ns = 7.0; // Switch: 2 steps.
        let opts = ModelOptions {
            latency: true,
            ..ModelOptions::default()
        };
        let fast = iteration_time(&net, &w, &c, &[1e9, 1e9], &opts).unwrap();
        // Four AllReduces, each max(10, 14) = 14 ns, plus a vanishing bandwidth term.
        assert!(
            (fast.time_ns - (360.0 + 4.0 * 14.0)).abs() < 1e-3,
            "{}",
            fast.time_ns
        );
        let off = iteration_time(&net, &w, &c, &[1e9, 1e9], &ModelOptions::default()).unwrap();
        assert!(off.time_ns < 360.0 + 1e-3);
    }

    #[test]
    fn doubling_every_bandwidth_halves_communication() {
        let (net, w, c) = small();
        let opts = ModelOptions::default();
        let a = iteration_time(&net, &w, &c, &[3.0, 7.0], &opts).unwrap();
        let b = iteration_time(&net, &w, &c, &[6.0, 14.0], &opts).unwrap();
        assert!((a.comm_ns() - 2.0 * b.comm_ns()).abs() < 1e-9 * a.comm_ns());
        assert_eq!(a.compute_ns, b.compute_ns);
    }

    #[test]
    fn bad_bandwidths_are_named() {
        let (net, w, c) = small();
        let opts = ModelOptions::default();
        assert_eq!(
            iteration_time(&net, &w, &c, &[1.0, 0.0], &opts),
            Err(TimeError::BadBandwidth { dim: 2, value: 0.0 })
        );
        assert_eq!(
            iteration_time(&net, &w, &c, &[1.0], &opts),
            Err(TimeError::BandwidthCount { given: 1, dims: 2 })
        );
    }

    #[test]
    fn traffic_kinds_share_out_the_exposed_communication_of_each_dimension() {
        use crate::model::builder::Transformer;
        use crate::model::communicator::Parallelism;
        // Llama 3 8B at 32K with TP 2, CP 2, PP 2, DP 8 on 8 x 8: every kind of traffic but EP.
        let net = Network::switches(&[8, 8], "InterPod");
        let t = Transformer {
            layers: 32,
            hidden: 4096,
            ffn: 14_336,
            heads: 32,
            kv_heads: Some(8),
            mlp: crate::model::mlp::Mlp::Swiglu,
            seq_len: 32_768,
            global_batch: 64,
            cp: 2,
            parallelism: Parallelism {
                tp: 2,
                pp: 2,
                dp: 8,
            },
            ..Transformer::gpt3()
        };
        let spec = t.build(&net).unwrap();
        for training_loop in [TrainingLoop::NoOverlap, TrainingLoop::OverlapWeightGrad] {
            for combine in [DimCombine::Max, DimCombine::Sum] {
                let opts = ModelOptions {
                    combine,
                    latency: false,
                    training_loop,
                };
                let b = iteration_time(
                    &net,
                    &spec.workload,
                    &spec.communicator,
                    &[100.0, 25.0],
                    &opts,
                )
                .unwrap();
                for d in 0..2 {
                    let by_kind: f64 = b.exposed_ns.iter().map(|v| v[d]).sum();
                    let by_traffic: f64 = b.by_traffic_ns.iter().map(|v| v[d]).sum();
                    assert!(
                        (by_kind - by_traffic).abs() <= 1e-9 * by_kind.max(1.0),
                        "{opts:?} d{d}"
                    );
                }
                let total = |k: Traffic| b.by_traffic_ns[k.index()].iter().sum::<f64>();
                for k in [Traffic::Tp, Traffic::Cp, Traffic::Pp, Traffic::Dp] {
                    assert!(total(k) > 0.0, "{k:?} under {opts:?}");
                }
                assert_eq!(total(Traffic::Ep), 0.0);
            }
        }
    }
}
