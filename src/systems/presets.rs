//! The systems presets: the machines large models are trained on in 2026, each figure from a
//! public source (the research notes with quotes: `data/systems/`; the table: docs/systems.md).
//!
//! Prices, in $ per GB/s of per-accelerator bandwidth (one direction), are public where a public
//! figure exists and LIBRA's assumptions, labelled so, where none does:
//! - InfiniBand NDR, a 2-level fat tree with one 400 Gb/s NIC per GPU: switch ports $33.75 (a
//!   64-port switch at about $36,000, Aug 2024: $562.5 a port, 3 ports per GPU: leaf down and up,
//!   spine down), cables and optics $51.2 ($41.9 M for 16,384 GPUs, the same source), NICs $31.6
//!   (no public NIC price: LIBRA's InterPod NIC). A 2-level tree of radix-64 switches joins 2,048
//!   NICs a plane; rail-optimized, 2,048 nodes (16,384 GPUs).
//! - HDR InfiniBand and 400 Gb/s RoCE have no public price: priced per GB/s as NDR (said so).
//! - DeepSeek's multi-plane fat tree: $87.8 per GB/s of switches and links ($4.39k per endpoint
//!   at 400 Gb/s, arXiv 2505.09343), split as NDR's switch ports ($33.75) and the rest as links.
//! - NVLink, TPU ICI and NeuronLink have no public price: LIBRA's InterPackage (link $4, switch
//!   $13, no NIC) and InterNode (link $4) unit costs, LIBRA's assumptions.
//!
//! Latency per collective step (LIBRA's latency term) follows `model::physical`: NCCL's NVLink
//! ring step 470 ns, its network step 2,700 ns; a torus hop about 1 us (TPU; NeuronLink assumed
//! alike). The step model's efficiency and latency per collective are the `dgx-a100`
//! calibration's (measured on A100s, assumed elsewhere until a system is calibrated).

use super::clos::LeafSpine;
use super::system::{NetworkTier, SystemDim, SystemSpec};
use crate::model::network::Topology;
use crate::predict::system::CALIBRATED_A100;

/// The presets' names, in the order `libra-studio systems` lists them.
pub const SYSTEM_PRESETS: [&str; 9] = [
    "dgx-a100",
    "dgx-h100",
    "dgx-b200",
    "gb200-nvl72",
    "tpu-v4",
    "tpu-v5p",
    "trn2-ultraserver",
    "meta-roce-24k",
    "hgx-h800",
];

const CHEAH: &str = "E. Cheah, \"H100 Freakonomics\" (Aug 2024, docs.google.com/spreadsheets/d/\
                     1Ft3RbeZ-w43kYSiLfYc1vxO41mK5lmJpcPC9GOYHAWc): 64-port 400 Gb/s InfiniBand \
                     switch about $36,000; NDR cables and connectors $41,943,040 for 16,384 GPUs";
const LIBRA_NVLINK: &str = "no public NVLink price: LIBRA's InterPackage unit costs (link $4, \
                            switch $13 per GB/s; arXiv 2109.11762), LIBRA's assumption";
const LIBRA_RING: &str =
    "no public price: LIBRA's InterNode link cost ($4 per GB/s; arXiv 2109.11762), LIBRA's assumption";

/// A tier with the calibration's step-model figures for its kind.
struct Kind {
    efficiency: f64,
    latency_us: f64,
    step_latency_ns: f64,
}

/// NVLink / NVSwitch: NCCL's NVLink ring step; the calibration's NVLink all-reduce.
const NVLINK: Kind = Kind {
    efficiency: CALIBRATED_A100[4],
    latency_us: CALIBRATED_A100[5],
    step_latency_ns: 470.0,
};
/// A NIC-based fabric: NCCL's network ring step; the calibration's fabric figures.
const FABRIC: Kind = Kind {
    efficiency: CALIBRATED_A100[6],
    latency_us: CALIBRATED_A100[7],
    step_latency_ns: 2_700.0,
};
/// A torus's links (about 1 us a hop), with the calibration's scale-up figures.
const TORUS: Kind = Kind {
    efficiency: CALIBRATED_A100[4],
    latency_us: CALIBRATED_A100[5],
    step_latency_ns: 1_000.0,
};

