//! Bandwidth allocation: compile a scenario into a small convex problem, solve it with a
//! certificate, and sweep it. Pure Rust.

pub mod barrier;
pub mod certificate;
mod closed_form;
pub mod dense;
pub mod feasible;
pub mod linear;
pub mod lp;
pub mod min_cost;
pub mod min_time;
mod polish;
pub mod problem;
mod projected_gradient;
mod projection;
pub mod solution;
pub mod solver;
pub mod sweep;
pub mod time_x_cost;
pub mod uniform;

pub use problem::{compile, CompileError, Pattern, Problem};
pub use solution::Method;
pub use solver::{solve, Solution, SolveError, SolveOptions};
pub use uniform::{uniform_split, AllocationError};
