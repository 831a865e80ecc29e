//! The Co-design view's wasm module (docs/codesign.md): the app loads it when the view is first
//! opened, so that the app's own wasm stays within its budget.

#[cfg(target_arch = "wasm32")]
fn main() {
    libra_studio::ui::codesign_module::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the Co-design view's module runs in a browser (make dist builds it)");
}
