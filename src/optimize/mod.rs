//! Bandwidth allocation: compile a scenario into a small convex problem, solve it with a
//! certificate, and sweep it. Pure Rust.

pub mod barrier;
pub mod baseline;
pub mod dense;
pub mod feasible;
pub mod linear;
pub mod lp;
pub mod min_cost;
mod polish;
pub mod problem;
pub mod shapes;
pub mod solver;
pub mod study;
pub mod sweep;
pub mod time_x_cost;
pub mod uniform;

pub use baseline::{compare, uniform_baseline, Baseline, Comparison};
pub use problem::{compile, CompileError, Pattern, Problem};
pub use solver::{solve, Solution, SolveError, SolveOptions};
pub use uniform::{parse_total_bw, uniform_split, AllocationError};
