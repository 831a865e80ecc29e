//! A design laid on a system: the design's workloads (their parallelism re-laid onto the
//! system's dimensions, as the shape comparison does) on the system's network for the design's
//! NPUs, priced with the system's tiers, with the latency term on. Either the optimizer chooses
//! the bandwidths, for the design's budget (or, without one, for what the system's own network
//! costs), within what the links reach and at each fabric level's ratio; or the system's
//! own bandwidths are kept (every dimension fixed at its tier's rate).

use super::system::{SystemSpec, SystemSpecError};
use crate::model::communicator::CommunicatorError;
use crate::model::cost::CostError;
use crate::model::scenario::{Constraints, Objective, Scenario};
use crate::model::taper::taper_constraints;

/// What the design's bandwidths become on the system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SystemBandwidths {
    /// Chosen by the optimizer (within what the links reach and the fabric's ratios).
    #[default]
    Optimize,
    /// The system's own, fixed.
    Keep,
}

/// Why a design cannot be laid on a system.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LayError {
    #[error("the design's network: {0}")]
    Network(String),
    #[error(transparent)]
    System(#[from] SystemSpecError),
    #[error("workload \"{workload}\" cannot be laid on the system: {source}")]
    Workload {
        workload: String,
        source: CommunicatorError,
    },
    #[error("the system's network cannot be priced: {0}")]
    Cost(#[from] CostError),
}

/// `base` laid on `spec` (module doc).
pub fn on_system(
    base: &Scenario,
    spec: &SystemSpec,
    bandwidths: SystemBandwidths,
) -> Result<Scenario, LayError> {
    let npus = base
        .network
        .total_npus()
        .map_err(|e| LayError::Network(e.to_string()))?;
    let network = spec.network(npus)?;
    let costs = spec.cost_model();
    let own = spec.bandwidths(&network);
    let mut sc = base.clone();
    for w in &mut sc.workloads {
        w.communicator = w
            .communicator
            .remap(&network)
            .map_err(|source| LayError::Workload {
                workload: w.name.clone(),
                source,
            })?;
    }
    let dims = network.dims.len();
    sc.constraints = match bandwidths {
        SystemBandwidths::Keep => Constraints {
            min_gbps: own.iter().copied().map(Some).collect(),
            max_gbps: own.iter().copied().map(Some).collect(),
            ..Constraints::default()
        },
        SystemBandwidths::Optimize => {
            let budget = match base.constraints.budget_usd {
                Some(b) => b,
                None => costs.network_cost(&network, &own)?.total_usd(),
            };
            Constraints {
                budget_usd: Some(budget),
                min_gbps: vec![Some(1.0); dims],
                max_gbps: costs.max_gbps(&network),
                linear: taper_constraints(&network, &costs),
                ..Constraints::default()
            }
        }
    };
    sc.name = format!("{} on {}", base.name, spec.name);
    sc.network = network;
    sc.costs = costs;
    sc.objective = Objective::Time;
    sc.model.latency = true;
    sc.efficiency = Vec::new();
    Ok(sc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::study::study;
    use crate::presets::default_scenario;
    use crate::systems::system_preset;

    #[test]
    fn libras_gpt3_on_a_dgx_h100_superpod_kept_and_optimized() {
        // LIBRA's GPT-3 case (4,096 NPUs, TP 16... as its communicator says) on dgx-h100.
        let base = default_scenario();
        let h100 = system_preset("dgx-h100").unwrap();
        let kept = on_system(&base, &h100, SystemBandwidths::Keep).unwrap();
        assert_eq!(kept.network.shape_label(), "Switch 8 × Switch 512");
        let k = study(&kept).unwrap();
        assert!(
            (k.optimum.bw_gbps[0] - 450.0).abs() < 1e-6,
            "{:?}",
            k.optimum.bw_gbps
        );
        assert!(
            (k.optimum.bw_gbps[1] - 50.0).abs() < 1e-6,
            "{:?}",
            k.optimum.bw_gbps
        );
        // Its cost is the system's own: 4,096 x $13,478 (docs/systems.md).
        assert!((k.evaluation.cost_usd - 4096.0 * 13_477.5).abs() < 1e-3);
        // Optimized for the same money it is no slower, and NVLink stays within the chip's.
        let opt = on_system(&base, &h100, SystemBandwidths::Optimize).unwrap();
        assert_eq!(opt.constraints.budget_usd, Some(4096.0 * 13_477.5));
        let o = study(&opt).unwrap();
        // (At the corner of the budget and both links' bounds the optimum is the kept design,
        // to the solver's certified gap.)
        assert!(
            o.evaluation.time_ns <= k.evaluation.time_ns * (1.0 + o.optimum.gap.max(1e-9)),
            "{} {}",
            o.evaluation.time_ns,
            k.evaluation.time_ns
        );
        assert!(o.optimum.bw_gbps[0] <= 450.0 * (1.0 + 1e-9));
        // Every workload keeps its parallelism's degrees.
        for (a, b) in base.workloads.iter().zip(&opt.workloads) {
            let degree = |g: &[Option<u32>]| g.iter().flatten().product::<u32>();
            assert_eq!(
                degree(&a.communicator.weight_grad),
                degree(&b.communicator.weight_grad)
            );
        }
        // Meta's fabric levels keep their ratios; a size the system cannot hold is refused.
        let mut big = base.clone();
        big.network.dims[3].npus = 192; // 4 x 8 x 4 x 192 = 24,576
        let meta = system_preset("meta-roce-24k").unwrap();
        let m = on_system(&big, &meta, SystemBandwidths::Optimize);
        match m {
            Ok(sc) => assert_eq!(sc.constraints.linear, ["B2 = B3", "B3 = 7 B4"]),
            Err(e) => panic!("{e}"),
        }
        // Compare shapes on the laid design proposes the system's kinds within its limits: the
        // NVLink domain at most 8.
        let shapes = crate::analysis::shapes::enumerate(
            4096,
            &crate::analysis::shape_run::layouts_for(&opt),
            &opt.costs,
        );
        let run = crate::analysis::shape_run::ShapeRun::new(&opt, &Default::default()).unwrap();
        assert_eq!(run.tier_limits(), "nvlink4 at most 8; ib-ndr at most 2048");
        let labels: Vec<String> = shapes.iter().map(|n| n.shape_label()).collect();
        assert!(
            labels.contains(&"Switch 8 × Switch 512".to_string()),
            "{labels:?}"
        );
        assert!(
            shapes
                .iter()
                .all(|n| n.dims[0].tier != "nvlink4" || n.dims[0].npus <= 8),
            "{labels:?}"
        );
        let e = on_system(
            &base,
            &system_preset("gb200-nvl72").unwrap(),
            SystemBandwidths::Keep,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("do not fill"), "{e}");
    }
}
