//! Inputs bound to one field of the form: they show the form's text when drawn, write every edit
//! back, and are marked (with the message beside them) while the field has an error.
//!
//! Inputs are uncontrolled: their text is read on every `input` event and never written back while
//! the visitor types (writing `.value` back would erase a half-typed "1e" or "-").

use super::studio::Studio;
use crate::form::{Field, Form};
use leptos::prelude::*;

/// A text input for `field` (which follows its row's position in a keyed list), showing `value`,
/// written back with `set`.
pub fn field_input(
    studio: Studio,
    field: impl Into<Signal<Field>>,
    value: String,
    placeholder: &'static str,
    label: impl Into<Signal<String>>,
    set: impl Fn(&mut Form, String) + 'static,
) -> AnyView {
    // The rest is compiled once, not once per field.
    text_input(
        studio,
        field.into(),
        value,
        placeholder,
        label.into(),
        Box::new(set),
    )
}

/// Writes an input's text into the form.
type Setter = dyn Fn(&mut Form, String);

fn text_input(
    studio: Studio,
    field: Signal<Field>,
    value: String,
    placeholder: &'static str,
    label: Signal<String>,
    set: Box<Setter>,
) -> AnyView {
    let id = Signal::derive(move || field.get().testid());
    let invalid = Signal::derive(move || studio.error_of(field.get()).is_some());
    view! {
        <span class="input-wrap">
            <input
                type="text"
                inputmode="decimal"
                autocomplete="off"
                spellcheck="false"
                id=Signal::derive(move || format!("field-{}", id.get()))
                data-testid=id
                aria-label=label
                placeholder=placeholder
                prop:value=value
                class:invalid=invalid
                aria-invalid=Signal::derive(move || invalid.get().to_string())
                on:input=move |ev| {
                    let v = event_target_value(&ev);
                    studio.edit(|f| set(f, v));
                }
            />
            <FieldMessage studio field />
        </span>
    }
    .into_any()
}

/// A text that follows a row's 1-based position `n` (a test id, a label): one compiled closure
/// for every such text.
pub fn numbered(n: Memo<usize>, text: fn(usize) -> String) -> Signal<String> {
    Signal::derive(move || text(n.get()))
}

/// The field of the row at 1-based position `n`, e.g. `numbered_field(n, Field::DimNpus)`.
pub fn numbered_field(n: Memo<usize>, field: fn(usize) -> Field) -> Signal<Field> {
    Signal::derive(move || field(n.get()))
}

/// The message of `field`'s error, if any.
#[component]
pub fn FieldMessage(
    /// The app state.
    studio: Studio,
    /// The field whose error is shown.
    #[prop(into)]
    field: Signal<Field>,
) -> impl IntoView {
    let error = move || studio.error_of(field.get());
    view! {
        <Show when=move || error().is_some()>
            <span class="field-error" role="alert" data-testid=move || format!("{}-error", field.get().testid())>
                {error}
            </span>
        </Show>
    }
}

/// A number field of a view other than the design view (Routing, Cluster, Co-design): it shows
/// `text` when drawn (again whenever `layout` changes), hands every edit to `input`, and is marked
/// with `error` (the typed reader's reason for the text now in it) beside it, under the test id
/// `{testid}-error`, as the design view's fields are.
pub fn typed_input(
    label: &'static str,
    testid: &'static str,
    layout: Signal<u32>,
    text: impl Fn() -> String + Send + Sync + 'static,
    error: Signal<Option<String>>,
    input: impl Fn(String) + 'static,
) -> AnyView {
    let invalid = Signal::derive(move || error.with(Option::is_some));
    view! {
        <label class="route-field">
            {label}
            <input
                type="text"
                inputmode="decimal"
                autocomplete="off"
                spellcheck="false"
                data-testid=testid
                class:invalid=invalid
                aria-invalid=move || invalid.get().to_string()
                prop:value=move || {
                    layout.track();
                    text()
                }
                on:input=move |ev| input(event_target_value(&ev))
            />
            {move || error.get().map(|e| view! {
                <span class="field-error" role="alert" data-testid=format!("{testid}-error")>{e}</span>
            })}
        </label>
    }
    .into_any()
}
