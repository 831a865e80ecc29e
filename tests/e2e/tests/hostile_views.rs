//! Issue 32 in headless Chromium: two tabs never overwrite each other's edits and say when the
//! other saved; every view's fields are saved as typed (a reload right after typing keeps them);
//! the Routing, Cluster and Co-design views mark what they refuse with the reason for the text in
//! the field, never read a prefix and never run a refused state; a 10,000-layer co-design starts
//! without a long task.

use e2e::{run, run_alone, Browser};
use libra_studio::cluster::study::ClusterLink;
use libra_studio::cluster::Reroute;
use libra_studio::codesign::CodesignInputs;
use libra_studio::model::scenario::TotalBandwidth;
use libra_studio::permalink::{decode_with, encode, encode_with};
use libra_studio::presets;
use libra_studio::routing::study::RouteField;
use libra_studio::view::{LinkState, View};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(240);

/// The value (the text in it) of the input `id`, once `pred` holds.
async fn wait_input(b: &Browser, id: &str, want: &str) {
    b.wait_js(
        &format!("{id} to show {want:?}"),
        &format!(
            "const e = document.querySelector('[data-testid=\"{id}\"]'); return !!e && e.value === {};",
            serde_json::to_string(want).unwrap()
        ),
    )
    .await;
}

/// The field `id` marked (aria-invalid) with exactly `reason` beside it.
async fn wait_marked(b: &Browser, id: &str, reason: &str) {
    b.wait_js(
        &format!("{id} marked with {reason:?}"),
        &format!(
            "const e = document.querySelector('[data-testid=\"{id}-error\"]'); \
             const f = document.querySelector('[data-testid=\"{id}\"]'); \
             return !!e && !!f && e.textContent === {} && f.getAttribute('aria-invalid') === 'true';",
            serde_json::to_string(reason).unwrap()
        ),
    )
    .await;
}

async fn state_of_link(b: &Browser) -> LinkState {
    let hash = b.js("return location.hash;").await;
    decode_with(hash.as_str().unwrap()).unwrap().1
}

