//! The Co-design view in headless Chromium: its module loads when the view opens, searches GPT-3
//! 175B on the design's 4,096 NPUs as the core does natively, shows the front, the winners and the
//! ranked table, keeps the page responsive (no task over 50 ms while it searches; the first open
//! also loads and compiles the module, reported), travels in the link, and loads a design into the
//! design view with the time it was ranked at.

use e2e::{run, run_alone, Browser};
use libra_studio::analysis::study::study;
use libra_studio::codesign::{CodesignInputs, CodesignRun, CustomField, InputField};
use libra_studio::format::duration_ns;
use libra_studio::permalink::decode_with;
use libra_studio::presets::default_scenario;
use std::time::Duration;

fn close(v: &str, want: f64, rel: f64) -> bool {
    v.parse::<f64>()
        .is_ok_and(|x| (x - want).abs() <= rel * want.abs())
}

#[test]
fn the_codesign_view_searches_as_the_core_does_and_loads_a_design() {
    run_alone(Duration::from_secs(240), async {
        // The view's default question: GPT-3 175B on the design's NPUs, 80 GB, budgets from 1/8 to
        // 8 times the design's optimum cost.
        let base = default_scenario();
        let cost = study(&base).unwrap().evaluation.cost_usd;
        let inputs = CodesignInputs::around(&base, cost);
        let native = CodesignRun::new(&inputs.setup(&base).unwrap())
            .unwrap()
            .run()
            .result();
        let best = native.best.clone().unwrap();

        let b = Browser::start(1400, 1100).await;
        b.open("").await;
        b.wait_testid("results-panel").await;
        b.watch_long_tasks().await;
        b.click("view-codesign").await;
        b.wait_testid("codesign-view").await;
        let ms: f64 = b
            .wait_value("codesign-status", |v| !v.is_empty())
            .await
            .parse()
            .unwrap();
        let first = b.long_tasks().await;
        // Again, the module loaded: the search alone.
        b.watch_long_tasks().await;
        b.click("codesign-run").await;
        b.wait_js(
            "the second search to finish",
            "return !document.querySelector('[data-testid=codesign-cancel]') && document.querySelector('[data-testid=codesign-status]').dataset.value !== '';",
        )
        .await;
        let long = b.long_tasks().await;
        eprintln!("first open (module load and search): tasks over 50 ms {first:?}");
        eprintln!(
            "co-design: {} candidates, {} optimized, in {ms:.0} ms in Chromium (module load excluded); tasks over 50 ms: {long:?}",
            native.candidates, native.evaluated
        );
        assert!(long.is_empty(), "tasks over 50 ms: {long:?}");
        // Issue 17's target for GPT-3 on 4,096 NPUs in Chromium.
        assert!(ms < 2000.0, "{ms} ms");
        // Issue 35's target for DeepSeek-V3 on 2,048 GPUs in Chromium.
        assert!(ms < 8000.0, "{ms} ms");
        let status = b.text("codesign-status").await;
        assert!(status.contains(&native.counts()), "{status}");
        let table = b.text("codesign-table").await;
        assert!(table.contains(&duration_ns(best.time_ns)), "{table}");
        assert!(table.contains(&best.shape_label), "{table}");
        let winners = b.text("codesign-winners").await;
        assert!(winners.contains(&native.winners[0].design.shape_label));
        let (ink, w, h) = b.canvas_ink("chart-codesign").await;
        assert!(w >= 600 && h >= 200 && ink > 3_000, "{w}x{h}, ink {ink}");
        b.screenshot("app-codesign").await;

        // The question travels in the link.
        let hash = b.js("return location.hash;").await;
        let state = decode_with(hash.as_str().unwrap()).unwrap().1;
        let carried: CodesignInputs = serde_json::from_str(&state.codesign.unwrap()).unwrap();
        // The page centers the budgets on the solver's cost of the optimum; this test on the study's
        // evaluation of it: the same number but for the last bits.
        let near = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b;
        assert!(near(carried.lo_usd, inputs.lo_usd) && near(carried.hi_usd, inputs.hi_usd));
        assert_eq!(
            CodesignInputs {
                lo_usd: inputs.lo_usd,
                hi_usd: inputs.hi_usd,
                ..carried
            },
            inputs
        );

        // A bad field says why and keeps what was typed; the question keeps its last good value.
        b.type_into("codesign-npus", "1").await;
        b.click("codesign-own-shape").await;
        b.click("codesign-own-shape").await;
        b.wait_js(
            "the NPUs field marked with its reason",
            "const e = document.querySelector('[data-testid=codesign-npus-error]'); \
             return !!e && e.textContent === 'must be at least 2, got 1' \
               && document.querySelector('[data-testid=codesign-npus]').getAttribute('aria-invalid') === 'true';",
        )
        .await;

        // Load the fastest design: the design view shows its time.
        b.click("codesign-load").await;
        b.wait_value("result-time-ns", |v| close(v, best.time_ns, 2e-6))
            .await;

        // A custom model of the visitor's sizes, with full recomputation: the core's answer.
        b.click("view-codesign").await;
        b.select("codesign-model", "custom").await;
        let mut custom = inputs.clone();
        custom.model = libra_studio::codesign::CUSTOM.into();
        custom.full_recompute = true;
        for (id, field, v) in [
            ("codesign-layers", CustomField::Layers, "24"),
            ("codesign-hidden", CustomField::Hidden, "2048"),
            ("codesign-ffn", CustomField::Ffn, "8192"),
            ("codesign-heads", CustomField::Heads, "16"),
        ] {
            b.type_into(id, v).await;
            custom.set(InputField::Custom(field), v).unwrap();
        }
        // The NPUs refused above are kept as typed (and the question not searched) until fixed.
        b.type_into("codesign-npus", "4096").await;
        b.click("codesign-full-recompute").await;
        b.click("codesign-run").await;
        let small = CodesignRun::new(&custom.setup(&base).unwrap())
            .unwrap()
            .run()
            .result();
        let want = small.counts();
        b.wait_js(
            "the custom model's search",
            &format!("return document.querySelector('[data-testid=codesign-status]').textContent.includes('{want}');"),
        )
        .await;
        let table = b.text("codesign-table").await;
        let fastest = small.best.unwrap();
        assert!(table.contains(&duration_ns(fastest.time_ns)), "{table}");
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn a_module_that_cannot_start_says_so_instead_of_a_blank_tab() {
    run(Duration::from_secs(120), async {
        let b = Browser::start(1200, 900).await;
        b.serve_instead("explore-view_bg.wasm", b"not a wasm module".to_vec());
        b.open("").await;
        b.click("view-codesign").await;
        b.wait_js(
            "the reason in the tab",
            "return document.body.innerText.includes('The Co-design view could not start');",
        )
        .await;
        // The rest of the app works on.
        b.click("view-design").await;
        b.wait_value("result-time-ns", |v| !v.is_empty()).await;
        b.close().await;
    });
}

#[test]
fn on_a_real_system_the_codesign_view_searches_its_network_as_the_core_does() {
    run(Duration::from_secs(180), async {
        // GPT-3 175B on the design's 4,096 NPUs, picked on dgx-h100: every candidate on
        // SW8:nvlink4 x SW512:ib-ndr, the system's tiers beside the design's, its compute and HBM.
        let base = default_scenario();
        let cost = study(&base).unwrap().evaluation.cost_usd;
        let mut inputs = CodesignInputs::around(&base, cost);
        inputs.choose_system("dgx-h100");
        let native = CodesignRun::new(&inputs.setup(&base).unwrap())
            .unwrap()
            .run()
            .result();
        let best = native.best.clone().unwrap();
        assert_eq!(best.shape_label, "Switch 8 × Switch 512");

        let b = Browser::start(1400, 1100).await;
        b.open("").await;
        b.open_view("codesign").await;
        b.select("codesign-system", "dgx-h100").await;
        let note = b.text("codesign-system-note").await;
        assert!(
            note.contains("dgx-h100's network for 4096 NPUs (Switch 8 × Switch 512"),
            "{note}"
        );
        b.click("codesign-run").await;
        let want = native.counts();
        b.wait_js(
            "the search on dgx-h100",
            &format!(
                "return !document.querySelector('[data-testid=codesign-cancel]') && \
                 document.querySelector('[data-testid=codesign-status]').textContent.includes('{want}');"
            ),
        )
        .await;
        let table = b.text("codesign-table").await;
        assert!(table.contains(&duration_ns(best.time_ns)), "{table}");
        b.screenshot("app-codesign-dgx-h100").await;
        // Loaded into the design view, the design keeps its time, on the system's tiers.
        b.click("codesign-load").await;
        b.wait_value("result-time-ns", |v| close(v, best.time_ns, 2e-6))
            .await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn deepseek_v3_on_2048_h800s_is_searched_in_slices_with_its_experts() {
    run_alone(Duration::from_secs(240), async {
        use libra_studio::codesign::{scenario_of, Choice};
        use libra_studio::model::communicator::{LayOrder, Parallelism};
        use libra_studio::permalink::encode_with;
        use libra_studio::view::{LinkState, View};
        // A design of 2,048 NPUs on DeepSeek's cluster (GPT-3 on it), and the question the issue
        // asks: DeepSeek-V3 on that system.
        let spec = libra_studio::systems::system_preset("hgx-h800").unwrap();
        let shape = spec.network(2048).unwrap();
        let costs = spec.cost_model();
        let gpt3 = libra_studio::codesign::ModelPreset::Gpt3.transformer();
        let choice = Choice::plain(
            Parallelism {
                tp: 8,
                pp: 8,
                dp: 32,
            },
            1,
            LayOrder::TpPpDp,
        );
        let base = scenario_of(&gpt3, &choice, &shape, &costs, Some(5e7)).unwrap();
        let mut inputs = CodesignInputs::around(&base, 5e7);
        inputs.model = "deepseek-v3".into();
        inputs.choose_system("hgx-h800");
        let native = CodesignRun::new(&inputs.setup(&base).unwrap())
            .unwrap()
            .run()
            .result();
        let best = native.best.clone().unwrap();
        assert!(best.ep > 1, "{best:?}");
        let link = encode_with(
            &base,
            &LinkState {
                view: View::Codesign,
                codesign: Some(serde_json::to_string(&inputs).unwrap()),
                ..LinkState::default()
            },
        );
        let b = Browser::start(1400, 1100).await;
        b.open(&link).await;
        b.wait_testid("codesign-view").await;
        b.wait_js(
            "the first search (module load included)",
            "return !document.querySelector('[data-testid=codesign-cancel]') && document.querySelector('[data-testid=codesign-status]').dataset.value !== '';",
        )
        .await;
        b.watch_long_tasks().await;
        b.click("codesign-run").await;
        b.wait_js(
            "the DeepSeek-V3 search to finish",
            "return !document.querySelector('[data-testid=codesign-cancel]') && document.querySelector('[data-testid=codesign-status]').dataset.value !== '';",
        )
        .await;
        let ms: f64 = b
            .wait_value("codesign-status", |v| !v.is_empty())
            .await
            .parse()
            .unwrap();
        let long = b.long_tasks().await;
        eprintln!(
            "DeepSeek-V3 on 2,048 H800s: {} candidates, {} optimized, in {ms:.0} ms in Chromium; tasks over 50 ms: {long:?}",
            native.candidates, native.evaluated
        );
        assert!(long.is_empty(), "tasks over 50 ms: {long:?}");
        let status = b.text("codesign-status").await;
        assert!(status.contains(&native.counts()), "{status}");
        let table = b.text("codesign-table").await;
        assert!(table.contains(&duration_ns(best.time_ns)), "{table}");
        assert!(table.contains(&format!("EP {}", best.ep)), "{table}");
        b.screenshot("app-codesign-deepseek").await;
        b.assert_no_errors().await;
        b.close().await;
    });
}
