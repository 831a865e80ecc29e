//! Text as the readers take it: files saved on Windows start with a UTF-8 byte order mark and end
//! lines with CRLF. Every reader drops the mark ([`without_bom`]) and splits lines with
//! `str::lines`, which takes `\r\n` as a line end.

/// `text` without a leading UTF-8 byte order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}
