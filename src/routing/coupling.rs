//! Coupling with LIBRA (docs/routing.md section 5, ours): a `Switch` dimension as a Clos fabric whose
//! AllReduce groups are rings, the routing efficiency `eta` of a routing there, and what better
//! routing saves.
//!
//! With `nic_gbps = 8 B_d` and chunks of `m / g_d`, the contention-free All-Reduce time of a ring of
//! `g_d` hosts is `2 (g_d - 1) (m / g_d) / B_d` ns: exactly LIBRA's `msg_d / B_d`. A routing stretches
//! it to `T_static`; `eta = min_j T_cf,j / T_static,j` in (0, 1] and does not depend on `B_d` (rates
//! scale with capacities), so LIBRA's time uses `eta B_d` and stays convex.

use super::generate::{generate, GenerateError, Placement};
use super::metrics::{measure, Metrics, Routing};
use super::scenario::{Instance, RouteScenario};

/// A Switch dimension's fabric and the rings it carries.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchFabric {
    /// Hosts (NPUs of this dimension's groups) per ToR.
    pub hosts_per_tor: u32,
    pub spines: u32,
    /// Spine-link capacity over NIC capacity (1: non-blocking).
    pub rho: f64,
    pub failed_spines: u32,
    pub failed_links: u32,
    pub seed: u64,
}

/// The Clos of a Switch dimension with `rings` AllReduce groups of `group` NPUs each, at `bw_gbps`
/// GB/s per NPU, for a message of `message_bytes` entering the dimension.
pub fn switch_scenario(
    group: u32,
    rings: u32,
    fabric: &SwitchFabric,
    bw_gbps: f64,
    message_bytes: f64,
) -> Result<RouteScenario, GenerateError> {
    if !(bw_gbps.is_finite() && bw_gbps > 0.0) {
        return Err(GenerateError::NotPositive("the bandwidth"));
    }
    if !(fabric.rho.is_finite() && fabric.rho > 0.0) {
        return Err(GenerateError::NotPositive("rho"));
    }
    let hosts = group * rings;
    let tors = hosts.div_ceil(fabric.hosts_per_tor.max(1));
    let mut sc = generate(&Placement {
        tors,
        spines: fabric.spines,
        hosts_per_tor: fabric.hosts_per_tor,
        jobs: 1,
        ring_size: group,
        failed_spines: fabric.failed_spines,
        failed_links: fabric.failed_links,
        seed: fabric.seed,
        chunk_bytes: message_bytes / f64::from(group),
        link_gbps: 8.0 * bw_gbps,
        nic_gbps: None,
        models: Vec::new(),
    })?;
    sc.network.nic_gbps = 8.0 * bw_gbps;
    sc.network.link_gbps = fabric.rho * 8.0 * bw_gbps;
    Ok(sc)
}

/// Which All-Reduce time the efficiency compares with the contention-free one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EtaBasis {
    /// `T_static` (docs/routing.md section 5's definition).
    Static,
    /// `T_fluid`, the event-driven simulation (the spec's optional variant).
    Fluid,
}

/// `eta = min over jobs of T_cf / T` of `routing`, with `T` the static or the fluid time.
pub fn efficiency(inst: &Instance, routing: &Routing, basis: EtaBasis) -> f64 {
    efficiency_of(&measure(inst, routing), basis)
}

/// [`efficiency`] from already measured metrics.
pub fn efficiency_of(m: &Metrics, basis: EtaBasis) -> f64 {
    let times = match basis {
        EtaBasis::Static => &m.job_allreduce_time_static_s,
        EtaBasis::Fluid => &m.job_allreduce_time_fluid_s,
    };
    m.contention_free_allreduce_time_s
        .iter()
        .zip(times)
        .map(|(cf, t)| cf / t)
        .fold(1.0, f64::min)
}

