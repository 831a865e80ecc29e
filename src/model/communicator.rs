//! Communicators: for each phase kind, the group size a collective spans in each dimension
//! (LIBRA's communicator YAML; `-1` = the dimension is not used).

use super::network::Network;
use super::workload::{Over, PhaseKind};
use serde::{Deserialize, Serialize};

/// The group sizes of one phase kind, one entry per dimension: `None` = dimension unused (`-1`).
pub type Groups = Vec<Option<u32>>;

/// The three communicators of a workload, and the pipeline groups its point-to-point sends
/// (`Collective::SendRecv`, in any phase) run over.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Communicator {
    pub forward: Groups,
    pub input_grad: Groups,
    pub weight_grad: Groups,
    /// Where the pipeline stages lie (PP's groups); empty when the workload has no SendRecv.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pipeline: Groups,
    /// Expert parallelism's groups (phases `over: expert`); empty without experts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expert: Groups,
    /// The groups that hold the same experts (phases `over: expert-data`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expert_data: Groups,
    /// Context parallelism's groups (phases `over: context`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Groups,
}

/// Why a communicator does not fit the network. Dimensions are 1-based.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommunicatorError {
    #[error("pipeline: {given} group sizes given for a network of {dims} dimensions")]
    PipelineLength { given: usize, dims: usize },
    #[error(
        "pipeline, dimension {dim}: group size {group} must be a divisor of {npus} of at least 2"
    )]
    BadPipelineGroup { dim: usize, group: u32, npus: u32 },
    #[error("{over} groups: {given} group sizes given for a network of {dims} dimensions")]
    ExtraLength {
        over: &'static str,
        given: usize,
        dims: usize,
    },
    #[error("{over} groups, dimension {dim}: group size {group} must be a divisor of {npus} of at least 2")]
    BadExtraGroup {
        over: &'static str,
        dim: usize,
        group: u32,
        npus: u32,
    },
    #[error("a workload with expert or context groups cannot be laid on another shape by its communicator alone; build it again for that shape")]
    CannotRemap,
    #[error("EP {ep} cannot be carved from the TP x CP x DP ranks of a stage dimension by dimension: dimension {dim} holds {left} of them and {left} is not a multiple of the {remaining} still needed, nor a divisor of it")]
    CannotCarve {
        ep: u32,
        dim: usize,
        left: u32,
        remaining: u32,
    },
    #[error("{phase}: {given} group sizes given for a network of {dims} dimensions")]
    Length {
        phase: PhaseKind,
        given: usize,
        dims: usize,
    },
    #[error("{phase}, dimension {dim}: group size {group} must be -1 (unused) or a divisor of {npus} of at least 2")]
    BadGroup {
        phase: PhaseKind,
        dim: usize,
        group: i64,
        npus: u32,
    },
    #[error("parallelism degrees must be at least 1, got {name} = {value}")]
    BadDegree { name: &'static str, value: u32 },
    #[error("TP {tp} x PP {pp} x DP {dp} = {product} NPUs, but the network has {npus}")]
    DegreeProduct {
        tp: u32,
        pp: u32,
        dp: u32,
        product: u64,
        npus: u64,
    },
    #[error("{name} = {degree} cannot be laid onto the dimensions: after the inner ones, dimension {dim} has {left} NPUs left and {left} is not a multiple of the {remaining} still needed, nor a divisor of it")]
    CannotLay {
        name: &'static str,
        degree: u32,
        dim: usize,
        left: u32,
        remaining: u32,
    },
}

impl Communicator {
    pub fn groups(&self, kind: PhaseKind) -> &Groups {
        match kind {
            PhaseKind::Forward => &self.forward,
            PhaseKind::InputGrad => &self.input_grad,
            PhaseKind::WeightGrad => &self.weight_grad,
        }
    }

