//! Measured runs from CSV, with the columns of `data/measured/megatron-a100-visible.csv`:
//! parameters (billions), GPUs, global batch, micro batch, hidden size, attention heads, layers,
//! sequence length, tensor, data and pipeline parallelism, iteration time (ms). The first column
//! may be absent (11 columns, as vTrain's single-node file). Every run trains GPT-2's vocabulary
//! with full recomputation, as the measured Megatron-DeepSpeed runs did.

use super::run::{RunError, TrainingRun, GPT2_VOCAB};
use super::system::System;
use crate::format::number;

/// One measured run.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredRun {
    /// The CSV line it came from (1-based).
    pub line: usize,
    /// Parameters, billions (when the file gives them).
    pub params_b: Option<f64>,
    pub npus: u32,
    pub run: TrainingRun,
    pub time_ms: f64,
}

/// Why a runs file cannot be read or used; each names the line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MeasuredError {
    #[error("the runs file is empty (expected a header and one run per line)")]
    Empty,
    #[error("line {line}: expected 11 or 12 comma-separated columns, got {got}")]
    Columns { line: usize, got: usize },
    #[error("line {line}, column {column} ({name}): expected {expected}, got \"{got}\"")]
    Value {
        line: usize,
        column: usize,
        name: &'static str,
        expected: &'static str,
        got: String,
    },
    #[error("line {line}: the run cannot be laid on {system}: {source}")]
    Rule {
        line: usize,
        system: String,
        source: RunError,
    },
    #[error("line {line}: the iteration time must be a positive number of ms, got {}", number(*.time_ms))]
    Time { line: usize, time_ms: f64 },
    #[error("no runs in the file (only a header)")]
    NoRuns,
}

const NAMES: [&str; 11] = [
    "GPUs",
    "global batch",
    "micro batch",
    "hidden size",
    "attention heads",
    "layers",
    "sequence length",
    "tensor parallelism",
    "data parallelism",
    "pipeline parallelism",
    "iteration time (ms)",
];

/// Read every run of `text` (a header line first) and check each on `system`.
pub fn read_runs(text: &str, system: &System) -> Result<Vec<MeasuredRun>, MeasuredError> {
    let mut lines = crate::text::lines(crate::text::without_bom(text))
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    lines.next().ok_or(MeasuredError::Empty)?;
    let mut runs = Vec::new();
    for (i, raw) in lines {
        let line = i + 1;
        let cells: Vec<&str> = raw.split(',').map(str::trim).collect();
        let (params_b, cells) = match cells.len() {
            12 => {
                let p = cells[0]
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v > 0.0);
                let Some(p) = p else {
                    return Err(MeasuredError::Value {
                        line,
                        column: 1,
                        name: "parameters (billion)",
                        expected: "a positive number",
                        got: cells[0].into(),
                    });
                };
                (Some(p), &cells[1..])
            }
            11 => (None, &cells[..]),
            got => return Err(MeasuredError::Columns { line, got }),
        };
        let offset = usize::from(params_b.is_some());
        let whole = |k: usize| -> Result<u32, MeasuredError> {
            cells[k]
                .parse::<u32>()
                .ok()
                .filter(|v| *v >= 1)
                .ok_or_else(|| MeasuredError::Value {
                    line,
                    column: k + 1 + offset,
                    name: NAMES[k],
                    expected: "a whole number of at least 1",
                    got: cells[k].into(),
                })
        };
        let time_ms = cells[10].parse::<f64>().map_err(|_| MeasuredError::Value {
            line,
            column: 11 + offset,
            name: NAMES[10],
            expected: "a number",
            got: cells[10].into(),
        })?;
        if !(time_ms.is_finite() && time_ms > 0.0) {
            return Err(MeasuredError::Time { line, time_ms });
        }
        let npus = whole(0)?;
        // Read in the columns' old order (the first bad one is the one reported).
        let (layers, hidden, heads, seq_len) = (whole(5)?, whole(3)?, whole(4)?, whole(6)?);
        let (global_batch, micro_batch) = (whole(1)?, whole(2)?);
        let (tp, pp, dp) = (whole(7)?, whole(9)?, whole(8)?);
        let run = TrainingRun {
            micro_batch,
            tp,
            pp,
            dp,
            ..TrainingRun::gpt(layers, hidden, heads, seq_len, GPT2_VOCAB, global_batch)
        };
        run.check(system, npus)
            .map_err(|source| MeasuredError::Rule {
                line,
                system: system.name.clone(),
                source,
            })?;
        runs.push(MeasuredRun {
            line,
            params_b,
            npus,
            run,
            time_ms,
        });
    }
    if runs.is_empty() {
        return Err(MeasuredError::NoRuns);
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "Parameters (billion),# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence length,tensor parallelism,data parallelism,pipeline parallelism,iteration time (ms)\n";

    #[test]
    fn rows_that_cannot_be_laid_on_the_system_are_refused_naming_row_and_rule() {
        let system = System::dgx_a100();
        for (row, says) in [
            ("3.6,60,512,8,3072,32,30,2048,1,60,1,3566.5", "line 2: the run cannot be laid on dgx-a100: 60 NPUs are not a whole number of dgx-a100's scale-up domains of 8"),
            ("3.6,64,512,8,3072,32,30,2048,2,64,1,3566.5", "line 2: the run cannot be laid on dgx-a100: TP x CP x PP x DP = 2 x 1 x 1 x 64 = 128, not the 64 NPUs"),
            ("3.6,64,512,8,3072,30,30,2048,4,16,1,3566.5", "the 30 attention heads are not divisible by TP 4"),
            ("3.6,64,512,8,3072,32,30,2048,1,64,1,-3", "line 2: the iteration time must be a positive number of ms, got -3"),
            ("3.6,64,512,x,3072,32,30,2048,1,64,1,3", "line 2, column 4 (micro batch): expected a whole number of at least 1, got \"x\""),
            ("3.6,64,512", "line 2: expected 11 or 12 comma-separated columns, got 3"),
        ] {
            let e = read_runs(&format!("{HEAD}{row}\n"), &system).unwrap_err();
            assert!(e.to_string().contains(says), "{e}");
        }
        assert_eq!(read_runs("", &system).unwrap_err(), MeasuredError::Empty);
        // Any text: an answer or a named error, never a panic.
        let mut state = 3u64;
        for _ in 0..2_000 {
            let text: String = (0..(state % 300))
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    [',', '\n', '\r', '1', '8', '0', '-', '.', 'e', ' ', 'x', '9']
                        [(state >> 60) as usize % 12]
                })
                .collect();
            let _ = read_runs(&format!("{HEAD}{text}"), &system);
        }
        assert_eq!(read_runs(HEAD, &system).unwrap_err(), MeasuredError::NoRuns);
    }
}
