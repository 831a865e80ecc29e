//! The wasm module of the Compare shapes, Landscape and Co-design views (docs/design.md): the app
//! loads it when one of them is first opened, so that the app's own wasm stays within its budget.

#[cfg(target_arch = "wasm32")]
fn main() {
    libra_studio::ui::explore_module::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the explore views' module runs in a browser (make dist builds it)");
}
