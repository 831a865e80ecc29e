//! Two studies side by side (a pinned scenario and the one being edited): the numbers people
//! compare, each with its relative change, marked when it changed by more than a rounding.

use super::study::Study;
use crate::format::{duration_ns, usd};

/// Changes smaller than this (relative) count as unchanged.
pub const UNCHANGED: f64 = 5e-4;

/// One compared quantity.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffRow {
    pub label: String,
    pub pinned: Option<f64>,
    pub current: Option<f64>,
    /// Both values, formatted.
    pub pinned_text: String,
    pub current_text: String,
    /// `current / pinned - 1` when both exist and the pinned one is not zero.
    pub change: Option<f64>,
    /// True when the two differ (by more than [`UNCHANGED`], or one is missing).
    pub changed: bool,
    /// True when the change is for the better (lower time or cost); None where a change is
    /// neither (bandwidths, the speedup over each scenario's own baseline).
    pub better: Option<bool>,
}

fn row(
    label: String,
    pinned: Option<f64>,
    current: Option<f64>,
    lower_is_better: bool,
    fmt: impl Fn(f64) -> String,
) -> DiffRow {
    let text = |v: Option<f64>| v.map_or_else(|| "—".to_string(), &fmt);
    let change = match (pinned, current) {
        (Some(p), Some(c)) if p != 0.0 => Some(c / p - 1.0),
        (Some(p), Some(c)) if p == c => Some(0.0),
        _ => None,
    };
    let changed = match change {
        Some(ch) => ch.abs() > UNCHANGED,
        None => pinned != current,
    };
    DiffRow {
        pinned_text: text(pinned),
        current_text: text(current),
        label,
        pinned,
        current,
        better: change
            .filter(|_| changed)
            .map(|ch| (ch < 0.0) == lower_is_better),
        change,
        changed,
    }
}

/// The rows comparing `pinned` with `current`: time, cost, speedup over uniform, then each
/// dimension's bandwidth (dimensions present in only one are shown with a dash).
pub fn side_by_side(pinned: &Study, current: &Study) -> Vec<DiffRow> {
    let mut rows = vec![
        row(
            "training time per iteration".into(),
            Some(pinned.evaluation.time_ns),
            Some(current.evaluation.time_ns),
            true,
            duration_ns,
        ),
        row(
            "network cost".into(),
            Some(pinned.evaluation.cost_usd),
            Some(current.evaluation.cost_usd),
            true,
            usd,
        ),
        row(
            "exposed communication".into(),
            Some(pinned.evaluation.time_ns - pinned.evaluation.compute_ns),
            Some(current.evaluation.time_ns - current.evaluation.compute_ns),
            true,
            duration_ns,
        ),
        // Each speedup is over its own scenario's uniform split (its constraints decide it): a
        // higher one is neither better nor worse by itself, and a slower design may have it.
        DiffRow {
            better: None,
            ..row(
                "speedup over its own uniform split".into(),
                pinned.speedup(),
                current.speedup(),
                false,
                |v| format!("{v:.3}×"),
            )
        },
    ];
    let dims = pinned.dim_labels.len().max(current.dim_labels.len());
    for d in 0..dims {
        let label = match (pinned.dim_labels.get(d), current.dim_labels.get(d)) {
            (Some(a), Some(b)) if a != b => format!("B of {a} → {b}"),
            (Some(a), _) | (None, Some(a)) => format!("B of {a}"),
            (None, None) => unreachable!("d < the larger count"),
        };
        let bw = |s: &Study| s.optimum.bw_gbps.get(d).copied();
        let mut r = row(label, bw(pinned), bw(current), false, |v| {
            format!("{v:.2} GB/s")
        });
        // More bandwidth is neither better nor worse by itself.
        r.better = None;
        rows.push(r);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::study::study;
    use crate::presets::{self, LibraNetwork, LibraWorkload};

    #[test]
    fn a_study_beside_itself_has_no_changes() {
        let s = study(&presets::default_scenario()).unwrap();
        let rows = side_by_side(&s, &s);
        assert_eq!(rows.len(), 4 + 4);
        assert!(rows.iter().all(|r| !r.changed && r.change == Some(0.0)));
        assert_eq!(rows[0].current_text, duration_ns(s.evaluation.time_ns));
    }

    #[test]
    fn more_bandwidth_is_faster_and_dearer_and_a_3d_network_shows_dashes() {
        let base = presets::default_scenario();
        let mut more = base.clone();
        more.constraints.total_bw = Some(crate::model::scenario::TotalBandwidth::Equal(1000.0));
        let (a, b) = (study(&base).unwrap(), study(&more).unwrap());
        let rows = side_by_side(&a, &b);
        let time = &rows[0];
        assert!(time.changed && time.better == Some(true), "{time:?}");
        assert!(time.change.unwrap() < 0.0);
        let cost = &rows[1];
        assert!(cost.changed && cost.better == Some(false), "{cost:?}");
        // The speedup changed (each over its own uniform split) but is not called better or
        // worse.
        let speedup = &rows[3];
        assert!(speedup.changed && speedup.better.is_none(), "{speedup:?}");
        assert!(
            (cost.current.unwrap() / cost.pinned.unwrap() - 1.0 - cost.change.unwrap()).abs()
                < 1e-12
        );
        let d3 = study(&presets::libra_scenario(
            LibraWorkload::Gpt3,
            LibraNetwork::D3,
        ))
        .unwrap();
        let rows = side_by_side(&a, &d3);
        let last = rows.last().unwrap();
        assert_eq!(last.current, None);
        assert_eq!(last.current_text, "—");
        assert!(last.changed);
    }
}
