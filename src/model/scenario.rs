//! The Scenario: network, cost tiers, workloads (with weights and communicators), constraints,
//! objective and modelling options. The one object that the optimizer, the permalink codec, the CLI
//! and the UI share; serialized as JSON.

use super::communicator::{Communicator, CommunicatorError};
use super::cost::{CostError, CostModel, NetworkCost};
use super::network::{Network, NetworkError};
use super::training::{
    check_bandwidths, iteration_time_on, ModelOptions, TimeBreakdown, TimeError,
};
use super::workload::{Collective, Over, PhaseKind, Workload, WorkloadError};
use serde::{Deserialize, Serialize};

/// One workload of the scenario; the objective adds `weight * T` over workloads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadSpec {
    pub name: String,
    #[serde(default = "one")]
    pub weight: f64,
    pub workload: Workload,
    pub communicator: Communicator,
}

fn one() -> f64 {
    1.0
}

impl WorkloadSpec {
    /// That the communicator gives groups to a `kind` phase running `phase`'s collective over
    /// its groups; else the error naming `layer` (1-based index and name).
    pub fn groups_exist(
        &self,
        kind: PhaseKind,
        phase: &super::workload::Phase,
        layer: (usize, &str),
    ) -> Result<(), ScenarioError> {
        if !self
            .communicator
            .groups_for(kind, phase.collective, phase.over)
            .is_empty()
        {
            return Ok(());
        }
        let (layer, name) = (layer.0, layer.1.to_string());
        Err(match phase.over {
            Over::Phase => TimeError::NoPipeline { layer, name },
            over => TimeError::NoGroups {
                layer,
                name,
                over: over.name(),
            },
        }
        .into())
    }
}

/// The total-bandwidth constraint: `sum_d B_d = total` (LIBRA's) or `<= total`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TotalBandwidth {
    Equal(f64),
    AtMost(f64),
}

/// Constraints on the bandwidths B (GB/s per NPU). Bounds are per dimension, `None` = unbounded.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Constraints {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bw: Option<TotalBandwidth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub min_gbps: Vec<Option<f64>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub max_gbps: Vec<Option<f64>>,
    /// General linear constraints as text, e.g. `"B1 >= B2"` (parsed by the optimizer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub linear: Vec<String>,
}

/// What the optimizer minimizes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    /// Training time (LIBRA's PerfOpt).
    #[default]
    Time,
    /// Time x cost (LIBRA's PerfPerCostOpt; reported as `T_ns * Cost_usd / 1e10`).
    TimeXCost,
    /// Network cost, subject to a training-time target.
    Cost { time_target_ns: f64 },
}

/// The longest page title before " - libra-studio" (names from links can be long).
pub const TITLE_CHARS: usize = 120;

/// A whole design problem.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub name: String,
    pub network: Network,
    pub costs: CostModel,
    pub workloads: Vec<WorkloadSpec>,
    #[serde(default)]
    pub constraints: Constraints,
    #[serde(default)]
    pub objective: Objective,
    #[serde(default)]
    pub model: ModelOptions,
    /// Routing efficiency of each dimension's fabric (docs/routing.md section 5; None or empty = 1):
    /// times use the effective bandwidth `eta_d B_d`, cost the provisioned `B_d`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub efficiency: Vec<Option<f64>>,
}

/// Why a scenario is not usable or cannot be evaluated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ScenarioError {
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error(transparent)]
    Cost(#[from] CostError),
    #[error("the scenario has no workloads")]
    NoWorkloads,
    #[error(
        "workload {index} (\"{name}\"): weight must be a positive finite number, got {weight}"
    )]
    BadWeight {
        index: usize,
        name: String,
        weight: f64,
    },
    #[error("workload {index} (\"{name}\"): {source}")]
    Workload {
        index: usize,
        name: String,
        source: WorkloadError,
    },
    #[error("workload {index} (\"{name}\") communicator: {source}")]
    Communicator {
        index: usize,
        name: String,
        source: CommunicatorError,
    },
    #[error(transparent)]
    Time(#[from] TimeError),
    #[error("the {quantity} overflows: {} is beyond the range of 64-bit numbers (bandwidths or sizes too extreme)", crate::format::number(*.value))]
    Overflow { quantity: &'static str, value: f64 },
    #[error("dimension {dim}: routing efficiency must be in (0, 1], got {}", crate::format::number(*.value))]
    BadEfficiency { dim: usize, value: f64 },
    #[error("{given} routing efficiencies given for a network of {dims} dimensions")]
    EfficiencyCount { given: usize, dims: usize },
}

/// The time and cost of a scenario at one bandwidth vector, with their breakdowns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evaluation {
    pub bw_gbps: Vec<f64>,
    /// `sum_w weight_w * T_w`, ns.
    pub time_ns: f64,
    /// Weighted compute time, ns.
    pub compute_ns: f64,
    pub cost_usd: f64,
    pub cost: NetworkCost,
    pub workloads: Vec<WorkloadEvaluation>,
}

/// One workload's share of an [`Evaluation`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkloadEvaluation {
    pub name: String,
    pub weight: f64,
    pub time: TimeBreakdown,
}

