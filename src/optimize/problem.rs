//! `compile(&Scenario) -> Problem`: the scenario as a small convex problem over the bandwidths B.
//!
//! Every phase of every layer contributes `max_d (alpha_d + msg_d / B_d)` to the time. Message sizes
//! are linear in the collective's size, so all phases of one workload with the same phase kind and
//! collective share one shape vector and add up: one *pattern* `w max_d (a_d / B_d)` with `w` the
//! summed (weighted) size. Patterns whose shape vectors are proportional merge too. The problem
//! therefore has P patterns (a handful) whatever the number of layers:
//!
//! `T(B) = T_compute + sum_p w_p max_d (alpha_pd + a_pd / B_d)`, convex in B > 0.
//!
//! With the latency term on, occurrences merge only when their sizes are equal (the alpha term does not
//! scale); with the sum combination each pattern splits into one single-dimension pattern per
//! dimension. The no-overlap training loop is required: the overlap loop is evaluated, not optimized.

use super::linear::{parse_constraint, ConstraintError, LinearConstraint, Relation};
use crate::model::collective::{latency_steps, message_sizes_on};
use crate::model::scenario::{Objective, Scenario, ScenarioError, TotalBandwidth, WorkloadSpec};
use crate::model::{DimCombine, PhaseKind, TrainingLoop};
use std::collections::HashMap;

/// One term `w max_{d used} (alpha_d + a_d / B_d)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    pub weight: f64,
    /// Bytes per dimension (at unit weight); 0 where the dimension is not used.
    pub a: Vec<f64>,
    /// Latency per dimension, ns (0 when the latency term is off).
    pub alpha: Vec<f64>,
    /// Where the pattern comes from, e.g. "GPT_3 WeightGrad AllReduce".
    pub label: String,
}

impl Pattern {
    /// The dimensions the max runs over.
    pub fn dims(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.a.len()).filter(|&d| self.a[d] > 0.0 || self.alpha[d] > 0.0)
    }

    /// `max_d (alpha_d + a_d / B_d)` and the dimension attaining it.
    pub fn time(&self, bw: &[f64]) -> (f64, Option<usize>) {
        let mut best = (0.0, None);
        for d in self.dims() {
            let v = self.alpha[d] + self.a[d] / bw[d];
            if best.1.is_none() || v > best.0 {
                best = (v, Some(d));
            }
        }
        best
    }

    /// Every dimension whose time at `bw` is the pattern's (within a relative 1e-6): at an
    /// optimum the slowest dimensions are usually tied, and saying one of them alone bounds
    /// the pattern would contradict the other's exposed time.
    pub fn bounding(&self, bw: &[f64]) -> Vec<usize> {
        let (t, _) = self.time(bw);
        self.dims()
            .filter(|&d| {
                let v = self.alpha[d] + self.a[d] / bw[d];
                (t - v).abs() <= 1e-6 * t.abs()
            })
            .collect()
    }
}

/// The compiled problem: minimize the objective over the bandwidths subject to `rows`.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub dims: usize,
    pub compute_ns: f64,
    pub patterns: Vec<Pattern>,
    /// Network cost per GB/s of each dimension: `Cost(B) = sum_d cost_per_gbps[d] B_d` ($).
    pub cost_per_gbps: Vec<f64>,
    /// Linear constraints over B, each with a label naming where it came from.
    pub rows: Vec<LinearConstraint>,
    pub objective: Objective,
    /// Dimensions that carry no traffic at all.
    pub idle: Vec<bool>,
}

/// Why a scenario cannot be compiled.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CompileError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error(transparent)]
    Constraint(#[from] ConstraintError),
    #[error("the optimizer needs the no-overlap training loop; the overlap loop can be evaluated but not optimized yet")]
    OverlapLoop,
    #[error("constraints: {field} must be a positive finite number, got {}", crate::format::number(*.value))]
    BadValue { field: String, value: f64 },
    #[error("constraints: {field} has {given} entries for a network of {dims} dimensions")]
    BoundCount {
        field: &'static str,
        given: usize,
        dims: usize,
    },
    #[error("objective: the time target must be a positive finite number of ns, got {}", crate::format::number(*.0))]
    BadTarget(f64),
    #[error("no workload has any communication: there is nothing to optimize")]
    NoTraffic,
    #[error("the traffic classes were taken from other workloads or another latency setting")]
    StaleClasses,
}

