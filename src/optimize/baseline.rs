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
    fn comparison_of_the_default_scenario() {
        let c = compare(&presets::default_scenario(), 500.0).unwrap();
        let opt = c.optimum.as_ref().unwrap();
        assert!(opt.time_ns <= 722411780.9202211 * (1.0 + 1e-6));
        // libra_reference.json: speedup_over_uniform 1.072857930711946.
        assert!((c.speedup().unwrap() - 1.072857930711946).abs() < 1e-6);
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

/// The optimum next to the uniform split, at one total bandwidth (what the app's results panel shows).
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub uniform: Baseline,
    /// The optimal allocation under `sum B = total` plus the scenario's other constraints, or why
    /// there is none.
    pub optimum: Result<super::Solution, String>,
}

impl Comparison {
    /// Uniform time over optimal time, when both exist.
    pub fn speedup(&self) -> Option<f64> {
        let uniform = self.uniform.evaluation.as_ref().ok()?.time_ns;
        Some(uniform / self.optimum.as_ref().ok()?.time_ns)
    }
}

/// Evaluate the uniform split of `total_gbps` and optimize under `sum B = total_gbps`.
pub fn compare(scenario: &Scenario, total_gbps: f64) -> Result<Comparison, BaselineError> {
    let uniform = uniform_baseline(scenario, total_gbps)?;
    let mut sc = scenario.clone();
    sc.constraints.total_bw = Some(crate::model::scenario::TotalBandwidth::Equal(total_gbps));
    let optimum = super::compile(&sc)
        .map_err(|e| e.to_string())
        .and_then(|p| super::solve(&p, &super::SolveOptions::default()).map_err(|e| e.to_string()));
    Ok(Comparison { uniform, optimum })
}
