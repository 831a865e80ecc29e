//! The Routing and Cluster views' wasm module (docs/routing.md and docs/cluster.md): the app
//! loads it when either view is first opened, so that the app's own wasm stays within its budget.

#[cfg(target_arch = "wasm32")]
fn main() {
    libra_studio::ui::routing_module::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the Routing and Cluster views' module runs in a browser (make dist builds it)");
}
