//! Co-design of parallelism and network (docs/codesign.md): for a transformer on N NPUs, which
//! TP x PP x DP, micro-batch, network shape and lay order, and which bandwidths, train fastest at
//! each budget. LIBRA fixes the parallelism and optimizes the bandwidths; parallelism searches
//! fix the network; this does both, each candidate with certified optimal bandwidths. Pure Rust.

pub mod candidate;
pub mod inputs;
pub mod preset;
pub mod search;

pub use candidate::{scenario_of, Choice, Design};
pub use inputs::{
    CalibratedSystem, CodesignInputs, CustomField, CustomModel, InputField, CALIBRATED,
    CALIBRATION_STARTS, CUSTOM, FLAT, PICKED_SYSTEMS,
};
pub use preset::ModelPreset;
pub use search::{
    CodesignError, CodesignResult, CodesignRun, CodesignSetup, CodesignStart, ShapeSpace, Winner,
};
