//! One co-design candidate: a transformer's parallelism (TP x PP x DP), micro-batch size, network
//! shape and lay order, turned into the Scenario the optimizer solves. The search and the
//! `scenario --model` command build it the same way, so `optimize --scenario` reproduces every
//! time the co-design reports.

use crate::model::builder::{BuildError, Transformer};
use crate::model::communicator::{LayOrder, Mapping, Parallelism};
use crate::model::cost::CostModel;
use crate::model::memory::{memory_per_npu, MemoryOptions, MemoryPerNpu};
use crate::model::network::{Dim, Network, Topology};
use crate::model::scenario::{Constraints, Objective, Scenario, WorkloadSpec};
use crate::model::training::ModelOptions;
use crate::model::Communicator;
use serde::{Deserialize, Serialize};

/// The least bandwidth of every dimension of a candidate, GB/s (as in the shape comparison).
pub const MIN_GBPS: f64 = 1.0;

/// The choices that make a candidate, besides its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub parallelism: Parallelism,
    pub micro_batch: u32,
    pub order: LayOrder,
}

/// `t` trained with `choice` (its own parallelism and micro-batch replaced).
pub fn with_choice(t: &Transformer, choice: &Choice) -> Transformer {
    Transformer {
        parallelism: choice.parallelism,
        micro_batch: choice.micro_batch,
        order: choice.order,
        ..t.clone()
    }
}

/// What one NPU holds under `choice`.
pub fn memory_of(t: &Transformer, choice: &Choice, opts: &MemoryOptions) -> MemoryPerNpu {
    memory_per_npu(&with_choice(t, choice), opts)
}

/// `shape` with every dimension at its tier's latency per step.
pub fn with_tier_latencies(shape: &Network, costs: &CostModel) -> Network {
    Network {
        dims: shape
            .dims
            .iter()
            .map(|d| Dim {
                latency_ns: costs.latency_ns(&d.tier),
                ..d.clone()
            })
            .collect(),
    }
}

/// The Scenario of `t` under `choice` on `shape`: one workload from the builder, the shape at its
/// tiers' latencies with the latency term on, no overlap, every `B_d >= MIN_GBPS` and the
/// budget (when given) as the only constraints, minimizing time.
pub fn scenario_of(
    t: &Transformer,
    choice: &Choice,
    shape: &Network,
    costs: &CostModel,
    budget_usd: Option<f64>,
) -> Result<Scenario, BuildError> {
    let network = with_tier_latencies(shape, costs);
    let spec = with_choice(t, choice).build(&network)?;
    Ok(assemble(t, choice, network, costs, spec, budget_usd))
}

/// The Scenario from an already built workload (the layers do not depend on the shape; only the
/// communicator does): what the search does for each shape.
pub fn scenario_from_layers(
    t: &Transformer,
    choice: &Choice,
    shape: &Network,
    costs: &CostModel,
    layers: &WorkloadSpec,
    mapping: &Mapping,
) -> Scenario {
    let network = with_tier_latencies(shape, costs);
    let spec = WorkloadSpec {
        communicator: communicator_of(choice, mapping),
        ..layers.clone()
    };
    assemble(t, choice, network, costs, spec, None)
}

/// The communicator the builder gives for `mapping`: TP for the forward and input-gradient
/// phases, DP for the weight gradients, PP for the stage-to-stage sends.
pub fn communicator_of(choice: &Choice, mapping: &Mapping) -> Communicator {
    Communicator {
        forward: mapping.tp.clone(),
        input_grad: mapping.tp.clone(),
        weight_grad: mapping.dp.clone(),
        pipeline: if choice.parallelism.pp > 1 {
            mapping.pp.clone()
        } else {
            Vec::new()
        },
        ..Default::default()
    }
}

