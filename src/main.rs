//! One binary: on wasm32 it mounts the app, natively it runs the command line.

#[cfg(target_arch = "wasm32")]
fn main() {
    libra_studio::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = libra_studio::cli::run(&args, &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
