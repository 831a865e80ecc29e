//! One co-design candidate: a transformer's parallelism (TP x PP x DP), micro-batch size, network
//! shape and lay order, turned into the Scenario the optimizer solves. The search and the
//! `scenario --model` command build it the same way, so `optimize --scenario` reproduces every
//! time the co-design reports.

use crate::model::builder::{BuildError, Transformer};
use crate::model::communicator::{FoldedMapping, LayOrder, Parallelism};
use crate::model::cost::CostModel;
use crate::model::memory::{memory_per_npu, MemoryOptions, MemoryPerNpu};
use crate::model::network::{Dim, Network, Topology};
use crate::model::scenario::{Constraints, Objective, Scenario, WorkloadSpec};
use crate::model::training::ModelOptions;
use crate::model::Communicator;
use serde::{Deserialize, Serialize};

fn one() -> u32 {
    1
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

/// The least bandwidth of every dimension of a candidate, GB/s (as in the shape comparison).
pub const MIN_GBPS: f64 = 1.0;

/// The choices that make a candidate, besides its shape: TP x PP x DP, context parallelism
/// (the NPUs are TP x CP x PP x DP) and expert parallelism (carved from a stage's TP x CP x DP
/// ranks), the micro-batch and the lay order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub parallelism: Parallelism,
    pub micro_batch: u32,
    pub order: LayOrder,
    pub cp: u32,
    pub ep: u32,
    /// Model chunks per pipeline stage (interleaved 1F1B when more than 1).
    pub virtual_stages: u32,
}

impl Choice {
    /// TP x PP x DP without context or expert parallelism.
    pub fn plain(parallelism: Parallelism, micro_batch: u32, order: LayOrder) -> Choice {
        Choice {
            parallelism,
            micro_batch,
            order,
            cp: 1,
            ep: 1,
            virtual_stages: 1,
        }
    }

    /// "TP 8 × PP 4 × DP 128" (with "CP c ×", "EP e" and "v virtual stages" when used).
    pub fn degrees_label(&self) -> String {
        let p = self.parallelism;
        let cp = match self.cp {
            1 => String::new(),
            c => format!(" × CP {c}"),
        };
        let ep = match self.ep {
            1 => String::new(),
            e => format!(", EP {e}"),
        };
        let v = match self.virtual_stages {
            1 => String::new(),
            v => format!(", {v} virtual stages"),
        };
        format!("TP {}{cp} × PP {} × DP {}{ep}{v}", p.tp, p.pp, p.dp)
    }
}

/// `t` trained with `choice` (its own parallelism and micro-batch replaced).
pub fn with_choice(t: &Transformer, choice: &Choice) -> Transformer {
    Transformer {
        parallelism: choice.parallelism,
        micro_batch: choice.micro_batch,
        order: choice.order,
        cp: choice.cp,
        ep: choice.ep,
        virtual_stages: choice.virtual_stages,
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

/// The scenario every candidate of the search compiles on `shape`, but for its communicator
/// (the search sets it per candidate): `spec` is the workload (its traffic is compiled from
/// classes, so its layers may be left out), the rest as [`scenario_of`] sets it. The layers do
/// not depend on the shape and the rest does not depend on the parallelism.
pub fn frame_on(
    t: &Transformer,
    shape: &Network,
    costs: &CostModel,
    spec: WorkloadSpec,
) -> Scenario {
    let network = with_tier_latencies(shape, costs);
    let choice = Choice::plain(t.parallelism, t.micro_batch, t.order);
    let mut sc = assemble(t, &choice, network, costs, spec, None);
    sc.name = format!("{} on {}", t.name, sc.network.shape_label());
    sc
}

/// The communicator the builder gives `t` for `mapping`: TP for the forward and input-gradient
/// phases, DP x CP for the weight gradients, PP for the stage-to-stage sends, and the expert,
/// expert-data and context groups where `t` has experts or `choice` context parallelism.
pub fn communicator_of(t: &Transformer, choice: &Choice, mapping: &FoldedMapping) -> Communicator {
    let used = |g: &crate::model::Groups| g.iter().any(Option::is_some);
    let when = |on: bool, g: &crate::model::Groups| match on && used(g) {
        true => g.clone(),
        false => Vec::new(),
    };
    Communicator {
        forward: mapping.tp.clone(),
        input_grad: mapping.tp.clone(),
        weight_grad: mapping.dp_cp.clone(),
        pipeline: if choice.parallelism.pp > 1 {
            mapping.pp.clone()
        } else {
            Vec::new()
        },
        expert: when(t.moe.is_some(), &mapping.ep),
        expert_data: when(t.moe.is_some(), &mapping.edp),
        context: when(choice.cp > 1, &mapping.cp),
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
            "{} TP{}{} PP{}{} DP{}{} b{} on {}",
            t.name,
            p.tp,
            match choice.cp {
                1 => String::new(),
                c => format!(" CP{c}"),
            },
            p.pp,
            match choice.virtual_stages {
                1 => String::new(),
                v => format!("x{v}"),
            },
            p.dp,
            match choice.ep {
                1 => String::new(),
                e => format!(" EP{e}"),
            },
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
    /// Context parallelism's groups (empty without it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cp: Vec<i64>,
    /// Expert parallelism's groups (empty without it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ep: Vec<i64>,
}

impl MappingOut {
    pub fn new(order: LayOrder, m: &FoldedMapping) -> MappingOut {
        let v = |g: &crate::model::Groups| g.iter().map(|x| x.map_or(-1, i64::from)).collect();
        let used = |g: &crate::model::Groups| match g.iter().any(Option::is_some) {
            true => v(g),
            false => Vec::new(),
        };
        MappingOut {
            order: order.key().to_string(),
            tp: v(&m.tp),
            pp: v(&m.pp),
            dp: v(&m.dp),
            cp: used(&m.cp),
            ep: used(&m.ep),
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
    /// Context parallelism (1: none).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cp: u32,
    /// Expert parallelism (1: none, or no experts).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub ep: u32,
    /// Model chunks per pipeline stage (1: plain 1F1B).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub virtual_stages: u32,
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
            cp: self.cp,
            ep: self.ep,
            virtual_stages: self.virtual_stages,
        })
    }

    /// The parallelism in words: "TP 8 × PP 4 × DP 128, micro-batch 1" (with CP and EP when
    /// used).
    pub fn parallelism_label(&self) -> String {
        let c = self.choice().unwrap_or(Choice {
            order: LayOrder::TpPpDp,
            ..Choice::plain(
                Parallelism {
                    tp: self.tp,
                    pp: self.pp,
                    dp: self.dp,
                },
                self.micro_batch,
                LayOrder::TpPpDp,
            )
        });
        format!("{}, micro-batch {}", c.degrees_label(), self.micro_batch)
    }
}
