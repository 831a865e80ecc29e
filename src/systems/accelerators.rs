//! The accelerator catalog: public figures of the accelerators large models train on, read from
//! `data/systems/accelerators.json` (each entry quotes its sources; docs/systems.md has the table).

use crate::predict::accelerator::Accelerator;
use serde::{Deserialize, Serialize};

/// One accelerator's public figures, as the catalog holds them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceleratorSpec {
    /// The catalog's key (`h100-sxm`).
    pub key: String,
    pub name: String,
    /// Dense BF16/FP16 tensor TFLOP/s (without sparsity).
    pub bf16_tflops: f64,
    /// Dense FP8 tensor TFLOP/s; None: no FP8 tensor cores.
    pub fp8_tflops: Option<f64>,
    /// HBM, GB (10^9 bytes).
    pub hbm_gb: f64,
    /// HBM bandwidth, GB/s.
    pub hbm_gbps: f64,
    /// Scale-up bandwidth per accelerator and direction, GB/s.
    pub scale_up_gbps: f64,
    pub scale_up_link: String,
    /// Board power, W (None: not published).
    pub tdp_w: Option<f64>,
    /// Where each figure comes from, with a short quote.
    pub sources: Vec<String>,
}

impl AcceleratorSpec {
    /// The step model's view of it.
    pub fn accelerator(&self) -> Accelerator {
        Accelerator {
            name: self.name.clone(),
            bf16_tflops: self.bf16_tflops,
            fp8_tflops: self.fp8_tflops,
            hbm_gb: self.hbm_gb,
            hbm_gbps: self.hbm_gbps,
            source: self.sources.join(" | "),
        }
    }
}

const CATALOG: &str = include_str!("../../data/systems/accelerators.json");

/// Every accelerator of the catalog.
pub fn accelerators() -> Vec<AcceleratorSpec> {
    serde_json::from_str(CATALOG).expect("data/systems/accelerators.json is checked by its tests")
}

/// The accelerator with this key.
pub fn accelerator(key: &str) -> Option<AcceleratorSpec> {
    accelerators().into_iter().find(|a| a.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_has_the_issues_accelerators_each_with_sources() {
        let all = accelerators();
        for key in [
            "a100-40gb",
            "a100-80gb",
            "h100-sxm",
            "h200-sxm",
            "b200",
            "gb200",
            "mi300x",
            "tpu-v4",
            "tpu-v5p",
            "trn2",
        ] {
            let a = all
                .iter()
                .find(|a| a.key == key)
                .unwrap_or_else(|| panic!("{key}"));
            assert!(!a.sources.is_empty(), "{key}");
            for v in [a.bf16_tflops, a.hbm_gb, a.hbm_gbps, a.scale_up_gbps] {
                assert!(v.is_finite() && v > 0.0, "{key}");
            }
            // FP8, where there is any, is at least BF16's rate.
            assert!(a.fp8_tflops.is_none_or(|f| f >= a.bf16_tflops), "{key}");
        }
        // The datasheets' dense figures (half the "with sparsity" ones).
        let h100 = accelerator("h100-sxm").unwrap();
        assert_eq!((h100.bf16_tflops, h100.fp8_tflops), (989.0, Some(1979.0)));
        assert_eq!((h100.hbm_gb, h100.hbm_gbps), (80.0, 3350.0));
        // The step model's own A100 and H100 agree with the catalog.
        assert_eq!(
            accelerator("a100-80gb").unwrap().bf16_tflops,
            Accelerator::a100_80gb().bf16_tflops
        );
        assert_eq!(h100.hbm_gbps, Accelerator::h100_sxm().hbm_gbps);
    }
}
