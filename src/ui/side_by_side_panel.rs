//! The pinned scenario beside the one being edited: what changed, better or worse (the numbers
//! come from `analysis::side_by_side`; the charts draw the pinned front and optimum too).

use super::studio::Studio;
use crate::analysis::side_by_side::side_by_side;
use leptos::prelude::*;

#[component]
pub fn SideBySidePanel(studio: Studio) -> impl IntoView {
    let rows = move || {
        let pinned = studio.pinned_study.get()?;
        let current = studio.outcome.with(|o| o.study.clone())?;
        let pinned_name = studio.pinned.with(|p| p.as_ref().map(|s| s.name.clone()))?;
        let rows = side_by_side(&pinned, &current)
            .into_iter()
            .map(|r| {
                let change = r
                    .change
                    .filter(|_| r.changed)
                    .map_or_else(String::new, |c| format!("{:+.1}%", c * 100.0));
                view! {
                    <tr
                        class:changed=r.changed
                        class:better=r.better == Some(true)
                        class:worse=r.better == Some(false)
                        data-testid="side-row"
                        data-changed=r.changed.to_string()
                    >
                        <th scope="row">{r.label}</th>
                        <td class="num">{r.pinned_text}</td>
                        <td class="num">{r.current_text}</td>
                        <td class="num">{change}</td>
                    </tr>
                }
            })
            .collect_view();
        Some(view! {
            <section class="panel side-by-side" aria-label="Pinned scenario side by side" data-testid="side-by-side">
                <header class="panel-header">
                    <h2>"Side by side"</h2>
                    <button type="button" data-testid="unpin-scenario" on:click=move |_| studio.pinned.set(None)>
                        "Unpin"
                    </button>
                </header>
                <p class="hint">
                    {format!("Pinned: \"{pinned_name}\". ")}
                    "Edit the form: the table shows what changed (green better, red worse) and the charts \
                     draw the pinned front and optimum in purple. Both travel in the link."
                </p>
                <div class="table-scroll" tabindex="0" role="region" aria-label="The pinned scenario against the current one">
                    <table class="grid">
                        <thead>
                            <tr>
                                <th><span class="sr-only">"quantity"</span></th>
                                <th class="num">"pinned"</th>
                                <th class="num">"current"</th>
                                <th class="num">"change"</th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </section>
        })
    };
    view! { {rows} }
}
