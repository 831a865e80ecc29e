//! A workload's JSON form: runs of layers. A transformer's layers are the same few layers again
//! and again (`attn1`, `mlp1`, `attn2`, `mlp2`, ...); written one by one, a 10,000-layer model is
//! 12 MB of JSON that every hand-over, save and link must carry and compress. Written as runs, a
//! run is a group of `period` consecutive layers (the first carries `"repeat": k` and, above 1,
//! `"period": g`) that stands for k copies of the group, in each copy the last number in every
//! layer's name counting up by one (a name without a number stays as it is). Reading expands the
//! runs, refusing more than [`MAX_LAYERS`] layers in all before anything of that size is
//! allocated; a file without `repeat` reads as before, and reading what is written gives back
//! the same layers.

use super::workload::{Layer, Phase, Workload};
use crate::limits::MAX_LAYERS;
use serde::{Deserialize, Serialize};

/// The longest group written as a run (a transformer block is 1-4 layers).
pub const MAX_PERIOD: usize = 8;

/// A layer, or the first layer of a run, as JSON holds it.
#[derive(Clone, Serialize, Deserialize)]
pub struct WireLayer {
    name: String,
    #[serde(default = "minus_one")]
    reserved: i64,
    forward: Phase,
    input_grad: Phase,
    weight_grad: Phase,
    #[serde(default)]
    update_ns: f64,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    repeat: u64,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    period: u64,
}

/// A workload as JSON holds it.
#[derive(Clone, Serialize, Deserialize)]
pub struct WireWorkload {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parallelism: Option<String>,
    layers: Vec<WireLayer>,
}

fn minus_one() -> i64 {
    -1
}

fn one() -> u64 {
    1
}

fn is_one(v: &u64) -> bool {
    *v == 1
}

/// The name of `first`'s layer in the `i`-th copy (from 0) of its run; None when its number
/// would overflow.
fn name_at(first: &str, i: u64) -> Option<String> {
    if i == 0 {
        return Some(first.to_string());
    }
    match numbered(first) {
        Some((prefix, n, suffix)) => n.checked_add(i).map(|m| format!("{prefix}{m}{suffix}")),
        None => Some(first.to_string()),
    }
}

/// `name` split around its last number: (prefix, number, suffix), when the number is written
/// without leading zeros.
fn numbered(name: &str) -> Option<(&str, u64, &str)> {
    let end = name.rfind(|c: char| c.is_ascii_digit())? + 1;
    let start = name[..end]
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let digits = &name[start..end];
    let n: u64 = digits.parse().ok()?;
    (n.to_string() == digits).then_some((&name[..start], n, &name[end..]))
}

/// Whether `next` is `first`'s layer in the `i`-th copy of its run.
fn continues(first: &Layer, i: u64, next: &Layer) -> bool {
    next.reserved == first.reserved
        && next.forward == first.forward
        && next.input_grad == first.input_grad
        && next.weight_grad == first.weight_grad
        && next.update_ns.to_bits() == first.update_ns.to_bits()
        && name_at(&first.name, i).as_deref() == Some(next.name.as_str())
}

/// How many copies of the group `layers[..period]` start `layers`.
fn copies(layers: &[Layer], period: usize) -> usize {
    let group = &layers[..period];
    let mut k = 1;
    while let Some(copy) = layers.get(k * period..(k + 1) * period) {
        if !group
            .iter()
            .zip(copy)
            .all(|(f, l)| continues(f, k as u64, l))
        {
            break;
        }
        k += 1;
    }
    k
}

fn wire(l: &Layer, repeat: usize, period: usize) -> WireLayer {
    WireLayer {
        name: l.name.clone(),
        reserved: l.reserved,
        forward: l.forward.clone(),
        input_grad: l.input_grad.clone(),
        weight_grad: l.weight_grad.clone(),
        update_ns: l.update_ns,
        repeat: repeat as u64,
        period: period as u64,
    }
}

impl From<Workload> for WireWorkload {
    fn from(w: Workload) -> WireWorkload {
        let mut layers = Vec::new();
        let mut rest = &w.layers[..];
        while !rest.is_empty() {
            // The group that covers the most layers (the shortest among equals), repeated at
            // least twice; else one layer as it is.
            let (period, repeat) = (1..=MAX_PERIOD.min(rest.len() / 2))
                .map(|g| (g, copies(rest, g)))
                .filter(|&(_, k)| k >= 2)
                .max_by_key(|&(g, k)| (g * k, std::cmp::Reverse(g)))
                .unwrap_or((1, 1));
            layers.push(wire(&rest[0], repeat, period));
            layers.extend(rest[1..period].iter().map(|l| wire(l, 1, 1)));
            rest = &rest[period * repeat..];
        }
        WireWorkload {
            parallelism: w.parallelism,
            layers,
        }
    }
}