#[allow(clippy::too_many_arguments)]
fn tier(
    name: &str,
    title: &str,
    kind: &Kind,
    gbps_per_npu: f64,
    max_npus: u32,
    usd: (f64, f64, f64),
    price: &str,
    source: &str,
) -> NetworkTier {
    NetworkTier {
        name: name.into(),
        title: title.into(),
        gbps_per_npu,
        oversubscription: None,
        efficiency: kind.efficiency,
        latency_us: kind.latency_us,
        step_latency_ns: kind.step_latency_ns,
        max_npus,
        in_network_usd: None,
        // What the chip's links or the NICs the system builds (one per accelerator) reach: a
        // faster fabric is another system (a system file may raise it).
        max_gbps_per_npu: Some(gbps_per_npu),
        link_usd: usd.0,
        switch_usd: usd.1,
        nic_usd: usd.2,
        price: price.into(),
        source: source.into(),
    }
}

fn dim(topology: Topology, npus: Option<u32>, tier: &str) -> SystemDim {
    SystemDim {
        topology,
        npus,
        tier: tier.into(),
    }
}

/// NVLink unit costs (LIBRA's InterPackage).
const NVLINK_USD: (f64, f64, f64) = (4.0, 13.0, 0.0);
/// A ring's unit cost (LIBRA's InterNode link).
const RING_USD: (f64, f64, f64) = (4.0, 0.0, 0.0);
/// A 2-level NDR fat tree per GB/s per GPU: cables and optics, 3 switch ports, the NIC.
const NDR_USD: (f64, f64, f64) = (51.2, 33.75, 31.6);

fn ndr_price(what: &str) -> String {
    format!(
        "{what}: switch ports $33.75 (3 ports per GPU at $562.5 per 400 Gb/s port), cables and \
         optics $51.2 ($2,560 per GPU), from {CHEAH}; NIC $31.6 (no public price: LIBRA's InterPod \
         NIC, LIBRA's assumption)"
    )
}

/// An NVSwitch domain of `n` GPUs.
fn nvswitch(name: &str, title: &str, gbps: f64, n: u32, source: &str) -> NetworkTier {
    tier(
        name,
        title,
        &NVLINK,
        gbps,
        n,
        NVLINK_USD,
        LIBRA_NVLINK,
        source,
    )
}

/// `t` with in-network reduction: the same links and switches, whose switches reduce (NVLink
/// SHARP on NVSwitch gen 3 and later; SHARPv3 on Quantum-2 InfiniBand switches). No public price
/// separates the feature from the switch: it adds $0 per GB/s, said so.
fn with_reduction(t: &NetworkTier, what: &str, source: &str) -> NetworkTier {
    NetworkTier {
        name: format!("{}-sharp", t.name),
        title: format!("{} with {what}", t.title),
        in_network_usd: Some(0.0),
        price: format!(
            "{}; {what} is part of the switch, with no separate public price: $0 more",
            t.price
        ),
        source: format!("{}; {source}", t.source),
        ..t.clone()
    }
}

const NVLS: &str = "NVIDIA/nccl-tests issue 212 (NCCL maintainer, 2024): on 8 H100s an All-Reduce \
                    reaches about 480 GB/s of bus bandwidth with NVLink SHARP (NVLS) against about \
                    370 with rings";
const IB_SHARP: &str = "NVIDIA Quantum-2 (NDR) switches implement SHARPv3 in-network reduction";

/// A SuperPOD's tiers with their in-network reduction variants beside them (`SW8:nvlink4-sharp x
/// SW512:ib-ndr-sharp`).
fn with_reductions(mut s: SystemSpec) -> SystemSpec {
    let extra: Vec<NetworkTier> = s
        .tiers
        .iter()
        .filter_map(|t| match t.name.as_str() {
            "nvlink4" | "nvlink5" | "nvlink5-nvl72" => {
                Some(with_reduction(t, "NVLink SHARP (NVLS)", NVLS))
            }
            "ib-ndr" => Some(with_reduction(t, "InfiniBand SHARPv3", IB_SHARP)),
            _ => None,
        })
        .collect();
    s.tiers.extend(extra);
    s
}

