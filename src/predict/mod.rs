//! Predicting measured training runs (docs/predict.md): an accelerator ([`accelerator`]), a
//! system of accelerators on a scale-up and a scale-out tier with the efficiencies a calibration
//! fits ([`system`]), a training run of a Megatron-style transformer ([`run`]), the time of one
//! training step by the shape of its work ([`step`]), measured runs read from CSV ([`measured`])
//! and the least-squares calibration of a system to them ([`calibrate`]).

pub mod accelerator;
pub mod attention;
pub mod calibrate;
pub mod measured;
pub mod models;
/// Mixtures of experts are part of the transformer's description (`model::moe`).
pub use crate::model::moe;
pub mod published;
pub mod run;
pub mod step;
pub mod system;
pub mod validation;
pub mod workload;
