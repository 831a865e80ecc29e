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

#[cfg(test)]
mod tests {
    use super::usd;

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