impl Evaluation {
    /// Weighted exposed communication by phase kind, then dimension.
    pub fn exposed_ns(&self) -> [Vec<f64>; 3] {
        let dims = self.bw_gbps.len();
        let mut out: [Vec<f64>; 3] = std::array::from_fn(|_| vec![0.0; dims]);
        for w in &self.workloads {
            for kind in PhaseKind::ALL {
                for (o, e) in out[kind.index()]
                    .iter_mut()
                    .zip(&w.time.exposed_ns[kind.index()])
                {
                    *o += w.weight * e;
                }
            }
        }
        out
    }

    /// Weighted exposed communication by kind of traffic (TP, CP, EP, PP, DP), then dimension.
    pub fn exposed_by_traffic(&self) -> [Vec<f64>; 5] {
        let dims = self.bw_gbps.len();
        let mut out: [Vec<f64>; 5] = std::array::from_fn(|_| vec![0.0; dims]);
        for w in &self.workloads {
            for (o, t) in out.iter_mut().zip(&w.time.by_traffic_ns) {
                for (o, e) in o.iter_mut().zip(t) {
                    *o += w.weight * e;
                }
            }
        }
        out
    }

    /// LIBRA's PerfPerCost objective value: `T_ns * Cost_usd / 1e10`.
    pub fn time_x_cost(&self) -> f64 {
        self.time_ns * self.cost_usd / 1e10
    }
}

impl Scenario {
    /// The page's title: the workloads on the network's shape, e.g. "GPT_3 on Ring 4 ×
    /// FullyConnected 8 × Ring 4 × Switch 32 - libra-studio" (at most 3 workloads named, and
    /// at most [`TITLE_CHARS`] characters before the app's name).
    pub fn title(&self) -> String {
        let names: Vec<&str> = self
            .workloads
            .iter()
            .take(3)
            .map(|w| w.name.as_str())
            .collect();
        let what = match self.workloads.len() {
            0 => self.name.clone(),
            1..=3 => names.join(", "),
            n => format!("{} and {} more", names.join(", "), n - 3),
        };
        let mut text = format!("{what} on {}", self.network.shape_label());
        if text.chars().count() > TITLE_CHARS {
            text = text.chars().take(TITLE_CHARS - 1).collect::<String>() + "…";
        }
        format!("{text} - libra-studio")
    }

    /// A scenario of one workload (weight 1) with no constraints, minimizing time, LIBRA-compatible.
    pub fn single(
        name: impl Into<String>,
        network: Network,
        costs: CostModel,
        workload_name: impl Into<String>,
        workload: Workload,
        communicator: Communicator,
    ) -> Scenario {
        Scenario {
            name: name.into(),
            network,
            costs,
            workloads: vec![WorkloadSpec {
                name: workload_name.into(),
                weight: 1.0,
                workload,
                communicator,
            }],
            constraints: Constraints::default(),
            objective: Objective::default(),
            model: ModelOptions::default(),
            efficiency: Vec::new(),
        }
    }

