//! The ASTRA-sim 1.0 workload text format, as LIBRA reads it.
//!
//! Each layer is one line of 12 whitespace-separated fields:
//! `name reserved fwd_ns fwd_collective fwd_bytes ig_ns ig_collective ig_bytes wg_ns wg_collective wg_bytes update_ns`.
//! LIBRA's files have no header; ASTRA-sim 1.0 files start with a parallelism line (e.g. `DATA`) and a
//! layer-count line. Blank lines are skipped. Errors give the 1-based line number and the field.

use super::workload::{Collective, Layer, Phase, PhaseKind, Workload};

/// Why a workload file cannot be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TextError {
    #[error("the workload file has no layers")]
    Empty,
    #[error("line {line}: a layer needs 12 fields (name, reserved, then compute time, collective and size for forward, input-gradient and weight-gradient, then update time), found {found}")]
    FieldCount { line: usize, found: usize },
    #[error("line {line}: {field} must be a non-negative number, got \"{text}\"")]
    BadNumber {
        line: usize,
        field: &'static str,
        text: String,
    },
    #[error(
        "line {line}: the reserved field must be an integer (LIBRA writes -1), got \"{text}\""
    )]
    BadReserved { line: usize, text: String },
    #[error("line {line}: {field} must be one of NONE, ALLREDUCE, REDUCESCATTER, ALLGATHER, ALLTOALL, got \"{text}\"")]
    BadCollective {
        line: usize,
        field: &'static str,
        text: String,
    },
    #[error("line {line}: the layer count must be a whole number, got \"{text}\"")]
    BadLayerCount { line: usize, text: String },
    #[error("the header declares {declared} layers but the file has {found}")]
    LayerCountMismatch { declared: usize, found: usize },
}

const PHASE_FIELDS: [[&str; 3]; 3] = [
    [
        "the forward compute time",
        "the forward collective",
        "the forward size",
    ],
    [
        "the input-gradient compute time",
        "the input-gradient collective",
        "the input-gradient size",
    ],
    [
        "the weight-gradient compute time",
        "the weight-gradient collective",
        "the weight-gradient size",
    ],
];

fn number(line: usize, field: &'static str, text: &str) -> Result<f64, TextError> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(TextError::BadNumber {
            line,
            field,
            text: text.to_string(),
        }),
    }
}

fn parse_layer(line: usize, fields: &[&str]) -> Result<Layer, TextError> {
    if fields.len() != 12 {
        return Err(TextError::FieldCount {
            line,
            found: fields.len(),
        });
    }
    let reserved = fields[1]
        .parse::<i64>()
        .map_err(|_| TextError::BadReserved {
            line,
            text: fields[1].to_string(),
        })?;
    let mut phases = Vec::with_capacity(3);
    for (k, names) in PHASE_FIELDS.iter().enumerate() {
        let f = &fields[2 + 3 * k..5 + 3 * k];
        let compute_ns = number(line, names[0], f[0])?;
        let collective = Collective::parse(f[1]).ok_or_else(|| TextError::BadCollective {
            line,
            field: names[1],
            text: f[1].to_string(),
        })?;
        let size_bytes = number(line, names[2], f[2])?;
        phases.push(Phase::new(compute_ns, collective, size_bytes));
    }
    let update_ns = number(line, "the update time", fields[11])?;
    let mut phases = phases.into_iter();
    let mut next = || phases.next().expect("three phases");
    Ok(Layer {
        name: fields[0].to_string(),
        reserved,
        forward: next(),
        input_grad: next(),
        weight_grad: next(),
        update_ns,
    })
}

/// Read a workload from ASTRA-sim 1.0 text (with or without the two header lines).
pub fn parse(text: &str) -> Result<Workload, TextError> {
    let mut lines = crate::text::lines(crate::text::without_bom(text))
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, f)| !f.is_empty());
    let mut parallelism = None;
    let mut declared = None;
    // A header is a parallelism line of fewer than 12 fields followed by a line holding one integer.
    let mut probe = lines.clone();
    if let (Some((_, first)), Some((line, second))) = (probe.next(), probe.next()) {
        if first.len() < 12 && second.len() == 1 && second[0].parse::<i64>().is_ok() {
            parallelism = Some(first.join(" "));
            declared = Some(
                second[0]
                    .parse::<usize>()
                    .map_err(|_| TextError::BadLayerCount {
                        line,
                        text: second[0].to_string(),
                    })?,
            );
            lines.nth(1);
        }
    }
    let layers = lines
        .map(|(line, fields)| parse_layer(line, &fields))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(declared) = declared {
        if declared != layers.len() {
            return Err(TextError::LayerCountMismatch {
                declared,
                found: layers.len(),
            });
        }
    }
    if layers.is_empty() {
        return Err(TextError::Empty);
    }
    Ok(Workload {
        parallelism,
        layers,
    })
}