/// The preset named `name`.
pub fn system_preset(name: &str) -> Option<SystemSpec> {
    let s = match name.trim().to_ascii_lowercase().as_str() {
        "dgx-a100" => dgx_a100(),
        "dgx-h100" => with_reductions(dgx_h100()),
        "dgx-b200" => with_reductions(dgx_b200()),
        "gb200-nvl72" => with_reductions(gb200_nvl72()),
        "tpu-v4" => tpu_v4(),
        "tpu-v5p" => tpu_v5p(),
        "trn2-ultraserver" => trn2_ultraserver(),
        "meta-roce-24k" => meta_roce_24k(),
        "hgx-h800" => hgx_h800(),
        _ => return None,
    };
    Some(s)
}

/// Every preset.
pub fn system_presets() -> Vec<SystemSpec> {
    SYSTEM_PRESETS
        .iter()
        .filter_map(|n| system_preset(n))
        .collect()
}

/// A DGX SuperPOD: NVSwitch of 8 GPUs per node, one NIC per GPU on a rail-optimized 2-level
/// fat tree (leaf and spine as one Switch dimension priced by the ports and links it builds).
fn superpod(
    name: &str,
    title: &str,
    accelerator: &str,
    nvlink: NetworkTier,
    (fabric, leaf_spine): (NetworkTier, LeafSpine),
    sources: &[&str],
    notes: &str,
) -> SystemSpec {
    let max_nodes = fabric.max_npus;
    SystemSpec {
        name: name.into(),
        title: title.into(),
        accelerator: accelerator.into(),
        scale_up_npus: 8,
        dims: vec![
            dim(Topology::Switch, Some(8), &nvlink.name),
            dim(Topology::Switch, None, &fabric.name),
        ],
        tiers: vec![nvlink, fabric],
        max_npus: 8 * max_nodes,
        fabric: Some(leaf_spine),
        sources: sources.iter().map(|s| s.to_string()).collect(),
        notes: notes.into(),
    }
}

/// A 2-level tree of radix-`radix` switches in `rails` planes: half of a leaf's ports down to
/// NICs, half up (one link to each of `radix / 2` spines), `radix` leaves under spines of `radix`
/// ports: `radix^2 / 2` NICs a plane.
fn tree(tier: &str, rails: u32, radix: u32, source: &str) -> LeafSpine {
    LeafSpine {
        tier: tier.into(),
        rails,
        leaf_npus: radix / 2,
        spines: radix / 2,
        max_leaves: radix,
        source: source.into(),
    }
}

impl NetworkTier {
    /// The tier with the tree its fabric is built as.
    fn with_tree(self, tree: LeafSpine) -> (NetworkTier, LeafSpine) {
        (self, tree)
    }
}

const QUANTUM2: &str = "NVIDIA Quantum-2 QM9700: 64 ports of 400 Gb/s NDR; rail-optimized \
                        SuperPOD (one rail per GPU of a node)";

fn ib_ndr(title: &str, source: &str) -> NetworkTier {
    tier(
        "ib-ndr",
        title,
        &FABRIC,
        50.0,
        2_048,
        NDR_USD,
        &ndr_price("2-level NDR fat tree"),
        source,
    )
}