fn assemble(
    t: &Transformer,
    choice: &Choice,
    network: Network,
    costs: &CostModel,
    spec: WorkloadSpec,
    budget_usd: Option<f64>,
) -> Scenario {
    let p = choice.parallelism;
    let dims = network.dims.len();
    // A tier's links reach no more than they have (a system's NVLink, ICI, NICs).
    let max_gbps = costs.max_gbps(&network);
    let max_gbps = match max_gbps.iter().any(Option::is_some) {
        true => max_gbps,
        false => Vec::new(),
    };
    // An oversubscribed fabric level keeps its ratio to the level below.
    let linear = crate::model::taper::taper_constraints(&network, costs);
    Scenario {
        name: format!(
            "{} TP{} PP{} DP{} b{} on {}",
            t.name,
            p.tp,
            p.pp,
            p.dp,
            choice.micro_batch,
            network.shape_label()
        ),
        network,
        costs: costs.clone(),
        workloads: vec![spec],
        constraints: Constraints {
            budget_usd,
            min_gbps: vec![Some(MIN_GBPS); dims],
            max_gbps,
            linear,
            ..Constraints::default()
        },
        objective: Objective::Time,
        model: ModelOptions {
            latency: true,
            ..ModelOptions::default()
        },
        efficiency: Vec::new(),
    }
}

/// One dimension of a design's shape, as the command line prints it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeDim {
    pub topology: Topology,
    pub npus: u32,
    pub tier: String,
}

/// How the groups lie on the dimensions: the order, then each degree's group size per dimension
/// (`-1` = not on that dimension).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MappingOut {
    pub order: String,
    pub tp: Vec<i64>,
    pub pp: Vec<i64>,
    pub dp: Vec<i64>,
}

impl MappingOut {
    pub fn new(order: LayOrder, m: &Mapping) -> MappingOut {
        let v = |g: &crate::model::Groups| g.iter().map(|x| x.map_or(-1, i64::from)).collect();
        MappingOut {
            order: order.key().to_string(),
            tp: v(&m.tp),
            pp: v(&m.pp),
            dp: v(&m.dp),
        }
    }
}

/// A designed system: parallelism, shape and mapping, with the certified optimal bandwidths at one
/// budget, its time and cost, and the memory of one NPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Design {
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub micro_batch: u32,
    pub shape: Vec<ShapeDim>,
    /// "Ring 4 × FullyConnected 8 × ...".
    pub shape_label: String,
    pub mapping: MappingOut,
    pub budget_usd: f64,
    pub bw_gbps: Vec<f64>,
    pub time_ns: f64,
    pub cost_usd: f64,
    /// Certified relative optimality gap of the bandwidths.
    pub gap: f64,
    /// GB (10^9 bytes) one NPU of the first pipeline stage holds.
    pub memory_gb: f64,
    /// Compute time of one iteration, ns (pipeline bubble included).
    pub compute_ns: f64,
}

impl Design {
    pub fn shape_of(net: &Network) -> Vec<ShapeDim> {
        net.dims
            .iter()
            .map(|d| ShapeDim {
                topology: d.topology,
                npus: d.npus,
                tier: d.tier.clone(),
            })
            .collect()
    }

    /// The design's shape as a network (latencies are its tiers', set by `scenario_of`).
    pub fn network(&self) -> Network {
        Network {
            dims: self
                .shape
                .iter()
                .map(|d| Dim {
                    topology: d.topology,
                    npus: d.npus,
                    tier: d.tier.clone(),
                    latency_ns: 0.0,
                })
                .collect(),
        }
    }

    /// The choice that makes this design (None if its mapping order is unknown).
    pub fn choice(&self) -> Option<Choice> {
        Some(Choice {
            parallelism: Parallelism {
                tp: self.tp,
                pp: self.pp,
                dp: self.dp,
            },
            micro_batch: self.micro_batch,
            order: LayOrder::parse(&self.mapping.order)?,
        })
    }

    /// The parallelism in words: "TP 8 × PP 4 × DP 128, micro-batch 1".
    pub fn parallelism_label(&self) -> String {
        format!(
            "TP {} × PP {} × DP {}, micro-batch {}",
            self.tp, self.pp, self.dp, self.micro_batch
        )
    }
}
