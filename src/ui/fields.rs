//! Inputs bound to one field of the form: they show the form's text when drawn, write every edit
//! back, and are marked (with the message beside them) while the field has an error.
//!
//! Inputs are uncontrolled: their text is read on every `input` event and never written back while
//! the visitor types (writing `.value` back would erase a half-typed "1e" or "-").

use super::studio::Studio;
use crate::form::{Field, Form};
use leptos::prelude::*;

/// A text input for `field`, showing `value`, written back with `set`.
pub fn field_input(
    studio: Studio,
    field: Field,
    value: String,
    placeholder: &'static str,
    label: String,
    set: impl Fn(&mut Form, String) + 'static,
) -> impl IntoView {
    let id = field.testid();
    let invalid = move || studio.error_of(field).is_some();
    view! {
        <span class="input-wrap">
            <input
                type="text"
                inputmode="decimal"
                autocomplete="off"
                spellcheck="false"
                id=format!("field-{id}")
                data-testid=id.clone()
                aria-label=label
                placeholder=placeholder
                prop:value=value
                class:invalid=invalid
                aria-invalid=move || invalid().to_string()
                on:input=move |ev| {
                    let v = event_target_value(&ev);
                    studio.edit(|f| set(f, v));
                }
            />
            <FieldMessage studio field />
        </span>
    }
}

/// The message of `field`'s error, if any.
#[component]
pub fn FieldMessage(
    /// The app state.
    studio: Studio,
    /// The field whose error is shown.
    field: Field,
) -> impl IntoView {
    let id = format!("{}-error", field.testid());
    view! {
        <Show when=move || studio.error_of(field).is_some()>
            <span class="field-error" role="alert" data-testid=id.clone()>
                {move || studio.error_of(field)}
            </span>
        </Show>
    }
}
