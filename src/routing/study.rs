//! A routing study: what the app's Routing view shows for one setup. The setup is a generator
//! placement (plus an optional degraded link); the study routes it with ECMP, greedy, capacity-aware
//! greedy and the exact optimizer (min static makespan, within a node budget), and sweeps the number
//! of failed spines for ECMP and greedy.

use super::algorithms::{ecmp, greedy, greedy_capacity_aware};
use super::coupling::{efficiency_of, EtaBasis};
use super::exact::{optimize, Objective};
use super::generate::{generate, Placement};
use super::metrics::{measure, Metrics};
use super::scenario::{CapacityOverride, Instance, LinkKind, RouteScenario};

/// The presets of the Routing view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoutePreset {
    SingleJob,
    ThreeJobs,
    SpineFailure,
    DegradedLink,
}

impl RoutePreset {
    pub const ALL: [RoutePreset; 4] = [
        RoutePreset::SingleJob,
        RoutePreset::ThreeJobs,
        RoutePreset::SpineFailure,
        RoutePreset::DegradedLink,
    ];

    pub fn key(self) -> &'static str {
        match self {
            RoutePreset::SingleJob => "single-job",
            RoutePreset::ThreeJobs => "three-jobs",
            RoutePreset::SpineFailure => "spine-failure",
            RoutePreset::DegradedLink => "degraded-link",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            RoutePreset::SingleJob => "a single job (rings of 8)",
            RoutePreset::ThreeJobs => "three jobs sharing ToRs",
            RoutePreset::SpineFailure => "three jobs, one spine failed",
            RoutePreset::DegradedLink => "three jobs, one link at 25 Gbps",
        }
    }

    pub fn setup(self) -> RouteSetup {
        let base = Placement::default();
        match self {
            RoutePreset::SingleJob => RouteSetup {
                placement: Placement {
                    jobs: 1,
                    ring_size: 8,
                    ..base
                },
                degraded_gbps: None,
            },
            RoutePreset::ThreeJobs => RouteSetup {
                placement: base,
                degraded_gbps: None,
            },
            RoutePreset::SpineFailure => RouteSetup {
                placement: Placement {
                    failed_spines: 1,
                    ..base
                },
                degraded_gbps: None,
            },
            RoutePreset::DegradedLink => RouteSetup {
                placement: base,
                degraded_gbps: Some(25.0),
            },
        }
    }
}

/// What the Routing view routes: a generated placement, and optionally `up:tor0:spine0` degraded.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RouteSetup {
    pub placement: Placement,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degraded_gbps: Option<f64>,
}

/// The Routing view's state as a permalink carries it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RouteLink {
    pub setup: RouteSetup,
    /// Index of the algorithm shown (ECMP, greedy, capacity-aware greedy, optimal).
    pub algorithm: usize,
}

/// The largest setup the Routing view studies: its study (four routings, the fluid simulation
/// and a sweep over every number of failed spines) runs on the page, so it is kept to what takes
/// a frame or a few (8 ToRs x 8 hosts x 4 spines: about 10 ms natively; 16 x 16 x 8: about
/// 110 ms; the paper's 64 x 32 x 32 takes 4 minutes). Larger fabrics go through the command line.
pub const VIEW_MAX_HOSTS: u64 = 256;
/// See [`VIEW_MAX_HOSTS`].
pub const VIEW_MAX_SPINES: u64 = 8;

impl RouteSetup {
    /// The Routing view's own limits, checked before anything is generated.
    pub fn check_view_limits(&self) -> Result<(), String> {
        use crate::limits::{at_most, product};
        let p = &self.placement;
        let hosts = product(u64::from(p.tors), u64::from(p.hosts_per_tor));
        at_most(
            "ToRs x hosts per ToR",
            "hosts in the Routing view (use `libra-studio route` for larger fabrics)",
            hosts,
            VIEW_MAX_HOSTS,
        )
        .and(at_most(
            "spines",
            "spines in the Routing view (use `libra-studio route` for larger fabrics)",
            u64::from(p.spines),
            VIEW_MAX_SPINES,
        ))
        .map(|_| ())
        .map_err(|e| e.to_string())
    }

    pub fn scenario(&self) -> Result<RouteScenario, String> {
        let mut sc = generate(&self.placement)?;
        if let Some(gbps) = self.degraded_gbps {
            sc.network.link_capacity_overrides.push(CapacityOverride {
                kind: LinkKind::Up,
                tor: 0,
                spine: sc
                    .network
                    .failed_spines
                    .iter()
                    .max()
                    .map_or(0, |s| (s + 1) % sc.network.num_spines),
                gbps,
            });
        }
        sc.instance().map_err(|e| e.to_string())?;
        Ok(sc)
    }
}

impl Default for RouteLink {
    /// Three jobs sharing ToRs, greedy shown.
    fn default() -> Self {
        RouteLink {
            setup: RoutePreset::ThreeJobs.setup(),
            algorithm: 1,
        }
    }
}

/// One algorithm's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Routed {
    pub name: &'static str,
    pub metrics: Metrics,
    /// `eta` from the static All-Reduce times (ROUTING.md section 5).
    pub efficiency: f64,
    /// `eta` from the fluid simulation's times (the optional variant).
    pub efficiency_fluid: f64,
    /// For the optimizer: whether it proved optimality within its node budget.
    pub proven: Option<bool>,
}

impl Routed {
    fn new(name: &'static str, metrics: Metrics, proven: Option<bool>) -> Routed {
        Routed {
            name,
            efficiency: efficiency_of(&metrics, EtaBasis::Static),
            efficiency_fluid: efficiency_of(&metrics, EtaBasis::Fluid),
            metrics,
            proven,
        }
    }
}

