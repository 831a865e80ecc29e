//! Teach and compare, in headless Chromium: the shape comparison ranks the shapes as the core does
//! natively, the landscape draws, the guided tour steps forward and back by permalink, a pinned
//! scenario sits beside the edited one (and travels in the link), presentation mode hides the
//! editing chrome, and one scenario prints on one A4 or Letter page.

use e2e::{run, Browser};
use libra_studio::analysis::landscape::{landscape, GRID};
use libra_studio::analysis::shape_run::{CompareSetup, ShapeRun};
use libra_studio::analysis::side_by_side::side_by_side;
use libra_studio::analysis::study::{study, study_by};
use libra_studio::optimize::Method;
use libra_studio::permalink::{decode_with, encode_with};
use libra_studio::presets::default_scenario;
use libra_studio::view::{LinkState, View};
use std::time::Duration;

fn close(v: &str, want: f64, rel: f64) -> bool {
    v.parse::<f64>()
        .is_ok_and(|x| (x - want).abs() <= rel * want.abs())
}

/// The state the page's URL carries now.
async fn link_state(b: &Browser) -> LinkState {
    let hash = b.js("return location.hash;").await;
    decode_with(hash.as_str().unwrap()).unwrap().1
}

#[test]
fn the_shape_comparison_ranks_the_shapes_as_the_core_does() {
    run(Duration::from_secs(240), async {
        let base = default_scenario();
        let mut native = ShapeRun::new(&base, &CompareSetup::default()).unwrap();
        while !native.step(64) {}
        let ranking = native.ranking();
        let all = native.shapes.len();

        let b = Browser::start(1400, 1100).await;
        b.open("").await;
        // The design view's own button opens the comparison and runs it.
        b.click("compare-run").await;
        b.wait_testid("chart-compare").await;
        // Progress is shown while it runs; the page answers between frames.
        let done = b
            .wait_value("compare-progress", |v| v == all.to_string())
            .await;
        assert_eq!(done, all.to_string());
        let ms: f64 = b
            .wait_value("compare-ms", |v| !v.is_empty())
            .await
            .parse()
            .unwrap();
        eprintln!("shape comparison: {all} shapes x 17 budgets in {ms:.0} ms across frames");
        // The table's first rows are the core's ranking.
        let times = b
            .js("return Array.from(document.querySelectorAll('[data-testid=compare-table] [data-testid=compare-row]')).map(r => r.dataset.value);")
            .await;
        let times: Vec<String> = serde_json::from_value(times).unwrap();
        assert!(times.len() >= 12, "{times:?}");
        for (k, t) in times.iter().take(12).enumerate() {
            assert!(
                close(t, ranking[k].time_ns, 1e-6),
                "row {k}: {t} vs {}",
                ranking[k].time_ns
            );
        }
        let table = b.text("compare-table").await;
        assert!(table.contains(&native.shapes[ranking[0].shape].shape_label()));
        assert!(table.contains("(the design)"), "{table}");
        let (ink, w, h) = b.canvas_ink("chart-compare").await;
        assert!(w >= 600 && h >= 200 && ink > 5_000, "{w}x{h}, ink {ink}");
        assert!(b.text("compare-winners").await.contains('$'));

        // A typed shape joins the comparison; a bad one says why.
        b.type_into("compare-shape", "R4 x SW8").await;
        b.click("compare-add").await;
        b.wait_js(
            "an error naming the NPU count",
            "return document.body.innerText.includes('it has 32 NPUs, the design has 4096');",
        )
        .await;
        // Beyond a tier's limit (16 chiplets in a package): refused, naming the limit.
        b.type_into("compare-shape", "R16 x SW256").await;
        b.click("compare-add").await;
        b.wait_js(
            "an error naming the tier limit",
            "return document.body.innerText.includes('joins at most 8 per dimension');",
        )
        .await;
        b.type_into("compare-shape", "FC8 x SW512").await;
        b.click("compare-add").await;
        b.wait_value("compare-progress", |v| v == (all + 1).to_string())
            .await;
        // Only 2-D and 3-D shapes within the tier limits: 3 + 12, and the typed one.
        b.click("compare-dims-4").await;
        b.wait_value("compare-progress", |v| v == "16").await;
        b.click("compare-dims-4").await;
        b.wait_value("compare-progress", |v| v == (all + 1).to_string())
            .await;
        b.js("window.scrollTo(0, 0); return true;").await;
        b.screenshot("app-shapes").await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn the_landscape_draws_the_feasible_set_and_follows_the_picked_dimensions() {
    run(Duration::from_secs(120), async {
        let s = study(&default_scenario()).unwrap();
        let b = Browser::start(1400, 1100).await;
        b.open("").await;
        b.click("view-landscape").await;
        // The two dimensions with the most bandwidth first: d1 and d2.
        let want = landscape(&s, 0, 1, GRID).unwrap().feasible_share();
        b.wait_value("landscape-explain", |v| close(v, want, 1e-9))
            .await;
        let (ink, _, _) = b.canvas_ink("chart-landscape").await;
        assert!(ink > 20_000, "the landscape looks blank: {ink}");
        let want = landscape(&s, 0, 3, GRID).unwrap().feasible_share();
        b.select("landscape-y", "3").await;
        b.wait_value("landscape-explain", |v| close(v, want, 1e-9))
            .await;
        let state = link_state(&b).await;
        assert_eq!(state.view, View::Landscape);
        assert_eq!(state.landscape, Some((0, 3)));
        // Both methods' paths, with the core's step counts.
        let l = landscape(&s, 0, 3, GRID).unwrap();
        let text = b
            .js("return document.querySelector('.landscape').innerText;")
            .await;
        let text = text.as_str().unwrap();
        assert_eq!(l.paths.len(), 2);
        for p in &l.paths {
            let said = format!(
                "{} method's: {} points shown of {} {}",
                p.method.label().to_lowercase(),
                p.points.len(),
                p.steps,
                p.method.step_name()
            );
            assert!(text.contains(&said), "{said} not in {text}");
        }
        b.screenshot("app-landscape").await;

        // The method is the visitor's choice: the same optimum within the certificate, and the
        // choice travels in the link.
        b.click("view-design").await;
        b.select("solve-method", Method::ProjectedGradient.key())
            .await;
        let pg = study_by(&default_scenario(), Method::ProjectedGradient).unwrap();
        assert!((pg.optimum.time_ns / s.optimum.time_ns - 1.0).abs() <= 2e-6);
        b.wait_value("result-time-ns", |v| close(v, pg.optimum.time_ns, 1e-9))
            .await;
        let metrics = b
            .js("return document.querySelector('.metrics').innerText;")
            .await;
        let metrics = metrics.as_str().unwrap();
        let said = format!(
            "{} gradient steps of the projected gradient",
            pg.optimum.iterations
        );
        assert!(metrics.contains(&said), "{said} not in {metrics}");
        assert_eq!(link_state(&b).await.method, Method::ProjectedGradient);
        b.client.refresh().await.unwrap();
        b.wait_value("result-time-ns", |v| close(v, pg.optimum.time_ns, 1e-9))
            .await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn the_tour_steps_forward_and_back_by_permalink() {
    run(Duration::from_secs(120), async {
        let link = encode_with(
            &default_scenario(),
            &LinkState {
                tour: Some(1),
                ..LinkState::default()
            },
        );
        let b = Browser::start(1400, 1000).await;
        // A first visit offers the tour; its first "next" opens step 1.
        b.open("").await;
        b.click("tour-next").await;
        b.wait_value("tour", |v| v == "0").await;
        b.click("tour-close").await;
        b.open(&link).await;
        b.wait_js(
            "the tour at step 2",
            "return (document.querySelector('[data-testid=tour-title]')||{}).textContent === '2. The optimum';",
        )
        .await;
        assert!(b.text("tour").await.contains("722.41 ms"));
        b.click("tour-back").await;
        b.wait_value("tour", |v| v == "0").await;
        let disabled = b
            .js("return document.querySelector('[data-testid=tour-back]').disabled;")
            .await;
        assert_eq!(disabled, serde_json::json!(true));
        assert_eq!(link_state(&b).await.tour, Some(0));
        b.screenshot("app-tour").await;
        // Each step scrolls to what it talks about; the next click waits for it.
        let framed = |k: usize| format!("return document.body.dataset.tourFramed === '{k}';");
        b.wait_js("step 1 framed", &framed(0)).await;
        for k in 1..=3 {
            b.click("tour-next").await;
            b.wait_value("tour", |v| v == k.to_string()).await;
            b.wait_js("the step framed", &framed(k)).await;
        }
        // Step 4 opens the landscape, step 5 the shapes.
        b.wait_testid("chart-landscape").await;
        assert_eq!(link_state(&b).await.view, View::Landscape);
        b.click("tour-next").await;
        b.wait_value("tour", |v| v == "4").await;
        b.wait_testid("compare-table").await;
        assert_eq!(link_state(&b).await.tour, Some(4));
        b.wait_js("step 5 framed", &framed(4)).await;
        // The page has scrolled to the shapes' chart: it is in the window.
        b.wait_js(
            "the shapes' chart framed",
            "const r = document.querySelector('[data-testid=chart-compare]').getBoundingClientRect();
             return r.top < window.innerHeight && r.bottom > 0;",
        )
        .await;
        // The closing step returns to the design, on the network panel, and finishes.
        b.click("tour-next").await;
        b.wait_value("tour", |v| v == "5").await;
        b.wait_js("step 6 framed", &framed(5)).await;
        assert!(b.text("tour-title").await.starts_with("6. Your turn"));
        b.wait_js(
            "the network panel framed",
            "const r = document.querySelector('[data-testid=network-panel]').getBoundingClientRect();
             return r.top < window.innerHeight && r.bottom > 0;",
        )
        .await;
        assert_eq!(b.text("tour-next").await, "Finish");
        b.click("tour-back").await;
        b.wait_value("tour", |v| v == "4").await;
        b.wait_js("step 5 framed again", &framed(4)).await;
        // Reloading the link keeps the step.
        b.client.refresh().await.unwrap();
        b.wait_value("tour", |v| v == "4").await;
        b.click("tour-back").await;
        b.wait_value("tour", |v| v == "3").await;
        b.click("tour-close").await;
        b.wait_js(
            "the tour closed",
            "return !document.querySelector('[data-testid=tour]');",
        )
        .await;
        // The short link a teacher can write by hand: #tour=N opens step N.
        b.open("#tour=3").await;
        b.wait_value("tour", |v| v == "2").await;
        assert!(b.text("tour-title").await.starts_with("3."));
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn a_pinned_scenario_is_compared_and_travels_in_the_link() {
    run(Duration::from_secs(120), async {
        let base = default_scenario();
        let mut edited = base.clone();
        edited.constraints.total_bw =
            Some(libra_studio::model::scenario::TotalBandwidth::Equal(800.0));
        let rows = side_by_side(&study(&base).unwrap(), &study(&edited).unwrap());
        let b = Browser::start(1400, 1100).await;
        b.open("").await;
        b.click("pin-scenario").await;
        b.wait_testid("side-by-side").await;
        b.type_into("total-bw", "800").await;
        let want = rows.iter().filter(|r| r.changed).count();
        b.wait_js(
            "the changed rows",
            &format!(
                "return document.querySelectorAll('[data-testid=side-row][data-changed=true]').length === {want};"
            ),
        )
        .await;
        let text = b.text("side-by-side").await;
        assert!(
            text.contains(&rows[0].pinned_text) && text.contains(&rows[0].current_text),
            "{text}"
        );
        let state = link_state(&b).await;
        assert_eq!(state.pinned.as_ref(), Some(&base));
        let (ink, _, _) = b.canvas_ink("chart-pareto").await;
        assert!(ink > 5_000);
        b.js("document.querySelector('[data-testid=side-by-side]').scrollIntoView(); return true;")
            .await;
        b.screenshot("app-side-by-side").await;
        // The link reopens both.
        b.client.refresh().await.unwrap();
        b.wait_testid("side-by-side").await;
        b.wait_value("result-time-ns", |v| {
            close(v, study(&edited).unwrap().evaluation.time_ns, 1e-9)
        })
        .await;
        b.click("unpin-scenario").await;
        b.wait_js(
            "no side by side",
            "return !document.querySelector('[data-testid=side-by-side]');",
        )
        .await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn presentation_mode_hides_the_editing_chrome_and_a_scenario_prints_on_one_page() {
    run(Duration::from_secs(120), async {
        let b = Browser::start(1400, 1300).await;
        b.open("").await;
        // The overview of the README: the tour offer dismissed.
        b.click("tour-dismiss").await;
        b.wait_js(
            "the offer gone",
            "return !document.querySelector('[data-testid=tour-offer]');",
        )
        .await;
        b.screenshot("app-overview").await;
        let visible = |id: &str| {
            format!("return document.querySelector('[data-testid={id}]').offsetParent !== null;")
        };
        assert_eq!(b.js(&visible("input-panel")).await, serde_json::json!(true));
        b.click("presentation-mode").await;
        b.wait_js(
            "the inputs hidden",
            &visible("input-panel").replace("!==", "==="),
        )
        .await;
        assert_eq!(
            b.js(&visible("results-panel")).await,
            serde_json::json!(true)
        );
        let size = b
            .js("return parseFloat(getComputedStyle(document.querySelector('.app')).fontSize);")
            .await;
        assert!(size.as_f64().unwrap() >= 20.0, "{size}");
        b.screenshot("app-presentation").await;
        b.click("presentation-mode").await;
        b.wait_js("the inputs back", &visible("input-panel")).await;
        // Print: one page on A4 and on Letter.
        for (name, size) in [
            ("A4", fantoccini::wd::PrintSize::A4),
            ("Letter", fantoccini::wd::PrintSize::US_LETTER),
        ] {
            let pdf = b
                .client
                .print(
                    fantoccini::wd::PrintConfiguration::builder()
                        .size(size)
                        .build()
                        .unwrap(),
                )
                .await
                .unwrap();
            let text = String::from_utf8_lossy(&pdf);
            let pages = text.matches("/Type /Page\n").count()
                + text.matches("/Type /Page ").count()
                + text.matches("/Type /Page>").count()
                + text.matches("/Type /Page/").count();
            std::fs::write(
                e2e::screenshot_dir().join(format!("print-{name}.pdf")),
                &pdf,
            )
            .unwrap();
            assert_eq!(pages, 1, "{name}: {pages} pages");
        }
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn a_mixture_of_experts_shows_its_all_to_alls_on_the_dimensions_they_cross() {
    run(Duration::from_secs(180), async {
        use libra_studio::codesign::{scenario_of, Choice, ModelPreset};
        use libra_studio::format::duration_ns;
        use libra_studio::model::communicator::{LayOrder, Parallelism};
        use libra_studio::model::workload::Traffic;
        // Mixtral 8x7B on 64 H100s (8 x 8): PP 4 inside a node, DP 16 over the rest, EP 8 over
        // 2 GPUs of a node and 4 nodes: its dispatch and combine cross both tiers.
        let spec = libra_studio::systems::system_preset("dgx-h100").unwrap();
        let shape = spec.network(64).unwrap();
        let mut t = ModelPreset::Mixtral8x7b.transformer();
        t.global_batch = 256;
        let choice = Choice {
            ep: 8,
            ..Choice::plain(
                Parallelism {
                    tp: 1,
                    pp: 4,
                    dp: 16,
                },
                1,
                LayOrder::TpPpDp,
            )
        };
        let sc = scenario_of(&t, &choice, &shape, &spec.cost_model(), Some(2e6)).unwrap();
        let native = study(&sc).unwrap();
        let ep = native.evaluation.exposed_by_traffic()[Traffic::Ep.index()].clone();
        // LIBRA's pipelined dimensions: the slowest (InfiniBand) bounds each all-to-all.
        assert!(ep[1] > 0.0 && ep[0] == 0.0, "{ep:?}");
        let b = Browser::start(1400, 1100).await;
        b.open(&libra_studio::permalink::encode(&sc)).await;
        b.wait_value("result-time-ns", |v| {
            close(v, native.evaluation.time_ns, 1e-6)
        })
        .await;
        let (ink, w, h) = b.canvas_ink("chart-traffic").await;
        assert!(w >= 400 && h >= 200 && ink > 3_000, "{w}x{h}, ink {ink}");
        b.js("document.querySelector('[data-testid=chart-traffic-table]').open = true;")
            .await;
        b.wait_js(
            "the traffic table",
            "return document.querySelector('[data-testid=chart-traffic-table]').textContent.includes('EP all-to-all');",
        )
        .await;
        let table = b
            .js("return document.querySelector('[data-testid=chart-traffic-table]').textContent;")
            .await;
        let table = table.as_str().unwrap().to_string();
        for v in &ep {
            assert!(
                table.contains(&duration_ns(*v)),
                "{} not in {table}",
                duration_ns(*v)
            );
        }
        b.js("document.querySelector('[data-testid=chart-traffic]').scrollIntoView();")
            .await;
        b.screenshot("app-traffic-moe").await;
        b.assert_no_errors().await;
        b.close().await;
    });
}
