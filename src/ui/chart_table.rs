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
                    .map(|t| data_table(t, &format!("{testid} as a table"), None))
            }}
        </details>
    }
}

/// A table of strings in a scrolling region: the header row, then rows whose first cell heads
/// the row. Shared by the charts' tables and the views that list results.
pub fn data_table(t: DataTable, label: &str, testid: Option<&'static str>) -> AnyView {
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label=label.to_string()>
            <table class="grid" data-testid=testid>
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
    .into_any()
}