fn dgx_a100() -> SystemSpec {
    superpod(
        "dgx-a100",
        "NVIDIA DGX SuperPOD with DGX A100 80GB",
        "a100-80gb",
        nvswitch(
            "nvlink3",
            "NVLink 3 / NVSwitch",
            300.0,
            8,
            "NVIDIA A100 datasheet and DGX A100 user guide: 12 NVLink 3 links per GPU, 600 GB/s \
             bidirectional (300 per direction) on 6 NVSwitches",
        ),
        tier(
            "ib-hdr",
            "HDR InfiniBand 200 Gb/s, one NIC per GPU, rail-optimized",
            &FABRIC,
            25.0,
            800,
            NDR_USD,
            &ndr_price("no public HDR price: priced per GB/s as a 2-level NDR fat tree"),
            "DGX SuperPOD (A100) reference architecture RA-09950-001 as summarized by NADDOD and \
             Stanford CS149 (Fall 2025, lecture 12): 8 x 200 Gb/s HDR per node, scalable units of \
             20 nodes, 140 nodes in one pod; a 2-level tree of 40-port HDR switches joins \
             40 x 40 / 2 = 800 NICs a plane",
        )
        .with_tree(tree(
            "ib-hdr",
            8,
            40,
            "NVIDIA Quantum QM8700: 40 ports of 200 Gb/s HDR; rail-optimized SuperPOD (one rail \
             per GPU of a node)",
        )),
        &["NVIDIA DGX A100 user guide; NADDOD, \"Efficient data transfer network architecture for NVIDIA DGX A100 server cluster\""],
        "The step model's dgx-a100 (`predict --system dgx-a100`) is the measured cluster of \
         data/measured/ (800 Gb/s per node, 12.5 GB/s per GPU), calibrated on its runs; this \
         SuperPOD has 25 GB/s per GPU.",
    )
}

fn dgx_h100() -> SystemSpec {
    superpod(
        "dgx-h100",
        "NVIDIA DGX SuperPOD with DGX H100",
        "h100-sxm",
        nvswitch(
            "nvlink4",
            "NVLink 4 / NVSwitch",
            450.0,
            8,
            "NVIDIA DGX H100 user guide: 18 NVLink 4 links per GPU, 900 GB/s bidirectional (450 \
             per direction) on 4 NVSwitches; NCCL reaches about 370 GB/s of bus bandwidth with \
             rings and 480 with NVLink SHARP on 8 GPUs (NVIDIA/nccl-tests issue 212)",
        ),
        ib_ndr(
            "NDR InfiniBand 400 Gb/s, one ConnectX-7 per GPU, rail-optimized",
            "DGX SuperPOD H100 reference architecture (docs.nvidia.com/dgx-superpod/reference-\
             architecture-scalable-infrastructure-h100): 8 x ConnectX-7 400 Gb/s per node, \
             scalable units of 32 nodes rail-aligned, leaf and spine Quantum-2 64-port switches",
        )
        .with_tree(tree("ib-ndr", 8, 64, QUANTUM2)),
        &["docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100"],
        "Leaf and spine form one Switch dimension (non-blocking), priced by the 3 switch ports and \
         2 links per GPU a 2-level tree builds; up to 2,048 nodes (16,384 GPUs).",
    )
}

fn dgx_b200() -> SystemSpec {
    superpod(
        "dgx-b200",
        "NVIDIA DGX SuperPOD with DGX B200",
        "b200",
        nvswitch(
            "nvlink5",
            "NVLink 5 / NVLink switch",
            900.0,
            8,
            "NVIDIA DGX B200 user guide: 2 fifth-generation NVLink switches with 14.4 TB/s \
             aggregate (1.8 TB/s bidirectional, 900 GB/s per direction per GPU)",
        ),
        ib_ndr(
            "NDR InfiniBand 400 Gb/s, one ConnectX-7 per GPU, rail-optimized",
            "DGX B200 user guide (8 x ConnectX-7 up to 400 Gb/s) and DGX SuperPOD B200 reference \
             architecture: scalable units of 32 rail-aligned nodes",
        )
        .with_tree(tree("ib-ndr", 8, 64, QUANTUM2)),
        &["docs.nvidia.com/dgx/dgxb200-user-guide; docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200"],
        "As dgx-h100 with NVLink 5 and B200 GPUs.",
    )
}

