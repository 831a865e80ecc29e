//! The routing paper's authors' own simulator (ofircohen205/dcn-simulators, floodns, commit
//! 0ecf8fb) as an independent oracle: their job placements, the largest link load each of their
//! algorithms reached on each cell of their grid, and their flow-level simulation of five cells
//! (data/routing/authors/README.md says how these were produced).

use libra_studio::routing::edge_coloring::edge_coloring;
use libra_studio::routing::{ecmp, greedy, measure, Instance, RouteScenario, Routing};
use std::collections::HashMap;
use std::path::Path;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/routing/authors");

/// Their cell as our scenario: servers 96..2143, 32 a ToR, 64 ToRs x 32 spines at 100 Gb/s,
/// their rings in their member order, the last `failed` spines failed (their rule).
fn instance(jobs: u32, ring: u32, failed: u32) -> Instance {
    let text =
        std::fs::read_to_string(Path::new(DIR).join(format!("placements/j{jobs}_r{ring}.txt")))
            .unwrap();
    let mut out_jobs: Vec<String> = Vec::new();
    let mut rings: Vec<String> = Vec::new();
    let mut head: Option<(String, String)> = None;
    let mut flush = |head: &Option<(String, String)>, rings: &mut Vec<String>| {
        if let Some((name, chunk)) = head {
            out_jobs.push(format!(
                r#"{{"name": "{name}", "chunk_bytes": {chunk}, "rings": [{}]}}"#,
                rings.join(",")
            ));
        }
        rings.clear();
    };
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"job") {
            flush(&head, &mut rings);
            head = Some((words[1].to_string(), words[2].to_string()));
        } else {
            rings.push(format!("[{}]", words.join(",")));
        }
    }
    flush(&head, &mut rings);
    let hosts: Vec<String> = (96..2144)
        .map(|id| format!(r#"{{"id": {id}, "tor": {}}}"#, (id - 96) / 32))
        .collect();
    let failed: Vec<u32> = (0..failed).map(|k| 31 - k).collect();
    let json = format!(
        r#"{{"network": {{"num_spines": 32, "num_tors": 64, "link_gbps": 100, "nic_gbps": 100,
             "failed_spines": {failed:?}}}, "hosts": [{}], "jobs": [{}]}}"#,
        hosts.join(","),
        out_jobs.join(",")
    );
    RouteScenario::from_json(&json).unwrap().instance().unwrap()
}

#[test]
fn greedy_and_edge_colouring_reach_the_authors_largest_link_load_in_every_cell() {
    let table = std::fs::read_to_string(Path::new(DIR).join("max_link_load.csv")).unwrap();
    let (mut cells, mut ecmp_theirs, mut ecmp_ours) = (0, 0u32, 0u32);
    for line in table.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let n = |i: usize| f[i].parse::<u32>().unwrap();
        let (jobs, ring, failed) = (n(0), n(1), n(2));
        let inst = instance(jobs, ring, failed);
        let inter = inst.flows.iter().filter(|f| f.inter_tor()).count();
        assert_eq!(inter as u32, n(4), "{line}: flows");
        let load = |r: &Routing| r.loads(&inst).into_iter().max().unwrap_or(0);
        // The same rule (least max(up, down) count, ties to the smallest spine) in another
        // visit order, and a colouring with the same number of colours: the same largest load.
        assert_eq!(load(&greedy(&inst)), n(6), "{line}: greedy");
        assert_eq!(load(&edge_coloring(&inst)), n(7), "{line}: edge colouring");
        // ECMP hashes differently (theirs: a 32-bit integer mix of their node ids): only the
        // loads' level is comparable.
        ecmp_theirs += n(5);
        ecmp_ours += load(&ecmp(&inst));
        cells += 1;
    }
    assert_eq!(cells, 52);
    let diff = (f64::from(ecmp_ours) - f64::from(ecmp_theirs)) / f64::from(cells);
    assert!(
        diff.abs() < 0.5,
        "ECMP's mean largest load: ours {ecmp_ours}, theirs {ecmp_theirs} over {cells} cells"
    );
}

#[test]
fn their_routings_measured_by_us_take_the_time_their_simulator_took() {
    let table = std::fs::read_to_string(Path::new(DIR).join("simulated.csv")).unwrap();
    let mut checked = 0;
    for line in table.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let n = |i: usize| f[i].parse::<u32>().unwrap();
        let inst = instance(n(0), n(1), n(2));
        let routes = std::fs::read_to_string(
            Path::new(DIR).join(format!("routes/j{}_r{}_f{}_{}.txt", f[0], f[1], f[2], f[3])),
        )
        .unwrap();
        let spine_of: HashMap<(u32, u32), u32> = routes
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let v: Vec<u32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
                ((v[0], v[1]), v[2])
            })
            .collect();
        let routing = Routing(
            inst.flows
                .iter()
                .map(|fl| fl.inter_tor().then(|| spine_of[&(fl.src, fl.dst)]))
                .collect(),
        );
        let m = measure(&inst, &routing);
        let theirs = f[4].parse::<f64>().unwrap() * 1e-9;
        let free = f[5].parse::<f64>().unwrap() * 1e-9;
        // Their times carry a few nanoseconds of event rounding.
        for (what, ours) in [
            ("static", m.job_allreduce_time_static_s[0]),
            ("fluid", m.job_allreduce_time_fluid_s[0]),
        ] {
            assert!(
                (ours - theirs).abs() <= 1e-6 * theirs,
                "{line}: {what} {ours} s vs theirs {theirs} s"
            );
        }
        assert!((m.contention_free_allreduce_time_s[0] - free).abs() <= 1e-6 * free);
        checked += 1;
    }
    assert_eq!(checked, 15);
}