/// Why a workload's runs cannot be read; each names the layer entry (from 1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error(
        "layers: entry {entry} (\"{name}\") has repeat 0 or period 0; each must be at least 1"
    )]
    Zero { entry: usize, name: String },
    #[error("layers: entry {entry} (\"{name}\") has period {period}, but its run holds {left} layers from there")]
    PeriodPastEnd {
        entry: usize,
        name: String,
        period: u64,
        left: usize,
    },
    #[error("layers: entry {entry} (\"{name}\") starts a run inside the run of entry {within}")]
    Nested {
        entry: usize,
        name: String,
        within: usize,
    },
    #[error("layers: the runs hold more than the limit of {MAX_LAYERS} layers")]
    TooMany,
}

/// The runs of `layers`: (first entry, period, repeat), checked.
fn runs(layers: &[WireLayer]) -> Result<Vec<(usize, usize, u64)>, RunError> {
    let mut runs = Vec::new();
    let mut total = 0u64;
    let mut i = 0;
    while i < layers.len() {
        let first = &layers[i];
        let named = |entry: usize| layers[entry].name.clone();
        if first.repeat == 0 || first.period == 0 {
            return Err(RunError::Zero {
                entry: i + 1,
                name: named(i),
            });
        }
        let left = layers.len() - i;
        let period = usize::try_from(first.period)
            .ok()
            .filter(|&g| g <= left)
            .ok_or(RunError::PeriodPastEnd {
                entry: i + 1,
                name: named(i),
                period: first.period,
                left,
            })?;
        if let Some(j) =
            (i + 1..i + period).find(|&j| layers[j].repeat != 1 || layers[j].period != 1)
        {
            return Err(RunError::Nested {
                entry: j + 1,
                name: named(j),
                within: i + 1,
            });
        }
        total = (period as u64)
            .checked_mul(first.repeat)
            .and_then(|n| total.checked_add(n))
            .filter(|&n| n <= MAX_LAYERS)
            .ok_or(RunError::TooMany)?;
        runs.push((i, period, first.repeat));
        i += period;
    }
    Ok(runs)
}

impl TryFrom<WireWorkload> for Workload {
    type Error = RunError;

