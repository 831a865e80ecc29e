//! The app in headless Chromium: the default scenario, live edits of every kind of field compared
//! with the numbers the core computes natively, bad input, the dimension table, the charts (pixels,
//! device pixels, hover and click on the front), exports, large text and reset.
//! Build first: `make dist` (make test does).

use e2e::{run, run_alone, Browser};
use libra_studio::analysis::study::{study, Study};
use libra_studio::form::Form;
use libra_studio::model::scenario::{Scenario, TotalBandwidth};
use libra_studio::presets;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn close(a: f64, b: f64, rel: f64) -> bool {
    ((a - b) / b).abs() <= rel
}

fn value(v: &str) -> f64 {
    v.parse().unwrap_or(f64::NAN)
}

/// The page shows the results of `expected` (time, cost, bandwidths, speedup), to 1e-9 relative.
async fn shows(b: &Browser, expected: &Study) {
    let t = expected.evaluation.time_ns;
    b.wait_value("result-time-ns", |v| close(value(v), t, 1e-9))
        .await;
    let c = expected.evaluation.cost_usd;
    b.wait_value("result-cost-usd", |v| close(value(v), c, 1e-9))
        .await;
    for (d, bw) in expected.optimum.bw_gbps.iter().enumerate() {
        b.wait_value(&format!("result-bw-{}", d + 1), |v| {
            close(value(v), *bw, 1e-9)
        })
        .await;
    }
    if let Some(s) = expected.speedup() {
        b.wait_value("result-speedup", |v| close(value(v), s, 1e-9))
            .await;
    }
}

fn native(sc: &Scenario) -> Study {
    study(sc).expect("the scenario solves natively")
}