/// What routing with efficiency `eta_alg` instead of `eta_base` saves, in $, to deliver an effective
/// `target_gbps` per NPU on a dimension of unit cost `unit_usd_per_gbps` over `npus` NPUs:
/// `N u B* (1/eta_base - 1/eta_alg)`.
pub fn savings_usd(
    npus: f64,
    unit_usd_per_gbps: f64,
    target_gbps: f64,
    eta_base: f64,
    eta_alg: f64,
) -> f64 {
    npus * unit_usd_per_gbps * target_gbps * (1.0 / eta_base - 1.0 / eta_alg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::{ecmp, greedy};

    fn fabric() -> SwitchFabric {
        SwitchFabric {
            hosts_per_tor: 4,
            spines: 2,
            rho: 1.0,
            failed_spines: 0,
            failed_links: 0,
            seed: 3,
        }
    }

    #[test]
    fn the_contention_free_time_is_libras_term() {
        // GPT-3's WeightGrad on LIBRA's 4D network: 32 NPUs in the Switch dimension, m bytes entering.
        let (g, b, m) = (32u32, 18.78, 4.2e8);
        let sc = switch_scenario(g, 4, &fabric(), b, m).unwrap();
        let inst = sc.instance().unwrap();
        let met = measure(&inst, &greedy(&inst));
        let libra_ns = 2.0 * m * f64::from(g - 1) / f64::from(g) / b;
        let cf_ns = met.contention_free_allreduce_time_s[0] * 1e9;
        assert!(
            (cf_ns / libra_ns - 1.0).abs() < 1e-12,
            "{cf_ns} vs {libra_ns}"
        );
    }

    #[test]
    fn eta_is_in_0_1_and_does_not_depend_on_the_bandwidth() {
        for b in [10.0, 125.0, 700.0] {
            let sc = switch_scenario(8, 4, &fabric(), b, 1e8).unwrap();
            let inst = sc.instance().unwrap();
            let (e, g) = (
                efficiency(&inst, &ecmp(&inst), EtaBasis::Static),
                efficiency(&inst, &greedy(&inst), EtaBasis::Static),
            );
            // 4 hosts per ToR over 2 spines: at best 2 flows per link, eta 1/2; ECMP may do worse.
            assert!((g - 0.5).abs() < 1e-12, "greedy eta {g}");
            assert!(e > 0.0 && e <= g + 1e-12, "ecmp eta {e}");
            let at_100 = {
                let sc = switch_scenario(8, 4, &fabric(), 100.0, 1e8).unwrap();
                let inst = sc.instance().unwrap();
                efficiency(&inst, &ecmp(&inst), EtaBasis::Static)
            };
            assert!((e - at_100).abs() < 1e-12);
            // Greedy's rates are all equal, so the fluid simulation runs the static steps: the
            // fluid variant agrees. ECMP's fluid efficiency is a ratio of times too: in (0, 1].
            let fluid = efficiency(&inst, &greedy(&inst), EtaBasis::Fluid);
            assert!((fluid - g).abs() < 1e-9, "fluid eta {fluid} vs {g}");
            let ecmp_fluid = efficiency(&inst, &ecmp(&inst), EtaBasis::Fluid);
            assert!(
                ecmp_fluid > 0.0 && ecmp_fluid <= 1.0 + 1e-12,
                "{ecmp_fluid}"
            );
        }
        assert_eq!(
            savings_usd(4096.0, 57.4, 18.78, 0.25, 0.5),
            4096.0 * 57.4 * 18.78 * 2.0
        );
    }

    #[test]
    fn a_scenario_with_eta_is_a_scenario_with_less_bandwidth_at_the_same_cost() {
        use crate::optimize::{compile, solve, SolveOptions};
        use crate::presets;
        let base = presets::default_scenario();
        let mut sc = base.clone();
        sc.efficiency = vec![None, None, None, Some(0.5)];
        let bw = [300.0, 100.0, 60.0, 40.0];
        let (a, b) = (
            sc.evaluate(&bw).unwrap(),
            base.evaluate(&[300.0, 100.0, 60.0, 20.0]).unwrap(),
        );
        assert!((a.time_ns - b.time_ns).abs() < 1e-9 * b.time_ns);
        assert_eq!(a.cost_usd, base.evaluate(&bw).unwrap().cost_usd);
        // The optimizer sees the same: its time is the evaluation's, and halving eta costs time.
        let s = solve(&compile(&sc).unwrap(), &SolveOptions::default()).unwrap();
        assert!((sc.evaluate(&s.bw_gbps).unwrap().time_ns / s.time_ns - 1.0).abs() < 1e-9);
        let s0 = solve(&compile(&base).unwrap(), &SolveOptions::default()).unwrap();
        assert!(s.time_ns > s0.time_ns);
        sc.efficiency = vec![Some(1.5), None, None, None];
        assert!(sc
            .validate()
            .unwrap_err()
            .to_string()
            .contains("dimension 1: routing efficiency"));
    }
}