    fn try_from(w: WireWorkload) -> Result<Workload, RunError> {
        let runs = runs(&w.layers)?;
        let total: u64 = runs.iter().map(|&(_, g, k)| g as u64 * k).sum();
        let mut layers = Vec::with_capacity(total as usize);
        for (start, period, repeat) in runs {
            for i in 0..repeat {
                for run in &w.layers[start..start + period] {
                    layers.push(Layer {
                        name: name_at(&run.name, i).unwrap_or_else(|| run.name.clone()),
                        reserved: run.reserved,
                        forward: run.forward.clone(),
                        input_grad: run.input_grad.clone(),
                        weight_grad: run.weight_grad.clone(),
                        update_ns: run.update_ns,
                    });
                }
            }
        }
        Ok(Workload {
            parallelism: w.parallelism,
            layers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::workload::Collective;

    fn layer(name: &str, compute: f64) -> Layer {
        Layer {
            name: name.into(),
            reserved: -1,
            forward: Phase::new(compute, Collective::AllReduce, 1e6),
            input_grad: Phase::new(compute, Collective::None, 0.0),
            weight_grad: Phase::new(2.0 * compute, Collective::AllGather, 3e6),
            update_ns: 0.0,
        }
    }

    /// The JSON of `layers` and how many entries it has; reading it back gives `layers`.
    fn round_trip(layers: Vec<Layer>) -> (String, usize) {
        let w = Workload {
            parallelism: None,
            layers,
        };
        let text = serde_json::to_string(&w).unwrap();
        let back: Workload = serde_json::from_str(&text).unwrap();
        assert_eq!(back, w, "{text}");
        let wire: WireWorkload = serde_json::from_str(&text).unwrap();
        (text, wire.layers.len())
    }

    #[test]
    fn a_transformers_blocks_are_one_run() {
        // The builder's layers with ZeRO's all-gather rows: a group of 4 named attn1,
        // attn1_allgather, mlp1, mlp1_allgather, then 2, 3, ..., then the pipeline's sends.
        let mut layers = Vec::new();
        for l in 1..=10_000 {
            for (block, compute) in [("attn", 5.0), ("mlp", 7.0)] {
                layers.push(layer(&format!("{block}{l}"), compute));
                layers.push(layer(&format!("{block}{l}_allgather"), 0.0));
            }
        }
        layers.push(layer("pipeline_sendrecv", 1.0));
        let (text, entries) = round_trip(layers);
        assert!(text.len() < 1_500, "{} bytes: {text}", text.len());
        assert_eq!(entries, 5, "{text}");
        assert!(text.contains("\"repeat\":10000,\"period\":4"), "{text}");
    }

    #[test]
    fn layers_that_differ_stay_apart() {
        // (layers, entries written): a different number, a name that skips, leading zeros, the
        // same name twice, no number, a count past 9, a number that would overflow, a group that
        // does not repeat whole.
        let cases = [
            (vec![layer("a1", 1.0), layer("a2", 2.0)], 2),
            (vec![layer("a1", 1.0), layer("a3", 1.0)], 2),
            (vec![layer("a01", 1.0), layer("a02", 1.0)], 2),
            (vec![layer("a1", 1.0), layer("a1", 1.0)], 2),
            (vec![layer("x", 1.0), layer("x", 1.0), layer("y", 1.0)], 2),
            (
                vec![layer("a9", 1.0), layer("a10", 1.0), layer("a11", 1.0)],
                1,
            ),
            (
                vec![layer("a18446744073709551615", 1.0), layer("a0", 1.0)],
                2,
            ),
            (
                vec![
                    layer("q1", 1.0),
                    layer("k1", 2.0),
                    layer("q2", 1.0),
                    layer("k2", 3.0),
                ],
                4,
            ),
            (
                vec![
                    layer("q1", 1.0),
                    layer("k1", 2.0),
                    layer("q2", 1.0),
                    layer("k2", 2.0),
                    layer("q3", 1.0),
                ],
                3,
            ),
        ];
        for (layers, want) in cases {
            let (text, entries) = round_trip(layers);
            assert_eq!(entries, want, "{text}");
        }
    }

    #[test]
    fn layers_without_repeat_read_as_before() {
        let text = r#"{"layers":[{"name":"l","forward":{"compute_ns":1,"collective":"None","size_bytes":0},
            "input_grad":{"compute_ns":1,"collective":"None","size_bytes":0},
            "weight_grad":{"compute_ns":1,"collective":"None","size_bytes":0}}]}"#;
        let w: Workload = serde_json::from_str(text).unwrap();
        assert_eq!(w.layers.len(), 1);
        assert_eq!(w.layers[0].reserved, -1);
    }

    #[test]
    fn hostile_runs_are_refused_before_allocating() {
        let entry = |name: &str, extra: &str| {
            format!(
                r#"{{"name":"{name}"{extra},"forward":{{"compute_ns":1,"collective":"None","size_bytes":0}},
                "input_grad":{{"compute_ns":1,"collective":"None","size_bytes":0}},
                "weight_grad":{{"compute_ns":1,"collective":"None","size_bytes":0}}}}"#
            )
        };
        let read = |entries: &[String]| {
            serde_json::from_str::<Workload>(&format!(r#"{{"layers":[{}]}}"#, entries.join(",")))
        };
        let refused = |entries: &[String], want: &str| {
            let e = read(entries).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        };
        refused(
            &[entry("l1", r#","repeat":18446744073709551615"#)],
            "more than the limit of 2000000 layers",
        );
        refused(
            &[
                entry("l1", r#","repeat":4294967296,"period":4294967296"#),
                entry("m", ""),
            ],
            "entry 1 (\"l1\") has period 4294967296, but its run holds 2 layers from there",
        );
        refused(
            &[entry("l1", r#","repeat":0"#)],
            "entry 1 (\"l1\") has repeat 0",
        );
        refused(&[entry("l1", r#","period":0"#)], "period 0");
        refused(
            &[
                entry("a1", r#","repeat":2,"period":2"#),
                entry("b1", r#","repeat":3"#),
            ],
            "entry 2 (\"b1\") starts a run inside the run of entry 1",
        );
        let w = read(&[
            entry("l1", r#","repeat":3"#),
            entry("x7y", r#","repeat":2"#),
        ])
        .unwrap();
        let names: Vec<_> = w.layers.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["l1", "l2", "l3", "x7y", "x8y"]);
    }
}
