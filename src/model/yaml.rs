//! The small YAML subset of LIBRA's input files: comments, nested block maps (`key:` + indented
//! block), block sequences (`- item`), flow sequences (`[a, b]`) and plain or quoted scalars
//! (double-quoted with their escapes, single-quoted with `''`). What it reads, it reads exactly as
//! YAML 1.2 does (a full YAML parser checks that in `tests/readers_never_panic.rs`); anything else
//! (a second document, anchors, aliases, tags, block scalars, flow maps, nested sequences on one
//! line, maps inside sequences) is refused with its line number and its name, never guessed at and
//! never a panic.

/// A parsed value; every node remembers its 1-based line.
#[derive(Clone, Debug, PartialEq)]
pub enum Yaml {
    Scalar {
        line: usize,
        text: String,
    },
    Seq {
        line: usize,
        items: Vec<Yaml>,
    },
    Map {
        line: usize,
        entries: Vec<(String, Yaml)>,
    },
}

/// A syntax error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct YamlError {
    pub line: usize,
    pub message: String,
}

fn err(line: usize, message: impl Into<String>) -> YamlError {
    YamlError {
        line,
        message: message.into(),
    }
}

impl Yaml {
    pub fn line(&self) -> usize {
        match self {
            Yaml::Scalar { line, .. } | Yaml::Seq { line, .. } | Yaml::Map { line, .. } => *line,
        }
    }

    /// The value of `key` in a map.
    pub fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map { entries, .. } => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// YAML's printable characters (the only ones a stream may hold; a stray `\r` ends a line).
fn printable(c: char) -> bool {
    matches!(c, '\t' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
        || c >= '\u{10000}'
}

struct Line<'a> {
    no: usize,
    indent: usize,
    text: &'a str,
}

/// Remove a comment: `#` at the start or after whitespace, outside quotes (a backslash escapes the
/// next character inside double quotes; `''` inside single quotes closes and reopens them, which
/// comes to the same).
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    let mut prev_space = true;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some('"'), _) if escaped => escaped = false,
            (Some('"'), '\\') => escaped = true,
            (None, '"' | '\'') if is_indicator_before(line, i) => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev_space => return &line[..i],
            _ => {}
        }
        prev_space = c.is_whitespace();
    }
    line
}

/// Whether the quote at byte `i` of `line` opens a quoted scalar: after `[`, `,`, `:` or `-` (and
/// whitespace), where YAML starts a scalar; a quote inside a plain scalar (`it's`) is a character.
fn is_indicator_before(line: &str, i: usize) -> bool {
    line[..i]
        .trim_end()
        .chars()
        .last()
        .is_none_or(|c| matches!(c, '[' | ',' | ':' | '-'))
}

/// Parse a document whose top level is a map (as every LIBRA file is).
pub fn parse(text: &str) -> Result<Yaml, YamlError> {
    let mut lines: Vec<Line> = Vec::new();
    for (i, raw) in crate::text::lines(crate::text::without_bom(text)).enumerate() {
        if let Some(c) = raw.chars().find(|c| !printable(*c)) {
            return Err(err(
                i + 1,
                format!(
                    "the control character U+{:04X} cannot be in YAML",
                    u32::from(c)
                ),
            ));
        }
        if raw[..raw.len() - raw.trim_start().len()].contains('\t') {
            return Err(err(i + 1, "tabs cannot indent YAML; use spaces"));
        }
        let content = strip_comment(raw).trim_end();
        if content.trim().is_empty() {
            continue;
        }
        if content.starts_with("---") && content[3..].trim().is_empty() {
            // The start of the document: only before any content (one document per file).
            if !lines.is_empty() {
                return Err(err(
                    i + 1,
                    "a second document (---) is not supported: one per file",
                ));
            }
            continue;
        }
        if content.starts_with("---") && content[3..].starts_with(' ') {
            return Err(err(i + 1, "content on the --- line is not supported"));
        }
        if content.starts_with("...") && content[3..].trim().is_empty() {
            return Err(err(i + 1, "document end markers (...) are not supported"));
        }
        if content.starts_with('%') {
            return Err(err(i + 1, "directives (%...) are not supported"));
        }
        let indent = content.len() - content.trim_start().len();
        lines.push(Line {
            no: i + 1,
            indent,
            text: content.trim_start(),
        });
    }
    if lines.is_empty() {
        return Ok(Yaml::Map {
            line: 1,
            entries: Vec::new(),
        });
    }
    let mut pos = 0;
    let root_indent = lines[0].indent;
    let value = block(&lines, &mut pos, root_indent, 1)?;
    if let Some(l) = lines.get(pos) {
        return Err(err(l.no, "unexpected indentation"));
    }
    Ok(value)
}

