//! The small YAML subset of LIBRA's input files: comments, nested block maps (`key:` + indented
//! block), block sequences (`- item`), flow sequences (`[a, b]`) and plain or quoted scalars.
//! Anything else is an error with its line number, never a panic.

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

struct Line<'a> {
    no: usize,
    indent: usize,
    text: &'a str,
}

/// Remove a comment: `#` at the start or after whitespace, outside quotes.
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    let mut prev_space = true;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev_space => return &line[..i],
            _ => {}
        }
        prev_space = c.is_whitespace();
    }
    line
}

/// Parse a document whose top level is a map (as every LIBRA file is).
pub fn parse(text: &str) -> Result<Yaml, YamlError> {
    let mut lines = Vec::new();
    for (i, raw) in crate::text::without_bom(text).lines().enumerate() {
        if raw[..raw.len() - raw.trim_start().len()].contains('\t') {
            return Err(err(i + 1, "tabs cannot indent YAML; use spaces"));
        }
        let content = strip_comment(raw).trim_end();
        if content.trim().is_empty() || content.trim() == "---" {
            continue;
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
            } else if rest.contains(": ") || rest.ends_with(':') {
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
        let (key, rest) = split_key(l.text)
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

fn split_key(text: &str) -> Option<(String, &str)> {
    let (key, rest) = if let Some(k) = text.strip_suffix(':') {
        (k, "")
    } else {
        let i = text.find(": ")?;
        (&text[..i], text[i + 2..].trim())
    };
    let key = unquote(key.trim());
    (!key.is_empty()).then_some((key, rest))
}

fn unquote(text: &str) -> String {
    let t = text.trim();
    for q in ['"', '\''] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            return t[1..t.len() - 1].to_string();
        }
    }
    t.to_string()
}

fn scalar_or_flow(text: &str, line: usize) -> Result<Yaml, YamlError> {
    if let Some(inner) = text.strip_prefix('[') {
        let inner = inner
            .strip_suffix(']')
            .ok_or_else(|| err(line, "a flow sequence must end with ] on the same line"))?;
        if inner.contains('[') || inner.contains('{') {
            return Err(err(line, "nested flow collections are not supported"));
        }
        let items = if inner.trim().is_empty() {
            Vec::new()
        } else {
            inner
                .split(',')
                .map(|s| {
                    let s = s.trim();
                    if s.is_empty() {
                        Err(err(line, "empty entry in a flow sequence"))
                    } else {
                        Ok(Yaml::Scalar {
                            line,
                            text: unquote(s),
                        })
                    }
                })
                .collect::<Result<_, _>>()?
        };
        return Ok(Yaml::Seq { line, items });
    }
    if text.starts_with('{') {
        return Err(err(line, "flow maps ({...}) are not supported"));
    }
    Ok(Yaml::Scalar {
        line,
        text: unquote(text),
    })
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
