//! Between the app and the views built as wasm modules of their own (the Compare shapes, Landscape
//! and Co-design views in `explore-view`, the Routing and Cluster views in `routing-view`), so that the app's own wasm
//! stays within its budget. For each such view the app puts the design the view works on (its
//! *base*) and the view's state from the link in window properties (JSON), says whether the view
//! is shown, and announces each change with an event; the module sends its state as the visitor
//! edits it, and a design to load, as events whose detail is JSON. The app loads a module's script
//! the first time one of its views is opened.

use crate::model::scenario::Scenario;
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// One view that lives in a module of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModuleView {
    /// The view's key: its element ids, window properties and events are named after it.
    pub key: &'static str,
    /// What the view is called in messages ("the Co-design view").
    pub label: &'static str,
    /// The module's file stem (`explore-view` for `explore-view.js` and its wasm).
    pub module: &'static str,
}

pub const SHAPES: ModuleView = ModuleView {
    key: "shapes",
    label: "Compare shapes view",
    module: "explore-view",
};
pub const LANDSCAPE: ModuleView = ModuleView {
    key: "landscape",
    label: "Landscape view",
    module: "explore-view",
};
pub const CODESIGN: ModuleView = ModuleView {
    key: "codesign",
    label: "Co-design view",
    module: "explore-view",
};
pub const ROUTING: ModuleView = ModuleView {
    key: "routing",
    label: "Routing view",
    module: "routing-view",
};
pub const CLUSTER: ModuleView = ModuleView {
    key: "cluster",
    label: "Cluster view",
    module: "routing-view",
};

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

impl ModuleView {
    /// The element the module mounts the view in.
    pub fn root_id(self) -> String {
        format!("{}-root", self.key)
    }

    /// The line that says the module is loading, or why it could not.
    pub fn loading_id(self) -> String {
        format!("{}-loading", self.key)
    }

    /// The app's placeholder for the view: its root, with the line that says the module is
    /// loading (or why it could not) until the module mounts the view there.
    pub fn placeholder(self) -> impl leptos::IntoView {
        use leptos::prelude::*;
        view! {
            <div id=self.root_id() data-testid=self.root_id()>
                <p class="hint" id=self.loading_id() data-module=self.module data-label=self.label>
                    {format!("Loading the {}…", self.label)}
                </p>
            </div>
        }
    }

    fn name(self, what: &str) -> String {
        format!("libra-{}-{what}", self.key)
    }

    // The module's side.

    /// The design the view works on (None while the app's form has errors).
    pub fn base<T: DeserializeOwned>(self) -> Option<T> {
        property(&self.name("base")).and_then(|t| serde_json::from_slice(t.as_bytes()).ok())
    }

    /// Call `f` whenever the app's design changes.
    pub fn on_base<T: DeserializeOwned>(self, f: impl Fn(Option<T>) + 'static) {
        listen(&self.name("base"), move |_| f(self.base()));
    }

    /// The view's state a link carried, if any.
    pub fn state<T: DeserializeOwned>(self) -> Option<T> {
        property(&self.name("state")).and_then(|t| serde_json::from_slice(t.as_bytes()).ok())
    }

    /// Tell the app the view's state (it travels in the link).
    pub fn send_state<T: Serialize>(self, state: &T) {
        let text = serde_json::to_string(state).expect("a view's state always serializes");
        set_property(&self.name("state"), &text);
        dispatch(&self.name("state"), &text);
    }

    /// Whether the app shows the view now.
    pub fn shown(self) -> bool {
        property(&self.name("shown")).as_deref() == Some("1")
    }

    /// While the view is shown, the header's "Results" buttons export `files()` (None: no
    /// results yet). For the page's life: the module's views stay mounted.
    pub fn export_results(
        self,
        files: impl Fn() -> Option<crate::results::ResultFiles> + Clone + 'static,
    ) {
        let watches =
            super::browser::export_results_on_request(move || self.shown().then(&files).flatten());
        std::mem::forget(watches);
    }

