//! Permalinks and persistence in headless Chromium: a link made by the command line opens the same
//! numbers; the URL follows edits; a reload and a plain visit keep the scenario; a shared link does
//! not overwrite the visitor's own until they edit; a garbage link shows a banner, keeps the link
//! and the page working; names from links are shown as text, never as HTML; the Copy-link button
//! confirms.

use e2e::{run, Browser};
use libra_studio::analysis::study::study;
use libra_studio::model::scenario::{Scenario, TotalBandwidth};
use libra_studio::permalink;
use libra_studio::presets::{self, LibraNetwork, LibraWorkload};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn close(a: &str, b: f64) -> bool {
    a.parse::<f64>().is_ok_and(|a| ((a - b) / b).abs() <= 1e-9)
}

/// The fragment the command line prints for `sc` (`libra-studio permalink --scenario S.json`).
fn cli_permalink(sc: &Scenario) -> String {
    let dir = std::env::temp_dir().join(format!("libra-e2e-link-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.json", sc.workloads[0].name.len()));
    std::fs::write(&path, sc.to_json()).unwrap();
    let args: Vec<String> = ["permalink", "--scenario", path.to_str().unwrap()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = libra_studio::cli::run(&args, &mut out, &mut err);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    String::from_utf8(out).unwrap().trim().to_string()
}

async fn shows(b: &Browser, sc: &Scenario) {
    let s = study(sc).unwrap();
    b.wait_value("result-time-ns", |v| close(v, s.evaluation.time_ns))
        .await;
    b.wait_value("result-cost-usd", |v| close(v, s.evaluation.cost_usd))
        .await;
    for (d, bw) in s.optimum.bw_gbps.iter().enumerate() {
        b.wait_value(&format!("result-bw-{}", d + 1), |v| close(v, *bw))
            .await;
    }
}

async fn fragment(b: &Browser) -> String {
    b.js("return location.hash;")
        .await
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_cli_link_opens_the_same_numbers_and_the_url_follows_edits() {
    run(LIMIT, async {
        let mut sc = presets::libra_scenario(LibraWorkload::TuringNlg, LibraNetwork::D3);
        sc.constraints.total_bw = Some(TotalBandwidth::AtMost(800.0));
        sc.constraints.budget_usd = Some(1.5e7);
        sc.constraints.linear = vec!["B1 >= B2".into()];
        let link = cli_permalink(&sc);
        assert!(link.starts_with("#v1="));
        let b = Browser::start(1400, 1000).await;
        b.open(&link).await;
        shows(&b, &sc).await;
        b.wait_testid("shared-banner").await;
        b.screenshot("app-shared-link").await;

        // An edit: the URL now holds the edited scenario (replaced, not pushed).
        let history = b.js("return history.length;").await;
        b.type_into("budget", "2e7").await;
        let mut edited = sc.clone();
        edited.constraints.budget_usd = Some(2e7);
        shows(&b, &edited).await;
        b.wait_js(
            "the URL to follow the edit",
            &format!("return location.hash === '{}';", permalink::encode(&edited)),
        )
        .await;
        assert_eq!(b.js("return history.length;").await, history);
        assert_eq!(b.count("shared-banner").await, 0);

        // Reload: the same scenario; a plain visit: the saved one.
        b.client.refresh().await.unwrap();
        b.wait_testid("results-panel").await;
        shows(&b, &edited).await;
        b.open("").await;
        shows(&b, &edited).await;
        assert_eq!(fragment(&b).await, permalink::encode(&edited));

        // Copy link confirms (or says the browser refused and where the link is).
        b.click("copy-link").await;
        b.wait_js(
            "a copy confirmation",
            "return document.querySelector('[data-testid=copy-status]').textContent.length > 0;",
        )
        .await;
        let status = b.text("copy-status").await;
        assert!(
            status.contains("copied") || status.contains("address bar"),
            "{status}"
        );
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn a_shared_link_keeps_the_visitors_own_scenario_until_they_edit() {
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        // My own scenario: total bandwidth 300.
        b.type_into("total-bw", "300").await;
        let mut mine = presets::default_scenario();
        mine.constraints.total_bw = Some(TotalBandwidth::Equal(300.0));
        shows(&b, &mine).await;
        b.wait_js(
            "my scenario saved",
            &format!(
                "return localStorage.getItem('libra-studio.scenario') === '{}';",
                permalink::encode(&mine)
            ),
        )
        .await;

        // Someone else's link.
        let theirs = presets::libra_scenario(LibraWorkload::ResNet50, LibraNetwork::D4);
        b.open(&cli_permalink(&theirs)).await;
        shows(&b, &theirs).await;
        b.wait_testid("shared-banner").await;
        let saved = b
            .js("return localStorage.getItem('libra-studio.scenario');")
            .await;
        assert_eq!(
            saved,
            permalink::encode(&mine).as_str(),
            "the shared link overwrote my scenario"
        );
        // Back to my own.
        b.click("back-to-own").await;
        shows(&b, &mine).await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn a_garbage_link_shows_a_banner_keeps_the_link_and_the_page_works() {
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        let good = permalink::encode(&presets::libra_scenario(
            LibraWorkload::Dlrm,
            LibraNetwork::D3,
        ));
        for bad in ["#v1=garbage!", "#hello", "#v7=abc", &good[..good.len() / 2]] {
            b.open(bad).await;
            let text = b.text("error-banner").await;
            assert!(text.contains("could not be opened"), "{bad}: {text}");
            let kept = b
                .js("return document.querySelector('[data-testid=bad-link]').value;")
                .await;
            assert_eq!(
                kept.as_str().unwrap(),
                &bad[1..],
                "the bad link is not kept visible"
            );
            assert_eq!(fragment(&b).await, bad, "the bad link left the address bar");
            shows(&b, &presets::default_scenario()).await;
        }
        b.screenshot("app-bad-link").await;
        // The page works: an edit recomputes, and the banner goes.
        b.type_into("total-bw", "250").await;
        let mut sc = presets::default_scenario();
        sc.constraints.total_bw = Some(TotalBandwidth::Equal(250.0));
        shows(&b, &sc).await;
        assert_eq!(b.count("error-banner").await, 0);
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn names_from_links_are_text_not_html() {
    run(LIMIT, async {
        let mut sc = presets::default_scenario();
        let evil = "<img src=x onerror=\"window.__xss=1\">";
        sc.name = evil.into();
        sc.workloads[0].name = evil.into();
        sc.workloads[0].workload.layers.truncate(10);
        let b = Browser::start(1400, 1000).await;
        b.open(&cli_permalink(&sc)).await;
        shows(&b, &sc).await;
        let option = b
            .js("return document.querySelector('[data-testid=workload-preset]').options[0].textContent;")
            .await;
        assert_eq!(option.as_str().unwrap(), evil);
        let xss = b.js("return window.__xss === undefined && document.querySelectorAll('img').length === 0;").await;
        assert_eq!(xss, true, "a name from a link was rendered as HTML");
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn a_start_that_did_not_finish_opens_the_defaults_and_keeps_the_failed_scenario() {
    // Issue 14, finding 1: a saved scenario that crashed the app blanked every later visit.
    run(LIMIT, async {
        let b = Browser::start(1400, 1000).await;
        b.open("").await;
        let mine = presets::libra_scenario(LibraWorkload::Dlrm, LibraNetwork::D3);
        let saved = permalink::encode(&mine);
        // The page has drawn: its start mark is cleared.
        b.wait_js(
            "the start mark cleared",
            "return localStorage.getItem('libra-studio.starting') === null;",
        )
        .await;
        // As a start that never finished leaves it: the saved scenario and the mark of it.
        b.js(&format!(
            "localStorage.setItem('libra-studio.scenario', '{saved}');
             localStorage.setItem('libra-studio.starting', '{saved}'); return true;"
        ))
        .await;
        b.open("").await;
        let text = b.text("recovered-banner").await;
        assert!(text.contains("did not finish opening"), "{text}");
        shows(&b, &presets::default_scenario()).await;
        // Nothing is lost: the saved scenario is still there, and the failed one kept apart.
        let kept = b
            .js("return [localStorage.getItem('libra-studio.scenario'), localStorage.getItem('libra-studio.failed')];")
            .await;
        assert_eq!(kept[0].as_str(), Some(saved.as_str()));
        assert_eq!(kept[1].as_str(), Some(saved.as_str()));
        assert_eq!(b.count("download-failed").await, 1);
        // The next visit is a normal one: the saved scenario opens.
        b.wait_js(
            "the start mark cleared",
            "return localStorage.getItem('libra-studio.starting') === null;",
        )
        .await;
        b.open("").await;
        shows(&b, &mine).await;
        assert_eq!(b.count("recovered-banner").await, 0);
        b.assert_no_errors().await;
        b.close().await;
    });
}
