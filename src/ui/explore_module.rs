//! The wasm module of the views that explore a design's alternatives (`src/bin/explore_view.rs`):
//! Compare shapes, Landscape and Co-design. The app loads it the first time one of them is opened,
//! so that the app's own wasm stays within its budget; each view talks to the app through its
//! `module_bridge` entry.

use super::codesign_module::CodesignPanel;
use super::landscape_view::LandscapePanel;
use super::module_bridge::{CODESIGN, LANDSCAPE, SHAPES};
use super::shapes_view::ShapesPanel;

/// Mount the three views in the app's roots.
pub fn start() {
    console_error_panic_hook::set_once();
    SHAPES.mount(ShapesPanel);
    LANDSCAPE.mount(LandscapePanel);
    CODESIGN.mount(CodesignPanel);
}
