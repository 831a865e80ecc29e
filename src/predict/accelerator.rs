//! Accelerators as data: peak dense tensor throughput, HBM capacity and bandwidth, each figure from
//! the vendor's public datasheet (the `source` field; docs/predict.md has the table).

use serde::{Deserialize, Serialize};

/// One accelerator's public figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accelerator {
    pub name: String,
    /// Dense BF16/FP16 tensor throughput, TFLOP/s (without sparsity).
    pub bf16_tflops: f64,
    /// Dense FP8 tensor throughput, TFLOP/s (None: no FP8 tensor cores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp8_tflops: Option<f64>,
    /// HBM capacity, GB (10^9 bytes).
    pub hbm_gb: f64,
    /// HBM bandwidth, GB/s.
    pub hbm_gbps: f64,
    /// Where the figures come from.
    #[serde(default)]
    pub source: String,
}

impl Accelerator {
    /// NVIDIA A100 SXM4 80 GB: 312 dense FP16/BF16 TFLOP/s, 80 GB HBM2e at 2,039 GB/s.
    pub fn a100_80gb() -> Accelerator {
        Accelerator {
            name: "NVIDIA A100 SXM4 80GB".into(),
            bf16_tflops: 312.0,
            fp8_tflops: None,
            hbm_gb: 80.0,
            hbm_gbps: 2039.0,
            source:
                "NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/content/dam/en-zz/Solutions/\
                     Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf): \
                     BF16/FP16 Tensor Core 312 TFLOPS dense, 80 GB HBM2e, 2,039 GB/s (SXM)"
                    .into(),
        }
    }

    /// NVIDIA H100 SXM5 80 GB: 989 dense BF16 and 1,979 dense FP8 TFLOP/s, 80 GB HBM3 at
    /// 3,350 GB/s.
    pub fn h100_sxm() -> Accelerator {
        Accelerator {
            name: "NVIDIA H100 SXM5 80GB".into(),
            bf16_tflops: 989.0,
            fp8_tflops: Some(1979.0),
            hbm_gb: 80.0,
            hbm_gbps: 3350.0,
            source:
                "NVIDIA H100 Tensor Core GPU datasheet (resources.nvidia.com/en-us-tensor-core/\
                     nvidia-tensor-core-gpu-datasheet): SXM BF16 1,979 and FP8 3,958 TFLOPS with \
                     sparsity, half without; 80 GB HBM3, 3.35 TB/s"
                    .into(),
        }
    }
}