    /// Check every part; the first problem found is returned, naming its field.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.validate_setting()?;
        for (i, w) in self.workloads.iter().enumerate() {
            w.workload
                .validate()
                .map_err(|source| ScenarioError::Workload {
                    index: i + 1,
                    name: w.name.clone(),
                    source,
                })?;
            for (l, layer) in w.workload.layers.iter().enumerate() {
                for k in PhaseKind::ALL {
                    let phase = layer.phase(k);
                    if phase.collective != Collective::None {
                        w.groups_exist(k, phase, (l + 1, &layer.name))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Everything [`Scenario::validate`] checks but the workloads' layers: the network, the
    /// efficiencies, the costs, each workload's weight and communicator.
    pub fn validate_setting(&self) -> Result<(), ScenarioError> {
        self.network.validate()?;
        let dims = self.network.dims.len();
        if !self.efficiency.is_empty() && self.efficiency.len() != dims {
            return Err(ScenarioError::EfficiencyCount {
                given: self.efficiency.len(),
                dims,
            });
        }
        for (d, e) in self.efficiency.iter().enumerate() {
            if let Some(v) = *e {
                if !(v > 0.0 && v <= 1.0) {
                    return Err(ScenarioError::BadEfficiency {
                        dim: d + 1,
                        value: v,
                    });
                }
            }
        }
        self.costs.unit_costs(&self.network)?;
        if self.workloads.is_empty() {
            return Err(ScenarioError::NoWorkloads);
        }
        for (i, w) in self.workloads.iter().enumerate() {
            let (index, name) = (i + 1, w.name.clone());
            if !(w.weight.is_finite() && w.weight > 0.0) {
                return Err(ScenarioError::BadWeight {
                    index,
                    name,
                    weight: w.weight,
                });
            }
            w.communicator.validate(&self.network).map_err(|source| {
                ScenarioError::Communicator {
                    index,
                    name,
                    source,
                }
            })?;
        }
        Ok(())
    }

    /// The routing efficiency of dimension `d` (0-based): 1 unless given.
    pub fn eta(&self, d: usize) -> f64 {
        self.efficiency.get(d).copied().flatten().unwrap_or(1.0)
    }

    /// Time and cost at per-NPU bandwidths `bw_gbps` (GB/s, one per dimension).
    pub fn evaluate(&self, bw_gbps: &[f64]) -> Result<Evaluation, ScenarioError> {
        self.validate()?;
        check_bandwidths(&self.network, bw_gbps)?;
        let cost = self.costs.network_cost(&self.network, bw_gbps)?;
        let effective: Vec<f64> = bw_gbps
            .iter()
            .enumerate()
            .map(|(d, b)| b * self.eta(d))
            .collect();
        let in_network = self.costs.in_network(&self.network);
        let mut workloads = Vec::with_capacity(self.workloads.len());
        for w in &self.workloads {
            let time = iteration_time_on(
                &self.network,
                &w.workload,
                &w.communicator,
                &effective,
                &self.model,
                &in_network,
            )?;
            workloads.push(WorkloadEvaluation {
                name: w.name.clone(),
                weight: w.weight,
                time,
            });
        }
        let ev = Evaluation {
            bw_gbps: bw_gbps.to_vec(),
            time_ns: workloads.iter().map(|w| w.weight * w.time.time_ns).sum(),
            compute_ns: workloads.iter().map(|w| w.weight * w.time.compute_ns).sum(),
            cost_usd: cost.total_usd(),
            cost,
            workloads,
        };
        // A number that is not finite would print as `null` (JSON) or "$inf": refuse it by name.
        for (quantity, value) in [
            ("training time (ns)", ev.time_ns),
            ("compute time (ns)", ev.compute_ns),
            ("network cost ($)", ev.cost_usd),
        ] {
            if !value.is_finite() {
                return Err(ScenarioError::Overflow { quantity, value });
            }
        }
        Ok(ev)
    }

    pub fn to_json(&self) -> String {
        // Compact, then laid out: the app's wasm then needs only the compact serializer.
        let compact = serde_json::to_vec(self).expect("a Scenario always serializes");
        crate::format::pretty_json(&String::from_utf8(compact).expect("JSON is UTF-8"))
    }

    pub fn from_json(text: &str) -> Result<Scenario, serde_json::Error> {
        // From bytes, as the permalink decoder reads: one deserializer in the app's wasm.
        serde_json::from_slice(crate::text::without_bom(text).as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::{self, LibraNetwork, LibraWorkload};

    #[test]
    fn the_title_names_the_workloads_and_the_shape_within_its_length() {
        let mut sc = presets::libra_scenario(LibraWorkload::Gpt3, LibraNetwork::D4);
        assert_eq!(
            sc.title(),
            "GPT_3 on Ring 4 × FullyConnected 8 × Ring 4 × Switch 32 - libra-studio"
        );
        let w = sc.workloads[0].clone();
        sc.workloads = vec![w; 5];
        assert!(sc
            .title()
            .starts_with("GPT_3, GPT_3, GPT_3 and 2 more on Ring 4"));
        sc.workloads[0].name = "x".repeat(1_000);
        let t = sc.title();
        assert_eq!(t.chars().count(), TITLE_CHARS + " - libra-studio".len());
        assert!(t.ends_with("… - libra-studio"));
        sc.workloads.clear();
        assert!(sc.title().starts_with(&format!("{} on Ring 4", sc.name)));
    }

    #[test]
    fn weighted_workloads_add_up() {
        let mut sc = presets::libra_scenario(LibraWorkload::Gpt3, LibraNetwork::D4);
        let mut second = LibraWorkload::TuringNlg.spec(LibraNetwork::D4);
        second.weight = 0.5;
        sc.workloads[0].weight = 2.0;
        sc.workloads.push(second);
        let bw = [200.0, 100.0, 50.0, 150.0];
        let ev = sc.evaluate(&bw).unwrap();
        let alone = |w: LibraWorkload| {
            presets::libra_scenario(w, LibraNetwork::D4)
                .evaluate(&bw)
                .unwrap()
        };
        let (gpt, nlg) = (alone(LibraWorkload::Gpt3), alone(LibraWorkload::TuringNlg));
        let expected = 2.0 * gpt.time_ns + 0.5 * nlg.time_ns;
        assert!((ev.time_ns - expected).abs() < 1e-9 * expected);
        assert!((ev.compute_ns - (2.0 * gpt.compute_ns + 0.5 * nlg.compute_ns)).abs() < 1e-3);
        // Cost does not depend on the workloads.
        assert_eq!(ev.cost_usd, gpt.cost_usd);
        let exposed: f64 = ev.exposed_ns().iter().flatten().sum();
        assert!((ev.compute_ns + exposed - ev.time_ns).abs() < 1e-6 * ev.time_ns);
    }

    #[test]
    fn bad_weights_and_empty_scenarios_are_named() {
        let mut sc = presets::default_scenario();
        sc.workloads[0].weight = -1.0;
        assert_eq!(
            sc.validate().unwrap_err().to_string(),
            "workload 1 (\"GPT_3\"): weight must be a positive finite number, got -1"
        );
        sc.workloads.clear();
        assert_eq!(sc.validate(), Err(ScenarioError::NoWorkloads));
    }
}
