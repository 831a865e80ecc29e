//! A small drawing of the network's shape: one glyph per dimension (a ring, a fully-connected
//! group or a switch with its NPUs), inner to outer, with its size.

use crate::model::network::{Network, Topology};
use leptos::prelude::*;

const R: f64 = 20.0;

/// The NPU dots of a glyph: at most 8 are drawn (the label gives the count).
fn dots(n: u32) -> Vec<(f64, f64)> {
    let shown = n.min(8) as usize;
    (0..shown)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / shown as f64 - std::f64::consts::FRAC_PI_2;
            (30.0 + R * a.cos(), 28.0 + R * a.sin())
        })
        .collect()
}

fn glyph(topology: Topology, npus: u32) -> impl IntoView {
    let pts = dots(npus);
    let lines: Vec<((f64, f64), (f64, f64))> = match topology {
        Topology::Ring => (0..pts.len())
            .map(|k| (pts[k], pts[(k + 1) % pts.len()]))
            .collect(),
        Topology::FullyConnected => (0..pts.len())
            .flat_map(|a| (a + 1..pts.len()).map(move |b| (a, b)))
            .map(|(a, b)| (pts[a], pts[b]))
            .collect(),
        Topology::Switch => pts.iter().map(|p| (*p, (30.0, 28.0))).collect(),
    };
    view! {
        <svg viewBox="0 0 60 70" width="60" height="70" aria-hidden="true">
            {lines
                .into_iter()
                .map(|((x1, y1), (x2, y2))| view! { <line x1=x1 y1=y1 x2=x2 y2=y2 class="edge" /> })
                .collect_view()}
            {(topology == Topology::Switch)
                .then(|| view! { <rect x="23" y="23" width="14" height="10" rx="2" class="switch" /> })}
            {pts
                .into_iter()
                .map(|(x, y)| view! { <circle cx=x cy=y r="3.5" class="npu" /> })
                .collect_view()}
            <text x="30" y="66" text-anchor="middle">{npus.to_string()}</text>
        </svg>
    }
}

/// The shape of `network` (None while the form's network is invalid: the last drawing stays).
#[component]
pub fn ShapeDrawing(
    /// The network to draw.
    network: Memo<Option<Network>>,
) -> impl IntoView {
    view! {
        <div class="shape" data-testid="shape-drawing" role="img" aria-label=move || {
            network.get().map(|n| n.shape_label()).unwrap_or_default()
        }>
            {move || {
                network
                    .get()
                    .map(|n| {
                        let count = n.dims.len();
                        n.dims
                            .into_iter()
                            .enumerate()
                            .map(|(i, d)| {
                                view! {
                                    <figure class="glyph">
                                        {glyph(d.topology, d.npus)}
                                        <figcaption>{format!("d{} {}", i + 1, d.topology)}</figcaption>
                                    </figure>
                                    {(i + 1 < count).then(|| view! { <span class="times">"×"</span> })}
                                }
                            })
                            .collect_view()
                    })
            }}
        </div>
    }
}
