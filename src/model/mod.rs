//! The LIBRA model: networks, cost tiers and network cost. Pure Rust, no browser types.
//!
//! Workloads, collectives and training loops arrive with issue 4.

pub mod cost;
pub mod network;

pub use cost::{CostError, CostModel, CostTier, DimCost, NetworkCost};
pub use network::{parse_npus, Dim, Network, NetworkError, Topology};