    /// The groups a `collective` of phase `kind` runs over: `over`'s when it names some, else
    /// the pipeline's for a SendRecv and the phase kind's otherwise.
    pub fn groups_for(
        &self,
        kind: PhaseKind,
        collective: super::Collective,
        over: Over,
    ) -> &Groups {
        match over {
            Over::Expert => &self.expert,
            Over::ExpertData => &self.expert_data,
            Over::Context => &self.context,
            Over::Phase if collective == super::Collective::SendRecv => &self.pipeline,
            Over::Phase => self.groups(kind),
        }
    }

    /// Whether it has groups LIBRA's files cannot hold (experts, context).
    pub fn has_extra_groups(&self) -> bool {
        !(self.expert.is_empty() && self.expert_data.is_empty() && self.context.is_empty())
    }

    /// One communicator for all three phase kinds (no pipeline).
    pub fn uniform(groups: Groups) -> Communicator {
        Communicator {
            forward: groups.clone(),
            input_grad: groups.clone(),
            weight_grad: groups,
            pipeline: Vec::new(),
            ..Default::default()
        }
    }

    /// From LIBRA's integer vectors (`-1` = unused), checked against `net`.
    pub fn from_libra(
        net: &Network,
        forward: &[i64],
        input_grad: &[i64],
        weight_grad: &[i64],
    ) -> Result<Communicator, CommunicatorError> {
        let convert = |phase: PhaseKind, v: &[i64]| -> Result<Groups, CommunicatorError> {
            v.iter()
                .enumerate()
                .map(|(i, &g)| match g {
                    -1 => Ok(None),
                    g if g >= 2 && g <= i64::from(u32::MAX) => Ok(Some(g as u32)),
                    g => Err(CommunicatorError::BadGroup {
                        phase,
                        dim: i + 1,
                        group: g,
                        npus: net.dims.get(i).map_or(0, |d| d.npus),
                    }),
                })
                .collect()
        };
        let c = Communicator {
            forward: convert(PhaseKind::Forward, forward)?,
            input_grad: convert(PhaseKind::InputGrad, input_grad)?,
            weight_grad: convert(PhaseKind::WeightGrad, weight_grad)?,
            pipeline: Vec::new(),
            ..Default::default()
        };
        c.validate(net)?;
        Ok(c)
    }

    /// The same parallelism on another network shape: the degree of the forward (and input-gradient)
    /// groups is laid as TP, that of the weight-gradient groups as DP, the rest of the NPUs as PP,
    /// with `Parallelism::map_onto`. A communicator that uses the same groups for all three phase
    /// kinds keeps doing so (one degree, laid from the inside).
    pub fn remap(&self, to: &Network) -> Result<Communicator, CommunicatorError> {
        if self.has_extra_groups() {
            return Err(CommunicatorError::CannotRemap);
        }
        let degree = |g: &Groups| g.iter().flatten().map(|&v| u64::from(v)).product::<u64>();
        let npus: u64 = to.dims.iter().map(|d| u64::from(d.npus)).product();
        let fits = |tp: u64, dp: u64| {
            let product = tp * dp;
            match (u32::try_from(tp), u32::try_from(dp)) {
                (Ok(tp), Ok(dp)) if product > 0 && npus.is_multiple_of(product) => {
                    let pp = u32::try_from(npus / product).unwrap_or(u32::MAX);
                    Parallelism { tp, pp, dp }.map_onto(to)
                }
                _ => Err(CommunicatorError::DegreeProduct {
                    tp: u32::try_from(tp).unwrap_or(u32::MAX),
                    pp: 1,
                    dp: u32::try_from(dp).unwrap_or(u32::MAX),
                    product,
                    npus,
                }),
            }
        };
        if self.forward == self.input_grad && self.forward == self.weight_grad {
            return Ok(Communicator::uniform(fits(degree(&self.forward), 1)?.tp));
        }
        let (fw, ig) = (degree(&self.forward), degree(&self.input_grad));
        let m = fits(fw.max(ig), degree(&self.weight_grad))?;
        let unused = vec![None; to.dims.len()];
        let tp_or_none = |d: u64| if d > 1 { m.tp.clone() } else { unused.clone() };
        Ok(Communicator {
            forward: tp_or_none(fw),
            input_grad: tp_or_none(ig),
            weight_grad: m.dp.clone(),
            pipeline: if self.pipeline.is_empty() {
                Vec::new()
            } else {
                m.pp.clone()
            },
            ..Default::default()
        })
    }

