//! A word linked to its glossary entry (`crate::glossary`): a click opens the glossary and
//! scrolls to the entry, without touching the URL's fragment (it holds the scenario).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// `text`, linked to the glossary entry `key`.
pub fn term(key: &'static str, text: &'static str) -> impl IntoView {
    view! {
        <a class="term" href=format!("#term-{key}") data-term=key on:click=move |ev| {
            ev.prevent_default();
            open(key);
        }>{text}</a>
    }
}

/// Open the glossary at entry `key`.
pub fn open(key: &str) {
    let doc = document();
    if let Some(g) = doc
        .query_selector("[data-testid=glossary]")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlDetailsElement>().ok())
    {
        g.set_open(true);
    }
    if let Some(e) = doc.get_element_by_id(&format!("term-{key}")) {
        e.scroll_into_view();
        let _ = e.set_attribute("data-highlight", "1");
    }
}