/// Write a workload as ASTRA-sim 1.0 text; [`parse`] reads it back to the same workload.
/// A workload with a parallelism line gets the two header lines, as ASTRA-sim 1.0 expects.
pub fn write(workload: &Workload) -> String {
    let mut out = String::new();
    if let Some(p) = &workload.parallelism {
        out.push_str(p);
        out.push('\n');
        out.push_str(&workload.layers.len().to_string());
        out.push('\n');
    }
    for l in &workload.layers {
        out.push_str(&format!("{} {}", l.name, l.reserved));
        for k in PhaseKind::ALL {
            let p = l.phase(k);
            out.push_str(&format!(
                " {} {} {}",
                p.compute_ns,
                p.collective.text_name(),
                p.size_bytes
            ));
        }
        out.push_str(&format!(" {}\n", l.update_ns));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GPT3_FIRST: &str =
        "Q1 -1 9375000 NONE 0 9375000 ALLREDUCE 805306368 9375000 ALLREDUCE 452984832 10\n";

    #[test]
    fn reads_a_libra_line() {
        let w = parse(GPT3_FIRST).unwrap();
        assert_eq!(w.parallelism, None);
        let l = &w.layers[0];
        assert_eq!(l.name, "Q1");
        assert_eq!(l.reserved, -1);
        assert_eq!(l.forward.collective, Collective::None);
        assert_eq!(l.input_grad.collective, Collective::AllReduce);
        assert_eq!(l.input_grad.size_bytes, 805306368.0);
        assert_eq!(l.weight_grad.size_bytes, 452984832.0);
        assert_eq!(l.update_ns, 10.0);
        assert_eq!(write(&w), GPT3_FIRST);
    }

    #[test]
    fn reads_an_astra_sim_header() {
        let text = format!("DATA\n1\n{GPT3_FIRST}");
        let w = parse(&text).unwrap();
        assert_eq!(w.parallelism.as_deref(), Some("DATA"));
        assert_eq!(write(&w), text);
        let long = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 1";
        let w = parse(&format!("{long}\n1\n{GPT3_FIRST}")).unwrap();
        assert_eq!(w.parallelism.as_deref(), Some(long));
    }

    #[test]
    fn errors_give_line_and_field() {
        let cases: [(&str, TextError); 7] = [
            ("", TextError::Empty),
            (
                "a -1 1 NONE 0\n",
                TextError::FieldCount { line: 1, found: 5 },
            ),
            (
                "\nQ -1 1 NONE 0 1 NONE 0 1 ALLREDUCE -5 0\n",
                TextError::BadNumber {
                    line: 2,
                    field: "the weight-gradient size",
                    text: "-5".into(),
                },
            ),
            (
                "Q -1 1 NONE 0 NaN NONE 0 1 NONE 0 0",
                TextError::BadNumber {
                    line: 1,
                    field: "the input-gradient compute time",
                    text: "NaN".into(),
                },
            ),
            (
                "Q -1 1 ALL-REDUCE 0 1 NONE 0 1 NONE 0 0",
                TextError::BadCollective {
                    line: 1,
                    field: "the forward collective",
                    text: "ALL-REDUCE".into(),
                },
            ),
            (
                "DATA\n-2\n",
                TextError::BadLayerCount {
                    line: 2,
                    text: "-2".into(),
                },
            ),
            (
                "DATA\n2\nQ -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n",
                TextError::LayerCountMismatch {
                    declared: 2,
                    found: 1,
                },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text), Err(expected), "{text:?}");
        }
        assert_eq!(
            parse("Q x 1 NONE 0 1 NONE 0 1 NONE 0 0"),
            Err(TextError::BadReserved {
                line: 1,
                text: "x".into()
            })
        );
    }
}
