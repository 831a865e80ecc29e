//! Property tests: the readers of user input (workload text, LIBRA YAML, Scenario JSON) return an
//! error or a value on any input, never panic; and whatever they accept writes back and re-reads to
//! the same value. Inputs are random bytes and random mutations of the real LIBRA files (a seeded
//! generator, so a failure reproduces).

use libra_studio::model::libra_files::{
    communicator_from_yaml, cost_model_from_yaml, network_from_yaml,
};
use libra_studio::model::scenario::Scenario;
use libra_studio::model::{astra_text, yaml};
use libra_studio::presets;

mod common;
use common::Rng;

const ALPHABET: &[u8] = b"0123456789-.eE+ \n\t:#[],-'\"NONEALLREDUCEallgather{}x\x00\xff";

fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut v = base.to_vec();
    for _ in 0..1 + rng.below(6) {
        let at = rng.below(v.len() + 1);
        match rng.below(4) {
            0 if !v.is_empty() => {
                v.remove(at.min(v.len() - 1));
            }
            1 => v.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
            2 if !v.is_empty() => {
                let i = at.min(v.len() - 1);
                v[i] = ALPHABET[rng.below(ALPHABET.len())];
            }
            _ => {
                let end = (at + rng.below(40)).min(v.len());
                v.truncate(end.max(at.min(v.len())));
            }
        }
    }
    v
}

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    (0..rng.below(200)).map(|_| rng.next() as u8).collect()
}

#[test]
fn workload_text_reader() {
    let mut rng = Rng(1);
    let bases: Vec<String> = presets::LibraWorkload::ALL
        .iter()
        .map(|w| astra_text::write(&w.workload()))
        .collect();
    let mut accepted = 0;
    for i in 0..20_000 {
        let bytes = if i % 4 == 0 {
            random_bytes(&mut rng)
        } else {
            mutate(&mut rng, bases[i % bases.len()].as_bytes())
        };
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(w) = astra_text::parse(&text) {
            accepted += 1;
            let again = astra_text::parse(&astra_text::write(&w)).expect("written text re-reads");
            assert_eq!(again, w, "round trip of {text:?}");
        }
    }
    // The mutations are mild enough that some inputs stay valid: the round trip is exercised.
    assert!(accepted > 100, "only {accepted} accepted inputs");
}

#[test]
fn libra_yaml_readers() {
    let net = presets::libra_4d_network();
    let bases = [
        include_str!("../data/libra-inputs/network/4d_network.yml"),
        include_str!("../data/libra-inputs/cost_model/4d_cost_model.yml"),
        include_str!("../data/libra-inputs/communicator/GPT_3_4d.yml"),
    ];
    let mut rng = Rng(2);
    for i in 0..20_000 {
        let bytes = if i % 5 == 0 {
            random_bytes(&mut rng)
        } else {
            mutate(&mut rng, bases[i % 3].as_bytes())
        };
        let text = String::from_utf8_lossy(&bytes);
        let _ = yaml::parse(&text);
        let _ = network_from_yaml(&text);
        let _ = cost_model_from_yaml(&text);
        let _ = communicator_from_yaml(&text, &net);
    }
}

#[test]
fn scenario_json_reader_and_evaluation() {
    let base = presets::default_scenario().to_json();
    let mut rng = Rng(3);
    for _ in 0..3_000 {
        let bytes = mutate(&mut rng, base.as_bytes());
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(sc) = Scenario::from_json(&text) {
            // Whatever parses can be validated and evaluated without a panic.
            let dims = sc.network.dims.len();
            let _ = sc.evaluate(&vec![100.0; dims]);
        }
    }
}
