//! Bandwidth allocation. For now LIBRA's baseline, the uniform split, and its evaluation; the
//! certified projected-gradient optimizer arrives with issue 5.

pub mod baseline;
pub mod linear;
pub mod lp;
pub mod problem;
pub mod uniform;

pub use baseline::{uniform_baseline, Baseline};
pub use uniform::{parse_total_bw, uniform_split, AllocationError};