fn positive(field: impl Into<String>, value: f64) -> Result<f64, CompileError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(CompileError::BadValue {
            field: field.into(),
            value,
        })
    }
}

/// The constraint rows of a scenario (total bandwidth, budget, bounds, linear text).
pub fn constraint_rows(
    sc: &Scenario,
    cost_per_gbps: &[f64],
) -> Result<Vec<LinearConstraint>, CompileError> {
    let dims = sc.network.dims.len();
    let c = &sc.constraints;
    let mut rows = Vec::new();
    let sum = |rel, rhs: f64, label: String| LinearConstraint {
        coeffs: vec![1.0; dims],
        rel,
        rhs,
        label,
    };
    match c.total_bw {
        Some(TotalBandwidth::Equal(t)) => {
            let t = positive("total bandwidth", t)?;
            rows.push(sum(Relation::Eq, t, format!("total bandwidth = {t} GB/s")));
        }
        Some(TotalBandwidth::AtMost(t)) => {
            let t = positive("total bandwidth", t)?;
            rows.push(sum(Relation::Le, t, format!("total bandwidth <= {t} GB/s")));
        }
        None => {}
    }
    if let Some(budget) = c.budget_usd {
        let budget = positive("budget", budget)?;
        rows.push(LinearConstraint {
            coeffs: cost_per_gbps.to_vec(),
            rel: Relation::Le,
            rhs: budget,
            label: format!("cost <= ${budget}"),
        });
    }
    for (field, bounds, rel, word) in [
        ("min_gbps", &c.min_gbps, Relation::Ge, ">="),
        ("max_gbps", &c.max_gbps, Relation::Le, "<="),
    ] {
        if !bounds.is_empty() && bounds.len() != dims {
            return Err(CompileError::BoundCount {
                field,
                given: bounds.len(),
                dims,
            });
        }
        for (d, b) in bounds.iter().enumerate() {
            if let Some(v) = *b {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(CompileError::BadValue {
                        field: format!("{field} of dimension {}", d + 1),
                        value: v,
                    });
                }
                let mut coeffs = vec![0.0; dims];
                coeffs[d] = 1.0;
                rows.push(LinearConstraint {
                    coeffs,
                    rel,
                    rhs: v,
                    label: format!("B{} {word} {v}", d + 1),
                });
            }
        }
    }
    for text in &c.linear {
        rows.push(parse_constraint(text, dims)?);
    }
    Ok(rows)
}

/// One class of a scenario's traffic: the phases of one workload with the same kind, collective
/// and groups (and, with the latency term, the same size per collective), which add up.
#[derive(Clone, Debug, PartialEq)]
struct TrafficClass {
    workload: usize,
    kind: PhaseKind,
    collective: crate::model::Collective,
    over: crate::model::workload::Over,
    /// Bytes per collective (1 without the latency term: the weight carries the bytes).
    unit_size: f64,
    /// Collectives (latency term) or bytes, times the workload's weight.
    weight: f64,
    label: String,
    /// The first layer in the class (1-based index, name), for errors.
    first_layer: (usize, String),
}

/// The half of [`compile`] that depends on the workloads' layers only, not on the network, the
/// communicators or the costs: the co-design takes it once per parallelism and compiles it on
/// every shape with [`compile_classes`].
#[derive(Clone, Debug, PartialEq)]
pub struct TrafficClasses {
    compute_ns: f64,
    latency: bool,
    classes: Vec<TrafficClass>,
}