fn block(lines: &[Line], pos: &mut usize, indent: usize, depth: usize) -> Result<Yaml, YamlError> {
    let first = &lines[*pos];
    if depth > crate::limits::MAX_NESTING {
        return Err(err(
            first.no,
            format!(
                "nested more than {} levels deep (the limit of this reader)",
                crate::limits::MAX_NESTING
            ),
        ));
    }
    if first.text == "-" || first.text.starts_with("- ") {
        let mut items = Vec::new();
        while let Some(l) = lines.get(*pos) {
            if l.indent != indent || !(l.text == "-" || l.text.starts_with("- ")) {
                break;
            }
            let rest = l.text[1..].trim();
            *pos += 1;
            if rest.is_empty() {
                items.push(nested(lines, pos, indent, l.no, depth)?);
            } else if rest == "-" || rest.starts_with("- ") {
                return Err(err(
                    l.no,
                    "a sequence inside a sequence on one line (- - ...) is not supported",
                ));
            } else if split_key(rest, l.no).ok().flatten().is_some() {
                return Err(err(l.no, "maps inside sequences are not supported here"));
            } else {
                items.push(scalar_or_flow(rest, l.no)?);
            }
        }
        return Ok(Yaml::Seq {
            line: first.no,
            items,
        });
    }
    let mut entries: Vec<(String, Yaml)> = Vec::new();
    while let Some(l) = lines.get(*pos) {
        if l.indent < indent {
            break;
        }
        if l.indent > indent {
            return Err(err(l.no, "unexpected indentation"));
        }
        let (key, rest) = split_key(l.text, l.no)?
            .ok_or_else(|| err(l.no, format!("expected \"key: value\", got \"{}\"", l.text)))?;
        if entries.iter().any(|(k, _)| *k == key) {
            return Err(err(l.no, format!("duplicate key \"{key}\"")));
        }
        *pos += 1;
        let value = if rest.is_empty() {
            nested(lines, pos, indent, l.no, depth)?
        } else {
            scalar_or_flow(rest, l.no)?
        };
        entries.push((key, value));
    }
    Ok(Yaml::Map {
        line: first.no,
        entries,
    })
}

/// The block under a `key:` or `-` line, or an empty scalar when none is indented below it.
fn nested(
    lines: &[Line],
    pos: &mut usize,
    indent: usize,
    no: usize,
    depth: usize,
) -> Result<Yaml, YamlError> {
    match lines.get(*pos) {
        Some(next) if next.indent > indent => block(lines, pos, next.indent, depth + 1),
        _ => Ok(Yaml::Scalar {
            line: no,
            text: String::new(),
        }),
    }
}

/// `key: value` or `key:` split into the key (unquoted) and the rest; None when the line is not a
/// map entry. The key ends at the first `: ` (or a final `:`) outside quotes.
fn split_key(text: &str, line: usize) -> Result<Option<(String, &str)>, YamlError> {
    let end = match text.chars().next() {
        Some(q @ ('"' | '\'')) => match quoted_end(text, q) {
            Some(e) => e,
            None => return Ok(None),
        },
        _ => 0,
    };
    let colon = text[end..]
        .find(": ")
        .map(|i| end + i)
        .or_else(|| text.ends_with(':').then(|| text.len() - 1));
    let Some(i) = colon else {
        return Ok(None);
    };
    let (key, rest) = (text[..i].trim(), text[i + 1..].trim());
    if key.is_empty() {
        return Ok(None);
    }
    if key.starts_with('?') {
        return Err(err(line, "complex keys (? ...) are not supported"));
    }
    let key = match scalar(key, line, false)? {
        Yaml::Scalar { text, .. } => text,
        _ => return Err(err(line, "a key must be a scalar")),
    };
    Ok(Some((key, rest)))
}

