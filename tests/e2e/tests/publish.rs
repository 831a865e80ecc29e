//! Publishing: the bundle of `make dist` works at the root of a host and under a sub-path, offline
//! once visited (a service worker caches the app shell), says once that a new release took over,
//! falls back to the network when its offline copy cannot start, and carries its manifest, icons,
//! description and preview tags; the tab names the scenario.

use e2e::{close, run, Browser, SUB_PATH};
use libra_studio::analysis::study::study;
use libra_studio::model::scenario::TotalBandwidth;
use libra_studio::presets;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// Wait until a service worker controls the page and has cached the app shell.
async fn offline_ready(b: &Browser) {
    b.wait_js(
        "the service worker to control the page",
        "return !!navigator.serviceWorker.controller;",
    )
    .await;
    b.wait_js(
        "the app shell in the cache",
        "return caches.keys().then(ks => ks.length === 1 && caches.open(ks[0]))
           .then(c => c && c.keys()).then(rs => !!rs && rs.some(r => r.url.endsWith('.wasm')));",
    )
    .await;
}

#[test]
fn the_bundle_works_at_the_root_and_under_a_sub_path() {
    run(LIMIT, async {
        let b = Browser::start(1200, 900).await;
        for url in [
            b.root_url.clone(),
            b.base_url.clone(),
            // Without its slash, as a visitor types it: the host redirects.
            b.base_url.trim_end_matches('/').to_string(),
        ] {
            b.client.goto(&url).await.unwrap();
            b.wait_value("total-npus", |v| v == "4096").await;
        }
        let here = b.js("return location.pathname;").await;
        assert_eq!(here, SUB_PATH);
        // The address bar (what Copy link copies) is the page's own address, sub-path included.
        b.type_into("total-bw", "400").await;
        let link = b.js("return location.href;").await;
        assert!(
            link.as_str()
                .unwrap()
                .starts_with(&format!("{}#v1=", b.base_url)),
            "{link}"
        );
        // The tab names the scenario.
        let title = b.js("return document.title;").await;
        assert_eq!(
            title,
            presets::default_scenario().title().as_str(),
            "the page title"
        );
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn once_visited_the_app_opens_and_computes_with_the_server_gone() {
    run(LIMIT, async {
        let b = Browser::start(1200, 900).await;
        b.open("").await;
        offline_ready(&b).await;
        b.stop_server().await;
        b.client.refresh().await.unwrap();
        b.wait_value("total-npus", |v| v == "4096").await;
        // It computes as before: the numbers are the core's.
        b.type_into("total-bw", "400").await;
        let mut sc = presets::default_scenario();
        sc.constraints.total_bw = Some(TotalBandwidth::Equal(400.0));
        let want = study(&sc).unwrap().evaluation.time_ns;
        b.wait_value("result-time-ns", |v| close(v, want)).await;
        // The Co-design view's own module comes from the offline copy too, and searches.
        b.click("view-codesign").await;
        b.wait_value("codesign-status", |v| !v.is_empty()).await;
        assert!(b.text("codesign-status").await.contains("candidates on"));
        b.click("view-design").await;
        // A link made by a newer release, opened by this cached one: the bad-link banner, the link
        // kept, never a blank page.
        let newer = "#v2=AAAA";
        b.client
            .goto(&format!("{}{newer}", b.base_url))
            .await
            .unwrap();
        b.client.refresh().await.unwrap();
        let said = b.text("error-banner").await;
        assert!(said.contains("version 2"), "{said}");
        let kept = b
            .js("return document.querySelector('[data-testid=bad-link]').value;")
            .await;
        assert!(kept.as_str().unwrap().ends_with(&newer[1..]), "{kept}");
        b.wait_value("total-npus", |v| v == "4096").await;
        // A link opened offline opens too.
        let link = libra_studio::permalink::encode(&presets::default_scenario());
        b.client
            .goto(&format!("{}{link}", b.base_url))
            .await
            .unwrap();
        b.wait_value("total-npus", |v| v == "4096").await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn a_new_release_replaces_the_offline_copy_and_says_so_once() {
    run(LIMIT, async {
        let b = Browser::start(1200, 900).await;
        b.open("").await;
        offline_ready(&b).await;
        let old = b.js("return caches.keys().then(ks => ks[0]);").await;
        // The next release: another version of the service worker.
        let sw = std::fs::read_to_string(e2e::root().join("dist/sw.js")).unwrap();
        let next = sw.replacen("const VERSION = \"", "const VERSION = \"next-", 1);
        assert_ne!(sw, next, "dist/sw.js has no VERSION");
        b.serve_instead("sw.js", next.into_bytes());
        b.client.refresh().await.unwrap();
        b.wait_testid("app-updated").await;
        b.wait_js(
            "the old cache to go",
            "return caches.keys().then(ks => ks.length === 1 && ks[0].startsWith('libra-studio-next-'));",
        )
        .await;
        assert_ne!(old, b.js("return caches.keys().then(ks => ks[0]);").await);
        // Once: the next visit says nothing.
        b.client.refresh().await.unwrap();
        b.wait_value("total-npus", |v| v == "4096").await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(b.count("app-updated").await, 0);
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn a_broken_offline_copy_falls_back_to_the_network_and_says_so() {
    run(LIMIT, async {
        let b = Browser::start(1200, 900).await;
        b.open("").await;
        offline_ready(&b).await;
        // Damage the cached wasm.
        b.js("return caches.keys().then(ks => caches.open(ks[0])).then(c => c.keys().then(rs =>
                Promise.all(rs.filter(r => r.url.endsWith('.wasm')).map(r =>
                  c.put(r, new Response('not wasm', { headers: { 'Content-Type': 'application/wasm' } }))))))
              .then(() => true);")
            .await;
        b.client.refresh().await.unwrap();
        b.wait_testid("offline-fallback").await;
        b.wait_value("total-npus", |v| v == "4096").await;
        // The offline copy is made again.
        offline_ready(&b).await;
        b.assert_no_errors().await;
        b.close().await;
    });
}

#[test]
fn the_manifest_icons_and_preview_tags_are_served() {
    run(LIMIT, async {
        let b = Browser::start(1200, 900).await;
        b.open("").await;
        let head = b
            .js(
                "const m = n => (document.querySelector(n) || {}).content || null;
                 return [m('meta[name=description]'), m('meta[property=\"og:title\"]'),
                   m('meta[property=\"og:description\"]'), m('meta[property=\"og:image\"]'),
                   (document.querySelector('link[rel=icon]') || {}).href || null,
                   (document.querySelector('link[rel=manifest]') || {}).href || null];",
            )
            .await;
        let head: Vec<Option<String>> = serde_json::from_value(head).unwrap();
        assert!(head.iter().all(Option::is_some), "{head:?}");
        assert!(head[5].as_deref().unwrap().starts_with(&b.base_url));
        // The manifest, its start URL relative, and every icon and the preview image served.
        let manifest = b
            .js("return fetch(document.querySelector('link[rel=manifest]').href).then(r => r.json());")
            .await;
        assert_eq!(manifest["name"], "libra-studio");
        assert_eq!(manifest["start_url"], "./");
        assert_eq!(manifest["display"], "standalone");
        assert!(manifest["theme_color"].is_string());
        let icons = manifest["icons"].as_array().unwrap();
        assert!(icons.iter().any(|i| i["sizes"] == "192x192"));
        assert!(icons.iter().any(|i| i["sizes"] == "512x512"));
        for src in icons
            .iter()
            .map(|i| i["src"].as_str().unwrap().to_string())
            .chain([head[3].clone().unwrap()])
        {
            let kind = b
                .js(&format!(
                    "return fetch('{src}').then(r => r.ok ? r.headers.get('content-type') : 'HTTP ' + r.status);"
                ))
                .await;
            assert!(
                kind.as_str().unwrap().starts_with("image/"),
                "{src}: {kind}"
            );
        }
        b.assert_no_errors().await;
        b.close().await;
    });
}
