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
    assert!(e.to_string().contains("use Scenario JSON"), "{e}");
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

// Issue 32: two tabs, every view's fields, hand-edited view states.

use libra_studio::cluster::study::{ClusterField, ClusterLink, ClusterRun};
use libra_studio::cluster::Reroute;
use libra_studio::codesign::{CodesignInputs, CodesignRun, InputField, CUSTOM};
use libra_studio::routing::study::{RouteField, RouteLink, RouteStudyRun};
use libra_studio::session::{saved_state, scenario_part, view_parts, Elsewhere, Part, SaveSync};
use std::collections::HashMap;

/// localStorage of one browser, shared by its tabs.
#[derive(Default)]
struct Storage(HashMap<&'static str, String>);

impl Storage {
    fn read(&self, p: Part) -> Option<String> {
        self.0.get(p.key()).cloned()
    }
}

/// One tab: its state and what it knows of the saved parts.
struct Tab {
    sc: Scenario,
    state: LinkState,
    sync: SaveSync,
}

impl Tab {
    fn open(storage: &Storage) -> Tab {
        let sc = match start(None, storage.read(Part::Scenario).as_deref()) {
            Start::Own(sc) => sc,
            s => s.scenario(),
        };
        let mut tab = Tab {
            sc,
            state: saved_state(|p| storage.read(p)),
            sync: SaveSync::default(),
        };
        tab.sync = SaveSync::new(|p| storage.read(p), &tab.parts());
        tab
    }

    fn parts(&self) -> Vec<(Part, Option<String>)> {
        let mut v = vec![(Part::Scenario, Some(scenario_part(&self.sc, &self.state)))];
        v.extend(view_parts(&self.state));
        v
    }

    /// Save what changed; the other tab hears of each write (a `storage` event).
    fn save(&mut self, storage: &mut Storage, other: &mut Tab) -> Vec<(Part, Elsewhere)> {
        let writes = self.sync.to_write(&self.parts());
        let mut heard = Vec::new();
        for (part, text) in writes {
            storage.0.insert(part.key(), text.clone());
            let mine = other
                .parts()
                .into_iter()
                .find(|(p, _)| *p == part)
                .and_then(|(_, t)| t);
            heard.push((
                part,
                other
                    .sync
                    .saved_elsewhere(part, Some(text), mine.as_deref()),
            ));
        }
        heard
    }
}

#[test]
fn two_tabs_never_overwrite_each_others_edits_and_each_says_when_the_other_saved() {
    // Finding 3: each tab saved its whole state, so an edit of the Routing view in one tab was
    // silently overwritten by an edit of the design in the other.
    let mut storage = Storage::default();
    storage
        .0
        .insert(SAVED_KEY_OF_SCENARIO, encode(&presets::default_scenario()));
    let mut a = Tab::open(&storage);
    let mut b = Tab::open(&storage);
    // Nothing edited: only the parts nothing is saved of are written, which the other tab shows
    // too (nothing to say); then nothing.
    assert!(a
        .save(&mut storage, &mut b)
        .iter()
        .all(|(p, heard)| *p != Part::Scenario && *heard == Elsewhere::Nothing));
    assert!(b.save(&mut storage, &mut a).is_empty());
    assert!(a.save(&mut storage, &mut b).is_empty());
    // Tab A edits the Routing view: only that part is written; B, which shows another, is told.
    a.state
        .route
        .setup
        .set_text(RouteField::Spines, "8")
        .unwrap();
    let heard = a.save(&mut storage, &mut b);
    assert_eq!(heard, vec![(Part::Routing, Elsewhere::Choose)]);
    assert_eq!(b.sync.pending(), vec![Part::Routing]);
    // Tab B edits the design: only the design is written (not B's older Routing view).
    b.sc.constraints.budget_usd = Some(2e7);
    let heard = b.save(&mut storage, &mut a);
    assert_eq!(heard, vec![(Part::Scenario, Elsewhere::Choose)]);
    // Both edits are saved: a reload shows A's routing and B's design.
    let reloaded = Tab::open(&storage);
    assert_eq!(reloaded.state.route.setup.placement.spines, 8);
    assert_eq!(reloaded.sc.constraints.budget_usd, Some(2e7));
    // B edits its Routing view while A's awaits its choice: not written meanwhile.
    b.state.route.setup.set_text(RouteField::Jobs, "2").unwrap();
    assert!(b.save(&mut storage, &mut a).is_empty());
    assert_eq!(Tab::open(&storage).state.route.setup.placement.spines, 8);
    // Keep mine: written over theirs (as chosen), and A hears of it.
    b.sync.keep_mine(Part::Routing);
    let heard = b.save(&mut storage, &mut a);
    assert_eq!(heard, vec![(Part::Routing, Elsewhere::Choose)]);
    assert_eq!(Tab::open(&storage).state.route.setup.placement.jobs, 2);
    // Take theirs: A shows B's, and has nothing to write.
    let theirs = a.sync.take_theirs(Part::Routing).unwrap();
    a.state.route = serde_json::from_str(&theirs).unwrap();
    let theirs = a.sync.take_theirs(Part::Scenario).unwrap();
    a.sc = decode_saved(&theirs).unwrap().0;
    assert_eq!(a.sc, b.sc);
    assert!(a.sync.pending().is_empty());
    assert!(a.save(&mut storage, &mut b).is_empty());
    // A part this tab has nothing of (a view it never opened) is taken silently: nothing of its
    // own is lost, and its later edits start from theirs.
    a.state.codesign = Some("{\"npus\":64}".into());
    assert_eq!(
        a.save(&mut storage, &mut b),
        vec![(Part::Codesign, Elsewhere::Adopt)]
    );
    assert!(b.sync.pending().is_empty());
    // Which view is shown is navigation: the last tab's, never a question.
    a.state.view = libra_studio::view::View::Cluster;
    assert_eq!(
        a.save(&mut storage, &mut b),
        vec![(Part::View, Elsewhere::Nothing)]
    );
    // Keep mine also writes a part this tab never edited (what it shows is what the visitor
    // chose to keep).
    let mut x = Tab::open(&storage);
    let mut y = Tab::open(&storage);
    let kept = y.state.route.setup.placement.tors;
    x.state.route.setup.set_text(RouteField::Tors, "6").unwrap();
    x.save(&mut storage, &mut y);
    assert_eq!(y.sync.pending(), vec![Part::Routing]);
    y.sync.keep_mine(Part::Routing);
    assert_eq!(y.save(&mut storage, &mut x).len(), 1);
    assert_eq!(Tab::open(&storage).state.route.setup.placement.tors, kept);
    // A tab opened on an older link of one's own (a reload) shows the link's Routing view but
    // does not write it over the saved one unless the visitor edits it.
    let mut reload = Tab::open(&storage);
    reload.state.route = RouteLink::default();
    reload.sync = SaveSync::new(|p| storage.read(p), &reload.parts());
    let saved_route = storage.read(Part::Routing);
    assert!(reload.save(&mut storage, &mut a).is_empty());
    assert_eq!(storage.read(Part::Routing), saved_route);
    // A save made before the parts had keys (everything under the scenario's) still opens whole.
    let mut old = Storage::default();
    let mut state = LinkState::default();
    state.route.setup.placement.tors = 16;
    state.cluster = Some("{}".into());
    old.0.insert(
        SAVED_KEY_OF_SCENARIO,
        encode_with(&presets::default_scenario(), &state),
    );
    let restored = Tab::open(&old).state;
    assert_eq!(restored.route.setup.placement.tors, 16);
    assert_eq!(restored.cluster.as_deref(), Some("{}"));
}

const SAVED_KEY_OF_SCENARIO: &str = libra_studio::session::SAVED_KEY;

#[test]
fn the_views_fields_never_keep_a_prefix_and_say_what_is_wrong_with_the_text_in_them() {
    // Finding 5: the Routing view read "2.5" as 2 and "1e309" as 1, unmarked, and the link
    // carried it; finding 6: "ring-size must be at least 2, got 1" stayed after typing 1e309.
    let mut link = RouteLink::default();
    let before = link.setup.placement.clone();
    let e = link.setup.set_text(RouteField::Tors, "2.5").unwrap_err();
    assert_eq!(e, "\"2.5\" is not a whole number in digits");
    assert_eq!(link.setup.placement, before);
    assert_eq!(link.setup.text(RouteField::Tors), "2.5");
    let mut last = None;
    for typed in ["1", "1e", "1e3", "1e30", "1e309"] {
        last = link.setup.set_text(RouteField::RingSize, typed).err();
    }
    assert_eq!(
        last.as_deref(),
        Some("\"1e309\" is not a whole number in digits")
    );
    assert_eq!(
        link.setup.refusal(RouteField::RingSize).as_deref(),
        Some("\"1e309\" is not a whole number in digits")
    );
    // The link carries the text as typed, and a setup with a refused text is not studied.
    let json = serde_json::to_string(&link).unwrap();
    let back: RouteLink = serde_json::from_str(&json).unwrap();
    assert_eq!(back.setup.text(RouteField::Tors), "2.5");
    assert_eq!(back.setup.refusals().len(), 2);
    let e = RouteStudyRun::new(&back.setup).err().unwrap().to_string();
    assert_eq!(e, "ToRs: \"2.5\" is not a whole number in digits");
    // Typing a good number clears the field's reason and studies it.
    link.setup.set_text(RouteField::Tors, "8").unwrap();
    link.setup.set_text(RouteField::RingSize, "4").unwrap();
    assert!(link.setup.refusals().is_empty());
    assert!(RouteStudyRun::new(&link.setup).is_ok());

    // Finding 5 (Cluster): "every 0.1 s" was accepted, and links with every -1 or 1e-300 were run
    // (an endless run, restarted on every visit).
    let mut cluster = ClusterLink::default();
    cluster.setup.reroute = Reroute::Every(10.0);
    for (typed, reason) in [
        ("-1", Some("must be at least 0.001, got -1")),
        ("1e-300", Some("must be at least 0.001, got 1e-300")),
        ("0", Some("must be at least 0.001, got 0")),
        ("1e309", Some("must be a finite number, got 1e309")),
        ("0.5", None),
    ] {
        let r = cluster.set_text(ClusterField::Every, typed).err();
        assert_eq!(r.as_deref(), reason, "{typed}");
    }
    assert_eq!(cluster.setup.reroute, Reroute::Every(0.5));
    for period in [-1.0, 1e-300, 0.0, 1e-4, f64::INFINITY, f64::NAN] {
        let mut hand_edited = ClusterLink::default();
        hand_edited.setup.reroute = Reroute::Every(period);
        let json = serde_json::to_string(&hand_edited).unwrap();
        let read: ClusterLink = serde_json::from_str(&json).unwrap_or(hand_edited);
        let e = ClusterRun::new(&read).err().map(|e| e.to_string());
        assert!(
            e.as_deref()
                .is_some_and(|e| e.starts_with("T (s): must be")),
            "every {period}: {e:?}"
        );
        assert!(read.refusal(ClusterField::Every).is_some());
    }
    assert_eq!(libra_studio::cluster::simulate::MIN_REROUTE_PERIOD_S, 1e-3);
}

/// Texts a visitor might type, or a link might carry.
const TEXTS: &[&str] = &[
    "",
    "0",
    "-1",
    "1",
    "2",
    "2.5",
    "3",
    "8",
    "16",
    "64",
    "1e309",
    "1e-300",
    "5e-324",
    "1e3",
    "+5",
    "0x10",
    "1_000",
    "1,000",
    "٣",
    "２",
    " 7 ",
    "NaN",
    "inf",
    "-inf",
    "never",
    "0.001",
    "0.0009",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "99999999999999999999",
    "abc",
    "1e",
    "0.1",
    "10",
    "500",
    "2048",
    "2049",
];

fn random_text(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => (0..1 + rng.below(12))
            .map(|_| b"0123456789.e-+ x"[rng.below(16)] as char)
            .collect(),
        _ => TEXTS[rng.below(TEXTS.len())].to_string(),
    }
}

