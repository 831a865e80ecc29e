//! The few browser services the app uses: the clock, the URL fragment, localStorage, the clipboard,
//! downloads and file reading. Each failure is returned as text for the page to show; none panics.

use leptos::prelude::window;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

fn text(e: JsValue) -> String {
    e.as_string()
        .or_else(|| js_sys::JSON::stringify(&e).ok().and_then(|s| s.as_string()))
        .unwrap_or_else(|| "unknown browser error".into())
}

/// Milliseconds since the page loaded (high resolution).
pub fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// Size `canvas` in device pixels (its CSS size times the device pixel ratio, so that charts are
/// crisp on high-DPI screens); returns that ratio.
pub fn fit_to_device_pixels(canvas: &web_sys::HtmlCanvasElement) -> f64 {
    let dpr = window().device_pixel_ratio().max(1.0);
    let (css_w, css_h) = (
        canvas.client_width().max(200),
        canvas.client_height().max(150),
    );
    let (w, h) = (
        (f64::from(css_w) * dpr).round() as u32,
        (f64::from(css_h) * dpr).round() as u32,
    );
    // Only when the size changed: setting a canvas's size reallocates and clears it, and marks the
    // page's layout dirty, so the next chart's size read forces a reflow (four per edit, each
    // chart redrawn paints its whole background anyway).
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    dpr
}

/// Whether `canvas`'s backing store no longer matches its box at the device pixel ratio (the box
/// grew or shrank: a wider window, a projector, Large text, Present, print).
pub fn needs_refit(canvas: &web_sys::HtmlCanvasElement) -> bool {
    let dpr = window().device_pixel_ratio().max(1.0);
    let want = |css: i32| (f64::from(css) * dpr).round() as u32;
    canvas.width() != want(canvas.client_width().max(200))
        || canvas.height() != want(canvas.client_height().max(150))
}

/// The text scale the page asks charts for: 1.5 inside `.app.large-text` or `.app.presenting`
/// (a projector), 1 elsewhere.
pub fn page_text_scale(el: &web_sys::Element) -> f64 {
    match el.closest(".app.large-text, .app.presenting") {
        Ok(Some(_)) => 1.5,
        _ => 1.0,
    }
}

/// The event the app sends when the page's text scale changes (every chart listens).
pub const TEXT_SCALE_EVENT: &str = "libra-text-scale";

/// Tell every chart that the page's text scale changed.
pub fn announce_text_scale() {
    announce(TEXT_SCALE_EVENT);
}

/// Send the window event `name` (the views that listen act on it).
pub fn announce(name: &str) {
    if let Ok(ev) = web_sys::Event::new(name) {
        let _ = window().dispatch_event(&ev);
    }
}

/// The header asks the open view for its results as CSV (`results_csv`) or JSON: the views
/// loaded as modules listen while they are shown (`crate::results`).
pub const RESULTS_CSV_EVENT: &str = "libra-results-csv";
pub const RESULTS_JSON_EVENT: &str = "libra-results-json";

/// Offer a view's results as its two files, the one asked for.
pub fn download_results(files: &crate::results::ResultFiles, json: bool) -> Result<(), String> {
    match json {
        true => download(
            &files.json,
            &format!("{}.json", files.stem),
            "application/json",
        ),
        false => download(&files.csv, &format!("{}.csv", files.stem), "text/csv"),
    }
}

/// While the returned watches live, the header's "Results" buttons export `files()` (None: not
/// this view's turn, or it has no results yet).
pub fn export_results_on_request(
    files: impl Fn() -> Option<crate::results::ResultFiles> + Clone + 'static,
) -> (Watch, Watch) {
    let on = move |json: bool| {
        if let Some(f) = files() {
            if let Err(e) = download_results(&f, json) {
                leptos::logging::error!("results export failed: {e}");
            }
        }
    };
    let csv = on.clone();
    (
        on_window_event(RESULTS_CSV_EVENT, move || csv(false)),
        on_window_event(RESULTS_JSON_EVENT, move || on(true)),
    )
}

/// A browser subscription (a resize observer, a window listener) that ends when dropped.
pub struct Watch {
    stop: Option<Box<dyn FnOnce()>>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop();
        }
    }
}

/// Call `f` whenever `el`'s box changes size (None where the browser has no ResizeObserver).
pub fn on_resize(el: &web_sys::Element, f: impl Fn() + 'static) -> Option<Watch> {
    let callback = wasm_bindgen::closure::Closure::<dyn Fn(JsValue)>::new(move |_| f());
    let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
    observer.observe(el);
    Some(Watch {
        stop: Some(Box::new(move || {
            observer.disconnect();
            drop(callback);
        })),
    })
}

/// Call `f` on every window event `name`, until dropped.
pub fn on_window_event(name: &'static str, f: impl Fn() + 'static) -> Watch {
    let callback = wasm_bindgen::closure::Closure::<dyn Fn(JsValue)>::new(move |_| f());
    let _ = window().add_event_listener_with_callback(name, callback.as_ref().unchecked_ref());
    Watch {
        stop: Some(Box::new(move || {
            let _ = window()
                .remove_event_listener_with_callback(name, callback.as_ref().unchecked_ref());
        })),
    }
}

/// The URL fragment without its `#` (empty when there is none).
pub fn fragment() -> String {
    leptos::prelude::location_hash().unwrap_or_default()
}

/// Replace the URL's fragment without adding a history entry.
pub fn replace_fragment(fragment: &str) {
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(fragment));
    }
}