fn gb200_nvl72() -> SystemSpec {
    SystemSpec {
        name: "gb200-nvl72".into(),
        title: "NVIDIA DGX SuperPOD with DGX GB200 (NVL72 racks)".into(),
        accelerator: "gb200".into(),
        scale_up_npus: 72,
        dims: vec![
            dim(Topology::Switch, Some(72), "nvlink5-nvl72"),
            dim(Topology::Switch, None, "ib-ndr"),
        ],
        tiers: vec![
            nvswitch(
                "nvlink5-nvl72",
                "NVLink 5 / NVLink Switch trays (72-GPU rack)",
                900.0,
                72,
                "DGX SuperPOD GB200 reference architecture: 18 compute trays and 9 NVLink switch \
                 trays per rack; 130 TB/s of NVLink in 72 GPUs = 1.8 TB/s bidirectional per GPU",
            ),
            tier(
                "ib-ndr",
                "NDR InfiniBand 400 Gb/s, one ConnectX-7 per GPU",
                &FABRIC,
                50.0,
                128,
                NDR_USD,
                &ndr_price("2-level NDR fat tree"),
                "DGX GB200 user guide (4 x ConnectX-7 400G per compute tray of 4 GPUs); the \
                 reference architecture scales to 128 racks (9,216 GPUs)",
            ),
        ],
        max_npus: 9_216,
        // 4 NICs per compute tray of 4 GPUs, each on its own rail (assumed, as DGX rails): 9,216
        // GPUs are 2,304 NICs a rail, more than one 2-level tree of 64-port switches holds.
        fabric: Some(tree(
            "ib-ndr",
            4,
            64,
            "NVIDIA Quantum-2 QM9700 (64 x 400 Gb/s); 4 ConnectX-7 per compute tray of 4 GPUs, \
             read as 4 rails (assumed, as DGX nodes' rails)",
        )),
        sources: vec![
            "docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200"
                .into(),
        ],
        notes: "The InfiniBand dimension joins racks; its rail layout inside a scalable unit was \
                not public in what was read, so it is one non-blocking Switch dimension."
            .into(),
    }
}

/// A TPU pod: a 3D torus of rings (one Ring dimension per axis, `per_dim` GB/s each).
#[allow(clippy::too_many_arguments)]
fn tpu(
    name: &str,
    title: &str,
    accelerator: &str,
    per_dim: f64,
    ring_max: u32,
    max: u32,
    source: &str,
    notes: &str,
) -> SystemSpec {
    let ici = format!("ici-{}", name.trim_start_matches("tpu-"));
    SystemSpec {
        name: name.into(),
        title: title.into(),
        accelerator: accelerator.into(),
        scale_up_npus: max,
        dims: (0..3).map(|_| dim(Topology::Ring, None, &ici)).collect(),
        tiers: vec![tier(
            &ici,
            &format!("{} ICI (3D torus, optical switches between cubes)", title),
            &TORUS,
            per_dim,
            ring_max,
            RING_USD,
            LIBRA_RING,
            source,
        )],
        max_npus: max,
        fabric: None,
        sources: vec![source.into()],
        notes: notes.into(),
    }
}

fn tpu_v4() -> SystemSpec {
    tpu(
        "tpu-v4",
        "Google TPU v4",
        "tpu-v4",
        90.0,
        16,
        4_096,
        "Jouppi et al., TPU v4, ISCA 2023 (arXiv 2304.01433): 4,096 chips, 4x4x4 cubes joined by \
         48 optical circuit switches into a 16x16x16 torus; 6 ICI links per chip at 45 GB/s one \
         way (Google DeepMind, How to Scale Your Model), 2 links per axis = 90 GB/s",
        "Each axis is a Ring dimension of at most 16 (the optical switches close the rings); a \
         slice's axes are as even as its size allows. OCS are <5% of the system's cost (the \
         paper); no $ figure, so LIBRA's ring cost stands in.",
    )
}

