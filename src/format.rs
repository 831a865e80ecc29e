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
    use super::{duration_ns, usd};

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
