//! Routing over a 2-layer Clos fabric (arXiv 2503.05324, docs/routing.md): the scenario and its
//! flows, max-min fair rates, every metric of the spec (with a fluid simulation), and the routing
//! algorithms (ECMP, greedy, capacity-aware greedy, edge colouring, the exact optimizer). Pure Rust.

pub mod algorithm;
pub mod algorithms;
pub mod annealing;
pub mod annealing_authors;
pub mod coupling;
pub mod edge_coloring;
pub mod exact;
pub mod fluid;
pub mod generate;
pub mod ilp;
mod lex_chains;
pub mod lex_count;
mod lex_levels;
pub mod lex_seed;
mod max_flow;
pub mod metrics;
pub mod multipath;
pub mod paper_jobs;
pub mod rates;
pub mod scenario;
pub mod study;

pub use algorithm::Algorithm;
pub use algorithms::{ecmp, greedy, greedy_capacity_aware, splitmix64};
pub use metrics::{measure, Metrics, Routing};
pub use scenario::{Instance, RouteError, RouteScenario};