fn tpu_v5p() -> SystemSpec {
    tpu(
        "tpu-v5p",
        "Google TPU v5p",
        "tpu-v5p",
        200.0,
        28,
        8_960,
        "cloud.google.com/tpu/docs/v5p-training: 8,960 chips in a pod, 4,800 Gb/s (600 GB/s per \
         direction) of ICI per chip over 6 links = 200 GB/s per axis; the pod is a 16x20x28 \
         torus (How to Scale Your Model)",
        "The data-center network between pods (6.25 GB/s per chip) is not a dimension here: one \
         pod at most.",
    )
}

fn trn2_ultraserver() -> SystemSpec {
    let source = "aws-neuron-sdk, trn2-arch.rst: 16 Trainium2 per instance in a 4x4 2D torus, \
                  4 instances per UltraServer joined in rings of chips with the same coordinates; \
                  NeuronLink-v3 1,024 GB/s within and 256 GB/s between instances per chip, and \
                  3,200 Gb/s of EFA per instance";
    SystemSpec {
        name: "trn2-ultraserver".into(),
        title: "AWS Trn2 UltraServers (64 Trainium2 each) on EFA".into(),
        accelerator: "trn2".into(),
        scale_up_npus: 64,
        dims: vec![
            dim(Topology::Ring, Some(4), "neuronlink-intra"),
            dim(Topology::Ring, Some(4), "neuronlink-intra"),
            dim(Topology::Ring, Some(4), "neuronlink-inter"),
            dim(Topology::Switch, None, "efa-v3"),
        ],
        tiers: vec![
            tier(
                "neuronlink-intra",
                "NeuronLink-v3 within an instance (4x4 torus)",
                &TORUS,
                256.0,
                4,
                RING_USD,
                LIBRA_RING,
                source,
            ),
            tier(
                "neuronlink-inter",
                "NeuronLink-v3 between the 4 instances of an UltraServer",
                &TORUS,
                128.0,
                4,
                RING_USD,
                LIBRA_RING,
                source,
            ),
            tier(
                "efa-v3",
                "EFAv3, 3.2 Tb/s per 16-chip instance",
                &FABRIC,
                25.0,
                1_024,
                NDR_USD,
                &ndr_price("no public EFA price: priced per GB/s as a 2-level NDR fat tree"),
                source,
            ),
        ],
        max_npus: 65_536,
        fabric: None,
        sources: vec![source.into()],
        notes: "AWS states NeuronLink per device without a direction; the figures are read as \
                both directions together and halved (1,024 -> 512 GB/s per direction over two \
                axes = 256 each; 256 -> 128). EFA's reach has no published limit here: 1,024 \
                UltraServers (65,536 chips) as LIBRA's largest fat tree."
            .into(),
    }
}

