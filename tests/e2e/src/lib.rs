//! Harness for the browser tests: serves the release bundle (`dist/`, built by `make dist`)
//! on a free 127.0.0.1 port, starts Debian's chromedriver on another, and drives headless Chromium.
//!
//! Console errors, uncaught errors and Rust panics are collected by the inline script of index.html
//! into `window.__errors`; [`Browser::assert_no_errors`] fails the test on any of them.

use fantoccini::{elements::Element, Client, ClientBuilder, Locator};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// How long any single wait for the page may take.
pub const WAIT: Duration = Duration::from_secs(20);

/// The workspace root (two levels above this crate).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where screenshots go: target/e2e/.
pub fn screenshot_dir() -> PathBuf {
    let dir = root().join("target/e2e");
    std::fs::create_dir_all(&dir).expect("create target/e2e");
    dir
}

fn dist() -> PathBuf {
    let dist = root().join("dist");
    assert!(
        dist.join("index.html").exists(),
        "dist/index.html is missing: run `make dist` first (make test does)"
    );
    dist
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("webmanifest") => "application/manifest+json",
        _ => "application/octet-stream",
    }
}

/// Whether the number `v` (a `data-value`) is `want` to 1e-9 relative.
pub fn close(v: &str, want: f64) -> bool {
    v.parse::<f64>()
        .is_ok_and(|x| (x - want).abs() <= 1e-9 * want.abs())
}

/// The app's views by the key of their tab (`view-<key>`).
pub const VIEWS: [&str; 6] = [
    "design",
    "shapes",
    "landscape",
    "routing",
    "cluster",
    "codesign",
];

/// The sub-path the tests serve the app under, as a GitHub Pages project site would
/// (`https://owner.github.io/libra-studio/`); the app is served at the root too.
pub const SUB_PATH: &str = "/libra-studio/";

/// A minimal static file server for `dist/`, on a free port, at the root and under [`SUB_PATH`];
/// it lives until the returned task is aborted ([`Browser::stop_server`]) or the runtime ends.
async fn serve_dist() -> (u16, tokio::task::JoinHandle<()>, Overrides) {
    let dist = dist();
    let overrides = Overrides::default();
    let served = overrides.clone();
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().unwrap().port();
    let server = tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                continue;
            };
            let dist = dist.clone();
            let served = served.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = stream.read(&mut buf).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&buf[..n]);
                let target = request.split_whitespace().nth(1).unwrap_or("/");
                let path = target.split(['?', '#']).next().unwrap_or("/");
                if path == SUB_PATH.trim_end_matches('/') {
                    // As static hosts do: the directory's URL gets its slash.
                    let moved = format!(
                        "HTTP/1.1 301 Moved Permanently\r\nLocation: {SUB_PATH}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    );
                    let _ = stream.write_all(moved.as_bytes()).await;
                    let _ = stream.shutdown().await;
                    return;
                }
                let rel = path
                    .strip_prefix(SUB_PATH)
                    .unwrap_or(path)
                    .trim_start_matches('/');
                let rel = if rel.is_empty() { "index.html" } else { rel };
                let file = dist.join(rel);
                let instead = served.0.lock().unwrap().get(rel).cloned();
                let body = match instead {
                    Some(body) => Ok(body),
                    None => tokio::fs::read(&file).await,
                };
                let response = match (rel.contains(".."), body) {
                    (false, Ok(body)) => {
                        let head = format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            content_type(&file),
                            body.len()
                        );
                        [head.into_bytes(), body].concat()
                    }
                    _ => {
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_vec()
                    }
                };
                let _ = stream.write_all(&response).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    (port, server, overrides)
}

