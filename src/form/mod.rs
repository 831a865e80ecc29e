//! The app's form as plain data: the texts the user typed and the choices made, and their reading
//! into a [`Scenario`] with every problem tied to the field it comes from. The UI only stores a
//! `Form` in a signal and calls [`Form::to_scenario`]; all of the reading and checking is here, tested
//! natively.

pub mod edit;
pub mod field;
pub mod row_id;
pub mod typed;
pub mod workload_source;

use crate::model::cost::{CostError, CostModel, CostTier, PriceOf};
use crate::model::network::{parse_npus, Dim, Network, NetworkError, Topology};
use crate::model::scenario::{
    Constraints, Objective, Scenario, ScenarioError, TotalBandwidth, WorkloadSpec,
};
use crate::model::training::ModelOptions;
use crate::optimize::linear::parse_constraint;
use field::{number, optional, show};
pub use field::{Field, FieldError};
use row_id::Row;
pub use row_id::RowId;

/// One row of the network table.
#[derive(Clone, Debug, PartialEq)]
pub struct DimForm {
    /// Which row this is (see [`RowId`]).
    pub id: RowId,
    pub topology: Topology,
    pub npus: String,
    pub tier: String,
    /// Latency per collective step, ns (used when the model's latency option is on); empty = 0.
    pub latency: String,
    /// Bounds on the bandwidth, GB/s; empty = none.
    pub min: String,
    pub max: String,
}

/// One cost tier: unit costs in $ per GB/s; switch and NIC empty when the tier has none.
#[derive(Clone, Debug, PartialEq)]
pub struct TierForm {
    /// Which row this is (see [`RowId`]).
    pub id: RowId,
    pub name: String,
    pub link: String,
    pub switch: String,
    pub nic: String,
    /// The most NPUs per dimension; empty = no limit.
    pub max_npus: String,
    /// Latency per collective step, ns; empty = 0.
    pub latency: String,
    /// What the tier carries besides the fields the form edits, kept as loaded.
    pub extras: TierExtras,
}

/// A system's tier figures the form does not edit (docs/systems.md): the chip's link bound, a
/// fabric level's oversubscription, in-network reduction. A design laid on a system or loaded
/// from the co-design keeps them through the form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TierExtras {
    pub max_gbps: Option<f64>,
    pub oversubscription: Option<f64>,
    pub in_network_usd: Option<f64>,
}

/// One workload: its layers and communicator come from a preset, the builder or an imported file;
/// the weight is typed.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadForm {
    /// Which row this is (see [`RowId`]).
    pub id: RowId,
    pub spec: WorkloadSpec,
    pub weight: String,
    /// The transformer it was built from (the builder's workloads): re-laid onto the network
    /// whenever the network changes, instead of keeping group sizes of another shape.
    pub built: Option<crate::model::builder::Transformer>,
}

impl Row for DimForm {
    fn id(&self) -> RowId {
        self.id
    }
}

impl Row for TierForm {
    fn id(&self) -> RowId {
        self.id
    }
}

impl Row for WorkloadForm {
    fn id(&self) -> RowId {
        self.id
    }
}

/// Which total-bandwidth constraint applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TotalKind {
    None,
    /// `sum B = total` (LIBRA's).
    #[default]
    Equal,
    AtMost,
}

/// Which objective is chosen (the time target is typed separately).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ObjectiveKind {
    #[default]
    Time,
    TimeXCost,
    Cost,
}

/// Everything the form holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Form {
    pub name: String,
    pub dims: Vec<DimForm>,
    pub tiers: Vec<TierForm>,
    pub workloads: Vec<WorkloadForm>,
    pub total_kind: TotalKind,
    pub total_bw: String,
    /// Cost budget, $; empty = none.
    pub budget: String,
    /// Linear constraints, one per line (blank lines ignored).
    pub constraints: String,
    pub objective: ObjectiveKind,
    /// Time target for the cost objective, ns.
    pub time_target: String,
    pub model: ModelOptions,
    /// Routing efficiency per dimension (set by the routing view or a link; not typed).
    pub efficiency: Vec<Option<f64>>,
}

fn opt_text(v: Option<f64>) -> String {
    v.map(show).unwrap_or_default()
}