fn meta_roce_24k() -> SystemSpec {
    let source = "Llama 3 Herd of Models, arXiv 2407.21783, section 3.3.1: 8 GPUs per server on \
                  NVLink, 400 Gb/s RoCE per GPU, 16 GPUs per rack on one Minipack2 ToR, 192 racks \
                  a pod of 3,072 GPUs with full bisection, 8 pods joined by aggregation switches \
                  at 1:7 oversubscription";
    let roce = |name: &str, title: &str, n: u32, usd: (f64, f64, f64), what: &str| {
        tier(
            name,
            title,
            &FABRIC,
            50.0,
            n,
            usd,
            &format!(
                "no public 400G Ethernet price: priced per GB/s as NDR InfiniBand, {what} \
                 (switch ports at $11.25, links at $25.6 per GB/s, NIC $31.6 (LIBRA's \
                 assumption) at the rack), from {CHEAH}"
            ),
            source,
        )
    };
    let mut agg = roce(
        "roce-agg",
        "400 Gb/s RoCE, aggregation layer (1:7)",
        8,
        (25.6, 11.25, 0.0),
        "1 port and 1 link per GPU",
    );
    agg.oversubscription = Some(7.0);
    let mut pod = roce(
        "roce-pod",
        "400 Gb/s RoCE, cluster switches (a 3,072-GPU pod)",
        192,
        (25.6, 22.5, 0.0),
        "2 ports and 1 link per GPU",
    );
    // Full bisection above the racks: the pod level carries what the rack level does.
    pod.oversubscription = Some(1.0);
    SystemSpec {
        name: "meta-roce-24k".into(),
        title: "Meta's 24K-GPU RoCE cluster (Llama 3)".into(),
        accelerator: "h100-sxm".into(),
        scale_up_npus: 8,
        dims: vec![
            dim(Topology::Switch, Some(8), "nvlink4"),
            dim(Topology::Switch, Some(2), "roce-rack"),
            dim(Topology::Switch, Some(192), "roce-pod"),
            dim(Topology::Switch, None, "roce-agg"),
        ],
        tiers: vec![
            nvswitch(
                "nvlink4",
                "NVLink 4 / NVSwitch (Grand Teton)",
                450.0,
                8,
                source,
            ),
            roce(
                "roce-rack",
                "400 Gb/s RoCE, rack switch (2 servers)",
                2,
                (25.6, 22.5, 31.6),
                "2 ports and 1 link per GPU",
            ),
            pod,
            agg,
        ],
        max_npus: 24_576,
        // A pod: 192 rack switches of 16 NICs under the cluster switches, full bisection (16
        // links up a rack switch, one to each of 16 spines: assumed, as a non-blocking leaf).
        fabric: Some(LeafSpine {
            tier: "roce-pod".into(),
            rails: 1,
            leaf_npus: 16,
            spines: 16,
            max_leaves: 192,
            source: format!("{source}; 16 uplinks per rack switch (full bisection) assumed"),
        }),
        sources: vec![source.into()],
        notes: "The rack, pod and aggregation levels are one fabric: the pod level carries what \
                the rack level does (full bisection) and the aggregation level 1/7 of it, in the \
                system's own bandwidths (50, 50, 7.1 GB/s per GPU) and in every design the \
                optimizer makes on it (model::taper)."
            .into(),
    }
}

