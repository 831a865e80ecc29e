//! Shared by the integration tests: LIBRA's input files and the reference results.
#![allow(dead_code)]

use libra_studio::model::astra_text;
use libra_studio::model::libra_files::{
    communicator_from_yaml, cost_model_from_yaml, network_from_yaml,
};
use libra_studio::model::scenario::Scenario;
use serde_json::Value;
use std::path::Path;

pub fn read(dir: &str, file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/libra-inputs")
        .join(dir)
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn reference() -> Value {
    serde_json::from_str(include_str!("../data/libra_reference.json")).unwrap()
}

/// The scenario of a reference entry, built from LIBRA's files by our importers.
pub fn scenario(entry: &Value) -> Scenario {
    let s = |k: &str| entry[k].as_str().unwrap();
    let network = network_from_yaml(&read("network", s("network"))).unwrap();
    let costs = cost_model_from_yaml(&read("cost_model", s("cost_model"))).unwrap();
    let workload = astra_text::parse(&read("workload", s("workload"))).unwrap();
    let communicator =
        communicator_from_yaml(&read("communicator", s("communicator")), &network).unwrap();
    Scenario::single(
        s("workload"),
        network,
        costs,
        s("workload"),
        workload,
        communicator,
    )
}

pub fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// splitmix64: small, seeded, good enough to drive random tests reproducibly.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Run the CLI with `args` (and `stdin`), killed after `limit`: (exit code, stdout, stderr).
pub fn run_cli(
    args: &[String],
    stdin: Option<&str>,
    limit: std::time::Duration,
) -> (i32, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_libra-studio"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run libra-studio");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    // Output is read while the program runs (a full pipe would stall it); past `limit` it is
    // killed and the test fails.
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out = match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
            panic!("{args:?} ran longer than {limit:?}");
        }
    };
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}
