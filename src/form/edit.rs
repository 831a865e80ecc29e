//! Changes to the form's structure: dimensions added, removed and reordered (the workloads'
//! communicators and the per-dimension bounds follow), tiers added and removed, workloads chosen
//! from LIBRA's presets, added and removed.

use super::{DimForm, Form, RowId, TierForm, WorkloadForm};
use crate::model::communicator::Communicator;
use crate::model::network::{Network, Topology};
use crate::presets::{LibraNetwork, LibraWorkload};

impl Form {
    /// Apply `f` to every group vector of every workload's communicator.
    fn each_group(&mut self, mut f: impl FnMut(&mut Vec<Option<u32>>)) {
        for w in &mut self.workloads {
            let c = &mut w.spec.communicator;
            f(&mut c.forward);
            f(&mut c.input_grad);
            f(&mut c.weight_grad);
        }
    }

    /// A new outermost dimension: a Switch of 2 NPUs on the last dimension's tier, unused by the
    /// workloads until their parallelism is laid onto it.
    pub fn add_dim(&mut self) {
        let tier = self
            .dims
            .last()
            .map(|d| d.tier.clone())
            .or_else(|| self.tiers.first().map(|t| t.name.clone()))
            .unwrap_or_default();
        let latency = self
            .tiers
            .iter()
            .find(|t| t.name == tier)
            .map(|t| t.latency.clone())
            .unwrap_or_default();
        self.dims.push(DimForm {
            id: RowId::fresh(),
            topology: Topology::Switch,
            npus: "2".into(),
            tier,
            latency,
            min: String::new(),
            max: String::new(),
        });
        self.each_group(|g| g.push(None));
        if !self.efficiency.is_empty() {
            self.efficiency.push(None);
        }
    }

    /// Remove dimension `i` (0-based); the last dimension stays.
    pub fn remove_dim(&mut self, i: usize) {
        if self.dims.len() <= 1 || i >= self.dims.len() {
            return;
        }
        self.dims.remove(i);
        if i < self.efficiency.len() {
            self.efficiency.remove(i);
        }
        self.each_group(|g| {
            if i < g.len() {
                g.remove(i);
            }
        });
    }

    /// Swap dimension `i` (0-based) with the one after it.
    pub fn move_dim_down(&mut self, i: usize) {
        if i + 1 >= self.dims.len() {
            return;
        }
        self.dims.swap(i, i + 1);
        if i + 1 < self.efficiency.len() {
            self.efficiency.swap(i, i + 1);
        }
        self.each_group(|g| {
            if i + 1 < g.len() {
                g.swap(i, i + 1);
            }
        });
    }

    /// Replace the network (and the cost tiers, when given), as from LIBRA's YAML files: bounds
    /// start empty, latencies at their tier's, preset workloads are fitted to the new shape, the other workloads'
    /// groups keep their first dimensions (the form then marks any that no longer fit).
    pub fn set_network(&mut self, net: &Network, costs: Option<&crate::model::CostModel>) {
        if let Some(c) = costs {
            self.tiers = super::Form::from_scenario(&crate::model::Scenario {
                costs: c.clone(),
                ..crate::presets::default_scenario()
            })
            .tiers;
        }
        let tiers = &self.tiers;
        self.dims = net
            .dims
            .iter()
            .map(|d| DimForm {
                id: RowId::fresh(),
                topology: d.topology,
                npus: d.npus.to_string(),
                tier: d.tier.clone(),
                latency: tiers
                    .iter()
                    .find(|t| t.name == d.tier)
                    .map(|t| t.latency.clone())
                    .unwrap_or_default(),
                min: String::new(),
                max: String::new(),
            })
            .collect();
        self.efficiency.clear();
        let dims = net.dims.len();
        for i in 0..self.workloads.len() {
            match self.preset_of(i) {
                Some(p) => self.workloads[i].spec = self.preset_workload(p).spec,
                None => {
                    let c = &mut self.workloads[i].spec.communicator;
                    for g in [&mut c.forward, &mut c.input_grad, &mut c.weight_grad] {
                        g.resize(dims, None);
                    }
                }
            }
        }
    }