#[test]
fn two_tabs_keep_both_edits_and_each_says_when_the_other_saved() {
    // Finding 3: each tab saved its whole state, so an edit of the design in one tab silently
    // overwrote an edit of the Routing view in the other.
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        let tab_a = b.client.window().await.unwrap();
        let tab_b = b.client.new_window(true).await.unwrap().handle;
        b.client.switch_to_window(tab_b.clone()).await.unwrap();
        b.open("").await;

        // Tab A edits the Routing view.
        b.client.switch_to_window(tab_a.clone()).await.unwrap();
        b.open_view("routing").await;
        b.type_into("route-spines", "8").await;
        let routing_saved = "const r = localStorage.getItem('libra-studio.routing'); \
                             return !!r && JSON.parse(r).setup.placement.spines === 8;";
        b.wait_js("tab A's Routing view saved", routing_saved).await;

        // Tab B, which shows another Routing view, says so; then edits the design.
        b.client.switch_to_window(tab_b.clone()).await.unwrap();
        b.wait_js(
            "tab B's banner about the Routing view",
            "return !!document.querySelector('[data-testid=elsewhere-banner][data-part=\"libra-studio.routing\"]');",
        )
        .await;
        b.type_into("total-bw", "300").await;
        let mut mine = presets::default_scenario();
        mine.constraints.total_bw = Some(TotalBandwidth::Equal(300.0));
        b.wait_js(
            "tab B's design saved",
            &format!(
                "return localStorage.getItem('libra-studio.scenario') === '{}';",
                encode(&mine)
            ),
        )
        .await;
        // Tab A's edit is still saved: B wrote only what it changed.
        b.wait_js("tab A's Routing view still saved", routing_saved)
            .await;

        // A plain visit restores both.
        let tab_c = b.client.new_window(true).await.unwrap().handle;
        b.client.switch_to_window(tab_c).await.unwrap();
        b.open("").await;
        wait_input(&b, "total-bw", "300").await;
        b.open_view("routing").await;
        wait_input(&b, "route-spines", "8").await;
        b.assert_no_errors().await;

        // Tab A heard of B's design; taking theirs shows it there.
        b.client.switch_to_window(tab_a).await.unwrap();
        b.wait_js(
            "tab A's banner about the design",
            "return !!document.querySelector('[data-testid=elsewhere-banner][data-part=\"libra-studio.scenario\"]');",
        )
        .await;
        b.click("view-design").await;
        b.click("take-theirs").await;
        wait_input(&b, "total-bw", "300").await;
        // Tab B keeps its own Routing view: saved over A's, as chosen.
        b.client.switch_to_window(tab_b).await.unwrap();
        b.click("keep-mine").await;
        b.wait_js(
            "tab B's Routing view saved over A's",
            "const r = localStorage.getItem('libra-studio.routing'); \
             return !!r && JSON.parse(r).setup.placement.spines === 4;",
        )
        .await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn codesign_fields_are_saved_as_typed_and_a_reload_keeps_them() {
    // Finding 3: a Co-design field reached the link and the saved state only on blur or Run.
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        b.open_view("codesign").await;
        b.type_into("codesign-hbm", "40").await;
        // No blur, no Run: the link and the saved question follow the typing.
        b.wait_js(
            "the typed HBM saved",
            "const c = localStorage.getItem('libra-studio.codesign'); \
             return !!c && JSON.parse(c).hbm_gb === 40;",
        )
        .await;
        b.wait_js(
            "the typed HBM in the link",
            "return location.hash.length > 4;",
        )
        .await;
        let carried: CodesignInputs =
            serde_json::from_str(state_of_link(&b).await.codesign.as_deref().unwrap()).unwrap();
        assert_eq!(carried.hbm_gb, 40.0);
        b.client.refresh().await.unwrap();
        b.wait_testid("codesign-view").await;
        wait_input(&b, "codesign-hbm", "40").await;

        // A refused text is kept as typed, marked, and survives a reload (link and saved state).
        b.type_into("codesign-hbm", "1e309").await;
        wait_marked(&b, "codesign-hbm", "must be a finite number, got 1e309").await;
        b.wait_js(
            "the refused text saved as typed",
            "const c = localStorage.getItem('libra-studio.codesign'); \
             return !!c && (JSON.parse(c).typed || {})['codesign-hbm'] === '1e309';",
        )
        .await;
        b.client.refresh().await.unwrap();
        b.wait_testid("codesign-view").await;
        wait_input(&b, "codesign-hbm", "1e309").await;
        wait_marked(&b, "codesign-hbm", "must be a finite number, got 1e309").await;
        // A plain visit too.
        b.client.goto(&b.base_url).await.unwrap();
        b.wait_testid("codesign-view").await;
        wait_input(&b, "codesign-hbm", "1e309").await;
        // Searching is refused by the field's reason.
        b.click("codesign-run").await;
        b.wait_js(
            "the search refused by the field",
            "const e = document.querySelector('[data-testid=codesign-error]'); \
             return !!e && e.textContent === 'Fix the HBM GB per NPU: must be a finite number, got 1e309.';",
        )
        .await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn the_views_mark_what_they_refuse_and_never_run_a_refused_state() {
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        // Finding 5: "2.5" was read as 2 and "1e309" as 1, unmarked, and the link carried it.
        b.open_view("routing").await;
        b.type_into("route-tors", "2.5").await;
        wait_marked(&b, "route-tors", "\"2.5\" is not a whole number in digits").await;
        b.wait_js(
            "the study refused by the field",
            "const e = document.querySelector('[data-testid=route-error]'); \
             return !!e && e.textContent.startsWith('Fix the ToRs: \"2.5\"');",
        )
        .await;
        // Finding 6: the reason is the current text's ("1e309"), never an earlier keystroke's.
        b.type_into("route-ring", "1e309").await;
        wait_marked(
            &b,
            "route-ring",
            "\"1e309\" is not a whole number in digits",
        )
        .await;
        let text = b.js("return document.body.innerText;").await;
        assert!(
            !text
                .as_str()
                .unwrap()
                .contains("ring-size must be at least 2"),
            "an earlier keystroke's error stayed"
        );
        b.wait_js("the link to follow", "return location.hash.length > 4;")
            .await;
        let route = state_of_link(&b).await.route;
        assert_eq!(route.setup.text(RouteField::Tors), "2.5");
        assert_eq!(route.setup.text(RouteField::RingSize), "1e309");
        b.type_into("route-tors", "8").await;
        b.type_into("route-ring", "4").await;
        b.wait_js(
            "the marks gone and the study back",
            "return !document.querySelector('[data-testid=route-tors-error]') \
               && !document.querySelector('[data-testid=route-ring-error]') \
               && !document.querySelector('[data-testid=route-error]');",
        )
        .await;

        // Finding 5 (Cluster): a link with re-routing every -1 s was run (endlessly, and again on
        // every visit): now refused at the field, not run, on every visit.
        let mut cluster = ClusterLink::default();
        cluster.setup.reroute = Reroute::Every(-1.0);
        let link = encode_with(
            &presets::default_scenario(),
            &LinkState {
                view: View::Cluster,
                cluster: Some(serde_json::to_string(&cluster).unwrap()),
                ..LinkState::default()
            },
        );
        b.open(&link).await;
        for visit in 0..2 {
            if visit == 1 {
                b.client.refresh().await.unwrap();
            }
            b.wait_testid("cluster-view").await;
            wait_marked(&b, "cluster-every", "must be at least 0.001, got -1").await;
            let error = b.text("cluster-error").await;
            assert_eq!(error, "Fix the T (s): must be at least 0.001, got -1.");
            assert_eq!(b.count("cluster-progress").await, 0, "a refused state ran");
        }
        b.type_into("cluster-every", "1e-300").await;
        wait_marked(&b, "cluster-every", "must be at least 0.001, got 1e-300").await;
        assert_eq!(b.count("cluster-progress").await, 0, "a refused state ran");
        b.type_into("cluster-every", "0.5").await;
        b.wait_value("cluster-ms", |v| !v.is_empty()).await;
        assert_eq!(b.count("cluster-every-error").await, 0);

        // Finding 6 (Co-design): a link with 64 budgets, the documented most, is searched.
        let mut inputs = CodesignInputs::for_design(&presets::default_scenario());
        inputs.budgets = 64;
        inputs.own_shape = true;
        let link = encode_with(
            &presets::default_scenario(),
            &LinkState {
                view: View::Codesign,
                codesign: Some(serde_json::to_string(&inputs).unwrap()),
                ..LinkState::default()
            },
        );
        b.open(&link).await;
        b.client.refresh().await.unwrap();
        b.wait_value("codesign-status", |v| !v.is_empty()).await;
        assert_eq!(b.count("codesign-error").await, 0, "64 budgets refused");
        // "from" above "to" says so.
        b.type_into("codesign-lo", "9e8").await;
        b.wait_js(
            "the budgets field's reason",
            "const e = document.querySelector('[data-testid=codesign-lo-error]'); \
             return !!e && e.textContent.startsWith('\"from\" (900000000) must be at most \"to\"');",
        )
        .await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn a_ten_thousand_layer_codesign_starts_in_slices() {
    // Finding 4: a Co-design run of a 10,000-layer custom model blocked the page 480-606 ms at
    // its start (every parallelism's layer list built at once).
    run_alone(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        b.open_view("codesign").await;
        b.select("codesign-model", "custom").await;
        b.type_into("codesign-layers", "10000").await;
        b.type_into("codesign-hbm", "100000").await;
        b.click("codesign-own-shape").await;
        b.watch_long_tasks().await;
        let t0 = std::time::Instant::now();
        b.click("codesign-run").await;
        b.wait_js(
            "the 10,000-layer search done",
            "return !document.querySelector('[data-testid=codesign-cancel]') \
               && document.querySelector('[data-testid=codesign-status]').dataset.value !== '' \
               && !document.querySelector('[data-testid=codesign-error]');",
        )
        .await;
        let ms = b.wait_value("codesign-status", |v| !v.is_empty()).await;
        let long = b.long_tasks().await;
        eprintln!(
            "10,000-layer co-design, own shape: {ms} ms in slices ({:.1} s in all); tasks over 50 ms: {long:?}",
            t0.elapsed().as_secs_f64()
        );
        assert!(long.is_empty(), "tasks over 50 ms: {long:?}");
        // Loading such a design into the design view blocked 452 + 187 ms: 12 MB of JSON handed
        // over, parsed, and compressed twice for the link and the saved state. Its layers now
        // travel as one run of 10,000.
        b.watch_long_tasks().await;
        b.click("codesign-load").await;
        b.wait_value("result-time-ns", |v| !v.is_empty()).await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let long = b.long_tasks().await;
        eprintln!(
            "loading the 10,000-layer design into the design view: tasks over 50 ms: {long:?}"
        );
        let hash = b.js("return location.hash;").await;
        let hash = hash.as_str().unwrap();
        assert!(hash.len() < 4_000, "a {} B link", hash.len());
        let (sc, _) = decode_with(hash).unwrap();
        // An attention and an MLP layer per transformer layer of a stage, and the sends with PP.
        let w = &sc.workloads[0];
        let pp: u32 = w.communicator.pipeline.iter().flatten().product();
        let sends = usize::from(pp > 1);
        assert_eq!(
            w.workload.layers.len(),
            2 * 10_000usize.div_ceil(pp as usize) + sends
        );
        // Still not within 50 ms: a few tasks remain (the design view's study of 20,000 layers,
        // run on the page as every design is; natively 15 ms): 55-130 ms on one machine, 70-237
        // ms (619 in all) on a machine that runs the whole suite about twice as slowly. Bounded
        // here so that the 452 + 187 ms (measured on the faster machine) cannot come back;
        // slicing the design view's study is future work.
        assert!(
            long.iter().all(|t| *t < 350.0) && long.iter().sum::<f64>() < 900.0,
            "tasks over 50 ms: {long:?}"
        );
        b.assert_no_errors().await;
        b.close().await;
    });
}
