//! Text as the readers take it: files saved on Windows start with a UTF-8 byte order mark and end
//! lines with CRLF, and files from old Macs end lines with a lone CR. Every reader drops the mark
//! ([`without_bom`]) and splits lines with [`lines`], which takes `\r\n`, `\n` and a lone `\r` as
//! a line end (`str::lines` reads a CR-only file as one line).

/// `text` without a leading UTF-8 byte order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The lines of `text`, ended by `\r\n`, `\n` or a lone `\r` (without their ends; a last line
/// end gives no empty line after it, as `str::lines`).
pub fn lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

/// The iterator of [`lines`].
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, next) = match self.rest.find(['\r', '\n']) {
            None => (self.rest, ""),
            Some(i) => {
                let end = match self.rest[i..].starts_with("\r\n") {
                    true => 2,
                    false => 1,
                };
                (&self.rest[..i], &self.rest[i + end..])
            }
        };
        self.rest = next;
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_end_ends_a_line() {
        fn split(t: &str) -> Vec<&str> {
            lines(t).collect()
        }
        for text in ["a\nb\n\nc", "a\r\nb\r\n\r\nc", "a\rb\r\rc", "a\nb\r\n\rc\n"] {
            assert_eq!(split(text), ["a", "b", "", "c"], "{text:?}");
        }
        // As str::lines on LF and CRLF text, including a last line end and none at all.
        for text in ["", "\n", "x", "x\n", "x\r\n", "\n\nx\n\n", "a\r\nb"] {
            assert_eq!(split(text), text.lines().collect::<Vec<_>>(), "{text:?}");
        }
        assert_eq!(split("a\r"), ["a"]);
        assert_eq!(split("\r\r"), ["", ""]);
    }
}