fn hgx_h800() -> SystemSpec {
    SystemSpec {
        name: "hgx-h800".into(),
        title: "DeepSeek's H800 cluster (DeepSeek-V3)".into(),
        accelerator: "h800-sxm".into(),
        scale_up_npus: 8,
        dims: vec![
            dim(Topology::Switch, Some(8), "nvlink-h800"),
            dim(Topology::Switch, None, "ib-mpft"),
        ],
        tiers: vec![
            nvswitch(
                "nvlink-h800",
                "NVLink (H800, as DeepSeek reaches it)",
                160.0,
                8,
                "DeepSeek-V3 technical report, arXiv 2412.19437, section 3.2.2: \"NVLink offers a \
                 bandwidth of 160 GB/s, roughly 3.2 times that of IB (50 GB/s)\"",
            ),
            tier(
                "ib-mpft",
                "InfiniBand 400 Gb/s, 8-plane 2-level fat tree",
                &FABRIC,
                50.0,
                2_048,
                (54.05, 33.75, 31.6),
                "DeepSeek's own cost model (Zhao et al., ISCA 2025, arXiv 2505.09343, read \
                 through a summary): a multi-plane fat tree at $4.39k per 400 Gb/s endpoint = \
                 $87.8 per GB/s of switches and links, split as NDR's 3 switch ports ($33.75) \
                 and links ($54.05); NIC $31.6 (LIBRA's assumption)",
                "arXiv 2412.19437 section 3.1 (2,048 H800 GPUs, 8 per node, InfiniBand between \
                 nodes) and arXiv 2505.09343 (8 planes, one 400 Gb/s NIC per GPU, 16,384 \
                 endpoints)",
            ),
        ],
        max_npus: 16_384,
        // Each plane a 2-level tree of 64-port switches (2,048 NICs), 8 planes.
        fabric: Some(tree(
            "ib-mpft",
            8,
            64,
            "arXiv 2505.09343: 8 planes, each a 2-level fat tree of 64-port 400 Gb/s switches",
        )),
        sources: vec!["arXiv 2412.19437; arXiv 2505.09343".into()],
        notes: "Each GPU's NIC sits in its own plane (as rails do); cross-plane traffic goes \
                through NVLink first, which the hierarchical collectives of the model already do."
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_lays_its_typical_sizes() {
        for s in system_presets() {
            s.validate().unwrap_or_else(|e| panic!("{e}"));
            assert!(
                super::super::accelerators::accelerator(&s.accelerator).is_some(),
                "{}",
                s.name
            );
            let net = s.network(s.max_npus).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(net.total_npus().unwrap(), s.max_npus, "{}", s.name);
            // Every dimension within its tier's limit, and priced.
            let costs = s.cost_model();
            assert!(costs.limit_notes(&net).is_empty(), "{}", s.name);
            let unit = costs.unit_costs(&net).unwrap();
            assert!(unit.iter().all(|u| *u > 0.0), "{}", s.name);
        }
    }

    #[test]
    fn a_dgx_h100_of_4096_gpus_is_nvswitch_8_by_an_ndr_fabric_of_512_nodes() {
        let s = system_preset("dgx-h100").unwrap();
        let net = s.network(4096).unwrap();
        assert_eq!(net.shape_label(), "Switch 8 × Switch 512");
        assert_eq!(net.dims[0].tier, "nvlink4");
        assert_eq!(net.dims[1].tier, "ib-ndr");
        assert_eq!(s.bandwidths(&net), vec![450.0, 50.0]);
        // Per GPU: NVLink 450 x (4 + 13) = $7,650; NDR 50 x (51.2 + 33.75 + 31.6) = $5,827.5.
        let cost = s.cost_model().network_cost(&net, &[450.0, 50.0]).unwrap();
        assert!((cost.total_usd() - 4096.0 * (7_650.0 + 5_827.5)).abs() < 1e-3);
        // A node alone, and sizes that do not fill the system, are refused or laid.
        assert_eq!(s.network(8).unwrap().dims.len(), 1);
        assert!(matches!(
            s.network(12),
            Err(super::super::system::SystemSpecError::DoesNotFill { .. })
        ));
        assert!(s.network(32_768).is_err());
    }

    #[test]
    fn tpus_are_tori_and_meta_tapers_between_pods() {
        let v4 = system_preset("tpu-v4").unwrap();
        assert_eq!(
            v4.network(4096).unwrap().shape_label(),
            "Ring 16 × Ring 16 × Ring 16"
        );
        assert_eq!(
            v4.network(512).unwrap().shape_label(),
            "Ring 8 × Ring 8 × Ring 8"
        );
        let meta = system_preset("meta-roce-24k").unwrap();
        let net = meta.network(24_576).unwrap();
        assert_eq!(
            net.shape_label(),
            "Switch 8 × Switch 2 × Switch 192 × Switch 8"
        );
        let bw = meta.bandwidths(&net);
        assert!((bw[3] - 50.0 / 7.0).abs() < 1e-12);
        // 4,096 GPUs are more than a pod and not whole pods.
        assert!(meta.network(4096).is_err());
        // A partly built pod.
        assert_eq!(
            meta.network(2048).unwrap().shape_label(),
            "Switch 8 × Switch 2 × Switch 128"
        );
    }

    #[test]
    fn the_step_models_view_takes_the_scale_up_and_the_first_tier_beyond_it() {
        let compute = crate::predict::system::System::dgx_a100().compute;
        let trn = system_preset("trn2-ultraserver")
            .unwrap()
            .step_system(&compute);
        assert_eq!(trn.scale_up_npus, 64);
        assert_eq!(trn.scale_up.gbps_per_npu, 256.0);
        assert_eq!(trn.scale_out.gbps_per_npu, 25.0);
        let meta = system_preset("meta-roce-24k")
            .unwrap()
            .step_system(&compute);
        assert_eq!(meta.scale_out.gbps_per_npu, 50.0);
        assert_eq!(meta.accelerator.bf16_tflops, 989.0);
        meta.validate().unwrap();
        let v4 = system_preset("tpu-v4").unwrap().step_system(&compute);
        assert_eq!(v4.scale_out, v4.scale_up);
    }
}
