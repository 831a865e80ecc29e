//! "Show as table" under a chart: its numbers (`charts::tables`) in a table, built only while
//! the disclosure is open.

use crate::charts::tables::DataTable;
use leptos::prelude::*;

#[component]
pub fn ChartTable(
    /// The chart's `data-testid`; the table's is this with `-table`.
    testid: &'static str,
    /// The chart's numbers now (None while there is nothing drawn).
    table: Callback<(), Option<DataTable>>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <details
            class="chart-table"
            data-testid=format!("{testid}-table")
            on:toggle=move |ev| {
                let d: web_sys::HtmlDetailsElement = event_target(&ev);
                open.set(d.open());
            }
        >
            <summary>"Show as table"</summary>
            {move || {
                open.get()
                    .then(|| table.run(()))
                    .flatten()
                    .map(|t| {
                        view! {
                            <div class="table-scroll" tabindex="0" role="region" aria-label=format!("{testid} as a table")>
                                <table class="grid">
                                    <thead>
                                        <tr>{t.headers.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr>
                                    </thead>
                                    <tbody>
                                        {t
                                            .rows
                                            .into_iter()
                                            .map(|r| {
                                                let mut cells = r.into_iter();
                                                let head = cells.next().unwrap_or_default();
                                                view! {
                                                    <tr>
                                                        <th scope="row">{head}</th>
                                                        {cells.map(|c| view! { <td class="num">{c}</td> }).collect_view()}
                                                    </tr>
                                                }
                                            })
                                            .collect_view()}
                                    </tbody>
                                </table>
                            </div>
                        }
                    })
            }}
        </details>
    }
}