/// The byte just past the quote that closes the quoted scalar opening `text` with `q`.
fn quoted_end(text: &str, q: char) -> Option<usize> {
    let mut chars = text.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        match (q, c) {
            ('"', '\\') => {
                chars.next();
            }
            ('\'', '\'') if chars.peek().is_some_and(|(_, n)| *n == '\'') => {
                chars.next();
            }
            (_, c) if c == q => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// A double-quoted scalar's text, its escapes resolved (`inner` is between the quotes).
fn unescape(inner: &str, line: usize) -> Result<String, YamlError> {
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars
            .next()
            .ok_or_else(|| err(line, "a backslash ends the quoted text"))?;
        let hex = |chars: &mut std::str::Chars, n: usize| -> Result<char, YamlError> {
            let digits: String = chars.take(n).collect();
            u32::from_str_radix(&digits, 16)
                .ok()
                .filter(|_| digits.len() == n)
                .and_then(char::from_u32)
                .ok_or_else(|| err(line, format!("\"\\{e}{digits}\" is not a character")))
        };
        out.push(match e {
            '0' => '\0',
            'a' => '\u{7}',
            'b' => '\u{8}',
            't' | '\t' => '\t',
            'n' => '\n',
            'v' => '\u{b}',
            'f' => '\u{c}',
            'r' => '\r',
            'e' => '\u{1b}',
            ' ' => ' ',
            '"' => '"',
            '/' => '/',
            '\\' => '\\',
            'N' => '\u{85}',
            '_' => '\u{a0}',
            'L' => '\u{2028}',
            'P' => '\u{2029}',
            'x' => hex(&mut chars, 2)?,
            'u' => hex(&mut chars, 4)?,
            'U' => hex(&mut chars, 8)?,
            other => return Err(err(line, format!("unknown escape \"\\{other}\""))),
        });
    }
    Ok(out)
}

/// One scalar, exactly as YAML reads it, or refused by name. `flow`: inside `[...]`, where `,`,
/// `[`, `]`, `{` and `}` end a plain scalar.
fn scalar(text: &str, line: usize, flow: bool) -> Result<Yaml, YamlError> {
    let t = text.trim();
    let value = |text: String| Ok(Yaml::Scalar { line, text });
    if let Some(q @ ('"' | '\'')) = t.chars().next() {
        let end = quoted_end(t, q)
            .ok_or_else(|| err(line, "a quoted scalar must close on the same line"))?;
        if !t[end..].trim().is_empty() {
            return Err(err(
                line,
                format!("text after a quoted scalar: \"{}\"", t[end..].trim()),
            ));
        }
        let inner = &t[1..end - 1];
        return match q {
            '"' => value(unescape(inner, line)?),
            _ => value(inner.replace("''", "'")),
        };
    }
    if flow && t.starts_with(['[', '{']) {
        return Err(err(line, "nested flow collections are not supported"));
    }
    let refused = match t.chars().next() {
        Some('&') => Some("anchors (&name) are not supported"),
        Some('*') => Some("aliases (*name) are not supported"),
        Some('!') => Some("tags (!tag) are not supported"),
        Some('|' | '>') => Some("block scalars (| and >) are not supported"),
        Some('{') => Some("flow maps ({...}) are not supported"),
        Some('[') => Some("a flow sequence ([...]) is not supported here"),
        Some('@' | '`') => Some("a plain scalar cannot start with @ or `"),
        Some('%') => Some("a plain scalar cannot start with %"),
        Some('#') => Some("a plain scalar cannot start with # (a comment needs a space before it)"),
        Some('?') if t.len() == 1 || t.starts_with("? ") => {
            Some("complex keys (? ...) are not supported")
        }
        Some(',' | ']' | '}') => Some("a plain scalar cannot start with , ] or }"),
        Some('-') if t == "-" || t.starts_with("- ") => {
            Some("a sequence entry (- ...) cannot be a value on the same line")
        }
        _ => None,
    };
    if let Some(why) = refused {
        return Err(err(line, why));
    }
    if t.split_whitespace().any(|w| matches!(w, "-" | "?" | ":")) {
        return Err(err(
            line,
            format!("\"{t}\": a lone -, ? or : inside a plain scalar is not supported"),
        ));
    }
    if t.contains(": ") || t.contains(":\t") || t.ends_with(':') {
        return Err(err(
            line,
            format!("\"{t}\": a map inside a value is not supported"),
        ));
    }
    if flow && t.contains(['[', ']', '{', '}', ',']) {
        return Err(err(line, "nested flow collections are not supported"));
    }
    if flow && t.contains(':') {
        return Err(err(
            line,
            format!("\"{t}\": a colon in a flow sequence is not supported"),
        ));
    }
    value(t.to_string())
}

/// The entries of a flow sequence (`inner` is between `[` and `]`), split at commas outside quotes.
fn flow_items(inner: &str, line: usize) -> Result<Vec<Yaml>, YamlError> {
    let mut items = Vec::new();
    let mut rest = inner.trim();
    while !rest.is_empty() {
        let end = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let e = quoted_end(rest, q)
                    .ok_or_else(|| err(line, "a quoted scalar must close on the same line"))?;
                e + rest[e..].find(',').unwrap_or(rest.len() - e)
            }
            _ => rest.find(',').unwrap_or(rest.len()),
        };
        let item = rest[..end].trim();
        if item.is_empty() {
            return Err(err(line, "empty entry in a flow sequence"));
        }
        items.push(scalar(item, line, true)?);
        rest = rest[end..].strip_prefix(',').unwrap_or("").trim_start();
        if rest.is_empty() && inner.trim_end().ends_with(',') {
            // `[a, b,]`: YAML allows one trailing comma.
            break;
        }
    }
    Ok(items)
}