#[test]
fn default_scenario_and_live_edits_match_the_core() {
    run_alone(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        assert_eq!(
            b.js("return document.querySelector('h1').textContent;")
                .await,
            "libra-studio"
        );
        let mut sc = presets::default_scenario();
        let expected = native(&sc);
        shows(&b, &expected).await;
        b.wait_value("total-npus", |v| v == "4096").await;
        // LIBRA + Gurobi's optimum (722,411,780.92 ns) matched or beaten; speedup 1.0729.
        let t = value(&b.wait_value("result-time-ns", |_| true).await);
        assert!(t <= 722_411_780.920_221_1 * (1.0 + 1e-9), "{t}");
        assert_eq!(b.text("result-time-ns").await, "722.41 ms");
        assert_eq!(b.text("result-speedup").await, "1.0729×");
        let gap = value(&b.wait_value("result-gap", |_| true).await);
        assert!((0.0..=1e-6).contains(&gap), "gap {gap}");
        for chart in ["chart-pareto", "chart-breakdown", "chart-bw", "chart-cost"] {
            let (ink, w, h) = b.canvas_ink(chart).await;
            assert!(w >= 400 && h >= 200, "{chart} is {w}x{h}");
            assert!(ink > 3_000, "{chart} looks blank: {ink} inked pixels");
        }
        b.screenshot("app-default").await;

        // NPUs: 64 pods instead of 32.
        b.type_into("dim-npus-4", "64").await;
        b.wait_value("total-npus", |v| v == "8192").await;
        sc.network.dims[3].npus = 64;
        shows(&b, &native(&sc)).await;

        // Topology and tier of a dimension.
        b.select("dim-topology-3", "Switch").await;
        sc.network.dims[2].topology = libra_studio::model::Topology::Switch;
        b.select("dim-tier-3", "InterPod").await;
        sc.network.dims[2].tier = "InterPod".into();
        shows(&b, &native(&sc)).await;

        // Bounds, total bandwidth, budget and a linear constraint.
        b.type_into("dim-min-4", "30").await;
        sc.constraints.min_gbps = vec![None, None, None, Some(30.0)];
        b.type_into("total-bw", "400").await;
        sc.constraints.total_bw = Some(TotalBandwidth::Equal(400.0));
        b.type_into("constraint-text", "B2 >= B3").await;
        sc.constraints.linear = vec!["B2 >= B3".into()];
        shows(&b, &native(&sc)).await;
        b.select("total-bw-kind", "none").await;
        b.type_into("budget", "2e7").await;
        sc.constraints.total_bw = None;
        sc.constraints.budget_usd = Some(2e7);
        let budget_only = native(&sc);
        shows(&b, &budget_only).await;
        assert!(budget_only.evaluation.cost_usd <= 2e7 * (1.0 + 1e-9));

        // Objectives: time x cost, and cost for a time target.
        b.select("objective", "time-x-cost").await;
        sc.objective = libra_studio::model::Objective::TimeXCost;
        shows(&b, &native(&sc)).await;
        b.select("objective", "cost").await;
        b.type_into("time-target", "9e8").await;
        sc.objective = libra_studio::model::Objective::Cost {
            time_target_ns: 9e8,
        };
        shows(&b, &native(&sc)).await;
        b.screenshot("app-edited").await;

        // The page's own timings are there.
        let solve_ms = value(&b.wait_value("solve-ms", |v| !v.is_empty()).await);
        assert!((0.0..1_000.0).contains(&solve_ms), "solve {solve_ms} ms");
        let redraw = value(&b.wait_value("redraw-ms", |v| !v.is_empty()).await);
        assert!((0.0..2_000.0).contains(&redraw), "redraw {redraw} ms");

        // How long an edit takes to reach the redrawn charts (docs/design.md target: 50 ms), measured
        // by the page (redraw-ms) over a few edits of the total bandwidth, back on the default.
        b.click("reset").await;
        shows(&b, &expected).await;
        let (mut times, mut solves) = (Vec::new(), Vec::new());
        for v in ["300", "400", "500", "450", "350"] {
            b.js(&format!(
                "const i = document.querySelector('[data-testid=\"total-bw\"]'); i.value = '{v}';
                 i.dispatchEvent(new Event('input', {{ bubbles: true }}));"
            ))
            .await;
            let total: f64 = v.parse().unwrap();
            let mut s = presets::default_scenario();
            s.constraints.total_bw = Some(TotalBandwidth::Equal(total));
            shows(&b, &native(&s)).await;
            tokio::time::sleep(Duration::from_millis(100)).await;
            times.push(value(&b.wait_value("redraw-ms", |v| !v.is_empty()).await));
            let solve = value(&b.wait_value("solve-ms", |v| !v.is_empty()).await);
            solves.push(solve);
            // Each chart's own drawing time, to tell where a slow redraw goes.
            let charts = b
                .js(
                    "return [...document.querySelectorAll('canvas[data-draw-ms]')]
                        .map(c => c.dataset.testid + ' ' + c.dataset.drawMs).join(', ');",
                )
                .await;
            eprintln!(
                "edit total-bw = {v}: solve + front {solve:.2} ms, edit to redraw {:.1} ms ({})",
                times.last().unwrap(),
                charts.as_str().unwrap_or_default()
            );
        }
        times.sort_by(f64::total_cmp);
        solves.sort_by(f64::total_cmp);
        eprintln!(
            "edit to all four charts redrawn (page's redraw-ms): median {:.1} ms over 5 edits (target 16 ms); \
             solve, uniform split and 48-point front (solve-ms): median {:.2} ms (target 0.5 ms)",
            times[2], solves[2]
        );
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn bad_input_is_marked_and_the_last_results_stay() {
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        let expected = native(&presets::default_scenario());
        shows(&b, &expected).await;

        b.type_into("dim-npus-3", "1").await;
        let msg = b.text("dim-npus-3-error").await;
        assert_eq!(msg, "must be at least 2, got 1");
        b.wait_js(
            "the NPU field marked invalid",
            "return document.querySelector('[data-testid=\"dim-npus-3\"]').getAttribute('aria-invalid') === 'true';",
        )
        .await;
        let banner = b.text("input-error").await;
        assert!(banner.contains("NPUs of dimension 3"), "{banner}");
        // The last valid results stay, greyed, and the charts keep their pixels.
        shows(&b, &expected).await;
        b.wait_js(
            "stale results",
            "return document.querySelector('[data-testid=\"results-body\"]').classList.contains('stale');",
        )
        .await;
        let (ink, _, _) = b.canvas_ink("chart-pareto").await;
        assert!(ink > 3_000, "the front vanished on invalid input");
        b.screenshot("app-invalid").await;

        // Text that is not a number, and a constraint naming a dimension that does not exist.
        b.type_into("dim-npus-3", "4").await;
        b.type_into("total-bw", "abc").await;
        assert_eq!(b.text("total-bw-error").await, "\"abc\" is not a number");
        b.type_into("total-bw", "500").await;
        b.type_into("constraint-text", "B7 >= 3").await;
        let e = b.text("constraint-text-error").await;
        assert!(e.contains("B7 does not exist"), "{e}");
        // Conflicting constraints name the constraints that conflict.
        b.type_into("constraint-text", "B1 >= 400\nB2 >= 200").await;
        let e = b.text("input-error").await;
        assert!(e.contains("B1 >= 400") && e.contains("B2 >= 200"), "{e}");
        // A network GPT-3's communicator does not fit: the parallelism field says why.
        b.type_into("constraint-text", "").await;
        b.type_into("dim-npus-1", "6").await;
        let e = b.text("workload-comm-1-error").await;
        assert!(e.contains("group size 4"), "{e}");
        b.type_into("dim-npus-1", "4").await;
        shows(&b, &expected).await;
        b.wait_js(
            "fresh results",
            "return !document.querySelector('[data-testid=\"results-body\"]').classList.contains('stale');",
        )
        .await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn dimensions_are_added_removed_and_reordered() {
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        b.wait_value("total-npus", |v| v == "4096").await;
        assert_eq!(b.count("dim-row").await, 4);
        b.click("add-dim").await;
        b.wait_value("total-npus", |v| v == "8192").await;
        assert_eq!(b.count("dim-row").await, 5);
        let mut form = Form::from_scenario(&presets::default_scenario());
        form.add_dim();
        shows(&b, &native(&form.to_scenario().unwrap())).await;
        // The new dimension carries no traffic: it gets the least bandwidth allowed.
        b.type_into("dim-npus-5", "4").await;
        b.wait_value("total-npus", |v| v == "16384").await;

        b.click("remove-dim-5").await;
        b.wait_value("total-npus", |v| v == "4096").await;
        assert_eq!(b.count("dim-row").await, 4);
        shows(&b, &native(&presets::default_scenario())).await;

        // Move the Switch dimension inwards: the workload's groups move with it.
        b.js("document.querySelector('[data-testid=\"dim-npus-4\"]').__mark = 'switch'; return true;")
            .await;
        b.click("move-dim-up-4").await;
        let mut form = Form::from_scenario(&presets::default_scenario());
        form.move_dim_down(2);
        shows(&b, &native(&form.to_scenario().unwrap())).await;
        // The row moved with its inputs (keyed by the row, not drawn anew), and the keyboard focus
        // stays on its button, now the third row's, so that a keyboard user can press on.
        let kept = b
            .js("return [document.querySelector('[data-testid=\"dim-npus-3\"]').__mark || null,
                         document.activeElement && document.activeElement.dataset.testid,
                         document.activeElement && document.activeElement.getAttribute('aria-label')];")
            .await;
        assert_eq!(
            kept,
            serde_json::json!(["switch", "move-dim-up-3", "Move dimension 3 up"])
        );
        let topo = b
            .js("return document.querySelector('[data-testid=\"dim-topology-3\"]').value;")
            .await;
        assert_eq!(topo, "Switch");
        // A preset workload on another shape keeps its parallelism degrees.
        b.select("workload-preset", "Turing_NLG").await;
        form.set_preset_workload(0, libra_studio::presets::LibraWorkload::TuringNlg);
        shows(&b, &native(&form.to_scenario().unwrap())).await;
        // The workload's row is new (its texts changed); the focus is back on its menu.
        b.wait_js(
            "the focus back on the workload's menu",
            "return document.activeElement && document.activeElement.dataset.testid === 'workload-preset';",
        )
        .await;
        // Latency per step, counted once the model option is on.
        b.type_into("dim-latency-4", "2000").await;
        b.click("latency").await;
        form.dims[3].latency = "2000".into();
        form.model.latency = true;
        shows(&b, &native(&form.to_scenario().unwrap())).await;
        // Renaming a tier keeps its dimensions on it: same numbers, the new name in their select.
        b.js("document.querySelector('.tiers').open = true; return true;")
            .await;
        let pod = 1 + form
            .tiers
            .iter()
            .position(|t| t.name == "InterPod")
            .unwrap();
        b.type_into(&format!("tier-name-{pod}"), "Pods").await;
        b.wait_js(
            "the renamed tier in the dimension's select",
            "return document.querySelector('[data-testid=\"dim-tier-3\"]').value === 'Pods';",
        )
        .await;
        shows(&b, &native(&form.to_scenario().unwrap())).await;
        b.screenshot("app-dims").await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn charts_are_crisp_on_high_dpi_screens_and_large_text_scales_them() {
    run(LIMIT, async {
        let b = Browser::start_scaled(1200, 900, 2.0).await;
        b.open("").await;
        b.wait_value("total-npus", |v| v == "4096").await;
        for chart in ["chart-pareto", "chart-bw", "chart-breakdown"] {
            let css = b
                .js(&format!(
                    "const c = document.querySelector('[data-testid={chart}]'); \
                     return [c.clientWidth, c.clientHeight, window.devicePixelRatio];"
                ))
                .await;
            assert_eq!(css[2], 2.0, "the browser did not apply the scale factor");
            let (ink, w, h) = b.canvas_ink(chart).await;
            assert_eq!(w, 2 * css[0].as_u64().unwrap(), "{chart}");
            assert_eq!(h, 2 * css[1].as_u64().unwrap(), "{chart}");
            assert!(ink > 10_000, "{chart} looks blank at 2x: {ink}");
        }
        let (before, _, _) = b.canvas_ink("chart-bw").await;
        b.click("large-text").await;
        b.wait_js(
            "large text",
            "return document.querySelector('.app').classList.contains('large-text');",
        )
        .await;
        b.wait_js(
            "a taller chart",
            "return document.querySelector('[data-testid=chart-bw]').clientHeight > 400;",
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (after, _, _) = b.canvas_ink("chart-bw").await;
        assert!(
            after > before,
            "large text did not enlarge the chart: {before} -> {after}"
        );
        b.screenshot("app-large-text").await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn the_front_shows_a_point_on_hover_and_loads_it_on_click() {
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        let expected = native(&presets::default_scenario());
        shows(&b, &expected).await;
        let front = expected.front.as_ref().unwrap();
        let i = 30;
        let point = &front.points[i];
        b.wait_js(
            "front point positions",
            "return !!document.querySelector('[data-testid=chart-pareto]').dataset.points;",
        )
        .await;
        let fire = |kind: &str| {
            format!(
                "const c = document.querySelector('[data-testid=chart-pareto]');
                 const p = JSON.parse(c.dataset.points)[{i}];
                 const r = c.getBoundingClientRect();
                 c.dispatchEvent(new MouseEvent('{kind}', {{ clientX: r.left + p[0], clientY: r.top + p[1], bubbles: true }}));
                 return JSON.parse(c.dataset.points).length;"
            )
        };
        let n = b.js(&fire("mousemove")).await;
        assert_eq!(n.as_u64().unwrap() as usize, front.points.len());
        let tip = b.text("pareto-tooltip").await;
        assert!(
            tip.contains(&libra_studio::format::usd(point.budget_usd)),
            "{tip}"
        );
        b.screenshot("app-front-hover").await;
        b.js(&fire("click")).await;
        // The design at that budget: no total bandwidth, the budget of the point.
        b.wait_value("result-time-ns", |v| close(value(v), point.time_ns, 2e-6))
            .await;
        let budget = b
            .js("return document.querySelector('[data-testid=budget]').value;")
            .await;
        assert_eq!(value(budget.as_str().unwrap()), point.budget_usd);
        let kind = b
            .js("return document.querySelector('[data-testid=total-bw-kind]').value;")
            .await;
        assert_eq!(kind, "none");
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn charts_export_as_png_and_svg_and_the_scenario_as_json() {
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        b.wait_value("total-npus", |v| v == "4096").await;
        b.capture_downloads().await;
        for id in [
            "chart-pareto-png",
            "chart-pareto-svg",
            "chart-breakdown-svg",
            "export-csv",
            "export-json",
            "chart-bw-csv",
        ] {
            b.click(id).await;
        }
        let d = b.downloads(6).await;
        let file = |k: usize| d[k].clone();
        let (name, png) = file(0);
        assert_eq!(name, "pareto-front.png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
        assert!(
            png.len() > 10_000,
            "a nearly empty PNG: {} bytes",
            png.len()
        );
        // Drawn at twice the displayed size by default (IHDR: width and height, big-endian).
        let dims = |png: &[u8]| {
            let be = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
            (be(16), be(20))
        };
        let shown = b
            .js("const c = document.querySelector('[data-testid=chart-pareto]'); return [c.clientWidth, c.clientHeight];")
            .await;
        let (cw, ch) = (
            shown[0].as_u64().unwrap() as u32,
            shown[1].as_u64().unwrap() as u32,
        );
        assert_eq!(dims(&png), (2 * cw, 2 * ch));
        let (name, svg) = file(1);
        assert_eq!(name, "pareto-front.svg");
        let svg = String::from_utf8(svg).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(
            svg.contains("current design: 722.41 ms"),
            "the SVG lacks the current design"
        );
        let (name, svg) = file(2);
        assert_eq!(name, "time-breakdown.svg");
        assert!(String::from_utf8(svg).unwrap().contains("compute"));
        let (name, csv) = file(3);
        assert_eq!(name, "design-results.csv");
        let csv = String::from_utf8(csv).unwrap();
        assert!(csv.starts_with("budget_usd,time_ns,cost_usd,gap,bw1_gbps"));
        assert_eq!(
            csv.lines().count(),
            libra_studio::analysis::study::FRONT_POINTS + 1
        );
        let (name, json) = file(4);
        assert_eq!(name, "scenario.json");
        let sc = Scenario::from_json(&String::from_utf8(json).unwrap()).unwrap();
        assert_eq!(sc, presets::default_scenario());
        // Every chart's numbers as CSV: the bandwidth chart's table, as the core writes it.
        let (name, csv) = file(5);
        assert_eq!(name, "bandwidth.csv");
        let study = libra_studio::analysis::study::study(&presets::default_scenario()).unwrap();
        let want = libra_studio::charts::StudyChart::Bandwidth
            .table(&study, None)
            .to_csv();
        assert_eq!(String::from_utf8(csv).unwrap(), want);
        // At 3x: three times the displayed size, for a slide or a poster.
        b.select("chart-pareto-png-scale", "3").await;
        b.capture_downloads().await;
        b.click("chart-pareto-png").await;
        let d3 = b.downloads(1).await;
        assert_eq!(dims(&d3[0].1), (3 * cw, 3 * ch));
        // The view's results as JSON: what the core writes for the design's study.
        b.capture_downloads().await;
        b.click("export-results-json").await;
        let r = b.downloads(1).await;
        assert_eq!(r[0].0, "design-results.json");
        // The same numbers as the core's (wasm's floating point may differ in the last bit).
        let got: serde_json::Value = serde_json::from_slice(&r[0].1).unwrap();
        let want: serde_json::Value =
            serde_json::from_str(&libra_studio::results::design(&study).json).unwrap();
        for path in [
            "/optimum/time_ns",
            "/optimum/bw_gbps/0",
            "/uniform/time_ns",
            "/front/5/1",
        ] {
            let (g, w) = (
                got.pointer(path).and_then(|v| v.as_f64()).unwrap(),
                want.pointer(path).and_then(|v| v.as_f64()).unwrap(),
            );
            assert!((g - w).abs() <= 1e-9 * w.abs(), "{path}: {g} vs {w}");
        }
        assert_eq!(
            got["front"].as_array().unwrap().len(),
            want["front"].as_array().unwrap().len()
        );
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn workloads_are_built_from_a_transformer_and_imported_from_astra_sim_text() {
    run(LIMIT, async {
        use libra_studio::form::workload_source::TransformerForm;
        use libra_studio::model::builder::Transformer;
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        b.wait_value("total-npus", |v| v == "4096").await;
        let net = presets::libra_4d_network();

        // The builder, with its GPT-3 175B defaults: a second workload.
        b.js("document.querySelector('[data-testid=builder]').open = true; return true;")
            .await;
        b.click("builder-add").await;
        let mut form = Form::from_scenario(&presets::default_scenario());
        form.add_spec(
            TransformerForm::of(&Transformer::gpt3())
                .build(&net)
                .unwrap()
                .0,
        );
        shows(&b, &native(&form.to_scenario().unwrap())).await;
        assert_eq!(b.count("workload-row").await, 2);
        // It says what one NPU holds; with too little HBM it says by how much it does not fit.
        assert!(b
            .text("source-message")
            .await
            .contains("49.29 GB per NPU of its 80 GB of HBM"));
        b.type_into("builder-13", "40").await;
        b.click("builder-add").await;
        let e = b.text("source-error").await;
        assert!(
            e.contains("does not fit") && e.contains("9.29 GB more than the 40 GB of HBM"),
            "{e}"
        );
        b.type_into("builder-13", "80").await;
        // A bad field says which.
        b.type_into("builder-3", "95").await;
        b.click("builder-add").await;
        let e = b.text("source-error").await;
        assert!(
            e.contains("heads (95) must be a multiple of TP (16)"),
            "{e}"
        );
        b.type_into("builder-3", "96").await;

        // Mixtral 8x7B from its preset, trained as typed (TP 8 x PP 4 x DP 128, EP 8): the
        // model's fields and architecture follow the menu, the parallelism stays as typed.
        b.select("builder-preset", "mixtral-8x7b").await;
        let value =
            |i: usize| format!("return document.querySelector('[data-testid=builder-{i}]').value;");
        assert_eq!(b.js(&value(0)).await, "32");
        assert_eq!(b.js(&value(15)).await, "8");
        assert!(b
            .text("builder-architecture")
            .await
            .contains("8 routed experts, 2 per token"));
        for (i, v) in [(10, "8"), (11, "4"), (12, "128"), (17, "8")] {
            b.type_into(&format!("builder-{i}"), v).await;
        }
        b.click("builder-add").await;
        let mut mixtral = TransformerForm::of(&Transformer::gpt3())
            .with_preset(libra_studio::predict::models::ModelPreset::Mixtral8x7b);
        for (i, v) in [(10, "8"), (11, "4"), (12, "128"), (17, "8")] {
            mixtral.values[i] = v.into();
        }
        form.add_spec(mixtral.build(&net).unwrap().0);
        shows(&b, &native(&form.to_scenario().unwrap())).await;
        assert_eq!(b.count("workload-row").await, 3);

        // Import LIBRA's GPT-3 text with TP 16 x DP 256: the same workload as the preset again.
        let text = include_str!("../../../data/libra-inputs/workload/GPT_3.txt");
        b.js("document.querySelector('[data-testid=import]').open = true; return true;")
            .await;
        b.js(&format!(
            "const t = document.querySelector('[data-testid=import-text]'); t.value = {};
             t.dispatchEvent(new Event('input', {{ bubbles: true }})); return true;",
            serde_json::to_string(text).unwrap()
        ))
        .await;
        b.type_into("import-name", "GPT_3 imported").await;
        b.type_into("import-tp", "16").await;
        b.type_into("import-dp", "256").await;
        b.click("import-add").await;
        let mut spec = presets::LibraWorkload::Gpt3.spec(presets::LibraNetwork::D4);
        spec.name = "GPT_3 imported".into();
        form.add_spec(spec);
        shows(&b, &native(&form.to_scenario().unwrap())).await;
        assert_eq!(b.count("workload-row").await, 4);
        b.screenshot("app-workloads").await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn libra_yaml_networks_and_scenario_json_files_are_imported() {
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        b.wait_value("total-npus", |v| v == "4096").await;

        // LIBRA's 3D network and cost model, pasted: the GPT-3 preset follows with LIBRA's 3D groups.
        b.js("document.querySelector('[data-testid=network-import]').open = true; return true;")
            .await;
        let paste = |id: &str, text: &str| {
            format!(
                "const t = document.querySelector('[data-testid={id}]'); t.value = {};
                 t.dispatchEvent(new Event('input', {{ bubbles: true }})); return true;",
                serde_json::to_string(text).unwrap()
            )
        };
        b.js(&paste(
            "network-yaml",
            "Topology: [ Ring ]\nNpusCount: [ 1 ]\nCostDimension: [ X ]",
        ))
        .await;
        b.click("network-import-apply").await;
        let e = b.text("network-import-error").await;
        assert!(e.contains("NpusCount"), "{e}");
        let d = "../../data/libra-inputs";
        let root = e2e::root();
        let read =
            |p: &str| std::fs::read_to_string(root.join("tests/e2e").join(d).join(p)).unwrap();
        b.js(&paste("network-yaml", &read("network/3d_network.yml")))
            .await;
        b.js(&paste("cost-yaml", &read("cost_model/3d_cost_model.yml")))
            .await;
        b.click("network-import-apply").await;
        b.wait_value("total-npus", |v| v == "4096").await;
        assert_eq!(b.count("dim-row").await, 3);
        let mut want =
            presets::libra_scenario(presets::LibraWorkload::Gpt3, presets::LibraNetwork::D3);
        want.name = presets::default_scenario().name;
        shows(&b, &native(&want)).await;

        // A scenario JSON file, picked with the file input.
        let mut sc =
            presets::libra_scenario(presets::LibraWorkload::Dlrm, presets::LibraNetwork::D4);
        sc.constraints.total_bw = Some(TotalBandwidth::Equal(320.0));
        let path =
            std::env::temp_dir().join(format!("libra-e2e-import-{}.json", std::process::id()));
        std::fs::write(&path, sc.to_json()).unwrap();
        b.wait_testid("import-json")
            .await
            .send_keys(path.to_str().unwrap())
            .await
            .unwrap();
        shows(&b, &native(&sc)).await;
        // A file that is not a scenario: the banner says so, the scenario stays.
        std::fs::write(&path, "{\"name\": 3}").unwrap();
        b.wait_testid("import-json")
            .await
            .send_keys(path.to_str().unwrap())
            .await
            .unwrap();
        let e = b.text("error-banner").await;
        assert!(e.contains("is not a libra-studio scenario"), "{e}");
        shows(&b, &native(&sc)).await;
        // Lists nested 100,000 deep in a field: read without recursion (no stack overflow), and
        // the truncated file is named as such.
        std::fs::write(
            &path,
            format!("{{\"name\": \"x\", \"pad\": {}", "[".repeat(100_000)),
        )
        .unwrap();
        b.wait_testid("import-json")
            .await
            .send_keys(path.to_str().unwrap())
            .await
            .unwrap();
        b.wait_js(
            "the nesting error",
            "return document.querySelector('[data-testid=error-banner]').textContent.includes('EOF while parsing a list at line 1 column 100021');",
        )
        .await;
        // A file over 256 MiB (sparse, so cheap) is refused before it is read.
        let big = std::fs::File::create(&path).unwrap();
        big.set_len(libra_studio::limits::MAX_INPUT_BYTES + 1)
            .unwrap();
        drop(big);
        b.wait_testid("import-json")
            .await
            .send_keys(path.to_str().unwrap())
            .await
            .unwrap();
        b.wait_js(
            "the size error",
            "return document.querySelector('[data-testid=error-banner]').textContent.includes('268435457 is more than the limit of 268435456 bytes');",
        )
        .await;
        shows(&b, &native(&sc)).await;
        std::fs::remove_file(&path).unwrap();
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn a_design_is_laid_on_a_real_system_optimized_or_kept() {
    use libra_studio::systems::lay::{on_system, SystemBandwidths};
    use libra_studio::systems::system_preset;
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        b.wait_value("total-npus", |v| v == "4096").await;
        b.js("document.querySelector('[data-testid=system-picker]').open = true; return true;")
            .await;
        // A system that cannot hold the design's 4,096 NPUs says why, before and after a try.
        b.select("system-pick", "gb200-nvl72").await;
        let preview = b.text("system-preview").await;
        assert!(preview.contains("do not fill"), "{preview}");
        b.click("system-lay").await;
        let e = b.text("system-error").await;
        assert!(e.contains("do not fill"), "{e}");
        // LIBRA's GPT-3 case on a DGX H100 SuperPOD, bandwidths optimized for what its own
        // network costs: the page shows the core's answer.
        let h100 = system_preset("dgx-h100").unwrap();
        let base = presets::default_scenario();
        let optimized = on_system(&base, &h100, SystemBandwidths::Optimize).unwrap();
        b.select("system-pick", "dgx-h100").await;
        // Another choice clears the last refusal.
        assert_eq!(b.count("system-error").await, 0);
        let preview = b.text("system-preview").await;
        assert!(preview.contains("Switch 8 × Switch 512"), "{preview}");
        b.js(
            "document.querySelector('[data-testid=system-picker]').scrollIntoView(); return true;",
        )
        .await;
        b.screenshot("app-system-picker").await;
        b.click("system-lay").await;
        shows(&b, &native(&optimized)).await;
        assert_eq!(b.count("dim-row").await, 2);
        // Kept at the system's own bandwidths: 450 and 50 GB/s.
        b.js("document.querySelector('[data-testid=system-picker]').open = true; return true;")
            .await;
        b.click("system-keep").await;
        b.click("system-lay").await;
        let kept = on_system(&optimized, &h100, SystemBandwidths::Keep).unwrap();
        shows(&b, &native(&kept)).await;
        b.wait_value("result-bw-1", |v| close(value(v), 450.0, 1e-9))
            .await;
        b.assert_no_errors().await;
        b.close().await;
    });
}