impl Form {
    /// The form showing `sc` (reading it back gives `sc` again, for any scenario with finite numbers).
    pub fn from_scenario(sc: &Scenario) -> Form {
        let c = &sc.constraints;
        let bound = |v: &Vec<Option<f64>>, d: usize| opt_text(v.get(d).copied().flatten());
        let (total_kind, total) = match c.total_bw {
            None => (TotalKind::None, String::new()),
            Some(TotalBandwidth::Equal(t)) => (TotalKind::Equal, show(t)),
            Some(TotalBandwidth::AtMost(t)) => (TotalKind::AtMost, show(t)),
        };
        let (objective, time_target) = match sc.objective {
            Objective::Time => (ObjectiveKind::Time, String::new()),
            Objective::TimeXCost => (ObjectiveKind::TimeXCost, String::new()),
            Objective::Cost { time_target_ns } => (ObjectiveKind::Cost, show(time_target_ns)),
        };
        Form {
            name: sc.name.clone(),
            dims: sc
                .network
                .dims
                .iter()
                .enumerate()
                .map(|(d, dim)| DimForm {
                    id: RowId::fresh(),
                    topology: dim.topology,
                    npus: dim.npus.to_string(),
                    tier: dim.tier.clone(),
                    latency: if dim.latency_ns == 0.0 && dim.latency_ns.is_sign_positive() {
                        String::new()
                    } else {
                        show(dim.latency_ns)
                    },
                    min: bound(&c.min_gbps, d),
                    max: bound(&c.max_gbps, d),
                })
                .collect(),
            tiers: sc
                .costs
                .tiers
                .iter()
                .map(|t| TierForm {
                    id: RowId::fresh(),
                    name: t.name.clone(),
                    link: show(t.link),
                    switch: opt_text(t.switch),
                    nic: opt_text(t.nic),
                    max_npus: t.max_npus.map(|m| m.to_string()).unwrap_or_default(),
                    latency: if t.latency_ns == 0.0 {
                        String::new()
                    } else {
                        show(t.latency_ns)
                    },
                    extras: TierExtras {
                        max_gbps: t.max_gbps,
                        oversubscription: t.oversubscription,
                        in_network_usd: t.in_network_usd,
                    },
                })
                .collect(),
            workloads: sc
                .workloads
                .iter()
                .map(|w| WorkloadForm {
                    id: RowId::fresh(),
                    weight: show(w.weight),
                    spec: w.clone(),
                    built: None,
                })
                .collect(),
            total_kind,
            total_bw: total,
            budget: opt_text(c.budget_usd),
            constraints: c.linear.join("\n"),
            objective,
            time_target,
            model: sc.model,
            efficiency: sc.efficiency.clone(),
        }
    }