    pub fn add_tier(&mut self) {
        let name = (1..)
            .map(|k| format!("Tier{k}"))
            .find(|n| self.tiers.iter().all(|t| &t.name != n))
            .expect("some name is free");
        self.tiers.push(TierForm {
            id: RowId::fresh(),
            name,
            link: "1".into(),
            switch: String::new(),
            nic: String::new(),
            max_npus: String::new(),
            latency: String::new(),
            extras: Default::default(),
        });
    }

    /// Put dimension `id` on `tier`. Its latency follows the tier's when it was the old tier's
    /// (a typed latency of its own stays).
    pub fn set_dim_tier(&mut self, id: RowId, tier: String) {
        let latency_of = |name: &str| {
            self.tiers
                .iter()
                .find(|t| t.name == name)
                .map(|t| t.latency.trim().to_string())
        };
        let Some(d) = self.dims.iter().find(|d| d.id == id) else {
            return;
        };
        let (old, new) = (latency_of(&d.tier), latency_of(&tier));
        let follows = old.is_some_and(|o| o == d.latency.trim());
        if let Some(d) = super::row_id::row_mut(&mut self.dims, id) {
            d.tier = tier;
            if let (true, Some(new)) = (follows, new) {
                d.latency = new;
            }
        }
    }

    /// Rename tier `i` (0-based); the dimensions on it follow.
    pub fn rename_tier(&mut self, i: usize, name: String) {
        let Some(t) = self.tiers.get_mut(i) else {
            return;
        };
        let old = std::mem::replace(&mut t.name, name.clone());
        for d in self.dims.iter_mut().filter(|d| d.tier == old) {
            d.tier = name.clone();
        }
    }

    pub fn remove_tier(&mut self, i: usize) {
        if i < self.tiers.len() && self.tiers.len() > 1 {
            self.tiers.remove(i);
        }
    }