fn scalar_or_flow(text: &str, line: usize) -> Result<Yaml, YamlError> {
    if let Some(inner) = text.strip_prefix('[') {
        let close = inner
            .rfind(']')
            .ok_or_else(|| err(line, "a flow sequence must end with ] on the same line"))?;
        let after = inner[close + 1..].trim();
        if !after.is_empty() {
            let hint = match after.starts_with('#') {
                true => " (a comment needs a space before #)",
                false => "",
            };
            return Err(err(
                line,
                format!("text after the flow sequence's ]: \"{after}\"{hint}"),
            ));
        }
        let inner = &inner[..close];
        return Ok(Yaml::Seq {
            line,
            items: flow_items(inner, line)?,
        });
    }
    scalar(text, line, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalars(v: &Yaml) -> Vec<String> {
        match v {
            Yaml::Seq { items, .. } => items
                .iter()
                .map(|i| match i {
                    Yaml::Scalar { text, .. } => text.clone(),
                    other => panic!("{other:?}"),
                })
                .collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reads_libra_network_and_cost_files() {
        let net = parse(include_str!(
            "../../data/libra-inputs/network/4d_network.yml"
        ))
        .unwrap();
        assert_eq!(
            scalars(net.get("NpusCount").unwrap()),
            vec!["4", "8", "4", "32"]
        );
        assert_eq!(net.get("Topology").unwrap().line(), 4);
        let cost = parse(include_str!(
            "../../data/libra-inputs/cost_model/4d_cost_model.yml"
        ))
        .unwrap();
        let pod = cost.get("InterPod").unwrap();
        assert_eq!(
            pod.get("Nic"),
            Some(&Yaml::Scalar {
                line: 21,
                text: "31.60004".into()
            })
        );
    }

    #[test]
    fn block_sequences_and_quotes() {
        let doc = parse("a:\n  - 1\n  - '2'\nb: \"x # y\" # comment\n").unwrap();
        assert_eq!(scalars(doc.get("a").unwrap()), vec!["1", "2"]);
        assert_eq!(
            doc.get("b"),
            Some(&Yaml::Scalar {
                line: 4,
                text: "x # y".into()
            })
        );
    }

    #[test]
    fn quoted_scalars_are_read_as_yaml_reads_them() {
        let doc = parse(concat!(
            "a: [\"x, y\", 'it''s', \"q\\\"r\", \"\\u00e9\\t\"]\n",
            "b: 'one # two' # a comment\n",
            "\"c d\": \"k: v\"\n",
            "e: it's\n",
        ))
        .unwrap();
        assert_eq!(
            scalars(doc.get("a").unwrap()),
            vec!["x, y", "it's", "q\"r", "\u{e9}\t"]
        );
        let text = |k: &str| match doc.get(k) {
            Some(Yaml::Scalar { text, .. }) => text.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(text("b"), "one # two");
        assert_eq!(text("c d"), "k: v");
        assert_eq!(text("e"), "it's");
    }

    #[test]
    fn what_it_cannot_read_exactly_is_refused_by_name() {
        for (text, line, says) in [
            ("a: 1\n---\nb: 2\n", 2, "a second document"),
            ("a: &x 1\n", 1, "anchors"),
            ("a: *x\n", 1, "aliases"),
            ("a: !!str 1\n", 1, "tags"),
            ("a: |\n  text\n", 1, "block scalars"),
            ("a:\n  - - 1\n", 2, "a sequence inside a sequence"),
            ("a: [[1], 2]\n", 1, "nested flow collections"),
            ("a: b: c\n", 1, "a map inside a value"),
            ("a: \"x\" y\n", 1, "text after a quoted scalar"),
            ("a: \"\\q\"\n", 1, "unknown escape"),
            ("a: 'open\n", 1, "must close"),
            ("%YAML 1.2\na: 1\n", 1, "directives"),
            ("a: 1\n...\n", 2, "document end"),
            ("a: {b: 1}\n", 1, "flow maps"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.message.contains(says), "{text:?}: {e}");
            assert_eq!(e.line, line, "{text:?}: {e}");
        }
        // A first `---` starts the one document.
        assert_eq!(
            parse("---\na: 1\n").unwrap().get("a"),
            Some(&Yaml::Scalar {
                line: 2,
                text: "1".into()
            })
        );
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        // Finding 4: a deeply nested file overflowed the stack (exit 134; a RangeError in the app).
        let deep = |levels: usize| {
            (0..levels)
                .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
                .collect::<String>()
        };
        let e = parse(&deep(2_000)).unwrap_err();
        assert!(e.to_string().contains("nested more than 64 levels"), "{e}");
        assert_eq!(e.line, 65);
        assert!(parse(&deep(64)).is_ok());
        let seq = (0..2_000)
            .map(|i| format!("{}-\n", " ".repeat(i)))
            .collect::<String>();
        assert!(parse(&seq).is_err());
    }

    #[test]
    fn errors_have_line_numbers() {
        assert_eq!(parse("a: [1, 2\n").unwrap_err().line, 1);
        assert_eq!(parse("a: 1\n  b: 2\n").unwrap_err().line, 2);
        assert_eq!(parse("a: 1\njunk\n").unwrap_err().line, 2);
        assert_eq!(parse("a: 1\na: 2\n").unwrap_err().line, 2);
        assert_eq!(parse("a: {b: 1}\n").unwrap_err().line, 1);
        assert_eq!(parse("a: [1,,2]\n").unwrap_err().line, 1);
    }

    #[test]
    fn never_panics_on_odd_input() {
        for text in [
            "",
            ":",
            "- ",
            "-\n-",
            "a:\n-\n",
            "'",
            "\"a\": ",
            "a: ]",
            "  a: 1\nb: 2",
            "é: ü",
        ] {
            let _ = parse(text);
        }
    }
}
