//! Charts on a projector and a phone, in headless Chromium: every chart of every view is drawn
//! at its box's size times the device pixel ratio (its backing store measured against its box),
//! with Large text on and off, at 390 (a phone), 768, 1400 and 1920 px; a window widened (a
//! projector plugged in) redraws every chart at its new size; Present keeps the Large-text switch.
//! Screenshots of every view at every width land in target/e2e (`proj-<view>-<width>[-large]`).

use e2e::{run_alone, Browser, VIEWS};
use std::time::Duration;

/// Every visible chart's backing store matches its box (within a pixel of rounding).
const FITTED: &str = "const dpr = window.devicePixelRatio;
    const bad = [...document.querySelectorAll('canvas.chart')]
      .filter(c => c.checkVisibility() && c.clientWidth > 0 && c.width > 0)
      .filter(c => Math.abs(c.width - Math.round(Math.max(c.clientWidth, 200) * dpr)) > 1
                || Math.abs(c.height - Math.round(Math.max(c.clientHeight, 150) * dpr)) > 1);
    return bad.length === 0;";

const SIZES: &str = "const dpr = window.devicePixelRatio;
    return [...document.querySelectorAll('canvas.chart')]
      .filter(c => c.checkVisibility() && c.clientWidth > 0)
      .map(c => `${c.dataset.testid}: ${c.width}x${c.height} for ${c.clientWidth}x${c.clientHeight} css at ${dpr}`);";

async fn every_view(b: &Browser, width: u32) {
    for large in [false, true] {
        let on = b
            .js("return document.querySelector('[data-testid=large-text]').checked;")
            .await;
        if on != serde_json::Value::Bool(large) {
            b.click("large-text").await;
        }
        for view in VIEWS {
            b.open_view(view).await;
            if b.js(FITTED).await != serde_json::Value::Bool(true) {
                // The resize observer redraws within a frame or two.
                tokio::time::sleep(Duration::from_millis(400)).await;
            }
            let sizes = b.js(SIZES).await;
            assert_eq!(
                b.js(FITTED).await,
                serde_json::Value::Bool(true),
                "{view} at {width} px, large text {large}: {sizes}"
            );
            let suffix = if large { "-large" } else { "" };
            // The view's first chart, framed as a class would see it.
            b.js("const c = [...document.querySelectorAll('canvas.chart')].find(c => c.checkVisibility());
                  if (c) c.scrollIntoView({block: 'start'});")
                .await;
            b.screenshot(&format!("proj-{view}-{width}{suffix}")).await;
            b.js("window.scrollTo(0, 0);").await;
        }
    }
    b.assert_no_errors().await;
}

#[test]
fn every_chart_fits_its_box_at_every_width_with_and_without_large_text() {
    run_alone(Duration::from_secs(600), async {
        let phone = Browser::start_mobile(390, 844).await;
        phone.open("").await;
        every_view(&phone, 390).await;
        phone.close().await;
        for width in [768, 1920] {
            let b = Browser::start(width, 1080).await;
            b.open("").await;
            every_view(&b, width).await;
            b.close().await;
        }
    });
}

#[test]
fn a_wider_window_and_present_redraw_every_chart_at_its_new_size() {
    run_alone(Duration::from_secs(300), async {
        let b = Browser::start(1400, 900).await;
        b.open("").await;
        every_view(&b, 1400).await;
        // A projector plugged in: the window widens; every chart of the view shown is redrawn.
        b.open_view("design").await;
        let before = b
            .js("return document.querySelector('[data-testid=chart-pareto]').width;")
            .await;
        b.client.set_window_size(1920, 1080).await.unwrap();
        b.wait_js("every chart refitted to 1920 px", FITTED).await;
        let after = b
            .js("return document.querySelector('[data-testid=chart-pareto]').width;")
            .await;
        assert_ne!(before, after, "the front was not redrawn wider");
        // Present keeps the Large-text switch, and the charts follow both.
        b.click("presentation-mode").await;
        let visible = b
            .js("return document.querySelector('[data-testid=large-text]').checkVisibility();")
            .await;
        assert_eq!(
            visible,
            serde_json::Value::Bool(true),
            "Present hides Large text"
        );
        b.wait_js("every chart refitted in Present", FITTED).await;
        // Large text is still on from the last pass: off, then on again, in Present.
        b.click("large-text").await;
        b.wait_js("every chart refitted in Present without Large text", FITTED)
            .await;
        b.js("document.querySelector('[data-testid=chart-pareto]').scrollIntoView({block: 'start'});")
            .await;
        b.screenshot("proj-design-1920-present").await;
        b.click("large-text").await;
        b.wait_js("every chart refitted in Present with Large text", FITTED)
            .await;
        b.js("document.querySelector('[data-testid=chart-pareto]').scrollIntoView({block: 'start'});")
            .await;
        b.screenshot("proj-design-1920-present-large").await;
        // The glossary explains the words once, with the papers the app follows.
        let counts = b
            .js("const g = document.querySelector('[data-testid=glossary]'); g.open = true;
                 return [g.querySelectorAll('dt').length, g.querySelectorAll('a[href^=\"https://arxiv.org\"]').length,
                         !!document.getElementById('term-npu')];")
            .await;
        assert_eq!(counts, serde_json::json!([22, 4, true]));
        // Words are linked where they first appear: the speedup's title opens the glossary at
        // "Uniform split", and the permalink in the address bar is left alone.
        let hash = b.js("return location.hash;").await;
        b.js("document.querySelector('[data-testid=glossary]').open = false; return true;")
            .await;
        b.js("document.querySelector('a.term[data-term=uniform]').click(); return true;")
            .await;
        let after = b
            .js(
                "return [document.querySelector('[data-testid=glossary]').open,
                         document.getElementById('term-uniform').dataset.highlight === '1',
                         location.hash];",
            )
            .await;
        assert_eq!(after, serde_json::json!([true, true, hash]));
        let linked = b
            .js("return document.querySelectorAll('a.term').length;")
            .await;
        assert!(linked.as_u64().unwrap() >= 4, "{linked}");
        // The documentation ships with the app: every link of the glossary's list is served.
        b.js("window.__docs = null;
              const links = [...document.querySelectorAll('[data-testid=glossary] a[href$=\".md\"]')];
              Promise.all(links.map(a => fetch(a.href).then(r => r.ok && r.text())))
                .then(t => window.__docs = t.map(x => !!x && x.startsWith('#')));
              return true;")
            .await;
        b.wait_js("the documents fetched", "return window.__docs !== null;")
            .await;
        let docs = b.js("return window.__docs;").await;
        assert_eq!(docs, serde_json::json!(vec![true; 7]));
        b.assert_no_errors().await;
        b.close().await;
    });
}
