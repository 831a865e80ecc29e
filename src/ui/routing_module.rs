//! The Routing and Cluster views, built as a wasm module of their own (`src/bin/routing_view.rs`)
//! that the app loads the first time either view is opened, so that the app's own wasm stays
//! within its budget. Each view talks to the app through `module_bridge`: it gets its state from
//! the link and whether it is shown, and sends its state back as the visitor edits it.

use super::cluster_view::ClusterPanel;
use super::module_bridge::{CLUSTER, ROUTING};
use super::routing_view::RoutingPanel;

/// Mount the views in the app's `#routing-root` and `#cluster-root`.
pub fn start() {
    console_error_panic_hook::set_once();
    ROUTING.mount(RoutingPanel);
    CLUSTER.mount(ClusterPanel);
}
