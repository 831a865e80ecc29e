//! The line under an action that says what it did, or why it could not (a field error for
//! screen readers as an alert), e.g. "network set to Ring 4 × Switch 8".

use leptos::prelude::*;

/// What the last action did (`Ok`) or why it failed (`Err`, shown with `data-testid=error_testid`);
/// nothing before the first.
#[component]
pub fn OutcomeLine(
    /// The last action's outcome.
    outcome: RwSignal<Option<Result<String, String>>>,
    /// `data-testid` of the error.
    error_testid: &'static str,
) -> impl IntoView {
    move || {
        outcome.get().map(|m| match m {
            Ok(t) => view! { <span class="confirm" role="status">{t}</span> }.into_any(),
            Err(e) => {
                view! { <span class="field-error" role="alert" data-testid=error_testid>{e}</span> }
                    .into_any()
            }
        })
    }
}
