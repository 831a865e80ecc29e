//! The routing paper's evaluation: a cluster over time. Jobs of a trace arrive, are placed,
//! compute and run ring All-Reduces at max-min fair rates over the routes a controller recomputes
//! on a trigger, and leave; per policy the job completion times, throughput and busy fraction.
//! Pure Rust (docs/cluster.md).

pub mod placement;
pub mod ring_rates;
pub mod simulate;
pub mod study;
pub mod sweep;
pub mod trace;

pub use simulate::{simulate, Reroute, SimOptions, SimResult};
pub use trace::{generate, Trace, TraceSpec};
