//! The Routing view in headless Chromium: presets and fields route the fabric as the core does
//! natively, the algorithm choice switches the numbers, and the charts have pixels.

use e2e::{close, run, Browser};
use libra_studio::analysis::routing_savings::{savings, SwitchDesign};
use libra_studio::routing::study::{route_study, RoutePreset};
use std::time::Duration;

#[test]
fn the_routing_view_matches_the_core() {
    run(Duration::from_secs(120), async {
        let b = Browser::start(1400, 1100).await;
        b.open("").await;
        b.click("view-routing").await;
        b.wait_testid("routing-view").await;
        let three = route_study(&RoutePreset::ThreeJobs.setup()).unwrap();
        // Greedy is shown first; then ECMP, the optimizer and multi-flow ECMP (measured on the
        // split instance, as the core measures it).
        for (value, i) in [
            ("greedy", 1),
            ("ecmp", 0),
            ("optimal", 3),
            ("multi-flow-ecmp", 6),
        ] {
            b.select("route-algorithm", value).await;
            let m = &three.routed[i].metrics;
            b.wait_value("route-min-rate", |v| close(v, m.min_flow_rate_gbps))
                .await;
            b.wait_value("route-makespan", |v| close(v, m.makespan_static_s))
                .await;
        }
        // The savings are priced on the design's Switch dimension (found by its topology), as the
        // core prices them.
        let sc = libra_studio::presets::default_scenario();
        let design = libra_studio::analysis::study::study(&sc).unwrap();
        let switch = SwitchDesign::of(&sc, &design).unwrap();
        let want: Vec<String> = savings(&switch, &three.routed)
            .iter()
            .map(|r| r.saved_usd.to_string())
            .collect();
        b.wait_testid("route-savings").await;
        let shown = b
            .js("return [...document.querySelectorAll('[data-testid=route-savings] td[data-value]')]
                    .map(td => td.dataset.value);")
            .await;
        assert_eq!(shown, serde_json::json!(want));
        for chart in [
            "chart-route-loads",
            "chart-route-compare",
            "chart-route-failures",
        ] {
            let (ink, w, h) = b.canvas_ink(chart).await;
            assert!(w >= 400 && h >= 200, "{chart} is {w}x{h}");
            assert!(ink > 3_000, "{chart} looks blank: {ink}");
        }
        // How each algorithm routes, beside the authors' code: one entry per algorithm.
        let defs = b
            .js("return [...document.querySelectorAll('[data-testid=route-definitions] dd')].map(d => d.textContent);")
            .await;
        let defs = defs.as_array().unwrap();
        assert_eq!(defs.len(), libra_studio::routing::Algorithm::ALL.len());
        assert!(defs
            .iter()
            .any(|d| d.as_str().unwrap().contains("authors' rule exactly")));
        b.screenshot("app-routing").await;
        // Every chart of the view exports, drawn as the core draws it (the heatmap of the
        // algorithm shown).
        b.capture_downloads().await;
        b.click("chart-route-loads-svg").await;
        b.click("chart-route-failures-png").await;
        let files = b.downloads(2).await;
        assert_eq!(files[0].0, "route-loads.svg");
        let svg = String::from_utf8(files[0].1.clone()).unwrap();
        // For a paper: no title (its caption says it), the panels' labels, named fonts.
        let title = format!("Flows per ToR-spine link, {}", three.routed[3].name);
        assert!(!svg.contains(&title), "the heatmap's SVG keeps its title");
        assert!(
            svg.contains("up (ToR → spine)"),
            "the heatmap's SVG lacks its panels"
        );
        assert!(svg.contains(libra_studio::charts::chart::SVG_FONTS));
        assert_eq!(files[1].0, "route-failures.png");
        assert_eq!(&files[1].1[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
        // The header's results follow the open view: every algorithm's metrics, as the core
        // writes them.
        b.capture_downloads().await;
        b.click("export-csv").await;
        b.click("export-results-json").await;
        let files = b.downloads(2).await;
        let want = libra_studio::results::routing(&three);
        assert_eq!(files[0].0, "routing-results.csv");
        assert_eq!(String::from_utf8(files[0].1.clone()).unwrap(), want.csv);
        assert_eq!(files[1].0, "routing-results.json");
        assert_eq!(String::from_utf8(files[1].1.clone()).unwrap(), want.json);

        // A preset, then a field.
        b.select("route-preset", "spine-failure").await;
        b.select("route-algorithm", "greedy").await;
        let failed = route_study(&RoutePreset::SpineFailure.setup()).unwrap();
        let m = &failed.routed[1].metrics;
        b.wait_value("route-makespan", |v| close(v, m.makespan_static_s))
            .await;
        b.type_into("route-spines", "8").await;
        // The preset menu says the fields were edited.
        b.wait_js(
            "the preset menu to say custom",
            "return document.querySelector('[data-testid=route-preset]').value === 'custom';",
        )
        .await;
        let mut setup = RoutePreset::SpineFailure.setup();
        setup.placement.spines = 8;
        let wider = route_study(&setup).unwrap();
        let m = &wider.routed[1].metrics;
        b.wait_value("route-min-rate", |v| close(v, m.min_flow_rate_gbps))
            .await;
        let ms: f64 = b
            .wait_value("route-ms", |v| !v.is_empty())
            .await
            .parse()
            .unwrap();
        eprintln!("routing view: all four algorithms and the failure sweep in {ms:.1} ms");
        // The Routing view travels in the link: a reload reopens it with the same fabric.
        let hash = b.js("return location.hash;").await;
        let (_, state) = libra_studio::permalink::decode_with(hash.as_str().unwrap()).unwrap();
        assert_eq!(state.view, libra_studio::view::View::Routing);
        assert!(
            state.route.setup == setup
                && state.route.algorithm == libra_studio::routing::Algorithm::Greedy
        );
        b.client.refresh().await.unwrap();
        b.wait_testid("routing-view").await;
        b.wait_value("route-min-rate", |v| close(v, m.min_flow_rate_gbps))
            .await;
        let spines = b
            .js("return document.querySelector('[data-testid=route-spines]').value;")
            .await;
        assert_eq!(spines, "8");
        // A system's fabric: one rail of a DGX H100 SuperPOD (64 leaves of 32 NICs, 32 spines,
        // 400 Gb/s), routed as the core routes it.
        b.select("route-system", "dgx-h100").await;
        let h100 = libra_studio::systems::system_preset("dgx-h100").unwrap();
        let rail = setup.on_system(&h100).unwrap();
        let routed = route_study(&rail).unwrap();
        let m = &routed.routed[1].metrics;
        b.wait_value("route-min-rate", |v| close(v, m.min_flow_rate_gbps))
            .await;
        let fields = b
            .js("return ['tors', 'spines', 'hosts', 'gbps'].map(k =>
                    document.querySelector('[data-testid=route-' + k + ']').value);")
            .await;
        assert_eq!(fields, serde_json::json!(["64", "32", "32", "400"]));
        let fabric = b.text("route-fabric").await;
        assert!(fabric.contains("dgx-h100: one of its 8 rails"), "{fabric}");
        b.screenshot("app-routing-system").await;
        // The 64-ToR heatmap: every few ToRs and spines labelled, none running together.
        b.js("document.querySelector('[data-testid=chart-route-loads]').scrollIntoView(); return true;")
            .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        b.screenshot("app-routing-heatmap-64").await;
        // Back to the design view: its results are still there.
        b.click("view-design").await;
        b.wait_value("total-npus", |v| v == "4096").await;
        b.assert_no_errors().await;
        b.close().await;
    });
}