/// The page's URL with `fragment`.
pub fn url_with(fragment: &str) -> String {
    let loc = window().location();
    let base = format!(
        "{}{}{}",
        loc.origin().unwrap_or_default(),
        loc.pathname().unwrap_or_default(),
        loc.search().unwrap_or_default()
    );
    format!("{base}{fragment}")
}

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

pub fn load(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

/// Save `value`; false when the browser refuses (private mode, quota).
pub fn save(key: &str, value: &str) -> bool {
    storage().is_some_and(|s| s.set_item(key, value).is_ok())
}

pub fn remove(key: &str) {
    if let Some(s) = storage() {
        let _ = s.remove_item(key);
    }
}

/// After a panic: a message at the top of the page instead of a blank or frozen one.
pub fn show_crash_notice() {
    let Some(body) = window().document().and_then(|d| d.body()) else {
        return;
    };
    let _ = body.insert_adjacent_html(
        "afterbegin",
        "<div class=\"banner error crash\" role=\"alert\" data-testid=\"crash-notice\"><p><strong>\
         libra-studio stopped on an unexpected error.</strong> Reload the page: it will open the \
         default scenario and offer the one that failed for download (nothing is deleted).</p>\
         <button type=\"button\" onclick=\"location.reload()\">Reload</button></div>",
    );
}

/// Put `text` on the clipboard.
pub async fn copy(text: &str) -> Result<(), String> {
    let clipboard = window().navigator().clipboard();
    JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(self::text)
}

/// Offer `url` (a data: or blob: URL) for download as `name`.
fn download_url(url: &str, name: &str) -> Result<(), String> {
    let document = window().document().ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(text)?
        .dyn_into()
        .map_err(|_| "not an anchor".to_string())?;
    a.set_href(url);
    a.set_download(name);
    a.click();
    Ok(())
}

/// Offer `content` for download as `name` with the MIME type `mime`.
pub fn download(content: &str, name: &str, mime: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(content));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(text)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(text)?;
    let result = download_url(&url, name);
    // The click has started the download; the URL is no longer needed.
    let _ = web_sys::Url::revoke_object_url(&url);
    result
}

/// A canvas of `w` x `h` pixels outside the page (to draw an export on).
pub fn offscreen_canvas(w: u32, h: u32) -> Result<web_sys::HtmlCanvasElement, String> {
    let canvas: web_sys::HtmlCanvasElement = leptos::prelude::document()
        .create_element("canvas")
        .map_err(text)?
        .dyn_into()
        .map_err(|_| "not a canvas".to_string())?;
    canvas.set_width(w);
    canvas.set_height(h);
    Ok(canvas)
}

/// Offer a canvas's pixels as a PNG file.
pub fn download_png(canvas: &web_sys::HtmlCanvasElement, name: &str) -> Result<(), String> {
    let url = canvas.to_data_url_with_type("image/png").map_err(text)?;
    download_url(&url, name)
}

/// The text of the first file picked in `input`, with its name.
pub async fn read_picked(input: &web_sys::HtmlInputElement) -> Result<(String, String), String> {
    let file = input
        .files()
        .and_then(|f| f.get(0))
        .ok_or("no file was picked")?;
    // Checked before the file is read whole (a disc image picked by mistake would freeze the tab).
    crate::limits::at_most(
        "the file",
        "bytes (use the command line for larger inputs)",
        file.size() as u64,
        crate::limits::MAX_INPUT_BYTES,
    )
    .map_err(|e| e.to_string())?;
    let content = JsFuture::from(file.text()).await.map_err(text)?;
    Ok((file.name(), content.as_string().unwrap_or_default()))
}

/// Move the keyboard focus to the first element matching `selector` (if any).
pub fn focus(selector: &str) {
    if let Some(e) = leptos::prelude::document()
        .query_selector(selector)
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = e.focus();
    }
}

/// Milliseconds of work per animation frame for long computations run in slices.
pub const FRAME_MS: f64 = 12.0;

/// The most milliseconds of work one frame's slice may reach, pieces of uneven cost included.
const SLICE_MS: f64 = 30.0;

/// Call `step` (one piece of a long computation, true when it is complete) until it completes or
/// this frame's [`FRAME_MS`] are spent; true when complete. No piece starts that the longest piece
/// seen in this frame would carry past [`SLICE_MS`]: pieces of uneven cost (a 10,000-layer
/// co-design candidate takes tens of milliseconds) never add up to a long task.
pub fn work_for_a_frame(step: impl FnMut() -> bool) -> bool {
    work_for(FRAME_MS, step)
}

/// [`work_for_a_frame`] with `frame_ms` milliseconds instead of [`FRAME_MS`].
pub fn work_for(frame_ms: f64, mut step: impl FnMut() -> bool) -> bool {
    let t0 = now_ms();
    let mut longest: f64 = 0.0;
    loop {
        let t = now_ms();
        if step() {
            return true;
        }
        let now = now_ms();
        longest = longest.max(now - t);
        if now - t0 > frame_ms || now - t0 + longest > SLICE_MS {
            return false;
        }
    }
}

/// Run `step` once per animation frame until it returns true (long work that keeps the page
/// responsive and can show its progress between frames).
pub fn run_in_frames(step: impl FnMut() -> bool + 'static) {
    fn next(mut step: Box<dyn FnMut() -> bool>) {
        leptos::prelude::request_animation_frame(move || {
            if !step() {
                next(step);
            }
        });
    }
    next(Box::new(step));
}
