//! `libra-studio route` (a routing scenario through one algorithm, measured as ROUTING.md names it)
//! and `libra-studio route-scenario` (the generator).

use super::args::{ArgError, Args};
use super::inputs::choice;
use super::Failure;
use crate::routing::algorithms::{group_order, visit_order};
use crate::routing::generate::{generate, Placement};
use crate::routing::{ecmp, greedy, greedy_capacity_aware, measure, RouteScenario};
use serde_json::{json, Value};

#[derive(Clone, Copy)]
enum Algorithm {
    Ecmp,
    Greedy,
    GreedyCapacityAware,
    Optimal,
}

/// `route SCENARIO.json --algorithm A`.
pub fn route(args: &[String]) -> Result<String, Failure> {
    let args = Args::parse(args, &["algorithm", "objective", "node-budget"], &[])?;
    let [path] = args.positional.as_slice() else {
        return Err(Failure::Usage(
            "route needs one scenario file: libra-studio route SCENARIO.json --algorithm ecmp"
                .into(),
        ));
    };
    let algorithm = choice(
        "algorithm",
        args.one("algorithm")?.unwrap_or("greedy"),
        &[
            ("ecmp", Algorithm::Ecmp),
            ("greedy", Algorithm::Greedy),
            ("greedy-capacity-aware", Algorithm::GreedyCapacityAware),
            ("optimal", Algorithm::Optimal),
        ],
    )?;
    let text = std::fs::read_to_string(path).map_err(|e| Failure::Input(format!("{path}: {e}")))?;
    let sc = RouteScenario::from_json(&text).map_err(|e| Failure::Input(format!("{path}: {e}")))?;
    let inst = sc
        .instance()
        .map_err(|e| Failure::Input(format!("{path}: {e}")))?;
    let t0 = std::time::Instant::now();
    let (name, routing) = match algorithm {
        Algorithm::Ecmp => ("ecmp", ecmp(&inst)),
        Algorithm::Greedy => ("greedy", greedy(&inst)),
        Algorithm::GreedyCapacityAware => ("greedy-capacity-aware", greedy_capacity_aware(&inst)),
        Algorithm::Optimal => return Err(Failure::Input(
            "--algorithm optimal: the exact optimizer is not in this build yet (ecmp, greedy and \
                 greedy-capacity-aware are)"
                .into(),
        )),
    };
    let routing_us = t0.elapsed().as_secs_f64() * 1e6;
    let mut out = serde_json::to_value(measure(&inst, &routing)).expect("metrics serialize");
    let obj = out.as_object_mut().expect("an object");
    obj.insert("algorithm".into(), json!(name));
    obj.insert("routing_us".into(), json!(routing_us));
    obj.insert(
        "jobs".into(),
        Value::from(sc.jobs.iter().map(|j| j.name.clone()).collect::<Vec<_>>()),
    );
    if matches!(
        algorithm,
        Algorithm::Greedy | Algorithm::GreedyCapacityAware
    ) {
        let groups = group_order(&inst);
        obj.insert("visit_order".into(), json!(visit_order(&groups)));
        obj.insert("group_order".into(), json!(groups));
    }
    Ok(serde_json::to_string_pretty(&out).expect("json"))
}

fn whole(args: &Args, name: &'static str, default: u32) -> Result<u32, ArgError> {
    match args.one(name)? {
        None => Ok(default),
        Some(t) => t.trim().parse().map_err(|_| ArgError::Bad {
            option: name.into(),
            message: format!("expected a whole number, got \"{t}\""),
        }),
    }
}

/// `route-scenario [--tors T] [--spines S] [--hosts-per-tor H] [--jobs K] [--ring-size N]
/// [--failed-spines F] [--failed-links L] [--seed X]`: a generated scenario as JSON.
pub fn route_scenario(args: &[String]) -> Result<String, Failure> {
    let names = [
        "tors",
        "spines",
        "hosts-per-tor",
        "jobs",
        "ring-size",
        "failed-spines",
        "failed-links",
        "seed",
        "chunk-bytes",
    ];
    let args = Args::parse(args, &names, &[])?;
    let d = Placement::default();
    let p = Placement {
        tors: whole(&args, "tors", d.tors)?,
        spines: whole(&args, "spines", d.spines)?,
        hosts_per_tor: whole(&args, "hosts-per-tor", d.hosts_per_tor)?,
        jobs: whole(&args, "jobs", d.jobs)?,
        ring_size: whole(&args, "ring-size", d.ring_size)?,
        failed_spines: whole(&args, "failed-spines", d.failed_spines)?,
        failed_links: whole(&args, "failed-links", d.failed_links)?,
        seed: u64::from(whole(&args, "seed", 1)?),
        chunk_bytes: match args.one("chunk-bytes")? {
            None => d.chunk_bytes,
            Some(t) => t.parse().map_err(|_| ArgError::Bad {
                option: "chunk-bytes".into(),
                message: format!("expected a number of bytes, got \"{t}\""),
            })?,
        },
    };
    let sc = generate(&p).map_err(Failure::Input)?;
    Ok(serde_json::to_string_pretty(&sc).expect("json"))
}

#[cfg(test)]
mod tests {
    use super::super::tests::run_with;

    fn temp(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("libra-route-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn generate_then_route_prints_the_specs_fields() {
        let (code, sc, err) = run_with(&["route-scenario", "--jobs", "2", "--seed", "5"]);
        assert_eq!(code, 0, "{err}");
        let path = temp("gen.json", &sc);
        for algorithm in ["ecmp", "greedy", "greedy-capacity-aware"] {
            let (code, out, err) = run_with(&["route", &path, "--algorithm", algorithm]);
            assert_eq!(code, 0, "{err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            for field in [
                "routing",
                "link_loads",
                "max_link_load",
                "flow_rates_gbps",
                "flow_rates_sorted_gbps",
                "min_flow_rate_gbps",
                "total_throughput_gbps",
                "job_bottleneck_rates_gbps",
                "job_allreduce_time_static_s",
                "job_allreduce_time_fluid_s",
                "makespan_static_s",
                "makespan_fluid_s",
                "contention_free_allreduce_time_s",
            ] {
                assert!(v.get(field).is_some(), "{algorithm}: no {field}");
            }
        }
    }

    #[test]
    fn bad_scenarios_exit_2_naming_the_field() {
        let path = temp(
            "bad.json",
            r#"{"network": {"num_spines": 2, "num_tors": 2, "link_gbps": 100, "nic_gbps": 100},
                "hosts": [{"id": 0, "tor": 0}, {"id": 1, "tor": 3}],
                "jobs": [{"name": "j", "chunk_bytes": 1e6, "rings": [[0, 1]]}]}"#,
        );
        let (code, _, err) = run_with(&["route", &path, "--algorithm", "greedy"]);
        assert_eq!(code, 2);
        assert!(err.contains("hosts[1].tor: ToR 3 does not exist"), "{err}");
        let (code, _, err) = run_with(&["route", &path, "--algorithm", "magic"]);
        assert_eq!(code, 2);
        assert!(err.contains("--algorithm"), "{err}");
    }
}
