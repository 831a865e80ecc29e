//! Property tests: the readers of user input (workload text, LIBRA YAML, Scenario JSON) return an
//! error or a value on any input, never panic; whatever they accept writes back and re-reads to the
//! same value; and whatever the YAML reader accepts, a full YAML 1.2 parser reads to the same tree. Inputs are random bytes and random mutations of the real LIBRA files (a seeded
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
    // Per reader (YAML, network, cost model, communicator): inputs accepted and refused.
    let mut seen = [[0usize; 2]; 4];
    for i in 0..20_000 {
        let bytes = if i % 5 == 0 {
            random_bytes(&mut rng)
        } else {
            mutate(&mut rng, bases[i % 3].as_bytes())
        };
        let text = String::from_utf8_lossy(&bytes);
        let outcomes = [
            yaml::parse(&text).is_ok(),
            network_from_yaml(&text).is_ok(),
            cost_model_from_yaml(&text).is_ok(),
            communicator_from_yaml(&text, &net).is_ok(),
        ];
        for (k, ok) in outcomes.into_iter().enumerate() {
            seen[k][usize::from(ok)] += 1;
        }
    }
    // Every reader both accepts and refuses many inputs: a reader that refused everything (or
    // was never reached) would pass a never-panic test while testing nothing.
    for (k, [refused, accepted]) in seen.into_iter().enumerate() {
        assert!(
            accepted > 200 && refused > 200,
            "reader {k}: {accepted} accepted, {refused} refused"
        );
    }
}

#[test]
fn scenario_json_reader_and_evaluation() {
    let base = presets::default_scenario().to_json();
    let mut rng = Rng(3);
    let (mut accepted, mut evaluated) = (0, 0);
    for _ in 0..3_000 {
        let bytes = mutate(&mut rng, base.as_bytes());
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(sc) = Scenario::from_json(&text) {
            accepted += 1;
            // Whatever parses writes back and re-reads to the same scenario, and can be
            // validated and evaluated without a panic.
            assert_eq!(Scenario::from_json(&sc.to_json()).ok().as_ref(), Some(&sc));
            let dims = sc.network.dims.len();
            evaluated += usize::from(sc.evaluate(&vec![100.0; dims]).is_ok());
        }
    }
    assert!(
        accepted > 100 && evaluated > 50 && accepted < 3_000,
        "{accepted} accepted, {evaluated} evaluated"
    );
}

/// Our YAML tree against a full YAML 1.2 parser's (yaml-rust2, a dev-dependency): scalars compare
/// by text, or by value where YAML types them (numbers, booleans, null).
fn same_tree(ours: &yaml::Yaml, theirs: &yaml_rust2::Yaml) -> bool {
    use yaml::Yaml as Y;
    use yaml_rust2::Yaml as O;
    match (ours, theirs) {
        (Y::Scalar { text, .. }, o) => same_scalar(text, o),
        (Y::Seq { items, .. }, O::Array(xs)) => {
            items.len() == xs.len() && items.iter().zip(xs).all(|(a, b)| same_tree(a, b))
        }
        (Y::Map { entries, .. }, O::Hash(h)) => {
            entries.len() == h.len()
                && entries
                    .iter()
                    .zip(h.iter())
                    .all(|((k, v), (ok, ov))| same_scalar(k, ok) && same_tree(v, ov))
        }
        _ => false,
    }
}

fn same_scalar(text: &str, theirs: &yaml_rust2::Yaml) -> bool {
    use yaml_rust2::Yaml as O;
    match theirs {
        O::String(s) | O::Real(s) => s == text,
        O::Integer(i) => {
            let t = text.trim_start_matches('+');
            let radix = |p: &str, r: u32| {
                t.strip_prefix(p)
                    .and_then(|d| i64::from_str_radix(d, r).ok())
            };
            t.parse::<i64>()
                .ok()
                .or_else(|| radix("0x", 16))
                .or_else(|| radix("0o", 8))
                == Some(*i)
        }
        O::Boolean(b) => text.eq_ignore_ascii_case(&b.to_string()),
        O::Null => matches!(text, "" | "~" | "null" | "Null" | "NULL"),
        _ => false,
    }
}

/// Pieces a YAML-minded user (or a hostile one) writes.
const FRAGMENTS: &[&str] = &[
    "a",
    "b c",
    "\"x, y\"",
    "'it''s'",
    "\"q\\\"r\"",
    "\"\\u00e9\"",
    "\"\\t\"",
    "\"\\q\"",
    "1",
    "-2.5",
    "1e3",
    "0x1F",
    "true",
    "null",
    "~",
    "",
    "&anc 1",
    "*anc",
    "!!str 5",
    "|",
    ">",
    "[1, 2]",
    "[\"a, b\", 'c']",
    "[[1]]",
    "{k: v}",
    "b: c",
    "'open",
    "x # note",
    "x#y",
    "it's",
    "- 1",
    "[1, 2,]",
    "[ ]",
    "'a' b",
    "\"a\" # c",
    "@x",
    "%x",
    "? k",
    "---",
    "...",
    "- - 1",
];

fn generated(rng: &mut Rng) -> String {
    let mut text = String::new();
    if rng.below(6) == 0 {
        text.push_str("---\n");
    }
    for i in 0..1 + rng.below(5) {
        let key = match rng.below(4) {
            0 => format!("\"k {i}\""),
            1 => format!("'k{i}'"),
            _ => format!("k{i}"),
        };
        match rng.below(4) {
            0 => {
                text.push_str(&format!("{key}:\n"));
                for _ in 0..1 + rng.below(3) {
                    let f = FRAGMENTS[rng.below(FRAGMENTS.len())];
                    text.push_str(&format!("  - {f}\n"));
                }
            }
            1 => {
                text.push_str(&format!("{key}:\n"));
                let f = FRAGMENTS[rng.below(FRAGMENTS.len())];
                text.push_str(&format!("  inner: {f}\n"));
            }
            _ => {
                let f = FRAGMENTS[rng.below(FRAGMENTS.len())];
                text.push_str(&format!("{key}: {f}\n"));
            }
        }
        if rng.below(8) == 0 {
            text.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
            text.push('\n');
        }
    }
    text
}

#[test]
fn the_yaml_reader_reads_exactly_or_refuses() {
    let bases = [
        include_str!("../data/libra-inputs/network/4d_network.yml"),
        include_str!("../data/libra-inputs/cost_model/4d_cost_model.yml"),
        include_str!("../data/libra-inputs/communicator/GPT_3_4d.yml"),
    ];
    let mut rng = Rng(4);
    let (mut accepted, mut refused) = (0, 0);
    for i in 0..20_000 {
        let text = match i % 3 {
            0 => generated(&mut rng),
            _ => String::from_utf8_lossy(&mutate(&mut rng, bases[i % 3].as_bytes())).into_owned(),
        };
        let Ok(ours) = yaml::parse(&text) else {
            refused += 1;
            continue;
        };
        accepted += 1;
        let theirs = yaml_rust2::YamlLoader::load_from_str(&text)
            .unwrap_or_else(|e| panic!("we read what YAML refuses ({e}):\n{text}"));
        let empty = yaml_rust2::Yaml::Hash(Default::default());
        let doc = match theirs.as_slice() {
            [] => &empty,
            [d] => d,
            _ => panic!("we read one document of several:\n{text}"),
        };
        assert!(
            same_tree(&ours, doc),
            "a different tree:\n{text}\nours: {ours:?}\nYAML: {doc:?}"
        );
    }
    // Both outcomes are exercised.
    assert!(
        accepted > 2_000 && refused > 2_000,
        "{accepted} accepted, {refused} refused"
    );
}
