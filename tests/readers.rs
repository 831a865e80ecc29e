//! Every reader takes files saved on Windows: a UTF-8 byte order mark and CRLF line ends give
//! exactly what the plain file gives (LIBRA's four files, the Scenario JSON, a routing scenario,
//! a job trace).

use libra_studio::cluster::trace::{generate, ClusterNetwork, Faults, Trace, TraceSpec};
use libra_studio::model::astra_text;
use libra_studio::model::libra_files::{
    communicator_from_yaml, cost_model_from_yaml, network_from_yaml,
};
use libra_studio::model::scenario::Scenario;
use libra_studio::routing::generate::{generate as generate_route, Placement};
use libra_studio::routing::RouteScenario;

/// `text` as Windows would save it.
fn windows(text: &str) -> String {
    format!(
        "\u{feff}{}",
        text.replace("\r\n", "\n").replace('\n', "\r\n")
    )
}

fn input(dir: &str, file: &str) -> String {
    let path = format!(
        "{}/data/libra-inputs/{dir}/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn libras_four_files_read_the_same_with_a_byte_order_mark_and_crlf() {
    let (net, cost, workload, comm) = (
        input("network", "4d_network.yml"),
        input("cost_model", "4d_cost_model.yml"),
        input("workload", "GPT_3.txt"),
        input("communicator", "GPT_3_4d.yml"),
    );
    let network = network_from_yaml(&net).unwrap();
    assert_eq!(network_from_yaml(&windows(&net)).unwrap(), network);
    assert_eq!(
        cost_model_from_yaml(&windows(&cost)).unwrap(),
        cost_model_from_yaml(&cost).unwrap()
    );
    assert_eq!(
        astra_text::parse(&windows(&workload)).unwrap(),
        astra_text::parse(&workload).unwrap()
    );
    assert_eq!(
        communicator_from_yaml(&windows(&comm), &network).unwrap(),
        communicator_from_yaml(&comm, &network).unwrap()
    );
}

#[test]
fn json_inputs_read_the_same_with_a_byte_order_mark_and_crlf() {
    let sc = libra_studio::presets::default_scenario();
    let json = sc.to_json();
    assert_eq!(Scenario::from_json(&windows(&json)).unwrap(), sc);

    let route = generate_route(&Placement::default()).unwrap();
    let json = serde_json::to_string_pretty(&route).unwrap();
    assert_eq!(RouteScenario::from_json(&windows(&json)).unwrap(), route);

    let trace = generate(&TraceSpec {
        network: ClusterNetwork {
            tors: 64,
            spines: 32,
            hosts_per_tor: 32,
            link_gbps: 400.0,
            nic_gbps: 400.0,
        },
        jobs: 12,
        arrival_rate: 0.5,
        iterations: 10,
        compute_s: 1.0,
        ring_size: 4,
        chunk_bytes: None,
        mix: Vec::new(),
        faults: Faults {
            links: 3,
            recover_s: Some(20.0),
            ..Faults::spines(1)
        },
        seed: 3,
    })
    .unwrap();
    let json = serde_json::to_string_pretty(&trace).unwrap();
    let read: Trace = Trace::from_json(&windows(&json)).unwrap();
    assert_eq!(read, trace);
}
