//! Between the app and the Co-design view's own wasm module (`codesign_module`): the app puts the
//! design and the question a link carried in two window properties (JSON) and says so with an
//! event; the module sends the question as the visitor edits it, and a design to load, as events
//! whose detail is JSON. The app loads the module's script the first time the view is opened.

use crate::codesign::CodesignInputs;
use crate::model::scenario::Scenario;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The element the module mounts in.
pub const ROOT_ID: &str = "codesign-root";
/// The line that says the module is loading, or why it could not.
pub const LOADING_ID: &str = "codesign-loading";
const BASE: &str = "libraCodesignBase";
const INPUTS: &str = "libraCodesignInputs";
const BASE_EVENT: &str = "libra-codesign-base";
const INPUTS_EVENT: &str = "libra-codesign-inputs";
const LOAD_EVENT: &str = "libra-codesign-load";

fn window() -> web_sys::Window {
    leptos::prelude::window()
}

fn property(name: &str) -> Option<String> {
    js_sys::Reflect::get(&window(), &JsValue::from_str(name))
        .ok()
        .and_then(|v| v.as_string())
}

fn set_property(name: &str, value: &str) {
    let _ = js_sys::Reflect::set(
        &window(),
        &JsValue::from_str(name),
        &JsValue::from_str(value),
    );
}

fn dispatch(event: &str, detail: &str) {
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&JsValue::from_str(detail));
    if let Ok(ev) = web_sys::CustomEvent::new_with_event_init_dict(event, &init) {
        let _ = window().dispatch_event(&ev);
    }
}

fn listen(event: &str, f: impl Fn(String) + 'static) {
    let handler = Closure::<dyn Fn(web_sys::Event)>::new(move |ev: web_sys::Event| {
        let detail = ev
            .dyn_ref::<web_sys::CustomEvent>()
            .and_then(|c| c.detail().as_string())
            .unwrap_or_default();
        f(detail);
    });
    let _ = window().add_event_listener_with_callback(event, handler.as_ref().unchecked_ref());
    handler.forget();
}

// The module's side.

/// The design the app shows (None while its form has errors).
pub fn base() -> Option<Scenario> {
    property(BASE).and_then(|t| Scenario::from_json(&t).ok())
}

/// Call `f` whenever the app's design changes.
pub fn on_base(f: impl Fn(Option<Scenario>) + 'static) {
    listen(BASE_EVENT, move |_| f(base()));
}

/// The question a link carried, if any.
pub fn inputs() -> Option<CodesignInputs> {
    property(INPUTS).and_then(|t| serde_json::from_str(&t).ok())
}

/// Tell the app the question (it travels in the link).
pub fn send_inputs(inputs: &CodesignInputs) {
    let text = serde_json::to_string(inputs).expect("inputs always serialize");
    set_property(INPUTS, &text);
    dispatch(INPUTS_EVENT, &text);
}

/// Ask the app to load `sc` into the design view.
pub fn load(sc: &Scenario) {
    dispatch(LOAD_EVENT, &sc.to_json());
}

// The app's side.

/// Hand the module the design (compact JSON) and the question from a link.
pub fn set_base(sc: Option<&Scenario>) {
    let text = sc.map_or(String::new(), |sc| {
        String::from_utf8(serde_json::to_vec(sc).expect("a scenario always serializes"))
            .expect("JSON is UTF-8")
    });
    set_property(BASE, &text);
    dispatch(BASE_EVENT, "");
}

pub fn set_inputs(json: Option<&str>) {
    set_property(INPUTS, json.unwrap_or(""));
}

/// Call `on_inputs` with the question's JSON as the visitor edits it, and `on_load` with a
/// design's Scenario JSON to load.
pub fn listen_app(on_inputs: impl Fn(String) + 'static, on_load: impl Fn(String) + 'static) {
    listen(INPUTS_EVENT, on_inputs);
    listen(LOAD_EVENT, on_load);
}

/// Load the module's script and start it (once): it mounts itself in `#codesign-root`.
pub fn load_module() {
    let document = leptos::prelude::document();
    if document.get_element_by_id("codesign-script").is_some() {
        return;
    }
    let Ok(script) = document.create_element("script") else {
        return;
    };
    let _ = script.set_attribute("id", "codesign-script");
    let _ = script.set_attribute("src", "./codesign-view.js");
    let start = Closure::<dyn Fn()>::new(|| {
        // The module's glue declares a global `wasm_bindgen` (a classic script's binding). A
        // failure is said where the view would be, never a blank tab.
        let init = js_sys::Function::new_no_args(
            "return wasm_bindgen('./codesign-view_bg.wasm').catch(e => { \
               const p = document.getElementById('codesign-loading'); \
               if (p) { p.className = 'error'; p.textContent = 'The Co-design view could not start: ' + e; } });",
        );
        let _ = init.call0(&JsValue::NULL);
    });
    let _ = script.add_event_listener_with_callback("load", start.as_ref().unchecked_ref());
    start.forget();
    let failed = Closure::<dyn Fn()>::new(|| {
        if let Some(p) = leptos::prelude::document().get_element_by_id(LOADING_ID) {
            p.set_class_name("error");
            p.set_text_content(Some(
                "The Co-design view could not be loaded (offline before its first use, or the \
                 app's folder is incomplete): reload when online.",
            ));
        }
    });
    let _ = script.add_event_listener_with_callback("error", failed.as_ref().unchecked_ref());
    failed.forget();
    if let Some(body) = document.body() {
        let _ = body.append_child(&script);
    }
}
