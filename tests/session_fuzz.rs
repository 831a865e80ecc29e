//! Nothing saved can fail to load, no start repeats a crash, and a seeded fuzz of the app's session
//! logic through the core: random links, saved states and form edits, each case within a time
//! budget, never a panic, never the visitor's saved scenario lost (issue 14).

use libra_studio::analysis::study::study;
use libra_studio::form::Form;
use libra_studio::model::scenario::Scenario;
use libra_studio::model::workload::{Collective, Layer, Phase, Workload};
use libra_studio::permalink::{
    decode, decode_saved, encode, encode_link, encode_with, PermalinkError, MAX_JSON_BYTES,
};
use libra_studio::presets::{self, LibraNetwork, LibraWorkload};
use libra_studio::routing::study::{route_study, RoutePreset};
use libra_studio::session::{failed_download, start, start_after, starting_mark, Start};
use libra_studio::view::LinkState;
use std::time::{Duration, Instant};

mod common;
use common::Rng;

/// The default scenario with a custom workload of `layers` distinct layers (they compress
/// poorly, as an imported ASTRA-sim file's do).
fn with_layers(layers: usize) -> Scenario {
    let mut sc = presets::default_scenario();
    let mut spec = sc.workloads[0].clone();
    let phase = |i: usize, c| Phase::new(1000.0 + i as f64 * 0.37, c, 1e6 + i as f64 * 1.13);
    spec.name = "imported".into();
    spec.workload = Workload {
        layers: (0..layers)
            .map(|i| Layer {
                name: format!("layer_{i}"),
                reserved: -1,
                forward: phase(i, Collective::AllReduce),
                input_grad: phase(i + 1, Collective::AllReduce),
                weight_grad: phase(i + 2, Collective::AllReduce),
                update_ns: 0.0,
            })
            .collect(),
        ..spec.workload
    };
    sc.workloads = vec![spec];
    sc
}

#[test]
fn a_scenario_too_large_for_a_link_is_saved_and_restored_but_never_shared() {
    // Finding 2: a 60,000-layer import was saved, and after a reload the defaults appeared with
    // no banner (the saved link inflated past the link decoder's 16 MiB cap).
    let sc = with_layers(60_000);
    let saved = encode(&sc);
    assert!(
        matches!(decode(&saved), Err(PermalinkError::TooLarge)),
        "the test needs a scenario whose JSON exceeds {MAX_JSON_BYTES} bytes"
    );
    // The saved scenario loads whatever its size...
    assert_eq!(decode_saved(&saved).unwrap().0, sc);
    assert_eq!(start(None, Some(&saved)), Start::Own(sc.clone()));
    // ... but it is not made into a link that would not open.
    let e = encode_link(&sc, &LinkState::default()).unwrap_err();
    assert!(matches!(e, PermalinkError::TooLargeForLink { .. }), "{e}");
    assert!(e.to_string().contains("use Export JSON"), "{e}");
    // A scenario that fits gives exactly the link `encode` makes.
    let small = presets::default_scenario();
    assert_eq!(
        encode_link(&small, &LinkState::default()).unwrap(),
        encode(&small)
    );
}

