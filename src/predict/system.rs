//! A system: accelerators joined by a scale-up tier (NVLink/NVSwitch inside a node) and a
//! scale-out tier (the InfiniBand or Ethernet fabric between nodes), with what a calibration fits
//! (docs/predict.md): how much of its peak each kind of work reaches, the host's time per layer,
//! and each tier's effective-bandwidth factor and latency per collective.

use super::accelerator::Accelerator;
use crate::format::number;
use serde::{Deserialize, Serialize};

/// One tier of the network as one accelerator sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tier {
    pub name: String,
    /// Link bandwidth per accelerator and direction, GB/s.
    pub gbps_per_npu: f64,
    /// The share of it a collective's bus bandwidth reaches (NCCL-style rings), in (0, 1].
    pub efficiency: f64,
    /// Time of one collective besides its bytes (launch, synchronisation, ring steps), us.
    pub latency_us: f64,
    #[serde(default)]
    pub source: String,
}

impl Tier {
    /// Effective bytes per second.
    pub fn bytes_per_s(&self) -> f64 {
        self.gbps_per_npu * 1e9 * self.efficiency
    }
}

/// How fast the accelerator runs the work of a training step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputeEfficiency {
    /// Share of the peak a large matrix multiplication reaches, in (0, 1].
    pub gemm: f64,
    /// Share of the HBM bandwidth memory-bound kernels reach, in (0, 1].
    pub memory: f64,
    /// Time every matrix multiplication adds besides its work (launch and tail), us.
    pub kernel_us: f64,
    /// The host's time to issue one transformer layer of one micro-batch (forward, recomputation
    /// and backward), us: the GPU cannot finish a layer sooner.
    pub host_us_per_layer: f64,
}

/// How a system's parameters were fitted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// What the runs were (e.g. a file name and its source).
    pub runs: String,
    pub rows: usize,
    pub mean_abs_error: f64,
    pub median_abs_error: f64,
    pub worst_abs_error: f64,
}

/// A system of accelerators (`libra-studio predict --system NAME|FILE.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct System {
    pub name: String,
    pub accelerator: Accelerator,
    /// Accelerators in one scale-up domain (a node).
    pub scale_up_npus: u32,
    pub scale_up: Tier,
    pub scale_out: Tier,
    pub compute: ComputeEfficiency,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
}