    /// The network as typed, if every NPU count reads.
    pub fn typed_network(&self) -> Option<Network> {
        let dims = self
            .dims
            .iter()
            .map(|d| {
                Some(crate::model::Dim {
                    topology: d.topology,
                    npus: d.npus.trim().parse().ok()?,
                    tier: d.tier.clone(),
                    latency_ns: 0.0,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Network { dims })
    }

    /// LIBRA's workload `w` with its communicator for this network: LIBRA's own when the shape is
    /// one of LIBRA's networks, else LIBRA's 4D parallelism (TP and DP degrees) laid onto this shape
    /// (`Communicator::remap`), else LIBRA's 4D communicator as it is (then marked as not fitting).
    pub fn preset_workload(&self, w: LibraWorkload) -> WorkloadForm {
        let typed = self.typed_network();
        let same_shape = |n: &Network, l: LibraNetwork| {
            let ln = l.network();
            n.dims.len() == ln.dims.len()
                && n.dims
                    .iter()
                    .zip(&ln.dims)
                    .all(|(a, b)| a.npus == b.npus && a.topology == b.topology)
        };
        let own = LibraNetwork::ALL
            .into_iter()
            .find(|l| typed.as_ref().is_some_and(|n| same_shape(n, *l)));
        let spec = match own {
            Some(l) => w.spec(l),
            None => {
                let mut spec = w.spec(LibraNetwork::D4);
                if let Some(c) = typed.as_ref().and_then(|n| spec.communicator.remap(n).ok()) {
                    spec.communicator = c;
                } else {
                    let dims = self.dims.len();
                    let fit = |g: &mut Vec<Option<u32>>| g.resize(dims, None);
                    let c: &mut Communicator = &mut spec.communicator;
                    fit(&mut c.forward);
                    fit(&mut c.input_grad);
                    fit(&mut c.weight_grad);
                }
                spec
            }
        };
        WorkloadForm {
            id: RowId::fresh(),
            spec,
            weight: "1".into(),
            built: None,
        }
    }

    /// Replace workload `i` (0-based) with LIBRA's `w`, keeping its weight.
    pub fn set_preset_workload(&mut self, i: usize, w: LibraWorkload) {
        let new = self.preset_workload(w);
        if let Some(slot) = self.workloads.get_mut(i) {
            // Its texts are replaced: a new row (see `RowId`).
            slot.id = new.id;
            slot.spec = new.spec;
        }
    }

    pub fn add_workload(&mut self, w: LibraWorkload) {
        let new = self.preset_workload(w);
        self.workloads.push(new);
    }

    /// Add a workload built or imported elsewhere, with weight 1.
    pub fn add_spec(&mut self, spec: crate::model::scenario::WorkloadSpec) {
        self.workloads.push(WorkloadForm {
            id: RowId::fresh(),
            spec,
            weight: "1".into(),
            built: None,
        });
    }

    /// Add the workload `spec` built from `t`: re-laid onto the network when its shape changes.
    pub fn add_built(
        &mut self,
        spec: crate::model::scenario::WorkloadSpec,
        t: crate::model::builder::Transformer,
    ) {
        self.add_spec(spec);
        if let Some(w) = self.workloads.last_mut() {
            w.built = Some(t);
        }
    }

    pub fn remove_workload(&mut self, i: usize) {
        if i < self.workloads.len() && self.workloads.len() > 1 {
            self.workloads.remove(i);
        }
    }

    /// The design of the front at `budget_usd`: the front sweeps the budget over the scenario's
    /// bounds and linear constraints, so that design is the time optimum with this budget and no
    /// total-bandwidth constraint.
    pub fn load_front_point(&mut self, budget_usd: f64) {
        self.total_kind = super::TotalKind::None;
        self.budget = super::field::show(budget_usd);
        self.objective = super::ObjectiveKind::Time;
    }

    /// Which of LIBRA's workloads workload `i` is, if it is one unchanged.
    pub fn preset_of(&self, i: usize) -> Option<LibraWorkload> {
        let spec = &self.workloads.get(i)?.spec;
        LibraWorkload::ALL
            .into_iter()
            .find(|w| w.name() == spec.name && w.workload() == spec.workload)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Field;
    use super::*;
    use crate::presets;

    fn default_form() -> Form {
        Form::from_scenario(&presets::default_scenario())
    }

    #[test]
    fn a_built_workload_is_re_laid_when_the_shape_changes_or_says_why_it_cannot() {
        use crate::model::builder::Transformer;
        let mut f = default_form();
        let t = Transformer::gpt3();
        let net = presets::libra_4d_network();
        f.add_built(t.build(&net).unwrap(), t.clone());
        // Alone (LIBRA's preset would need refitting too).
        f.remove_workload(0);
        let sc = f.to_scenario().unwrap();
        assert_eq!(
            sc.workloads[0].communicator,
            t.build(&net).unwrap().communicator
        );
        // The same 4,096 NPUs as 16 x 4 x 8 x 8: TP 16 now fills the first dimension alone.
        for (d, n) in ["16", "4", "8", "8"].iter().enumerate() {
            f.dims[d].npus = n.to_string();
        }
        let sc = f.to_scenario().unwrap();
        let relaid = t.build(&sc.network).unwrap();
        assert_eq!(sc.workloads[0].communicator, relaid.communicator);
        assert_eq!(
            sc.workloads[0].communicator.forward,
            vec![Some(16), None, None, None]
        );
        assert_eq!(sc.workloads[0].name, "GPT-3 175B");
        // 2,048 NPUs: TP 16 x DP 256 no longer fits, and the workload's row says so.
        f.dims[3].npus = "4".into();
        let errors = f.to_scenario().unwrap_err();
        let e = errors
            .iter()
            .find(|e| e.field == Field::WorkloadCommunicator(1))
            .unwrap();
        assert!(
            e.message
                .starts_with("built for another shape, it does not lay onto this one"),
            "{}",
            e.message
        );
    }

    #[test]
    fn rows_keep_their_ids_through_moves_and_removals_and_get_new_ones_when_replaced() {
        let mut f = default_form();
        let dims: Vec<RowId> = f.dims.iter().map(|d| d.id).collect();
        f.move_dim_down(1);
        f.remove_dim(0);
        f.add_dim();
        let now: Vec<RowId> = f.dims.iter().map(|d| d.id).collect();
        assert_eq!(now[..3], [dims[2], dims[1], dims[3]]);
        assert!(!dims.contains(&now[3]), "an added row is a new row");
        // Typing keeps a row; replacing its texts otherwise makes it a new one.
        let w = f.workloads[0].id;
        f.workloads[0].weight = "2".into();
        assert_eq!(f.workloads[0].id, w);
        f.set_preset_workload(0, LibraWorkload::TuringNlg);
        assert_ne!(f.workloads[0].id, w);
        let before: Vec<RowId> = f.dims.iter().map(|d| d.id).collect();
        f.set_network(&presets::default_scenario().network, None);
        assert!(f.dims.iter().all(|d| !before.contains(&d.id)));
        // Two forms of one scenario share no row.
        let (a, b) = (default_form(), default_form());
        assert!(a.dims.iter().all(|d| b.dims.iter().all(|e| e.id != d.id)));
        assert!(a.tiers.iter().all(|t| b.tiers.iter().all(|u| u.id != t.id)));
    }

    #[test]
    fn adding_a_dimension_keeps_the_scenario_valid_and_the_workload_off_it() {
        let mut f = default_form();
        f.add_dim();
        let sc = f.to_scenario().unwrap();
        assert_eq!(sc.network.dims.len(), 5);
        assert_eq!(sc.network.total_npus().unwrap(), 8192);
        assert_eq!(sc.workloads[0].communicator.weight_grad[4], None);
        assert_eq!(sc.constraints.min_gbps, Vec::<Option<f64>>::new());
    }

    #[test]
    fn removing_and_moving_dimensions_carry_the_communicators() {
        let mut f = default_form();
        f.dims[3].min = "7".into();
        f.move_dim_down(2); // Ring 4 <-> Switch 32
        assert_eq!(f.dims[2].topology, Topology::Switch);
        assert_eq!(f.dims[2].min, "7");
        let c = &f.workloads[0].spec.communicator;
        assert_eq!(c.weight_grad, vec![None, Some(2), Some(32), Some(4)]);
        assert!(f.to_scenario().is_ok());
        f.remove_dim(3);
        let sc = f.to_scenario().unwrap();
        assert_eq!(
            sc.network.shape_label(),
            "Ring 4 × FullyConnected 8 × Switch 32"
        );
        assert_eq!(
            sc.workloads[0].communicator.forward,
            vec![Some(4), Some(4), None]
        );
        // The last dimension cannot be removed; moving the last one down does nothing.
        let mut g = default_form();
        for _ in 0..5 {
            g.remove_dim(0);
        }
        assert_eq!(g.dims.len(), 1);
        g.move_dim_down(0);
        assert_eq!(g.dims.len(), 1);
    }

    #[test]
    fn presets_fit_the_shape_they_are_put_on() {
        let mut f = default_form();
        // LIBRA's 4D network: LIBRA's own communicator.
        f.set_preset_workload(0, LibraWorkload::TuringNlg);
        let want = LibraWorkload::TuringNlg.spec(LibraNetwork::D4);
        assert_eq!(f.workloads[0].spec, want);
        assert_eq!(f.preset_of(0), Some(LibraWorkload::TuringNlg));
        // Another shape of 4096 NPUs: GPT-3's TP 16 and DP 256 laid onto it.
        f.dims[0].npus = "16".into();
        f.dims[1].npus = "2".into();
        f.dims[2].npus = "4".into();
        f.set_preset_workload(0, LibraWorkload::Gpt3);
        let sc = f.to_scenario().unwrap();
        assert_eq!(
            sc.workloads[0].communicator.forward,
            vec![Some(16), None, None, None]
        );
        assert_eq!(
            sc.workloads[0].communicator.weight_grad,
            vec![None, Some(2), Some(4), Some(32)]
        );
        // A shape it cannot be laid on: kept, and marked.
        f.dims[3].npus = "3".into();
        f.set_preset_workload(0, LibraWorkload::Gpt3);
        let e = f.to_scenario().unwrap_err();
        assert_eq!(e[0].field, Field::WorkloadCommunicator(1));
        f.add_workload(LibraWorkload::Dlrm);
        assert_eq!(f.workloads.len(), 2);
        f.remove_workload(0);
        f.remove_workload(0);
        assert_eq!(f.workloads.len(), 1);
    }

    #[test]
    fn a_front_point_loads_as_the_time_optimum_at_its_budget() {
        use crate::analysis::study::study;
        let mut f = default_form();
        let s = study(&f.to_scenario().unwrap()).unwrap();
        let p = s.front.as_ref().unwrap().points[10].clone();
        f.load_front_point(p.budget_usd);
        let again = study(&f.to_scenario().unwrap()).unwrap();
        let rel = (again.evaluation.time_ns - p.time_ns).abs() / p.time_ns;
        assert!(rel < 2e-6, "{rel:e}");
    }

    #[test]
    fn libra_yaml_networks_replace_the_shape_and_refit_presets() {
        let mut f = default_form();
        f.dims[0].min = "5".into();
        let d3 = LibraNetwork::D3;
        f.set_network(&d3.network(), Some(&d3.cost_model()));
        let sc = f.to_scenario().unwrap();
        assert_eq!(sc.network, d3.network());
        assert_eq!(sc.costs, d3.cost_model());
        assert_eq!(
            sc.workloads[0].communicator,
            LibraWorkload::Gpt3.spec(d3).communicator
        );
        assert!(sc.constraints.min_gbps.is_empty());
    }

    #[test]
    fn tiers_are_added_with_a_free_name_and_removed() {
        let mut f = default_form();
        let before = f.tiers.len();
        f.add_tier();
        assert_eq!(f.tiers.len(), before + 1);
        assert!(f.tiers.iter().filter(|t| t.name == "Tier1").count() == 1);
        f.dims[0].tier = "Tier1".into();
        assert!(f.to_scenario().is_ok());
        f.remove_tier(before);
        assert_eq!(f.to_scenario().unwrap_err()[0].field, Field::DimTier(1));
        // Renaming a tier carries its dimensions along.
        let mut g = default_form();
        let pod = g.tiers.iter().position(|t| t.name == "InterPod").unwrap();
        g.rename_tier(pod, "Pods".into());
        let sc = g.to_scenario().unwrap();
        assert_eq!(sc.network.dims[3].tier, "Pods");
        assert_eq!(sc, {
            let mut want = presets::default_scenario();
            want.network.dims[3].tier = "Pods".into();
            want.costs.tiers[pod].name = "Pods".into();
            want
        });
    }

    #[test]
    fn a_dimensions_latency_follows_its_tier_unless_typed() {
        let mut f = Form::from_scenario(&presets::default_scenario());
        let id = f.dims[0].id;
        let latency = |f: &Form, name: &str| {
            f.tiers
                .iter()
                .find(|t| t.name == name)
                .unwrap()
                .latency
                .clone()
        };
        assert_eq!(f.dims[0].latency, latency(&f, &f.dims[0].tier.clone()));
        f.set_dim_tier(id, "InterPod".into());
        assert_eq!(f.dims[0].tier, "InterPod");
        assert_eq!(f.dims[0].latency, latency(&f, "InterPod"));
        // A latency typed by hand stays when the tier changes again.
        f.dims[0].latency = "123".into();
        f.set_dim_tier(id, "InterNode".into());
        assert_eq!(
            (f.dims[0].tier.as_str(), f.dims[0].latency.as_str()),
            ("InterNode", "123")
        );
    }
}
