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

/// A number as a person reads it in a message: plain when moderate (`500`, `0.25`), in scientific
/// notation when very large or very small (`1e-310`, `5e11`), never hundreds of digits.
pub fn number(value: f64) -> String {
    let a = value.abs();
    if a == 0.0 || (1e-4..1e9).contains(&a) || !a.is_finite() {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
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

#[cfg(test)]
mod tests {
    use super::{duration_ns, number, usd};

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