/// Why a system cannot be used; each names the field.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SystemError {
    #[error("{field} must be a positive finite number, got {}", number(*.value))]
    NotPositive { field: &'static str, value: f64 },
    #[error("{field} must be in (0, 1], got {}", number(*.value))]
    NotShare { field: &'static str, value: f64 },
    #[error("{field} must be a finite number >= 0, got {}", number(*.value))]
    Negative { field: &'static str, value: f64 },
    #[error("scale_up_npus must be at least 1")]
    NoScaleUp,
    #[error("unknown system \"{0}\" (expected dgx-a100, dgx-a100-uncalibrated or dgx-h100, or a system JSON file)")]
    Unknown(String),
    #[error("the system file: {0}")]
    Json(String),
}

/// The presets' names.
pub const SYSTEMS: [&str; 3] = ["dgx-a100", "dgx-a100-uncalibrated", "dgx-h100"];

impl System {
    /// A preset by name.
    pub fn preset(name: &str) -> Result<System, SystemError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "dgx-a100" => Ok(System::dgx_a100()),
            "dgx-a100-uncalibrated" => Ok(System::dgx_a100_uncalibrated()),
            "dgx-h100" => Ok(System::dgx_h100()),
            _ => Err(SystemError::Unknown(name.trim().to_string())),
        }
    }

    /// A system from its JSON, checked.
    pub fn from_json(text: &str) -> Result<System, SystemError> {
        let s: System = serde_json::from_str(crate::text::without_bom(text))
            .map_err(|e| SystemError::Json(e.to_string()))?;
        s.validate()?;
        Ok(s)
    }

    /// Check every number.
    pub fn validate(&self) -> Result<(), SystemError> {
        let a = &self.accelerator;
        for (field, value) in [
            ("accelerator.bf16_tflops", a.bf16_tflops),
            ("accelerator.hbm_gb", a.hbm_gb),
            ("accelerator.hbm_gbps", a.hbm_gbps),
            ("scale_up.gbps_per_npu", self.scale_up.gbps_per_npu),
            ("scale_out.gbps_per_npu", self.scale_out.gbps_per_npu),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(SystemError::NotPositive { field, value });
            }
        }
        for (field, value) in [
            ("scale_up.efficiency", self.scale_up.efficiency),
            ("scale_out.efficiency", self.scale_out.efficiency),
            ("compute.gemm", self.compute.gemm),
            ("compute.memory", self.compute.memory),
        ] {
            if !(value > 0.0 && value <= 1.0) {
                return Err(SystemError::NotShare { field, value });
            }
        }
        for (field, value) in [
            ("scale_up.latency_us", self.scale_up.latency_us),
            ("scale_out.latency_us", self.scale_out.latency_us),
            ("compute.kernel_us", self.compute.kernel_us),
            ("compute.host_us_per_layer", self.compute.host_us_per_layer),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(SystemError::Negative { field, value });
            }
        }
        if self.scale_up_npus == 0 {
            return Err(SystemError::NoScaleUp);
        }
        Ok(())
    }

    /// The measured cluster of `data/measured/` as a DGX A100 system: 8 x A100 80 GB per node on
    /// NVSwitch (NVLink 3: 12 links x 25 GB/s = 300 GB/s per GPU and direction) and 800 Gb/s of
    /// InfiniBand per node (12.5 GB/s per GPU), its efficiencies the calibration on the visible
    /// runs ([`CALIBRATED_A100`]).
    pub fn dgx_a100() -> System {
        let start = System::dgx_a100_uncalibrated();
        let mut s = crate::predict::calibrate::with_values(&start, &CALIBRATED_A100);
        s.calibration = Some(Calibration {
            runs: "data/measured/megatron-a100-visible.csv + \
                   data/measured/megatron-a100-single-node.csv (vTrain's Megatron-DeepSpeed runs)"
                .into(),
            rows: 1481,
            mean_abs_error: CALIBRATED_A100_ERRORS[0],
            median_abs_error: CALIBRATED_A100_ERRORS[1],
            worst_abs_error: CALIBRATED_A100_ERRORS[2],
        });
        s
    }

    /// The DGX A100 before calibration: the public figures, and as starting values the NVLink
    /// all-reduce measured by vTrain on 8 A100s (`trace/a100/AR_GPU8_1M_1024M_LUT`: 227 GB/s of
    /// bus bandwidth, 0.757 of 300 GB/s, and 79 us besides the bytes), and round guesses for the
    /// rest (80% of peak for GEMMs and of HBM for memory-bound kernels, 5 us per GEMM, 5 ms of
    /// host time per layer, 90% of the InfiniBand rate and 30 us per collective).
    pub fn dgx_a100_uncalibrated() -> System {
        System {
            name: "dgx-a100".into(),
            accelerator: Accelerator::a100_80gb(),
            scale_up_npus: 8,
            scale_up: Tier {
                name: "NVLink 3 / NVSwitch".into(),
                gbps_per_npu: 300.0,
                efficiency: 0.757,
                latency_us: 79.0,
                source: "NVIDIA DGX A100 user guide: 6 NVSwitches, 12 NVLink 3 links per GPU, \
                         600 GB/s bidirectional per GPU"
                    .into(),
            },
            scale_out: Tier {
                name: "InfiniBand HDR, 800 Gb/s per node".into(),
                gbps_per_npu: 12.5,
                efficiency: 0.9,
                latency_us: 30.0,
                source: "the measured cluster: vTrain config/validation/multi/*.json \
                         (inter_node_bandwidth 800 Gb/s per node, node_size 8); a DGX A100 \
                         SuperPOD node has 8 x 200 Gb/s HDR (25 GB/s per GPU)"
                    .into(),
            },
            compute: ComputeEfficiency {
                gemm: 0.8,
                memory: 0.8,
                kernel_us: 5.0,
                host_us_per_layer: 5000.0,
            },
            calibration: None,
        }
    }

    /// A DGX H100: 8 x H100 SXM5 on NVSwitch (NVLink 4: 18 links x 25 GB/s = 450 GB/s per GPU and
    /// direction) and one 400 Gb/s NDR InfiniBand NIC per GPU (50 GB/s). Not calibrated (no
    /// measured H100 runs here): it takes the A100 calibration's efficiencies and latencies.
    pub fn dgx_h100() -> System {
        let a100 = System::dgx_a100();
        System {
            name: "dgx-h100".into(),
            accelerator: Accelerator::h100_sxm(),
            scale_up_npus: 8,
            scale_up: Tier {
                name: "NVLink 4 / NVSwitch".into(),
                gbps_per_npu: 450.0,
                source: "NVIDIA DGX H100 user guide: 4 NVSwitches, 18 NVLink 4 links per GPU, \
                         900 GB/s bidirectional per GPU"
                    .into(),
                ..a100.scale_up
            },
            scale_out: Tier {
                name: "InfiniBand NDR, 400 Gb/s per GPU".into(),
                gbps_per_npu: 50.0,
                source: "NVIDIA DGX H100 user guide: 8 x ConnectX-7 400 Gb/s InfiniBand/Ethernet \
                         for the compute fabric"
                    .into(),
                ..a100.scale_out
            },
            compute: a100.compute,
            calibration: None,
        }
    }
}

/// The dgx-a100 calibration (the order of [`super::calibrate::PARAMETERS`]), to four digits:
/// `libra-studio calibrate --system dgx-a100-uncalibrated --hold
/// scale_up.efficiency,scale_up.latency_us --runs data/measured/megatron-a100-visible.csv --runs
/// data/measured/megatron-a100-single-node.csv` (tested to reproduce them). The NVLink tier is
/// held at vTrain's measured all-reduce on 8 A100s; the six other parameters are fitted.
pub const CALIBRATED_A100: [f64; 8] = [0.7795, 0.6779, 33.56, 3598.0, 0.757, 79.0, 0.7470, 4.071];
/// Its mean, median and worst absolute relative error over the 1,481 runs it was fitted on.
pub const CALIBRATED_A100_ERRORS: [f64; 3] = [0.0804, 0.0577, 0.4570];
/// The parameters the calibration holds at their measured values.
pub const HELD_A100: [&str; 2] = ["scale_up.efficiency", "scale_up.latency_us"];
