//! The form's lists of rows (dimensions, tiers, workloads) keyed by their `RowId`: a row added,
//! removed or moved leaves the other rows' elements, their inputs and the keyboard focus in place.

use super::studio::Studio;
use crate::form::{Form, RowId};
use leptos::prelude::*;

/// The rows of `ids(form)`, each drawn by `row` once while it exists. Plain function arguments:
/// one compiled list for every list of the form.
pub fn keyed_rows(
    studio: Studio,
    ids: fn(&Form) -> Vec<RowId>,
    row: fn(Studio, RowId) -> AnyView,
) -> AnyView {
    view! { <For each=move || studio.form.with(ids) key=|id| *id children=move |id| row(studio, id) /> }
        .into_any()
}
