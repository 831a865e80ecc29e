//! A scenario at the uniform split: what the page shows before any optimization.

use super::uniform::{uniform_split, AllocationError};
use crate::model::scenario::{Evaluation, Scenario, ScenarioError};
use crate::model::{CostError, Network, NetworkCost};

/// The uniform split of a scenario's network: cost always (when the network is valid), time when the
/// workloads fit the network too.
#[derive(Clone, Debug, PartialEq)]
pub struct Baseline {
    pub network: Network,
    pub total_npus: u32,
    pub bw_gbps: Vec<f64>,
    pub cost: NetworkCost,
    /// Time and cost of the workloads, or why they cannot be evaluated on this network.
    pub evaluation: Result<Evaluation, ScenarioError>,
}

/// Why not even the cost of the uniform split can be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BaselineError {
    #[error(transparent)]
    Allocation(#[from] AllocationError),
    #[error(transparent)]
    Cost(#[from] CostError),
}

/// Evaluate `scenario` with `total_gbps` split evenly over its dimensions.
pub fn uniform_baseline(scenario: &Scenario, total_gbps: f64) -> Result<Baseline, BaselineError> {
    let network = scenario.network.clone();
    let total_npus = network.total_npus().map_err(CostError::from)?;
    let bw_gbps = uniform_split(network.dims.len(), total_gbps)?;
    let cost = scenario.costs.network_cost(&network, &bw_gbps)?;
    let evaluation = scenario.evaluate(&bw_gbps);
    Ok(Baseline {
        network,
        total_npus,
        bw_gbps,
        cost,
        evaluation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn default_scenario_at_500_gbps_is_libras_uniform_point() {
        let b = uniform_baseline(&presets::default_scenario(), 500.0).unwrap();
        assert_eq!(b.total_npus, 4096);
        assert_eq!(b.bw_gbps, vec![125.0; 4]);
        let ev = b.evaluation.unwrap();
        // libra_reference.json, GPT_3 4d uniform: time 775045208.4 ns, cost $34,508,892.16.
        assert!((ev.time_ns - 775045208.4).abs() < 1e-9 * 775045208.4);
        assert!((b.cost.total_usd() - 34508892.160000004).abs() < 1e-6);
    }

    #[test]
    fn a_network_the_workload_does_not_fit_still_has_a_cost() {
        let mut sc = presets::default_scenario();
        sc.network.dims[0].npus = 6; // GPT-3's TP group of 4 does not divide 6.
        let b = uniform_baseline(&sc, 500.0).unwrap();
        assert!(b.cost.total_usd() > 0.0);
        assert!(matches!(
            b.evaluation,
            Err(ScenarioError::Communicator { index: 1, .. })
        ));
    }
}
