//! How well a system predicts measured runs: the absolute relative error of every run (mean,
//! median, worst, per model), Spearman's rank correlation within each model, and whether the
//! configuration predicted fastest for a model is the measured fastest (the measured time of the
//! predicted best over the measured best).

use super::measured::MeasuredRun;
use super::step::predict;
use super::system::System;
use serde::Serialize;

/// One run, predicted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunError {
    pub line: usize,
    pub model: String,
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub micro_batch: u32,
    pub measured_ms: f64,
    pub predicted_ms: f64,
    /// predicted / measured - 1.
    pub error: f64,
}

/// The errors of one model's runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelValidation {
    pub model: String,
    pub runs: usize,
    pub mean_abs_error: f64,
    pub worst_abs_error: f64,
    /// Spearman's rank correlation of predicted and measured times.
    pub spearman: f64,
    /// The measured time of the configuration predicted fastest, over the measured fastest
    /// (1: the prediction picks the best).
    pub best_pick_ratio: f64,
}

/// The whole validation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Validation {
    pub runs: usize,
    pub mean_abs_error: f64,
    pub median_abs_error: f64,
    pub worst_abs_error: f64,
    pub models: Vec<ModelValidation>,
    pub rows: Vec<RunError>,
}

/// A run's model: its parameter count when the file gives it, else its shape.
fn model_of(r: &MeasuredRun) -> String {
    match r.params_b {
        Some(p) => format!("{p}B"),
        None => format!(
            "L{} h{} a{} s{}",
            r.run.layers, r.run.hidden, r.run.heads, r.run.seq_len
        ),
    }
}

/// Ranks (1-based, ties averaged).
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = rank;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rank correlation of `a` and `b` (1 for fewer than two points).
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    if a.len() < 2 {
        return 1.0;
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let mean = (n + 1.0) / 2.0;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        sab += (x - mean) * (y - mean);
        saa += (x - mean) * (x - mean);
        sbb += (y - mean) * (y - mean);
    }
    match saa > 0.0 && sbb > 0.0 {
        true => sab / (saa * sbb).sqrt(),
        false => 1.0,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Predict every run on `system` and compare.
pub fn validate(system: &System, runs: &[MeasuredRun]) -> Validation {
    let rows: Vec<RunError> = runs
        .iter()
        .map(|r| {
            let predicted_ms = predict(system, &r.run).time_ns / 1e6;
            RunError {
                line: r.line,
                model: model_of(r),
                tp: r.run.tp,
                pp: r.run.pp,
                dp: r.run.dp,
                micro_batch: r.run.micro_batch,
                measured_ms: r.time_ms,
                predicted_ms,
                error: predicted_ms / r.time_ms - 1.0,
            }
        })
        .collect();
    let abs: Vec<f64> = rows.iter().map(|r| r.error.abs()).collect();
    let mut names: Vec<String> = rows.iter().map(|r| r.model.clone()).collect();
    names.dedup();
    let mut seen = Vec::new();
    let models = names
        .into_iter()
        .filter(|n| {
            let new = !seen.contains(n);
            seen.push(n.clone());
            new
        })
        .map(|model| {
            let of: Vec<&RunError> = rows.iter().filter(|r| r.model == model).collect();
            let measured: Vec<f64> = of.iter().map(|r| r.measured_ms).collect();
            let predicted: Vec<f64> = of.iter().map(|r| r.predicted_ms).collect();
            let best = measured.iter().copied().fold(f64::INFINITY, f64::min);
            let pick = of
                .iter()
                .min_by(|a, b| a.predicted_ms.total_cmp(&b.predicted_ms))
                .map_or(best, |r| r.measured_ms);
            ModelValidation {
                runs: of.len(),
                mean_abs_error: of.iter().map(|r| r.error.abs()).sum::<f64>() / of.len() as f64,
                worst_abs_error: of.iter().map(|r| r.error.abs()).fold(0.0, f64::max),
                spearman: spearman(&predicted, &measured),
                best_pick_ratio: pick / best,
                model,
            }
        })
        .collect();
    Validation {
        runs: rows.len(),
        mean_abs_error: abs.iter().sum::<f64>() / abs.len().max(1) as f64,
        median_abs_error: median(abs.clone()),
        worst_abs_error: abs.iter().copied().fold(0.0, f64::max),
        models,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::measured::read_runs;

    #[test]
    fn spearman_of_known_orders() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), 1.0);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), -1.0);
        // One swap in five: 1 - 6 * 2 / (5 * 24) = 0.9.
        let s = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[1.0, 3.0, 2.0, 4.0, 5.0]);
        assert!((s - 0.9).abs() < 1e-12, "{s}");
    }

    #[test]
    fn dgx_a100_predicts_the_visible_runs_no_worse_than_recorded() {
        // The numbers of README "Predicting measured runs": they may improve, never worsen.
        let system = System::dgx_a100();
        let runs = read_runs(
            include_str!("../../data/measured/megatron-a100-visible.csv"),
            &system,
        )
        .unwrap();
        let v = validate(&system, &runs);
        assert_eq!(v.runs, 41);
        assert!(v.mean_abs_error <= 0.069, "mean {}", v.mean_abs_error);
        assert!(v.median_abs_error <= 0.052, "median {}", v.median_abs_error);
        assert!(v.worst_abs_error <= 0.458, "worst {}", v.worst_abs_error);
        let m36 = &v.models[0];
        let m184 = &v.models[1];
        assert_eq!((m36.model.as_str(), m184.model.as_str()), ("3.6B", "18.4B"));
        assert!(
            m36.spearman >= 0.96 && m36.best_pick_ratio <= 1.0 + 1e-12,
            "{m36:?}"
        );
        assert!(
            m184.spearman >= 0.71 && m184.best_pick_ratio <= 1.046,
            "{m184:?}"
        );
        assert!(m184.mean_abs_error <= 0.063, "{m184:?}");
    }
}
