//! Golden values: LIBRA's own time and cost (astra-sim/libra + Gurobi, tests/data/libra_reference.json)
//! at the bandwidth vectors it reports must be reproduced to 1e-9 relative, from LIBRA's input files.

mod common;

use common::{numbers as bw, reference, scenario};

fn assert_rel(what: &str, got: f64, want: f64) {
    let rel = ((got - want) / want).abs();
    assert!(rel <= 1e-9, "{what}: got {got}, LIBRA {want} (rel {rel:e})");
}

#[test]
fn time_and_cost_match_libra_at_every_reported_point() {
    let reference = reference();
    let mut checked = 0;
    for entry in reference["configs"].as_array().unwrap() {
        let sc = scenario(entry);
        let label = format!(
            "{} / {} / {}",
            entry["workload"], entry["constraint"], entry["objective"]
        );
        let ev = sc.evaluate(&bw(&entry["best"]["bw_gbps"])).unwrap();
        assert_rel(
            &format!("{label} best time"),
            ev.time_ns,
            entry["best"]["time_ns"].as_f64().unwrap(),
        );
        assert_rel(
            &format!("{label} best cost"),
            ev.cost_usd,
            entry["best"]["cost_usd"].as_f64().unwrap(),
        );
        assert_rel(
            &format!("{label} compute"),
            ev.compute_ns,
            entry["compute_ns"].as_f64().unwrap(),
        );
        let g = &entry["libra_gurobi_default"];
        let ev = sc.evaluate(&bw(&g["bw_gbps"])).unwrap();
        assert_rel(
            &format!("{label} LIBRA time"),
            ev.time_ns,
            g["libra_e2e_ns"].as_f64().unwrap(),
        );
        assert_rel(
            &format!("{label} LIBRA cost"),
            ev.cost_usd,
            g["libra_cost_usd"].as_f64().unwrap(),
        );
        if entry["objective"] == "perf_per_cost" {
            let value = entry["best"]["objective_value"].as_f64().unwrap();
            let ev = sc.evaluate(&bw(&entry["best"]["bw_gbps"])).unwrap();
            assert_rel(&format!("{label} PerfPerCost"), ev.time_x_cost(), value);
        }
        if let Some(u) = entry.get("uniform") {
            let ev = sc.evaluate(&bw(&u["bw"])).unwrap();
            assert_rel(
                &format!("{label} uniform time"),
                ev.time_ns,
                u["time_ns"].as_f64().unwrap(),
            );
            assert_rel(
                &format!("{label} uniform cost"),
                ev.cost_usd,
                u["cost_usd"].as_f64().unwrap(),
            );
        }
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} reference configs");
}

#[test]
fn pareto_points_match() {
    let reference = reference();
    let mut points = 0;
    for front in reference["pareto_fronts"].as_array().unwrap() {
        let sc = scenario(front);
        for p in front["points"].as_array().unwrap() {
            let ev = sc.evaluate(&bw(&p["bw_gbps"])).unwrap();
            assert_rel("front time", ev.time_ns, p["time_ns"].as_f64().unwrap());
            assert_rel("front cost", ev.cost_usd, p["cost_usd"].as_f64().unwrap());
            points += 1;
        }
    }
    assert!(points >= 10, "only {points} front points");
}