impl TrafficClasses {
    /// `workloads` in classes (with the latency term on, sizes split them). Work is linear in
    /// the number of layers.
    pub fn of(workloads: &[WorkloadSpec], latency: bool) -> TrafficClasses {
        // (workload, phase kind, collective, groups, size bits) -> index in `classes`.
        type Key = (usize, usize, u8, u8, u64);
        let mut index: HashMap<Key, usize> = HashMap::new();
        let mut classes: Vec<TrafficClass> = Vec::new();
        let mut compute_ns = 0.0;
        for (wi, spec) in workloads.iter().enumerate() {
            compute_ns += spec.weight * spec.workload.compute_ns();
            for (l, layer) in spec.workload.layers.iter().enumerate() {
                for kind in PhaseKind::ALL {
                    let phase = layer.phase(kind);
                    if phase.collective == crate::model::Collective::None || phase.size_bytes <= 0.0
                    {
                        continue;
                    }
                    // With latency, a phase of `count` collectives is `count` occurrences of one
                    // collective of `size / count` bytes.
                    let count = f64::from(phase.count.max(1));
                    let each = phase.size_bytes / count;
                    let size_key = if latency { each.to_bits() } else { 0 };
                    let key = (
                        wi,
                        kind.index(),
                        phase.collective as u8,
                        phase.over as u8,
                        size_key,
                    );
                    let weight = if latency {
                        spec.weight * count
                    } else {
                        spec.weight * phase.size_bytes
                    };
                    let at = *index.entry(key).or_insert_with(|| {
                        let over = match phase.over {
                            crate::model::workload::Over::Phase => String::new(),
                            o => format!(" over {}", o.name()),
                        };
                        classes.push(TrafficClass {
                            workload: wi,
                            kind,
                            collective: phase.collective,
                            over: phase.over,
                            unit_size: if latency { each } else { 1.0 },
                            weight: 0.0,
                            label: format!("{} {} {}{over}", spec.name, kind, phase.collective),
                            first_layer: (l + 1, layer.name.clone()),
                        });
                        classes.len() - 1
                    });
                    classes[at].weight += weight;
                }
            }
        }
        TrafficClasses {
            compute_ns,
            latency,
            classes,
        }
    }
}

impl TrafficClasses {
    /// For each budget, the bound the co-design prunes with, `T_compute + sum_p w_p max(max_d
    /// alpha_pd, sum_d a_pd c_d / budget)` (a pattern's slowest dimension is at least its
    /// latency and at least its bytes over the bandwidth the budget buys at the pattern's
    /// prices), taken class by class without compiling `sc`: equal to the compiled problem's
    /// but for rounding, since merged patterns add. None where it does not hold or `sc` is
    /// not one these classes compile on (the sum combination, a missing workload or groups,
    /// an invalid network or cost): then compile.
    pub fn time_lower_bounds(&self, sc: &Scenario, budgets: &[f64]) -> Option<Vec<f64>> {
        if sc.model.combine != DimCombine::Max || sc.model.latency != self.latency {
            return None;
        }
        let net = &sc.network;
        let n = f64::from(net.total_npus().ok()?);
        let cost: Vec<f64> = sc
            .costs
            .unit_costs(net)
            .ok()?
            .iter()
            .map(|u| n * u)
            .collect();
        let in_network = sc.costs.in_network(net);
        let mut out = vec![self.compute_ns; budgets.len()];
        for class in &self.classes {
            let spec = sc.workloads.get(class.workload)?;
            let groups = spec
                .communicator
                .groups_for(class.kind, class.collective, class.over);
            if groups.len() != net.dims.len() {
                return None;
            }
            let sizes = message_sizes_on(class.collective, class.unit_size, groups, &in_network);
            let mut priced = 0.0;
            let mut alpha: f64 = 0.0;
            for (d, x) in sizes.iter().enumerate() {
                priced += x / sc.eta(d) * cost[d];
                if let (Some(g), true) = (groups[d], self.latency) {
                    let steps = latency_steps(class.collective, net.dims[d].topology, g);
                    alpha = alpha.max(f64::from(steps) * net.dims[d].latency_ns);
                }
            }
            for (o, b) in out.iter_mut().zip(budgets) {
                *o += class.weight * alpha.max(priced / b);
            }
        }
        Some(out)
    }
}

/// Compile a scenario. Work is linear in the number of layers; the result's size is not.
pub fn compile(sc: &Scenario) -> Result<Problem, CompileError> {
    sc.validate()?;
    compile_classes(sc, &TrafficClasses::of(&sc.workloads, sc.model.latency))
}