/// Makespans against the number of failed spines.
#[derive(Clone, Debug, PartialEq)]
pub struct FailureCurve {
    pub failed: Vec<u32>,
    pub ecmp_s: Vec<f64>,
    pub greedy_s: Vec<f64>,
    /// The optimizer's least static makespan (within a quarter of the view's node budget).
    pub optimal_s: Vec<f64>,
    /// Whether each optimal point is proven.
    pub optimal_proven: Vec<bool>,
}

/// Everything the Routing view shows.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteStudy {
    pub scenario: RouteScenario,
    pub instance: Instance,
    pub routed: Vec<Routed>,
    pub failures: FailureCurve,
}

/// Nodes the view's exact optimizer may explore (it stays interactive; larger setups report
/// `proven: false`).
pub const VIEW_NODE_BUDGET: u64 = 20_000;

/// Route `setup` every way the view compares.
pub fn route_study(setup: &RouteSetup) -> Result<RouteStudy, String> {
    setup.check_view_limits()?;
    let scenario = setup.scenario()?;
    let instance = scenario.instance().map_err(|e| e.to_string())?;
    let inst = &instance;
    let mut routed: Vec<Routed> = [
        ("ECMP", ecmp(inst)),
        ("greedy", greedy(inst)),
        ("greedy (capacity-aware)", greedy_capacity_aware(inst)),
    ]
    .into_iter()
    .map(|(name, r)| Routed::new(name, measure(inst, &r), None))
    .collect();
    let opt = optimize(inst, Objective::MinMakespan, VIEW_NODE_BUDGET);
    routed.push(Routed::new(
        "optimal (min makespan)",
        measure(inst, &opt.routing),
        Some(opt.proven),
    ));
    let mut failures = FailureCurve {
        failed: Vec::new(),
        ecmp_s: Vec::new(),
        greedy_s: Vec::new(),
        optimal_s: Vec::new(),
        optimal_proven: Vec::new(),
    };
    for f in 0..setup.placement.spines {
        let mut s = setup.clone();
        s.placement.failed_spines = f;
        let Ok(sc) = s.scenario() else { break };
        let Ok(i) = sc.instance() else { break };
        failures.failed.push(f);
        failures
            .ecmp_s
            .push(measure(&i, &ecmp(&i)).makespan_static_s);
        failures
            .greedy_s
            .push(measure(&i, &greedy(&i)).makespan_static_s);
        let best = optimize(&i, Objective::MinMakespan, VIEW_NODE_BUDGET / 4);
        failures
            .optimal_s
            .push(measure(&i, &best.routing).makespan_static_s);
        failures.optimal_proven.push(best.proven);
    }
    Ok(RouteStudy {
        scenario,
        instance,
        routed,
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_refuses_setups_beyond_its_limits_before_generating() {
        // Finding 1: ring size 1, 65536 ToRs, 65535 hosts per ToR, then ring size 2 panicked with
        // "capacity overflow" (and, saved, blanked every later visit).
        let mut setup = RoutePreset::ThreeJobs.setup();
        setup.placement.tors = 65_536;
        setup.placement.hosts_per_tor = 65_535;
        setup.placement.ring_size = 2;
        let e = route_study(&setup).unwrap_err();
        assert!(
            e.contains("4294901760 is more than the limit of 256 hosts"),
            "{e}"
        );
        setup.placement.tors = 8;
        setup.placement.hosts_per_tor = 8;
        setup.placement.spines = u32::MAX;
        let e = route_study(&setup).unwrap_err();
        assert!(
            e.contains("spines: 4294967295 is more than the limit of 8"),
            "{e}"
        );
        // The largest setup the view allows is studied.
        setup.placement.spines = 8;
        setup.placement.tors = 16;
        setup.placement.hosts_per_tor = 16;
        assert!(route_study(&setup).is_ok());
    }

    #[test]
    fn every_preset_routes_and_greedy_beats_or_ties_ecmp() {
        for p in RoutePreset::ALL {
            let s = route_study(&p.setup()).unwrap();
            assert_eq!(s.routed.len(), 4);
            let make = |i: usize| s.routed[i].metrics.makespan_static_s;
            assert!(make(1) <= make(0) * (1.0 + 1e-9), "{p:?}");
            assert!(make(3) <= make(1) * (1.0 + 1e-9), "{p:?}");
            assert!(s
                .routed
                .iter()
                .all(|r| r.efficiency > 0.0 && r.efficiency <= 1.0));
            assert!(s
                .routed
                .iter()
                .all(|r| r.efficiency_fluid > 0.0 && r.efficiency_fluid <= 1.0 + 1e-12));
            assert_eq!(s.failures.failed.first(), Some(&0));
        }
        // The degraded link: the capacity-aware greedy avoids it.
        let s = route_study(&RoutePreset::DegradedLink.setup()).unwrap();
        assert!(s.routed[2].metrics.min_flow_rate_gbps >= s.routed[1].metrics.min_flow_rate_gbps);
        // More failed spines never help greedy here.
        let f = route_study(&RoutePreset::ThreeJobs.setup())
            .unwrap()
            .failures;
        assert_eq!(f.failed, vec![0, 1, 2, 3]);
        assert!(f.greedy_s.windows(2).all(|w| w[1] >= w[0] * (1.0 - 1e-9)));
        // The optimum is never worse than greedy, and (proven) never improves with a failure.
        for (o, g) in f.optimal_s.iter().zip(&f.greedy_s) {
            assert!(o <= &(g * (1.0 + 1e-9)));
        }
        assert!(f.optimal_proven.iter().all(|p| *p));
        assert!(f.optimal_s.windows(2).all(|w| w[1] >= w[0] * (1.0 - 1e-9)));
    }
}
