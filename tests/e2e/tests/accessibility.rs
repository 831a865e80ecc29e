//! Accessibility: axe-core (tools/node_modules, pinned in tools/package.json) finds no violation
//! on any view, with every chart's table open, in the tour, side by side, in presentation mode and
//! on a phone; labels point at their fields; the view tabs follow the tabs pattern; the front's
//! points can be chosen from the keyboard; a recompute is announced in one sentence.

use e2e::{run, Browser, VIEWS};
use fantoccini::key::Key;
use libra_studio::analysis::explain::summary;
use libra_studio::analysis::study::study;
use libra_studio::format::duration_ns;
use libra_studio::presets;
use std::time::Duration;

/// Load axe-core into the page (once) and run it; the violations, a line each.
async fn violations(b: &Browser) -> Vec<String> {
    if b.js("return typeof axe === 'undefined';").await == true {
        let axe =
            std::fs::read_to_string(e2e::root().join("tools/node_modules/axe-core/axe.min.js"))
                .expect("axe-core: run scripts/setup");
        b.js(&format!("{axe}\nreturn true;")).await;
    }
    let v = b
        .js("return axe.run(document, { resultTypes: ['violations'] }).then(r => r.violations.map(v =>
               v.id + ' (' + v.impact + '): ' + v.help + ' -- ' + v.nodes.slice(0, 6).map(n => n.target.join(' ')).join(' | ')));")
        .await;
    serde_json::from_value(v).unwrap()
}

/// Open every "Show as table" of the view on screen (a lazily loaded module keeps its other
/// views mounted but hidden, and a view never opened has no table yet).
async fn open_tables(b: &Browser) {
    const SHOWN: &str =
        "[...document.querySelectorAll('details.chart-table')].filter(d => d.checkVisibility())";
    b.js(&format!(
        "{SHOWN}.forEach(d => d.open = true); return true;"
    ))
    .await;
    b.wait_js(
        "the chart tables",
        &format!("const s = {SHOWN}; return s.every(d => d.querySelector('table'));"),
    )
    .await;
}

async fn check(b: &Browser, state: &str, found: &mut Vec<String>) {
    for v in violations(b).await {
        found.push(format!("{state}: {v}"));
    }
    // Every label's `for` names a field on the page.
    let dangling = b
        .js("return [...document.querySelectorAll('label[for]')].filter(l => !document.getElementById(l.htmlFor)).map(l => l.htmlFor);")
        .await;
    if dangling != serde_json::json!([]) {
        found.push(format!("{state}: labels for missing fields {dangling}"));
    }
}

#[test]
fn axe_finds_no_violation_in_any_view_or_state() {
    run(Duration::from_secs(170), async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        let mut found = Vec::new();
        for view in VIEWS {
            b.open_view(view).await;
            open_tables(&b).await;
            if view == "design" {
                // The system picker's fields, open.
                b.js("document.querySelector('[data-testid=system-picker]').open = true; return true;")
                    .await;
            }
            check(&b, view, &mut found).await;
            if view == "codesign" {
                // The Calibrate panel with its results, chart and table.
                b.click("calibrate-example").await;
                b.click("calibrate-run").await;
                b.wait_testid("calibrate-use").await;
                open_tables(&b).await;
                check(&b, "codesign calibrated", &mut found).await;
            }
        }
        b.click("view-design").await;
        b.click("tour-next").await;
        b.wait_testid("tour-title").await;
        check(&b, "tour", &mut found).await;
        b.click("tour-close").await;
        b.click("pin-scenario").await;
        b.type_into("total-bw", "400").await;
        b.wait_testid("unpin-scenario").await;
        check(&b, "side by side", &mut found).await;
        b.click("presentation-mode").await;
        check(&b, "presentation", &mut found).await;
        b.close().await;

        let phone = Browser::start_mobile(390, 844).await;
        phone.open("").await;
        phone.wait_value("result-time-ns", |v| !v.is_empty()).await;
        check(&phone, "phone", &mut found).await;
        phone.close().await;
        assert!(found.is_empty(), "{found:#?}");
    });
}

#[test]
fn tabs_front_points_tables_and_announcements_work_without_a_mouse() {
    run(Duration::from_secs(120), async {
        let s = study(&presets::default_scenario()).unwrap();
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        b.wait_value("result-time-ns", |v| !v.is_empty()).await;

        // The view tabs: one selected, in the tab order; arrows move along and select.
        let tabs = b
            .js("return [...document.querySelectorAll('[role=tablist] [role=tab]')].map(t => [t.dataset.testid, t.getAttribute('aria-selected'), t.tabIndex]);")
            .await;
        assert_eq!(
            tabs,
            serde_json::json!([
                ["view-design", "true", 0],
                ["view-shapes", "false", -1],
                ["view-landscape", "false", -1],
                ["view-routing", "false", -1],
                ["view-cluster", "false", -1],
                ["view-codesign", "false", -1]
            ])
        );
        let design = b.wait_testid("view-design").await;
        design
            .send_keys(&char::from(Key::Left).to_string())
            .await
            .unwrap();
        b.wait_testid("codesign-view").await;
        let focused = b.js("return document.activeElement.dataset.testid;").await;
        assert_eq!(focused, "view-codesign");
        let last = b.wait_testid("view-codesign").await;
        last.send_keys(&char::from(Key::Home).to_string())
            .await
            .unwrap();
        b.wait_js(
            "the design tab",
            "return document.querySelector('[data-testid=view-design]').getAttribute('aria-selected') === 'true';",
        )
        .await;

        let points = s.front.as_ref().unwrap().points.clone();
        // One sentence announced per recompute, not the whole panel.
        let live = b
            .js("return [...document.querySelectorAll('[aria-live], [role=status]')].filter(e => e.closest('.results')).map(e => e.textContent);")
            .await;
        assert_eq!(live, serde_json::json!([summary(&s)]));

        // Show as table: the front's numbers.
        b.js(
            "document.querySelector('[data-testid=chart-pareto-table]').open = true; return true;",
        )
        .await;
        b.wait_js(
            "the front's table",
            "return !!document.querySelector('[data-testid=chart-pareto-table] table');",
        )
        .await;
        let rows = b
            .js("return [...document.querySelectorAll('[data-testid=chart-pareto-table] tbody tr')].map(r => [...r.children].map(c => c.textContent));")
            .await;
        let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap();
        assert_eq!(rows.len(), points.len() + 2);
        assert_eq!(rows[points.len()][3], duration_ns(s.evaluation.time_ns));
        // The front: arrows choose a point (its values shown), Enter loads it.
        let front = b.wait_testid("chart-pareto").await;
        for _ in 0..3 {
            front
                .send_keys(&char::from(Key::Right).to_string())
                .await
                .unwrap();
        }
        let tip = b.text("pareto-tooltip").await;
        assert!(
            tip.contains(&libra_studio::format::usd(points[2].budget_usd)),
            "{tip}"
        );
        front
            .send_keys(&char::from(Key::Enter).to_string())
            .await
            .unwrap();
        // (The page's front agrees with the native one to 1e-9, not to the last digit.)
        b.wait_js(
            "the chosen point loaded",
            &format!(
                "const v = Number(document.querySelector('[data-testid=budget]').value);
                 return Math.abs(v - {0}) <= 1e-9 * {0};",
                points[2].budget_usd
            ),
        )
        .await;

        b.assert_no_errors().await;
        b.close().await;
    });
}
