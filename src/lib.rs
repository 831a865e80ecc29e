//! libra-studio: LIBRA's network cost and time model, a bandwidth optimizer and Clos routing.
//!
//! ARCHITECTURE.md (at the repository's root) maps the modules, their layers and invariants: every
//! module but `ui` (the Leptos app, wasm32 only) and `cli` (the command line, native only) is plain
//! Rust that builds and tests natively.

pub mod analysis;
pub mod charts;
pub mod cluster;
pub mod codesign;
pub mod form;
pub mod format;
pub mod glossary;
pub mod limits;
pub mod model;
pub mod optimize;
pub mod order;
pub mod permalink;
pub mod predict;
pub mod presets;
pub mod results;
pub mod routing;
pub mod session;
pub mod stepping;
pub mod systems;
pub mod text;
pub mod tour;
pub mod view;

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
#[cfg(target_arch = "wasm32")]
pub mod ui;
