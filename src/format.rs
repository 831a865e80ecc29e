//! Number formatting shared by the app and the command line.

/// Whole dollars with thousands separators: `34508892.16` -> `"$34,508,892"`.
pub fn usd(value: f64) -> String {
    let whole = format!("{:.0}", value.abs());
    let mut grouped = String::with_capacity(whole.len() + whole.len() / 3);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if value < 0.0 && whole != "0" { "-" } else { "" };
    format!("{sign}${grouped}")
}

/// A number as a person reads it in a message: plain when moderate (`500`, `0.25`), in short
/// scientific notation when very large or very small (`1e-310`, `5e11`, `1.23457e-300`: at most
/// six significant digits), never hundreds of digits.
pub fn number(value: f64) -> String {
    let a = value.abs();
    if a == 0.0 || (1e-4..1e9).contains(&a) || !a.is_finite() {
        return format!("{value}");
    }
    let shortest = format!("{value:e}");
    if shortest
        .split_once('e')
        .is_some_and(|(m, _)| m.trim_start_matches('-').len() <= 7)
    {
        return shortest;
    }
    let text = format!("{value:.5e}");
    let (mantissa, exponent) = text.split_once('e').expect("scientific notation");
    let mantissa = match mantissa.contains('.') {
        true => mantissa.trim_end_matches('0').trim_end_matches('.'),
        false => mantissa,
    };
    format!("{mantissa}e{exponent}")
}

/// A duration given in ns, in the unit that reads best: `775045208.4` -> `"775.05 ms"`.
pub fn duration_ns(ns: f64) -> String {
    let (value, unit) = match ns.abs() {
        x if x >= 1e9 => (ns / 1e9, "s"),
        x if x >= 1e6 => (ns / 1e6, "ms"),
        x if x >= 1e3 => (ns / 1e3, "µs"),
        _ => (ns, "ns"),
    };
    format!("{value:.2} {unit}")
}

/// Compact JSON laid out as `serde_json::to_string_pretty` does (two-space indents, `": "`
/// after keys, `[]` and `{}` kept closed). A plain text pass, so that the app's wasm carries one
/// JSON serializer (the compact one of the permalinks) instead of two.
pub fn pretty_json(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{duration_ns, number, pretty_json, usd};

    #[test]
    fn pretty_json_is_serde_jsons_layout() {
        use crate::presets::{libra_scenario, LibraNetwork, LibraWorkload};
        let mut cases: Vec<serde_json::Value> = vec![
            serde_json::json!({"a": [], "b": {}, "c": "x,y:{[\"]}\\", "d": [1, [2, {}], {"e": null}]}),
            serde_json::json!([]),
            serde_json::json!("plain"),
        ];
        for w in LibraWorkload::ALL {
            let sc = libra_scenario(w, LibraNetwork::D4);
            assert_eq!(sc.to_json(), serde_json::to_string_pretty(&sc).unwrap());
            cases.push(serde_json::to_value(&sc).unwrap());
        }
        for v in cases {
            let compact = serde_json::to_string(&v).unwrap();
            assert_eq!(
                pretty_json(&compact),
                serde_json::to_string_pretty(&v).unwrap()
            );
        }
    }

    #[test]
    fn numbers_in_messages_stay_short() {
        assert_eq!(number(500.0), "500");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(1e-310), "1e-310");
        assert_eq!(number(5e11), "5e11");
        assert_eq!(number(-2.5e-9), "-2.5e-9");
        assert_eq!(number(f64::INFINITY), "inf");
    }

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(duration_ns(775_045_208.4), "775.05 ms");
        assert_eq!(duration_ns(1.5e9), "1.50 s");
        assert_eq!(duration_ns(2_500.0), "2.50 µs");
        assert_eq!(duration_ns(12.0), "12.00 ns");
    }

    #[test]
    fn usd_groups_thousands() {
        assert_eq!(usd(34_508_892.16), "$34,508,892");
        assert_eq!(usd(999.0), "$999");
        assert_eq!(usd(1000.0), "$1,000");
        assert_eq!(usd(-1000.0), "-$1,000");
        assert_eq!(usd(-0.2), "$0");
        assert_eq!(usd(0.0), "$0");
    }
}