/// Files served instead of dist/'s (a new release of one file, for the update test).
#[derive(Clone, Default)]
struct Overrides(std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<u8>>>>);

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Kills the child's whole process group (chromedriver and the Chromium it started) when dropped,
/// so that a failing test leaves nothing behind.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn wait_for_port(port: u16) {
    let start = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(start.elapsed() < WAIT, "nothing listens on port {port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One headless Chromium on the served app.
pub struct Browser {
    pub client: Client,
    /// The app under [`SUB_PATH`] (every test runs there; [`Browser::root_url`] is the root).
    pub base_url: String,
    pub root_url: String,
    server: tokio::task::JoinHandle<()>,
    overrides: Overrides,
    _driver: KillOnDrop,
    _profile: TempDir,
}

/// A fresh Chromium profile directory, removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Browser {
    /// Serve dist/, start chromedriver and open a headless Chromium of `width` x `height` CSS pixels.
    pub async fn start(width: u32, height: u32) -> Browser {
        Browser::start_scaled(width, height, 1.0).await
    }

    /// As [`Browser::start`], on a screen of `device_scale_factor` device pixels per CSS pixel.
    pub async fn start_scaled(width: u32, height: u32, device_scale_factor: f64) -> Browser {
        Browser::start_with(width, height, device_scale_factor, false).await
    }

    /// A phone or tablet of `width` x `height` CSS pixels (Chromium's mobile emulation: a touch
    /// screen, 2 device pixels per CSS pixel; a desktop window cannot be narrower than 500 px).
    pub async fn start_mobile(width: u32, height: u32) -> Browser {
        Browser::start_with(width, height, 2.0, true).await
    }

    async fn start_with(
        width: u32,
        height: u32,
        device_scale_factor: f64,
        mobile: bool,
    ) -> Browser {
        let (app_port, server, overrides) = serve_dist().await;
        // Starting a driver and a browser can fail under load (every test starts its own, in
        // parallel on two cores): a connection reset by a driver that is not ready yet, or a port
        // taken meanwhile. Such a start is retried with a new driver on a new port.
        let mut attempt = 0;
        loop {
            attempt += 1;
            match Browser::try_start(app_port, width, height, device_scale_factor, mobile).await {
                Ok(mut b) => {
                    b.server = server;
                    b.overrides = overrides;
                    return b;
                }
                Err(e) if attempt < 4 => {
                    eprintln!("browser start {attempt} failed ({e}); retrying");
                    tokio::time::sleep(Duration::from_millis(500 * attempt)).await;
                }
                Err(e) => panic!("connect to chromedriver: {e}"),
            }
        }
    }

    async fn try_start(
        app_port: u16,
        width: u32,
        height: u32,
        device_scale_factor: f64,
        mobile: bool,
    ) -> Result<Browser, String> {
        let driver_port = free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={driver_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {CHROMEDRIVER} ({e}): run scripts/setup"));
        let driver = KillOnDrop(driver);
        wait_for_port(driver_port).await;

        let profile = std::env::temp_dir().join(format!(
            "libra-studio-e2e-{}-{driver_port}",
            std::process::id()
        ));
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            format!("--window-size={width},{height}"),
            format!("--force-device-scale-factor={device_scale_factor}"),
            format!("--user-data-dir={}", profile.display()),
        ])
        .collect::<Vec<_>>();
        let mut caps = serde_json::Map::new();
        let mut options = serde_json::json!({ "binary": CHROMIUM, "args": args });
        if mobile {
            options["mobileEmulation"] = serde_json::json!({
                "deviceMetrics": {
                    "width": width,
                    "height": height,
                    "pixelRatio": device_scale_factor,
                    "touch": true,
                    "mobile": true
                }
            });
        }
        caps.insert("goog:chromeOptions".into(), options);
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{driver_port}"))
            .await
            .map_err(|e| e.to_string())?;
        Ok(Browser {
            client,
            base_url: format!("http://127.0.0.1:{app_port}{SUB_PATH}"),
            root_url: format!("http://127.0.0.1:{app_port}/"),
            server: tokio::spawn(async {}),
            overrides: Overrides::default(),
            _driver: driver,
            _profile: TempDir(profile),
        })
    }

    /// Open the app (with an optional `#fragment`) and wait until it has mounted.
    pub async fn open(&self, fragment: &str) {
        let url = format!("{}{}", self.base_url, fragment);
        self.client.goto(&url).await.expect("goto");
        self.wait_testid("results-panel").await;
    }

    /// Open the view `key` (one of [`VIEWS`]) by its tab and wait until it has computed.
    pub async fn open_view(&self, key: &str) {
        self.click(&format!("view-{key}")).await;
        let ready = match key {
            "design" => "result-time-ns",
            "shapes" => "compare-ms",
            "landscape" => "landscape-explain",
            "codesign" => "codesign-status",
            "cluster" => "cluster-ms",
            _ => "route-ms",
        };
        self.wait_value(ready, |v| !v.is_empty()).await;
    }

    /// Take the app's server down: every later request is refused, as with no network.
    pub async fn stop_server(&self) {
        self.server.abort();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    /// Serve `body` for dist/'s file `name` from now on (as a new release would).
    pub fn serve_instead(&self, name: &str, body: Vec<u8>) {
        self.overrides.0.lock().unwrap().insert(name.into(), body);
    }

    /// Wait for the element with `data-testid` = `id`.
    pub async fn wait_testid(&self, id: &str) -> Element {
        self.client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(&format!("[data-testid=\"{id}\"]")))
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "no element [data-testid={id}] within {WAIT:?}: {e} \
                     (is dist/ a fresh release build, and wasm-opt binaryen 132?)"
                )
            })
    }

    /// The `data-value` attribute of the element `id`, once it satisfies `pred` (polled up to WAIT).
    pub async fn wait_value(&self, id: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        let mut last = None;
        while start.elapsed() < WAIT {
            if let Ok(el) = self
                .client
                .find(Locator::Css(&format!("[data-testid=\"{id}\"]")))
                .await
            {
                if let Ok(Some(v)) = el.attr("data-value").await {
                    if pred(&v) {
                        return v;
                    }
                    last = Some(v);
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("[data-testid={id}] data-value never satisfied the check; last value {last:?}");
    }

    /// Replace the text of the input `id` as a user would: select all, then type.
    pub async fn type_into(&self, id: &str, text: &str) {
        let input = self.wait_testid(id).await;
        input.clear().await.expect("clear");
        if text.is_empty() {
            // Clearing alone fires no `input` event: fire one, as deleting by hand would.
            self.js(&format!(
                "document.querySelector('[data-testid=\"{id}\"]')\
                 .dispatchEvent(new Event('input', {{ bubbles: true }})); return true;"
            ))
            .await;
        } else {
            input.send_keys(text).await.expect("type");
        }
    }

    /// Click the element `id`.
    pub async fn click(&self, id: &str) {
        self.wait_testid(id).await.click().await.expect("click");
    }

    /// Choose the option of value `value` in the select `id`, as a user would.
    pub async fn select(&self, id: &str, value: &str) {
        self.wait_testid(id)
            .await
            .select_by_value(value)
            .await
            .unwrap_or_else(|e| panic!("select {value} in {id}: {e}"));
    }

    /// The text of the element `id`.
    pub async fn text(&self, id: &str) -> String {
        self.wait_testid(id).await.text().await.expect("text")
    }

    /// How many elements have `data-testid` = `id`.
    pub async fn count(&self, id: &str) -> usize {
        self.client
            .find_all(Locator::Css(&format!("[data-testid=\"{id}\"]")))
            .await
            .map_or(0, |v| v.len())
    }

    /// Wait until `script` (a function body) returns `true`, or fail naming `what`.
    pub async fn wait_js(&self, what: &str, script: &str) {
        let start = Instant::now();
        while start.elapsed() < WAIT {
            if self.js(script).await == serde_json::Value::Bool(true) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("waited {WAIT:?} for {what}");
    }

    /// Run `script` (a function body) in the page and return its result.
    pub async fn js(&self, script: &str) -> serde_json::Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Start recording the page's long tasks and blocking long animation frames (a task over
    /// 50 ms, as Chromium's observers report them) from now on.
    pub async fn watch_long_tasks(&self) {
        self.js("window.__longTasks = [];
             window.__longTaskWhere = [];
             if (!window.__longTaskObserver) {
               // What the page's progress line said, frame by frame, to say where a long task was.
               window.__doing = [];
               const watch = () => {
                 const ps = Array.from(document.querySelectorAll('.progress span'));
                 const text = ps.length ? ps.map(p => p.textContent).join(' | ') : '(no progress line)';
                 const last = window.__doing[window.__doing.length - 1];
                 if (!last || last[1] !== text) window.__doing.push([performance.now(), text]);
                 if (window.__doing.length > 2000) window.__doing.splice(0, 1000);
                 requestAnimationFrame(watch);
               };
               requestAnimationFrame(watch);
               window.__longTaskObserver = new PerformanceObserver(list => {
                 for (const e of list.getEntries()) {
                   // A long animation frame counts when it blocked (a task in it over 50 ms):
                   // a frame of several short tasks and rendering does not freeze the page.
                   if (e.entryType === 'longtask' || e.blockingDuration > 0) {
                     window.__longTasks.push(e.duration);
                     const before = window.__doing.filter(d => d[0] <= e.startTime);
                     const doing = before.length ? before[before.length - 1][1] : '(before any frame)';
                     // A long frame's scripts: what called each (an event, a frame callback, a
                     // timer) and how long it ran; the rest of the frame is style, layout, paint.
                     // A script's forced style and layout (it read a box the page had changed).
                     const scripts = (e.scripts || []).map(x => x.invoker + ' ' + x.duration.toFixed(0) + ' ms'
                       + (x.forcedStyleAndLayoutDuration >= 1 ? ' (layout ' + x.forcedStyleAndLayoutDuration.toFixed(0) + ' ms)' : '')).join(', ');
                     window.__longTaskWhere.push(e.entryType + ' of ' + e.duration.toFixed(1) + ' ms [' + scripts + '] after: ' + doing);
                   }
                 }
               });
               window.__longTaskObserver.observe({ type: 'longtask' });
               // Animation frames over 50 ms too: work in requestAnimationFrame callbacks.
               window.__longTaskObserver.observe({ type: 'long-animation-frame' });
             }
             return true;")
            .await;
    }

    /// The durations (ms) of the long tasks and frames seen since [`Browser::watch_long_tasks`].
    pub async fn long_tasks(&self) -> Vec<f64> {
        let v = self.js("return window.__longTasks || [];").await;
        v.as_array()
            .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
            .unwrap_or_default()
    }

    /// Each long task or frame since [`Browser::watch_long_tasks`], with what the page's progress
    /// line said in the frame before it (to tell which piece of a long computation it was).
    pub async fn long_task_context(&self) -> Vec<String> {
        let v = self.js("return window.__longTaskWhere || [];").await;
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// How long the chart `id` last took to draw (its `data-draw-ms`), as the page wrote it.
    pub async fn draw_ms(&self, id: &str) -> String {
        let v = self
            .js(&format!(
                "return document.querySelector('[data-testid={id}]')?.dataset.drawMs ?? '';"
            ))
            .await;
        v.as_str().unwrap_or_default().to_string()
    }

    /// Pixels of the canvas `id` that are not (near) white, and its size in device pixels.
    pub async fn canvas_ink(&self, id: &str) -> (u64, u64, u64) {
        let script = format!(
            r#"const c = document.querySelector('[data-testid="{id}"]');
               if (!c) return [0, 0, 0];
               const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
               let ink = 0;
               for (let i = 0; i < d.length; i += 4) {{
                 if (d[i + 3] > 0 && (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235)) ink++;
               }}
               return [ink, c.width, c.height];"#
        );
        let v = self.js(&script).await;
        let n = |i: usize| v[i].as_u64().unwrap_or(0);
        (n(0), n(1), n(2))
    }

    /// From now on, record the files the page downloads instead of saving them (see
    /// [`Browser::downloads`]).
    pub async fn capture_downloads(&self) {
        self.js(r#"window.__downloads = [];
               HTMLAnchorElement.prototype.click = function () {
                 const entry = { name: this.download, body: null };
                 window.__downloads.push(entry);
                 fetch(this.href).then(r => r.arrayBuffer()).then(buf => {
                   let bin = '';
                   for (const b of new Uint8Array(buf)) bin += String.fromCharCode(b);
                   entry.body = btoa(bin);
                 }).catch(e => { entry.body = 'ERROR ' + e; });
               };
               return true;"#)
            .await;
    }

    /// Wait for `n` downloads since [`Browser::capture_downloads`]; their names and contents.
    pub async fn downloads(&self, n: usize) -> Vec<(String, Vec<u8>)> {
        self.wait_js(
            &format!("{n} downloads"),
            &format!(
                "return window.__downloads.length === {n} && window.__downloads.every(d => d.body !== null);"
            ),
        )
        .await;
        let d = self.js("return window.__downloads;").await;
        (0..n)
            .map(|k| {
                let name = d[k]["name"].as_str().unwrap_or_default().to_string();
                let body = d[k]["body"].as_str().unwrap_or_default();
                assert!(!body.starts_with("ERROR"), "{name}: {body}");
                (name, decode_base64(body))
            })
            .collect()
    }

    /// Save a screenshot as target/e2e/`name`.png and return its path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.client.screenshot().await.expect("screenshot");
        let path = screenshot_dir().join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write screenshot");
        path
    }

    /// Fail on any console error, uncaught exception or Rust panic message seen by the page.
    pub async fn assert_no_errors(&self) {
        let errors = self
            .js("return window.__errors || ['no error collector'];")
            .await;
        let list = errors.as_array().cloned().unwrap_or_default();
        assert!(list.is_empty(), "the page reported errors: {list:#?}");
    }

    pub async fn close(self) {
        let _ = self.client.close().await;
    }
}

/// Run a browser test with an overall time limit, so that a page that never mounts fails instead of hanging.
pub fn run<F: std::future::Future<Output = ()>>(limit: Duration, test: F) {
    // Tests of one binary run side by side, sharing the machine; a timing test waits for them.
    let _shared = QUIET.read().unwrap_or_else(|e| e.into_inner());
    run_now(limit, test);
}

/// [`run`], alone among the tests of its binary: for tests that time the page, whose numbers
/// would otherwise include the other browsers on the same cores.
pub fn run_alone<F: std::future::Future<Output = ()>>(limit: Duration, test: F) {
    let _alone = QUIET.write().unwrap_or_else(|e| e.into_inner());
    run_now(limit, test);
}

/// Held shared by every browser test and exclusively by a timing test.
static QUIET: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn run_now<F: std::future::Future<Output = ()>>(limit: Duration, test: F) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        tokio::time::timeout(limit, test)
            .await
            .unwrap_or_else(|_| panic!("browser test exceeded {limit:?}"))
    });
}

/// Standard base64 (as `btoa` writes it) to bytes.
fn decode_base64(text: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => 0,
    };
    let clean: Vec<u8> = text.bytes().filter(|c| *c != b'=').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (k, c) in chunk.iter().enumerate() {
            n |= u32::from(val(*c)) << (18 - 6 * k);
        }
        for k in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * k)) as u8);
        }
    }
    out
}