#[test]
fn a_link_naming_a_preset_100000_times_is_refused_at_once() {
    // Finding 4: 17 KB of link, 100,000 copies of a preset, 243 s of frozen page.
    let mut sc = presets::default_scenario();
    let one = sc.workloads[0].clone();
    sc.workloads = vec![one; 100_000];
    let link = encode(&sc);
    assert!(link.len() < 40_000, "{}", link.len());
    let t0 = Instant::now();
    let e = decode(&link).unwrap_err();
    assert!(
        e.to_string()
            .contains("workloads: 100000 is more than the limit of 64 workloads"),
        "{e}"
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert!(encode_link(&sc, &LinkState::default()).is_err());
}

#[test]
fn a_start_that_did_not_finish_is_not_repeated() {
    // Finding 1: a saved setup that panics the app blanked every later visit.
    let mine = presets::libra_scenario(LibraWorkload::Dlrm, LibraNetwork::D3);
    let saved = encode(&mine);
    // A normal start marks what it opens: the link if any, else the saved scenario.
    assert_eq!(starting_mark(None, Some(&saved)), saved);
    assert_eq!(starting_mark(Some("#v1=abc"), Some(&saved)), "#v1=abc");
    assert_eq!(starting_mark(Some(""), None), "");
    assert_eq!(
        start_after(None, None, Some(&saved)),
        Start::Own(mine.clone())
    );
    // The mark left behind by a start that failed: the defaults, with the failed scenario kept.
    let s = start_after(Some(&saved), None, Some(&saved));
    assert_eq!(
        s,
        Start::Recovered {
            failed: saved.clone()
        }
    );
    assert_eq!(s.scenario(), presets::default_scenario());
    // It is offered as Scenario JSON (or as the text itself when it does not read).
    let (name, content, mime) = failed_download(&saved);
    assert_eq!(
        (name.as_str(), mime),
        ("libra-studio-failed-scenario.json", "application/json")
    );
    assert_eq!(Scenario::from_json(&content).unwrap(), mine);
    let (name, content, _) = failed_download("#v1=garbage");
    assert_eq!(
        (name.as_str(), content.as_str()),
        ("libra-studio-failed-link.txt", "#v1=garbage")
    );
}

/// A random edit of one of the form's text fields.
fn edit(form: &mut Form, rng: &mut Rng) {
    const TEXTS: &[&str] = &[
        "",
        "0",
        "-1",
        "1",
        "2",
        "3",
        "1e-310",
        "5e-324",
        "1e308",
        "1.7976931348623157e308",
        "NaN",
        "inf",
        "-inf",
        "4294967296",
        "65536",
        "abc",
        " 12 ",
        "1e12",
        "500",
        "0.5",
        "1,000",
        "２",
    ];
    let t = TEXTS[rng.below(TEXTS.len())].to_string();
    let d = if form.dims.is_empty() {
        0
    } else {
        rng.below(form.dims.len())
    };
    match rng.below(10) {
        0 if !form.dims.is_empty() => form.dims[d].npus = t,
        1 if !form.dims.is_empty() => form.dims[d].min = t,
        2 if !form.dims.is_empty() => form.dims[d].max = t,
        3 if !form.dims.is_empty() => form.dims[d].latency = t,
        4 => form.total_bw = t,
        5 => form.budget = t,
        6 => form.time_target = t,
        7 => form.constraints = format!("B1 >= {t}\nB2 + B3 <= {t}"),
        8 if !form.tiers.is_empty() => form.tiers[0].link = t,
        _ => {
            if let Some(w) = form.workloads.first_mut() {
                w.weight = t;
            }
        }
    }
}

#[test]
fn fuzz_the_session_through_the_core() {
    let mut rng = Rng(20_261_203);
    let own = presets::libra_scenario(LibraWorkload::ResNet50, LibraNetwork::D4);
    let saved = encode(&own);
    let real = encode_with(
        &presets::default_scenario(),
        &LinkState {
            route: Default::default(),
            ..LinkState::default()
        },
    );
    let budget = Duration::from_secs(5);
    for case in 0..300 {
        let t0 = Instant::now();
        // A link: a real one mutated, truncated or spliced, or random text.
        let mut link: Vec<u8> = real.as_bytes().to_vec();
        match rng.below(4) {
            0 => {
                let cut = rng.below(link.len());
                link.truncate(cut);
            }
            1 => {
                for _ in 0..1 + rng.below(4) {
                    let i = 4 + rng.below(link.len() - 4);
                    link[i] = b"AZaz09-_=#%"[rng.below(11)];
                }
            }
            2 => link = format!("#v1={}", "A".repeat(rng.below(5000))).into_bytes(),
            _ => {}
        }
        let link = String::from_utf8_lossy(&link).to_string();
        let saved_now = if rng.below(4) == 0 {
            None
        } else {
            Some(saved.as_str())
        };
        let mark = (rng.below(8) == 0).then_some(link.as_str());
        let s = start_after(mark, Some(&link), saved_now);
        // The visitor's saved scenario is never lost: it is what opens, or kept to go back to,
        // or still in storage untouched (a bad link, a recovered start).
        match (&s, saved_now) {
            (Start::Own(sc), Some(_)) => assert!(sc == &own || decode(&link).is_ok()),
            (Start::Shared { own: kept, .. }, Some(_)) => assert_eq!(kept.as_ref(), Some(&own)),
            (Start::BadLink { own: kept, .. }, Some(_)) => assert_eq!(kept.as_ref(), Some(&own)),
            _ => {}
        }
        // The form of what opens, edited at random, read and solved: errors, never a panic.
        let mut form = Form::from_scenario(&s.scenario());
        for _ in 0..rng.below(6) {
            edit(&mut form, &mut rng);
            if let Ok(sc) = form.to_scenario() {
                let _ = study(&sc);
                let _ = encode_link(&sc, &LinkState::default());
            }
        }
        // A Routing view setup edited at random: refused by name or studied.
        let mut setup = RoutePreset::ALL[rng.below(4)].setup();
        let p = &mut setup.placement;
        let sizes = [0u32, 1, 2, 3, 8, 16, 65_535, 65_536, u32::MAX];
        match rng.below(5) {
            0 => p.tors = sizes[rng.below(sizes.len())],
            1 => p.hosts_per_tor = sizes[rng.below(sizes.len())],
            2 => p.spines = sizes[rng.below(sizes.len())],
            3 => p.ring_size = sizes[rng.below(sizes.len())],
            _ => p.chunk_bytes = [0.0, 1e-310, 1.0, 1e300, f64::NAN][rng.below(5)],
        }
        let _ = route_study(&setup);
        assert!(t0.elapsed() < budget, "case {case} took {:?}", t0.elapsed());
    }
}
