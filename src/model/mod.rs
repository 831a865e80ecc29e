//! The LIBRA model: networks, cost tiers, workloads, communicators, collectives, training loops and
//! scenarios, with readers for LIBRA's input files. Pure Rust, no browser types.

pub mod astra_text;
pub mod builder;
pub mod collective;
pub mod communicator;
pub mod cost;
pub mod dtype;
pub mod layer_runs;
pub mod libra_files;
pub mod memory;
pub mod mla;
pub mod mlp;
pub mod moe;
pub mod network;
pub mod physical;
pub mod scenario;
pub mod taper;
pub mod training;
pub mod workload;
pub mod yaml;

pub use collective::DimCombine;
pub use communicator::{Communicator, CommunicatorError, Groups, Mapping, Parallelism};
pub use cost::{CostComponent, CostError, CostModel, CostTier, DimCost, NetworkCost};
pub use network::{parse_npus, Dim, Network, NetworkError, Topology};
pub use scenario::{Evaluation, Objective, Scenario, ScenarioError, WorkloadSpec};
pub use training::{iteration_time, ModelOptions, TimeBreakdown, TimeError, TrainingLoop};
pub use workload::{Collective, Layer, Phase, PhaseKind, Workload, WorkloadError};