/// Compile `sc` with its workloads' traffic given as `classes` (from [`TrafficClasses::of`] on a
/// scenario with the same workloads, whose layers were validated then): `sc`'s own layers are
/// not read, only its network, costs, communicators, constraints and options.
pub fn compile_classes(sc: &Scenario, classes: &TrafficClasses) -> Result<Problem, CompileError> {
    sc.validate_setting()?;
    if classes.latency != sc.model.latency {
        return Err(CompileError::StaleClasses);
    }
    if sc.model.training_loop != TrainingLoop::NoOverlap {
        return Err(CompileError::OverlapLoop);
    }
    if let Objective::Cost { time_target_ns } = sc.objective {
        if !(time_target_ns.is_finite() && time_target_ns > 0.0) {
            return Err(CompileError::BadTarget(time_target_ns));
        }
    }
    let net = &sc.network;
    let dims = net.dims.len();
    let latency = sc.model.latency;
    let n = f64::from(net.total_npus().map_err(ScenarioError::from)?);
    let unit = sc.costs.unit_costs(net).map_err(ScenarioError::from)?;
    let cost_per_gbps: Vec<f64> = unit.iter().map(|u| n * u).collect();
    let compute_ns = classes.compute_ns;
    let in_network = sc.costs.in_network(net);
    let mut raw: Vec<Pattern> = Vec::new();
    for class in &classes.classes {
        let TrafficClass {
            collective,
            over,
            kind,
            unit_size,
            weight,
            ..
        } = *class;
        let label = class.label.clone();
        let Some(spec) = sc.workloads.get(class.workload) else {
            return Err(CompileError::StaleClasses);
        };
        let phase = crate::model::workload::Phase::new(0.0, collective, 1.0).over(over);
        let first = &class.first_layer;
        spec.groups_exist(kind, &phase, (first.0, &first.1))
            .map_err(CompileError::from)?;
        let groups_d = spec.communicator.groups_for(kind, collective, over);
        // Bytes over the effective bandwidth eta_d B_d: a_d / eta_d over B_d.
        let a: Vec<f64> = message_sizes_on(collective, unit_size, groups_d, &in_network)
            .iter()
            .enumerate()
            .map(|(d, x)| x / sc.eta(d))
            .collect();
        let alpha: Vec<f64> = (0..dims)
            .map(|d| match groups_d[d] {
                Some(g) if latency => {
                    f64::from(latency_steps(collective, net.dims[d].topology, g))
                        * net.dims[d].latency_ns
                }
                _ => 0.0,
            })
            .collect();
        let p = Pattern {
            weight,
            a,
            alpha,
            label,
        };
        match sc.model.combine {
            DimCombine::Max => raw.push(p),
            DimCombine::Sum => {
                for d in p.dims().collect::<Vec<_>>() {
                    let mut a = vec![0.0; dims];
                    let mut alpha = vec![0.0; dims];
                    a[d] = p.a[d];
                    alpha[d] = p.alpha[d];
                    raw.push(Pattern {
                        weight: p.weight,
                        a,
                        alpha,
                        label: format!("{} (dimension {})", p.label, d + 1),
                    });
                }
            }
        }
    }
    let patterns = merge_proportional(raw);
    if patterns.is_empty() {
        return Err(CompileError::NoTraffic);
    }
    let idle: Vec<bool> = (0..dims)
        .map(|d| patterns.iter().all(|p| p.a[d] == 0.0 && p.alpha[d] == 0.0))
        .collect();
    let rows = constraint_rows(sc, &cost_per_gbps)?;
    Ok(Problem {
        dims,
        compute_ns,
        patterns,
        cost_per_gbps,
        rows,
        objective: sc.objective,
        idle,
    })
}

/// Merge patterns whose (a, alpha) are proportional in a with equal alpha: `w max(alpha + s a'/B)`
/// with `a = s a'` is kept with `a'` normalized to a maximum of 1 when alpha is 0.
fn merge_proportional(raw: Vec<Pattern>) -> Vec<Pattern> {
    let mut out: Vec<Pattern> = Vec::new();
    for mut p in raw {
        if p.dims().next().is_none() || p.weight == 0.0 {
            continue;
        }
        let no_alpha = p.alpha.iter().all(|&x| x == 0.0);
        if no_alpha {
            let top = p.a.iter().copied().fold(0.0, f64::max);
            p.a.iter_mut().for_each(|x| *x /= top);
            p.weight *= top;
        }
        let same = |q: &Pattern| {
            q.alpha == p.alpha
                && q.a
                    .iter()
                    .zip(&p.a)
                    .all(|(x, y)| (x - y).abs() <= 1e-12 * x.abs().max(y.abs()))
        };
        match out.iter_mut().find(|q| same(q)) {
            Some(q) => {
                q.weight += p.weight;
                if !q.label.contains(&p.label) {
                    q.label = format!("{}; {}", q.label, p.label);
                }
            }
            None => out.push(p),
        }
    }
    out
}