    /// The linear constraints, one per non-blank line, with their 1-based line numbers.
    pub fn constraint_lines(&self) -> impl Iterator<Item = (usize, &str)> {
        self.constraints
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty())
    }

    /// Read the form. Every field is read, so that all the problems are reported at once; then the
    /// scenario is checked as a whole, each problem tied to its field.
    pub fn to_scenario(&self) -> Result<Scenario, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut take = |r: Result<Option<f64>, FieldError>| {
            r.unwrap_or_else(|e| {
                errors.push(e);
                None
            })
        };
        let mut dims = Vec::with_capacity(self.dims.len());
        let (mut mins, mut maxs) = (Vec::new(), Vec::new());
        let mut npus_errors = Vec::new();
        for (i, d) in self.dims.iter().enumerate() {
            let n = i + 1;
            let npus = parse_npus(n, d.npus.trim()).unwrap_or_else(|e| {
                // The message without parse_npus's "dimension N: NPUs" prefix: the field names it.
                let message = match e {
                    NetworkError::TooFewNpus { npus, .. } => {
                        format!("must be at least 2, got {npus}")
                    }
                    NetworkError::NpusNotANumber { text, .. } => {
                        format!("must be a whole number of at least 2, got \"{text}\"")
                    }
                    other => other.to_string(),
                };
                npus_errors.push(FieldError::new(Field::DimNpus(n), message));
                2
            });
            let latency = take(optional(Field::DimLatency(n), &d.latency, true)).unwrap_or(0.0);
            mins.push(take(optional(Field::DimMin(n), &d.min, true)));
            maxs.push(take(optional(Field::DimMax(n), &d.max, false)));
            dims.push(Dim {
                topology: d.topology,
                npus,
                tier: d.tier.clone(),
                latency_ns: latency,
            });
        }
        let tiers: Vec<CostTier> = self
            .tiers
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let n = i + 1;
                CostTier {
                    max_gbps: t.extras.max_gbps,
                    oversubscription: t.extras.oversubscription,
                    in_network_usd: t.extras.in_network_usd,
                    name: t.name.trim().to_string(),
                    link: take(number(Field::TierLink(n), &t.link, true).map(Some)).unwrap_or(0.0),
                    switch: take(optional(Field::TierSwitch(n), &t.switch, true)),
                    nic: take(optional(Field::TierNic(n), &t.nic, true)),
                    max_npus: take(field::at_least_2(Field::TierMaxNpus(n), &t.max_npus))
                        .map(|m| m as u32),
                    latency_ns: take(optional(Field::TierLatency(n), &t.latency, true))
                        .unwrap_or(0.0),
                }
            })
            .collect();
        // A built workload is laid onto this network (its groups follow the shape), or says
        // why it cannot; with an NPU count unreadable it keeps its last layout.
        let typed = Network { dims: dims.clone() };
        let mut relay_errors = Vec::new();
        let workloads: Vec<WorkloadSpec> = self
            .workloads
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let laid = match (&w.built, npus_errors.is_empty()) {
                    (Some(t), true) => match t.build(&typed) {
                        Ok(spec) => Some(spec),
                        Err(e) => {
                            relay_errors.push(FieldError::new(
                                Field::WorkloadCommunicator(i + 1),
                                format!("built for another shape, it does not lay onto this one: {e}"),
                            ));
                            None
                        }
                    },
                    _ => None,
                };
                let spec = laid.map_or_else(
                    || w.spec.clone(),
                    |s| WorkloadSpec {
                        name: w.spec.name.clone(),
                        ..s
                    },
                );
                WorkloadSpec {
                    weight: take(number(Field::WorkloadWeight(i + 1), &w.weight, false).map(Some))
                        .unwrap_or(1.0),
                    ..spec
                }
            })
            .collect();
        let total = |t: &mut dyn FnMut(Result<Option<f64>, FieldError>) -> Option<f64>| {
            t(number(Field::TotalBw, &self.total_bw, false).map(Some))
        };
        let total_bw = match self.total_kind {
            TotalKind::None => None,
            TotalKind::Equal => total(&mut take).map(TotalBandwidth::Equal),
            TotalKind::AtMost => total(&mut take).map(TotalBandwidth::AtMost),
        };
        let budget_usd = take(optional(Field::Budget, &self.budget, false));
        let objective = match self.objective {
            ObjectiveKind::Time => Objective::Time,
            ObjectiveKind::TimeXCost => Objective::TimeXCost,
            ObjectiveKind::Cost => Objective::Cost {
                time_target_ns: take(number(Field::TimeTarget, &self.time_target, false).map(Some))
                    .unwrap_or(1.0),
            },
        };
        // NPU problems first: they are what the user most likely just typed.
        npus_errors.append(&mut errors);
        let mut errors = npus_errors;
        errors.append(&mut relay_errors);
        let n_dims = dims.len();
        for (line, text) in self.constraint_lines() {
            if let Err(e) = parse_constraint(text, n_dims) {
                errors.push(FieldError::new(Field::Constraint(line), e.to_string()));
            }
        }
        let bounds = |v: Vec<Option<f64>>| {
            if v.iter().all(Option::is_none) {
                Vec::new()
            } else {
                v
            }
        };
        let sc = Scenario {
            name: self.name.clone(),
            network: Network { dims },
            costs: CostModel { tiers },
            workloads,
            constraints: Constraints {
                total_bw,
                budget_usd,
                min_gbps: bounds(mins),
                max_gbps: bounds(maxs),
                linear: self
                    .constraint_lines()
                    .map(|(_, l)| l.to_string())
                    .collect(),
            },
            objective,
            model: self.model,
            efficiency: if self.efficiency.iter().all(Option::is_none) {
                Vec::new()
            } else {
                self.efficiency.clone()
            },
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        sc.validate().map_err(|e| vec![self.locate(e)])?;
        for (d, (lo, hi)) in sc
            .constraints
            .min_gbps
            .iter()
            .zip(&sc.constraints.max_gbps)
            .enumerate()
        {
            if let (Some(lo), Some(hi)) = (lo, hi) {
                if lo > hi {
                    return Err(vec![FieldError::new(
                        Field::DimMax(d + 1),
                        format!("is below the minimum {lo} GB/s"),
                    )]);
                }
            }
        }
        Ok(sc)
    }

    /// The field a scenario-level error belongs to.
    fn locate(&self, e: ScenarioError) -> FieldError {
        let tier_index = |name: &str| {
            self.tiers
                .iter()
                .position(|t| t.name.trim() == name)
                .map_or(1, |i| i + 1)
        };
        let message = e.to_string();
        let field = match &e {
            ScenarioError::Network(n) | ScenarioError::Cost(CostError::Network(n)) => match n {
                NetworkError::NpusNotANumber { dim, .. } | NetworkError::TooFewNpus { dim, .. } => {
                    Field::DimNpus(*dim)
                }
                NetworkError::BadLatency { dim, .. } => Field::DimLatency(*dim),
                NetworkError::NoDimensions | NetworkError::TooManyNpus => Field::Network,
            },
            ScenarioError::Cost(c) => match c {
                CostError::UnknownTier { dim, .. } => Field::DimTier(*dim),
                CostError::MissingUnitCost {
                    tier, component, ..
                }
                | CostError::BadUnitCost {
                    tier, component, ..
                } => match component {
                    PriceOf::Nic => Field::TierNic(tier_index(tier)),
                    PriceOf::Switch | PriceOf::InNetworkReduction => {
                        Field::TierSwitch(tier_index(tier))
                    }
                    PriceOf::Link => Field::TierLink(tier_index(tier)),
                },
                _ => Field::Network,
            },
            ScenarioError::NoWorkloads => Field::Workloads,
            ScenarioError::BadWeight { index, .. } => Field::WorkloadWeight(*index),
            ScenarioError::Workload { index, .. } => Field::Workload(*index),
            ScenarioError::Communicator { index, .. } => Field::WorkloadCommunicator(*index),
            // Evaluated at the bandwidths the constraints give.
            ScenarioError::Overflow { .. } => Field::TotalBw,
            ScenarioError::Time(_)
            | ScenarioError::BadEfficiency { .. }
            | ScenarioError::EfficiencyCount { .. } => Field::Model,
        };
        FieldError { field, message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::{self, LibraNetwork, LibraWorkload};

    #[test]
    fn the_form_of_a_scenario_reads_back_to_it() {
        for w in LibraWorkload::ALL {
            for n in LibraNetwork::ALL {
                let mut sc = presets::libra_scenario(w, n);
                sc.constraints.budget_usd = Some(1.25e7);
                sc.constraints.linear = vec!["B1 >= B2".into()];
                let dims = sc.network.dims.len();
                sc.constraints.min_gbps = vec![None; dims];
                sc.constraints.min_gbps[0] = Some(0.1);
                sc.constraints.max_gbps = vec![Some(1.0 / 3.0); dims];
                sc.network.dims[1].latency_ns = 700.5;
                sc.efficiency = vec![None; dims];
                sc.efficiency[dims - 1] = Some(0.625);
                sc.objective = Objective::Cost {
                    time_target_ns: 8e8,
                };
                assert_eq!(Form::from_scenario(&sc).to_scenario(), Ok(sc));
            }
        }
    }

    #[test]
    fn every_bad_field_is_reported_by_its_id() {
        let mut f = Form::from_scenario(&presets::default_scenario());
        f.dims[0].npus = "x".into();
        f.dims[2].min = "-3".into();
        f.dims[3].max = "0".into();
        f.tiers[1].link = "cheap".into();
        f.tiers[2].max_npus = "1".into();
        f.tiers[3].latency = "-5".into();
        f.total_bw = "".into();
        f.budget = "1e400".into();
        f.constraints = "B1 >= B2\n\nB9 = 3".into();
        f.objective = ObjectiveKind::Cost;
        let errors = f.to_scenario().unwrap_err();
        let ids: Vec<String> = errors.iter().map(|e| e.field.testid()).collect();
        assert_eq!(
            ids,
            [
                "dim-npus-1",
                "dim-min-3",
                "dim-max-4",
                "tier-link-2",
                "tier-max-npus-3",
                "tier-latency-4",
                "total-bw",
                "budget",
                "time-target",
                "constraint-text"
            ]
        );
        assert_eq!(errors[9].field, Field::Constraint(3));
        assert!(
            errors[9].message.contains("B9 does not exist"),
            "{}",
            errors[9]
        );
        assert_eq!(
            errors[4].to_string(),
            "most NPUs per dimension of tier 3: must be a whole number of at least 2 (empty: no limit), got \"1\""
        );
        assert_eq!(
            errors[0].to_string(),
            "NPUs of dimension 1: must be a whole number of at least 2, got \"x\""
        );
    }

    #[test]
    fn scenario_level_problems_are_tied_to_their_field() {
        let base = Form::from_scenario(&presets::default_scenario());
        let mut f = base.clone();
        f.dims[0].npus = "6".into(); // GPT-3's TP group of 4 does not divide 6.
        let e = f.to_scenario().unwrap_err();
        assert_eq!(e[0].field, Field::WorkloadCommunicator(1));
        let mut f = base.clone();
        f.dims[1].tier = "Nowhere".into();
        assert_eq!(f.to_scenario().unwrap_err()[0].field, Field::DimTier(2));
        let mut f = base.clone();
        f.dims[1].min = "50".into();
        f.dims[1].max = "40".into();
        let e = f.to_scenario().unwrap_err();
        assert_eq!(e[0].field, Field::DimMax(2));
        assert_eq!(e[0].message, "is below the minimum 50 GB/s");
        let mut f = base;
        f.dims[0].npus = "1".into();
        let e = f.to_scenario().unwrap_err();
        assert_eq!(e[0].message, "must be at least 2, got 1");
    }
}
