//! One binary: on wasm32 it mounts the app, natively it runs the command line.

#[cfg(target_arch = "wasm32")]
fn main() {
    libra_studio::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    // As the operating system gives them: a file name need not be UTF-8.
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let code = libra_studio::cli::run(&args, &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