    /// LIBRA's integer vector of one phase kind (`-1` = unused).
    pub fn libra_vector(&self, kind: PhaseKind) -> Vec<i64> {
        self.groups(kind)
            .iter()
            .map(|g| g.map_or(-1, i64::from))
            .collect()
    }

    /// Each vector has one entry per dimension (the pipeline's, experts' and context's may be
    /// empty); each group size divides `n_d` and is at least 2.
    pub fn validate(&self, net: &Network) -> Result<(), CommunicatorError> {
        for over in [Over::Expert, Over::ExpertData, Over::Context] {
            let groups = self.groups_for(PhaseKind::Forward, super::Collective::None, over);
            if groups.is_empty() {
                continue;
            }
            check_groups(
                groups,
                net,
                |given| CommunicatorError::ExtraLength {
                    over: over.name(),
                    given,
                    dims: net.dims.len(),
                },
                |dim, group, npus| CommunicatorError::BadExtraGroup {
                    over: over.name(),
                    dim,
                    group,
                    npus,
                },
            )?;
        }
        if !self.pipeline.is_empty() {
            check_groups(
                &self.pipeline,
                net,
                |given| CommunicatorError::PipelineLength {
                    given,
                    dims: net.dims.len(),
                },
                |dim, group, npus| CommunicatorError::BadPipelineGroup { dim, group, npus },
            )?;
        }
        for phase in PhaseKind::ALL {
            let groups = self.groups(phase);
            if groups.len() != net.dims.len() {
                return Err(CommunicatorError::Length {
                    phase,
                    given: groups.len(),
                    dims: net.dims.len(),
                });
            }
            for (i, (g, d)) in groups.iter().zip(&net.dims).enumerate() {
                if let Some(g) = *g {
                    if g < 2 || !d.npus.is_multiple_of(g) {
                        return Err(CommunicatorError::BadGroup {
                            phase,
                            dim: i + 1,
                            group: i64::from(g),
                            npus: d.npus,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// Parallelism degrees of a training job: tensor, pipeline and data parallel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parallelism {
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
}

/// In which order the parallelism degrees are laid onto the dimensions, from the innermost out.
/// TP always goes first (its all-reduces are the heaviest and most frequent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LayOrder {
    /// TP, then PP, then DP (Megatron's default): DP's once-per-iteration gradients go outermost.
    #[default]
    TpPpDp,
    /// TP, then DP, then PP: the light stage-to-stage sends go outermost (across pods).
    TpDpPp,
}

impl LayOrder {
    pub const ALL: [LayOrder; 2] = [LayOrder::TpPpDp, LayOrder::TpDpPp];

    /// `tp-pp-dp` or `tp-dp-pp`.
    pub fn key(self) -> &'static str {
        match self {
            LayOrder::TpPpDp => "tp-pp-dp",
            LayOrder::TpDpPp => "tp-dp-pp",
        }
    }

    pub fn parse(text: &str) -> Option<LayOrder> {
        LayOrder::ALL
            .into_iter()
            .find(|o| o.key().eq_ignore_ascii_case(text.trim()))
    }
}

/// Where every degree of a job with context and expert parallelism lands (group sizes per
/// dimension): TP, CP, PP and DP as laid; the dense gradients' groups (DP and CP together), EP's
/// groups carved from a stage's TP x CP x DP ranks, and the groups holding the same experts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoldedMapping {
    pub tp: Groups,
    pub cp: Groups,
    pub pp: Groups,
    pub dp: Groups,
    pub dp_cp: Groups,
    pub ep: Groups,
    pub edp: Groups,
}

/// Where each parallelism degree lands: group sizes per dimension for TP, PP and DP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub tp: Groups,
    pub pp: Groups,
    pub dp: Groups,
}

impl Parallelism {
    /// Lay TP on the innermost dimensions, then PP, then DP (each filling dimensions from the inside out;
    /// a dimension may be split between two degrees when one divides it).
    pub fn map_onto(&self, net: &Network) -> Result<Mapping, CommunicatorError> {
        self.map_in_order(net, LayOrder::TpPpDp)
    }

    /// Lay TP, then CP (`cp` ranks that split the sequence), then PP and DP in `order`, `self.dp`
    /// being DP alone (the NPUs are TP x CP x PP x DP); then carve EP from each stage's TP, CP
    /// and DP ranks in that order (Megatron-Core's MoE parallel folding, experts whole on a
    /// rank). With `cp = ep = 1` this is [`Parallelism::map_in_order`].
    pub fn map_folded(
        &self,
        net: &Network,
        order: LayOrder,
        cp: u32,
        ep: u32,
    ) -> Result<FoldedMapping, CommunicatorError> {
        for (name, value) in [("CP", cp), ("EP", ep)] {
            if value == 0 {
                return Err(CommunicatorError::BadDegree { name, value });
            }
        }
        // CP is laid as if part of TP, then split off dimension by dimension.
        let joint = Parallelism {
            tp: self
                .tp
                .checked_mul(cp)
                .ok_or(CommunicatorError::BadDegree {
                    name: "TP x CP",
                    value: u32::MAX,
                })?,
            ..*self
        };
        let m = joint.map_in_order(net, order)?;
        let tp_alone = Parallelism {
            pp: 1,
            dp: 1,
            ..*self
        };
        let inner: Vec<u32> = m.tp.iter().map(|g| g.unwrap_or(1)).collect();
        let tp = carve(&inner, tp_alone.tp).map_err(|(at, left, remaining)| {
            CommunicatorError::CannotLay {
                name: "TP",
                degree: self.tp,
                dim: at + 1,
                left,
                remaining,
            }
        })?;
        let size = |g: &Groups, d: usize| g[d].unwrap_or(1);
        let cp_groups: Groups = (0..inner.len())
            .map(|d| Some(inner[d] / tp[d]).filter(|&v| v > 1))
            .collect();
        let tp_groups: Groups = tp.iter().map(|&v| Some(v).filter(|&v| v > 1)).collect();
        let dims = inner.len();
        let dp_cp: Groups = (0..dims)
            .map(|d| Some(size(&cp_groups, d) * size(&m.dp, d)).filter(|&v| v > 1))
            .collect();
        // EP from the TP ranks, then CP's, then DP's, innermost dimension first in each.
        let parts: Vec<u32> = [&tp_groups, &cp_groups, &m.dp]
            .iter()
            .flat_map(|g| (0..dims).map(|d| size(g, d)))
            .collect();
        let taken =
            carve(&parts, ep).map_err(|(at, left, remaining)| CommunicatorError::CannotCarve {
                ep,
                dim: at % dims + 1,
                left,
                remaining,
            })?;
        let ep_d: Vec<u32> = (0..dims)
            .map(|d| (0..3).map(|k| taken[k * dims + d]).product())
            .collect();
        let edp = (0..dims)
            .map(|d| {
                let fold = size(&tp_groups, d) * size(&cp_groups, d) * size(&m.dp, d);
                Some(fold / ep_d[d]).filter(|&v| v > 1)
            })
            .collect();
        Ok(FoldedMapping {
            tp: tp_groups,
            cp: cp_groups,
            pp: m.pp,
            dp: m.dp,
            dp_cp,
            ep: ep_d.iter().map(|&v| Some(v).filter(|&v| v > 1)).collect(),
            edp,
        })
    }

    /// Lay the degrees from the innermost dimension out in `order`.
    pub fn map_in_order(
        &self,
        net: &Network,
        order: LayOrder,
    ) -> Result<Mapping, CommunicatorError> {
        for (name, value) in [("TP", self.tp), ("PP", self.pp), ("DP", self.dp)] {
            if value == 0 {
                return Err(CommunicatorError::BadDegree { name, value });
            }
        }
        let npus: u64 = net.dims.iter().map(|d| u64::from(d.npus)).product();
        let product = u64::from(self.tp) * u64::from(self.pp) * u64::from(self.dp);
        if product != npus {
            return Err(CommunicatorError::DegreeProduct {
                tp: self.tp,
                pp: self.pp,
                dp: self.dp,
                product,
                npus,
            });
        }
        let mut left: Vec<u32> = net.dims.iter().map(|d| d.npus).collect();
        let mut lay = |name: &'static str, degree: u32| -> Result<Groups, CommunicatorError> {
            let mut groups = vec![None; left.len()];
            let mut remaining = degree;
            for (i, l) in left.iter_mut().enumerate() {
                if remaining == 1 {
                    break;
                }
                if *l == 1 {
                    continue;
                }
                let take = if remaining.is_multiple_of(*l) {
                    *l
                } else if l.is_multiple_of(remaining) {
                    remaining
                } else {
                    return Err(CommunicatorError::CannotLay {
                        name,
                        degree,
                        dim: i + 1,
                        left: *l,
                        remaining,
                    });
                };
                groups[i] = Some(take);
                *l /= take;
                remaining /= take;
            }
            Ok(groups)
        };
        let tp = lay("TP", self.tp)?;
        let (pp, dp) = match order {
            LayOrder::TpPpDp => {
                let pp = lay("PP", self.pp)?;
                (pp, lay("DP", self.dp)?)
            }
            LayOrder::TpDpPp => {
                let dp = lay("DP", self.dp)?;
                (lay("PP", self.pp)?, dp)
            }
        };
        Ok(Mapping { tp, pp, dp })
    }
}

/// `groups` has one entry per dimension of `net`, each a divisor of the dimension's NPUs of at
/// least 2 (the errors say which).
fn check_groups(
    groups: &Groups,
    net: &Network,
    length: impl Fn(usize) -> CommunicatorError,
    bad: impl Fn(usize, u32, u32) -> CommunicatorError,
) -> Result<(), CommunicatorError> {
    if groups.len() != net.dims.len() {
        return Err(length(groups.len()));
    }
    for (i, (g, d)) in groups.iter().zip(&net.dims).enumerate() {
        if let Some(g) = *g {
            if g < 2 || !d.npus.is_multiple_of(g) {
                return Err(bad(i + 1, g, d.npus));
            }
        }
    }
    Ok(())
}

/// `degree` taken from `sizes` in order (each whole while the rest is a multiple of it, or the
/// rest when it divides it): the part taken from each; else where it failed, what was there and
/// what was still needed.
fn carve(sizes: &[u32], degree: u32) -> Result<Vec<u32>, (usize, u32, u32)> {
    let mut remaining = degree;
    let mut out = vec![1; sizes.len()];
    for (d, &have) in sizes.iter().enumerate() {
        if remaining == 1 || have == 1 {
            continue;
        }
        let take = if remaining.is_multiple_of(have) {
            have
        } else if have.is_multiple_of(remaining) {
            remaining
        } else {
            return Err((d, have, remaining));
        };
        out[d] = take;
        remaining /= take;
    }
    match remaining {
        1 => Ok(out),
        r => Err((sizes.len().saturating_sub(1), 1, r)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn context_and_expert_groups_fold_into_a_stages_ranks() {
        // 8 x 64 x 4: TP 2, CP 2 on the first dimension (4 of its 8), PP 2 on its rest, DP 256.
        let net = Network::switches(&[8, 64, 4], "InterPod");
        let p = Parallelism {
            tp: 2,
            pp: 2,
            dp: 256,
        };
        let m = p.map_folded(&net, LayOrder::TpPpDp, 2, 16).unwrap();
        assert_eq!(m.tp, vec![Some(2), None, None]);
        assert_eq!(m.cp, vec![Some(2), None, None]);
        assert_eq!(m.pp, vec![Some(2), None, None]);
        assert_eq!(m.dp, vec![None, Some(64), Some(4)]);
        assert_eq!(m.dp_cp, vec![Some(2), Some(64), Some(4)]);
        // EP 16: TP's 2, CP's 2, then 4 of the DP ranks on the second dimension; each expert is
        // held by the rest of the stage's 1,024 ranks: 1,024 / 16 = 64.
        assert_eq!(m.ep, vec![Some(4), Some(4), None]);
        assert_eq!(m.edp, vec![None, Some(16), Some(4)]);
        // Without CP and EP it is the plain mapping.
        let plain = p.map_in_order(&net, LayOrder::TpPpDp);
        let q = Parallelism {
            tp: 2,
            pp: 2,
            dp: 512,
        };
        let f = q.map_folded(&net, LayOrder::TpPpDp, 1, 1).unwrap();
        let plain_q = q.map_in_order(&net, LayOrder::TpPpDp).unwrap();
        assert_eq!(
            (f.tp, f.pp, f.dp.clone(), f.dp_cp),
            (plain_q.tp, plain_q.pp, plain_q.dp.clone(), plain_q.dp)
        );
        assert!(plain.is_err(), "TP x PP x DP alone is 1,024 of the 2,048");
        // EP 3 divides nothing.
        assert!(matches!(
            q.map_folded(&net, LayOrder::TpPpDp, 1, 3),
            Err(CommunicatorError::CannotCarve { ep: 3, .. })
        ));
    }

    #[test]
    fn gpt3_4d_communicator_fits_the_4d_network() {
        let net = presets::libra_4d_network();
        let c = Communicator::from_libra(&net, &[4, 4, -1, -1], &[4, 4, -1, -1], &[-1, 2, 4, 32])
            .unwrap();
        assert_eq!(c.forward, vec![Some(4), Some(4), None, None]);
        assert_eq!(c.libra_vector(PhaseKind::WeightGrad), vec![-1, 2, 4, 32]);
    }

    #[test]
    fn bad_groups_are_named() {
        let net = presets::libra_4d_network();
        assert_eq!(
            Communicator::from_libra(&net, &[4, 3, -1, -1], &[-1; 4], &[-1; 4]),
            Err(CommunicatorError::BadGroup {
                phase: PhaseKind::Forward,
                dim: 2,
                group: 3,
                npus: 8
            })
        );
        assert_eq!(
            Communicator::from_libra(&net, &[-1; 4], &[-1; 4], &[1, -1, -1, -1])
                .unwrap_err()
                .to_string(),
            "WeightGrad, dimension 1: group size 1 must be -1 (unused) or a divisor of 4 of at least 2"
        );
        assert_eq!(
            Communicator::from_libra(&net, &[-1; 4], &[-1; 3], &[-1; 4]),
            Err(CommunicatorError::Length {
                phase: PhaseKind::InputGrad,
                given: 3,
                dims: 4
            })
        );
    }

    #[test]
    fn tp16_dp256_maps_like_libras_gpt3_file() {
        // GPT_3_4d.yml: "TP-16, DP-256": Forward [4, 4, -1, -1], WeightGrad [-1, 2, 4, 32].
        let net = presets::libra_4d_network();
        let m = Parallelism {
            tp: 16,
            pp: 1,
            dp: 256,
        }
        .map_onto(&net)
        .unwrap();
        assert_eq!(m.tp, vec![Some(4), Some(4), None, None]);
        assert_eq!(m.pp, vec![None; 4]);
        assert_eq!(m.dp, vec![None, Some(2), Some(4), Some(32)]);
    }

    #[test]
    fn degrees_that_do_not_fit_are_errors() {
        let net = presets::libra_4d_network();
        let p = |tp, pp, dp| Parallelism { tp, pp, dp }.map_onto(&net);
        assert!(matches!(
            p(16, 1, 128),
            Err(CommunicatorError::DegreeProduct { product: 2048, .. })
        ));
        assert!(matches!(
            p(0, 1, 4096),
            Err(CommunicatorError::BadDegree { name: "TP", .. })
        ));
        // TP 3 divides nothing.
        let mut odd = presets::libra_4d_network();
        odd.dims[0].npus = 6;
        let r = Parallelism {
            tp: 4,
            pp: 1,
            dp: 6 * 8 * 4 * 32 / 4,
        }
        .map_onto(&odd);
        assert!(
            matches!(
                r,
                Err(CommunicatorError::CannotLay {
                    name: "TP",
                    dim: 1,
                    ..
                })
            ),
            "{r:?}"
        );
        // A degree can span a partial dimension: TP 8 on Ring 4 x FC 8 takes 4 x 2.
        let m = p(8, 4, 128).unwrap();
        assert_eq!(m.tp, vec![Some(4), Some(2), None, None]);
        assert_eq!(m.pp, vec![None, Some(4), None, None]);
        assert_eq!(m.dp, vec![None, None, Some(4), Some(32)]);
        // PP outermost instead: DP 128 = 2 of the FC, the ring of 4 and 16 of the switch.
        let net = presets::libra_4d_network();
        let m = Parallelism {
            tp: 8,
            pp: 4,
            dp: 128,
        }
        .map_in_order(&net, LayOrder::TpDpPp)
        .unwrap();
        assert_eq!(m.tp, vec![Some(4), Some(2), None, None]);
        assert_eq!(m.dp, vec![None, Some(4), Some(4), Some(8)]);
        assert_eq!(m.pp, vec![None, None, None, Some(4)]);
        assert_eq!(LayOrder::parse("TP-DP-PP"), Some(LayOrder::TpDpPp));
    }

    #[test]
    fn remap_keeps_tp_inside_and_dp_outside() {
        let net4 = presets::libra_4d_network();
        let c = Communicator::from_libra(&net4, &[4, 4, -1, -1], &[4, 4, -1, -1], &[-1, 2, 4, 32])
            .unwrap();
        // Onto 16 x 256: TP 16 fills dimension 1, DP 256 dimension 2 (PP 1).
        let mut net2 = presets::libra_4d_network();
        net2.dims.truncate(2);
        net2.dims[0].npus = 16;
        net2.dims[1].npus = 256;
        let r = c.remap(&net2).unwrap();
        assert_eq!(r.forward, vec![Some(16), None]);
        assert_eq!(r.input_grad, vec![Some(16), None]);
        assert_eq!(r.weight_grad, vec![None, Some(256)]);
        // Onto 8 x 512: TP 16 takes 8 and 2 of dimension 2, DP the remaining 256.
        net2.dims[0].npus = 8;
        net2.dims[1].npus = 512;
        let r = c.remap(&net2).unwrap();
        assert_eq!(r.forward, vec![Some(8), Some(2)]);
        assert_eq!(r.weight_grad, vec![None, Some(256)]);
        // Back onto the 4D network: the original.
        assert_eq!(c.remap(&net4).unwrap(), c);
        // A uniform communicator stays uniform; a degree that does not divide N is an error.
        let all = Communicator::uniform(vec![Some(4), Some(8), Some(4), Some(32)]);
        assert_eq!(
            all.remap(&net2).unwrap(),
            Communicator::uniform(vec![Some(8), Some(512)])
        );
        net2.dims[1].npus = 3;
        assert!(matches!(
            c.remap(&net2),
            Err(CommunicatorError::DegreeProduct { .. })
        ));
    }
}