/// A typed text either read whole (the field shows the same number) or refused, kept as typed
/// and marked with the reason; never read as a prefix.
fn check_field(typed: &str, result: Result<(), String>, shown: String, refusal: Option<String>) {
    match result {
        Ok(()) => {
            // (A cross-field rule may mark an accepted field: the Co-design budgets.)
            let t = typed.trim();
            let same = match (t.parse::<f64>(), shown.parse::<f64>()) {
                (Ok(a), Ok(b)) => a == b,
                _ => t.is_empty() || t == "never",
            };
            assert!(same, "{typed:?} accepted but the field shows {shown:?}");
        }
        Err(reason) => {
            assert_eq!(shown, typed, "a refused text is kept as typed");
            assert_eq!(refusal.as_deref(), Some(reason.as_str()), "{typed:?}");
        }
    }
}

/// Mutate a view's state JSON as a hand-edited link might: a number replaced by a text, a cut,
/// or a character changed.
fn hand_edit(json: &str, rng: &mut Rng) -> String {
    let mut s = json.to_string();
    match rng.below(3) {
        0 => {
            let t = TEXTS[rng.below(TEXTS.len())];
            let numbers: Vec<usize> = s
                .char_indices()
                .filter(|(i, c)| c.is_ascii_digit() && s[..*i].ends_with(':'))
                .map(|(i, _)| i)
                .collect();
            if let Some(&i) = numbers.get(rng.below(numbers.len().max(1))) {
                let end = s[i..].find([',', '}']).map_or(s.len(), |e| i + e);
                let value = if t.parse::<f64>().is_ok() {
                    t.to_string()
                } else {
                    format!("\"{t}\"")
                };
                s.replace_range(i..end, &value);
            }
        }
        1 => s.truncate(rng.below(s.len())),
        _ => {
            let i = rng.below(s.len());
            if s.is_char_boundary(i) && s.is_char_boundary(i + 1) {
                s.replace_range(
                    i..i + 1,
                    &((b'0' + rng.below(10) as u8) as char).to_string(),
                );
            }
        }
    }
    s
}