impl Problem {
    /// `T(B)` in ns.
    pub fn time(&self, bw: &[f64]) -> f64 {
        self.compute_ns
            + self
                .patterns
                .iter()
                .map(|p| p.weight * p.time(bw).0)
                .sum::<f64>()
    }

    /// The row `Cost(B) <= budget_usd`.
    pub fn budget_row(&self, budget_usd: f64) -> LinearConstraint {
        LinearConstraint {
            coeffs: self.cost_per_gbps.clone(),
            rel: Relation::Le,
            rhs: budget_usd,
            label: format!("cost <= ${budget_usd}"),
        }
    }

    /// `Cost(B)` in $.
    pub fn cost(&self, bw: &[f64]) -> f64 {
        self.cost_per_gbps.iter().zip(bw).map(|(c, b)| c * b).sum()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn at_libras_optimum_a_pattern_is_bounded_by_tied_dimensions() {
        // GPT-3 on the 4D network: the TP all-reduces' pattern ends equally slow on d1 and d2
        // (the optimizer balanced them), so both bound it.
        let sc = crate::presets::default_scenario();
        let p = compile(&sc).unwrap();
        let sol = crate::optimize::solve(&p, &Default::default()).unwrap();
        let tp = p
            .patterns
            .iter()
            .find(|q| q.label.contains("Forward AllReduce"))
            .unwrap();
        assert_eq!(tp.bounding(&sol.bw_gbps), vec![0, 1]);
        // Off the optimum one dimension is slower.
        assert_eq!(tp.bounding(&[125.0; 4]).len(), 1);
    }

    use super::*;
    use crate::presets::{self, LibraNetwork, LibraWorkload};

    #[test]
    fn classes_taken_once_compile_on_any_network_as_the_whole_scenario_does() {
        // The co-design's path: the traffic classes of a built GPT-3 layer list, then each
        // shape's scenario without its layers. Equal problems, not close ones.
        let t = crate::model::builder::Transformer::gpt3();
        let mut sc = presets::default_scenario();
        sc.model.latency = true;
        let spec = t.build(&sc.network).unwrap();
        sc.workloads = vec![spec];
        let whole = compile(&sc).unwrap();
        let classes = TrafficClasses::of(&sc.workloads, true);
        let mut bare = sc.clone();
        bare.workloads[0].workload.layers.clear();
        assert_eq!(compile_classes(&bare, &classes).unwrap(), whole);
        // Classes from another latency setting or for a missing workload are refused.
        let off = TrafficClasses::of(&sc.workloads, false);
        assert_eq!(
            compile_classes(&bare, &off),
            Err(CompileError::StaleClasses)
        );
        bare.workloads.clear();
        assert!(compile_classes(&bare, &classes).is_err());
        // A communicator without the groups a class needs names the class's first layer.
        let mut lost = sc.clone();
        lost.workloads[0].communicator.forward = Vec::new();
        let err = compile_classes(&lost, &classes).unwrap_err().to_string();
        assert_eq!(err, compile(&lost).unwrap_err().to_string());
    }

    #[test]
    fn gpt3_4d_compiles_to_few_patterns_and_keeps_the_time() {
        let sc = presets::default_scenario();
        let p = compile(&sc).unwrap();
        assert!(p.patterns.len() <= 4, "{:?}", p.patterns.len());
        for bw in [[125.0; 4], [338.4, 84.6, 58.2, 18.8], [1.0, 2.0, 3.0, 4.0]] {
            let direct = sc.evaluate(&bw).unwrap().time_ns;
            assert!((p.time(&bw) - direct).abs() <= 1e-12 * direct, "{bw:?}");
            let cost = sc.evaluate(&bw).unwrap().cost_usd;
            assert!((p.cost(&bw) - cost).abs() <= 1e-9 * cost);
        }
        assert_eq!(p.rows.len(), 1);
        assert_eq!(p.idle, vec![false; 4]);
    }

    #[test]
    fn every_preset_compiles_exactly_with_every_combination() {
        for net in LibraNetwork::ALL {
            for w in LibraWorkload::ALL {
                for combine in [DimCombine::Max, DimCombine::Sum] {
                    for latency in [false, true] {
                        let mut sc = presets::libra_scenario(w, net);
                        sc.model.combine = combine;
                        sc.model.latency = latency;
                        sc.network
                            .dims
                            .iter_mut()
                            .for_each(|d| d.latency_ns = 700.0);
                        let p = compile(&sc).unwrap();
                        let bw: Vec<f64> = (0..p.dims).map(|d| 50.0 + 37.0 * d as f64).collect();
                        let direct = sc.evaluate(&bw).unwrap().time_ns;
                        assert!(
                            (p.time(&bw) - direct).abs() <= 1e-12 * direct,
                            "{} {combine:?} latency {latency}: {} vs {direct}",
                            sc.name,
                            p.time(&bw)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn pipelined_builder_workloads_compile_exactly_with_latency_counts() {
        use crate::model::builder::Transformer;
        use crate::model::Parallelism;
        let net = presets::libra_4d_network();
        for (tp, pp, dp, b) in [
            (16, 4, 64, 1),
            (4, 8, 128, 2),
            (8, 32, 16, 1),
            (1, 2, 2048, 3),
        ] {
            let mut t = Transformer::gpt3();
            t.parallelism = Parallelism { tp, pp, dp };
            t.micro_batch = b;
            if !t.global_batch.is_multiple_of(b * dp) {
                t.global_batch = b * dp * 4;
            }
            let spec = t.build(&net).unwrap();
            for combine in [DimCombine::Max, DimCombine::Sum] {
                for latency in [false, true] {
                    let mut sc = presets::default_scenario();
                    sc.workloads = vec![spec.clone()];
                    sc.model.combine = combine;
                    sc.model.latency = latency;
                    let p = compile(&sc).unwrap();
                    let bw = [310.0, 120.0, 45.0, 17.0];
                    let direct = sc.evaluate(&bw).unwrap().time_ns;
                    assert!(
                        (p.time(&bw) - direct).abs() <= 1e-12 * direct,
                        "TP {tp} PP {pp} {combine:?} latency {latency}: {} vs {direct}",
                        p.time(&bw)
                    );
                }
            }
        }
    }

    #[test]
    fn compile_does_not_grow_with_layers() {
        let mut sc = presets::default_scenario();
        let layers = sc.workloads[0].workload.layers.clone();
        for _ in 0..50 {
            sc.workloads[0]
                .workload
                .layers
                .extend(layers.iter().cloned());
        }
        let small = compile(&presets::default_scenario()).unwrap();
        let big = compile(&sc).unwrap();
        assert_eq!(big.patterns.len(), small.patterns.len());
        let bw = [200.0, 100.0, 50.0, 150.0];
        let direct = sc.evaluate(&bw).unwrap().time_ns;
        assert!((big.time(&bw) - direct).abs() <= 1e-11 * direct);
    }

    #[test]
    fn constraints_become_labelled_rows() {
        let mut sc = presets::default_scenario();
        sc.constraints.total_bw = Some(TotalBandwidth::Equal(1000.0));
        sc.constraints.linear = vec!["B1 = 500".into(), "B1 >= B2".into(), "B3 + B4 = 200".into()];
        sc.constraints.budget_usd = Some(1e7);
        sc.constraints.min_gbps = vec![None, Some(10.0), None, None];
        let p = compile(&sc).unwrap();
        let labels: Vec<&str> = p.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "total bandwidth = 1000 GB/s",
                "cost <= $10000000",
                "B2 >= 10",
                "B1 = 500",
                "B1 - B2 >= 0",
                "B3 + B4 = 200"
            ]
        );
        sc.constraints.max_gbps = vec![Some(1.0)];
        assert!(matches!(compile(&sc), Err(CompileError::BoundCount { .. })));
        sc.constraints.max_gbps = vec![];
        sc.constraints.linear.push("B7 = 1".into());
        assert!(matches!(compile(&sc), Err(CompileError::Constraint(_))));
        sc.constraints.linear.clear();
        sc.model.training_loop = TrainingLoop::OverlapWeightGrad;
        assert_eq!(compile(&sc), Err(CompileError::OverlapLoop));
    }
}