    /// Call `f` with the state the app hands over to show now ([`ModuleView::push_state`]).
    pub fn on_restate<T: DeserializeOwned>(self, f: impl Fn(Option<T>) + 'static) {
        listen(&self.name("restate"), move |_| f(self.state()));
    }

    /// Call `f` whenever the view is shown or hidden.
    pub fn on_shown(self, f: impl Fn(bool) + 'static) {
        listen(&self.name("shown"), move |_| f(self.shown()));
    }

    /// Ask the app to load `sc` into the design view.
    pub fn load(self, sc: &Scenario) {
        dispatch(&self.name("load"), &sc.to_json());
    }

    /// Mount `view` in the view's root, in place of the app's "loading" line.
    pub fn mount<V: leptos::IntoView + 'static>(self, view: impl FnOnce() -> V + 'static) {
        let document = leptos::prelude::document();
        let Some(root) = document
            .get_element_by_id(&self.root_id())
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        else {
            return;
        };
        if let Some(line) = document.get_element_by_id(&self.loading_id()) {
            line.remove();
        }
        leptos::mount::mount_to(root, view).forget();
    }

    // The app's side.

    /// Hand the module the design the view works on (compact JSON).
    pub fn set_base<T: Serialize>(self, base: Option<&T>) {
        let text = base.map_or(String::new(), |b| {
            serde_json::to_string(b).expect("a view's base always serializes")
        });
        set_property(&self.name("base"), &text);
        dispatch(&self.name("base"), "");
    }

    /// Hand the module the view's state from the link.
    pub fn set_state(self, json: Option<&str>) {
        set_property(&self.name("state"), json.unwrap_or(""));
    }

    /// Hand the module the view's state to show now (another tab's, taken by the visitor): the
    /// view draws its fields anew from it.
    pub fn push_state(self, json: &str) {
        set_property(&self.name("state"), json);
        dispatch(&self.name("restate"), "");
    }

    /// Say whether the view is shown.
    pub fn set_shown(self, shown: bool) {
        if self.shown() != shown {
            set_property(&self.name("shown"), if shown { "1" } else { "" });
            dispatch(&self.name("shown"), "");
        }
    }

    /// Call `on_state` with the view's state as JSON as the visitor edits it, and `on_load` with a
    /// design's Scenario JSON to load.
    pub fn listen_app(
        self,
        on_state: impl Fn(String) + 'static,
        on_load: impl Fn(String) + 'static,
    ) {
        listen(&self.name("state"), on_state);
        listen(&self.name("load"), on_load);
    }

    /// Load the view's module and start it (once per module): it mounts its views in their roots.
    /// Each module's glue (wasm-bindgen's no-modules output) declares a global `wasm_bindgen`, so
    /// two of them as classic scripts collide ("already declared"); the glue is fetched and run in
    /// a function scope of its own instead. A failure is said where the views would be, never a
    /// blank tab: "could not be loaded" when the files cannot be fetched (offline before the first
    /// use), "could not start" when they came but do not run.
    pub fn load_module(self) {
        let m = self.module;
        let load = js_sys::Function::new_no_args(&format!(
            "const key = 'libra-module-{m}'; \
             if (window[key]) return; \
             window[key] = true; \
             const say = (why) => {{ \
               for (const p of document.querySelectorAll('[data-module=\"{m}\"]')) {{ \
                 p.className = 'error'; p.textContent = 'The ' + p.dataset.label + ' ' + why; }} }}; \
             fetch('./{m}.js') \
               .then(r => {{ if (!r.ok) throw new Error('HTTP ' + r.status); return r.text(); }}) \
               .then(glue => {{ \
                   const init = new Function(glue + '\\n;return wasm_bindgen;')(); \
                   return init('./{m}_bg.wasm').catch(e => say('could not start: ' + e)); \
                 }}, () => {{ \
                   window[key] = false; \
                   say('could not be loaded (offline before its first use, or the app\\'s folder is \
                        incomplete): reload when online.'); \
                 }}) \
               .catch(e => say('could not start: ' + e));"
        ));
        let _ = load.call0(&JsValue::NULL);
    }
}