#[test]
fn fuzz_the_routing_cluster_and_codesign_fields_and_links() {
    let mut rng = Rng(32_032);
    let base = presets::default_scenario();
    let budget = Duration::from_secs(5);
    for case in 0..240 {
        let t0 = Instant::now();
        let mut state = LinkState::default();
        match case % 3 {
            0 => {
                // The Routing view: a hand-edited link state, then random text in random fields.
                let json = hand_edit(
                    &serde_json::to_string(&RouteLink::default()).unwrap(),
                    &mut rng,
                );
                let mut link: RouteLink = serde_json::from_str(&json).unwrap_or_default();
                for _ in 0..1 + rng.below(6) {
                    let f = RouteField::ALL[rng.below(RouteField::ALL.len())];
                    let typed = random_text(&mut rng);
                    let before = link.setup.placement.clone();
                    let r = link.setup.set_text(f, &typed);
                    if r.is_err() {
                        assert_eq!(
                            link.setup.placement, before,
                            "a refused text changes nothing"
                        );
                    }
                    check_field(&typed, r, link.setup.text(f), link.setup.refusal(f));
                }
                // Refused: not studied. Else studied (a few pieces) or refused by name.
                let run = RouteStudyRun::new(&link.setup);
                if !link.setup.refusals().is_empty() {
                    assert!(
                        run.is_err() || link.setup.typed.is_empty(),
                        "case {case}: a refused text studied"
                    );
                }
                if let (Ok(mut run), true) = (run, link.setup.refusals().is_empty()) {
                    for _ in 0..8 {
                        if run.step(256) {
                            break;
                        }
                    }
                }
                state.route = link;
            }
            1 => {
                // The Cluster view.
                let json = hand_edit(
                    &serde_json::to_string(&ClusterLink::default()).unwrap(),
                    &mut rng,
                );
                let mut link: ClusterLink = serde_json::from_str(&json).unwrap_or_default();
                if rng.below(2) == 0 {
                    link.setup.reroute = Reroute::Every(10.0);
                }
                for _ in 0..1 + rng.below(6) {
                    let f = ClusterField::ALL[rng.below(ClusterField::ALL.len())];
                    let typed = random_text(&mut rng);
                    let before = link.setup.clone();
                    let r = link.set_text(f, &typed);
                    if r.is_err() {
                        assert_eq!(link.setup, before, "a refused text changes nothing");
                    }
                    let refusal = link.refusal(f).or_else(|| {
                        // A period typed while another trigger is chosen is not on the page.
                        (!f.applies(&link.setup)).then(|| r.clone().err()).flatten()
                    });
                    check_field(&typed, r, link.text(f), refusal);
                }
                match ClusterRun::new(&link) {
                    Ok(mut run) => {
                        assert!(link.refusals().is_empty(), "case {case}: refused but run");
                        if let Reroute::Every(t) = link.setup.reroute {
                            assert!(t >= 1e-3 && t.is_finite());
                        }
                        for _ in 0..50 {
                            if run.step(4) {
                                break;
                            }
                        }
                    }
                    Err(e) => assert!(!e.to_string().is_empty()),
                }
                state.cluster = Some(serde_json::to_string(&link).unwrap());
            }
            _ => {
                // The Co-design view.
                let fresh = CodesignInputs::around(&base, 1e7);
                let json = hand_edit(&serde_json::to_string(&fresh).unwrap(), &mut rng);
                let mut inputs: CodesignInputs = serde_json::from_str(&json).unwrap_or(fresh);
                if rng.below(2) == 0 {
                    inputs.model = CUSTOM.into();
                }
                let fields: Vec<InputField> = InputField::every().collect();
                for _ in 0..1 + rng.below(6) {
                    let f = fields[rng.below(fields.len())];
                    let typed = random_text(&mut rng);
                    let r = inputs.set(f, &typed).map_err(|e| e.reason);
                    let r = match r {
                        // A cross-field reason on a text that reads: it was taken.
                        Err(e) if f.kind().read(&typed).is_ok() => {
                            assert!(e.contains("\"from\""), "{e}");
                            Ok(())
                        }
                        r => r,
                    };
                    check_field(&typed, r, inputs.text(f), inputs.refusal(f));
                }
                if inputs.refusals().is_empty() && inputs.layers_within_a_second() {
                    if let Ok(setup) = inputs.setup(&base) {
                        if let Ok(mut run) = CodesignRun::new(&setup) {
                            run.step(8);
                        }
                    }
                }
                state.codesign = Some(serde_json::to_string(&inputs).unwrap());
            }
        }
        // No loss of the saved state: what a tab saves is what the next visit restores, and the
        // link carries the same.
        let mut storage = Storage::default();
        for (part, text) in view_parts(&state) {
            if let Some(text) = text {
                storage.0.insert(part.key(), text);
            }
        }
        let restored = saved_state(|p| storage.read(p));
        assert_eq!(
            (&restored.route, &restored.cluster, &restored.codesign),
            (&state.route, &state.cluster, &state.codesign),
            "case {case}"
        );
        let link = encode_with(&base, &state);
        let (_, carried) = libra_studio::permalink::decode_with(&link).unwrap();
        assert_eq!(carried, state, "case {case}");
        assert!(t0.elapsed() < budget, "case {case} took {:?}", t0.elapsed());
    }
}

/// Custom models are searched here only when small (a large one is the browser test's).
trait Small {
    fn layers_within_a_second(&self) -> bool;
}

impl Small for CodesignInputs {
    fn layers_within_a_second(&self) -> bool {
        self.model != CUSTOM
            || self
                .custom
                .as_ref()
                .is_none_or(|m| m.layers <= 200 && m.global_batch <= 4096)
    }
}
