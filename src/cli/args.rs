//! A small command-line option parser following the usual conventions: `--name value`,
//! `--name=value`, repeated options and flags, `--` ending the options, and arguments that are not
//! UTF-8 (file names) kept as the operating system gave them.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// Parsed options of one subcommand.
#[derive(Debug, Default)]
pub struct Args {
    values: BTreeMap<String, Vec<OsString>>,
    flags: Vec<String>,
    pub positional: Vec<OsString>,
}

/// A usage error, shown with a pointer to --help.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArgError {
    #[error("unknown option --{0}")]
    Unknown(String),
    #[error("option --{0} needs a value")]
    MissingValue(String),
    #[error("option --{0} is given more than once")]
    Repeated(String),
    #[error("missing option --{0}")]
    Required(&'static str),
    #[error("--{option}: {message}")]
    Bad { option: String, message: String },
    #[error("--{0}: the value is not valid UTF-8")]
    NotUtf8(String),
    #[error("unexpected argument \"{0}\"")]
    Unexpected(String),
    /// A command's one file is missing; the text says which and how to give it.
    #[error("{0}")]
    MissingFile(&'static str),
}

/// `--name=value` split at its first `=`, the value kept as given (it may be a file name that is
/// not UTF-8); None when `arg` is not an option.
fn split_option(arg: &OsStr) -> Option<(String, Option<OsString>)> {
    let bytes = arg.as_encoded_bytes();
    let body = bytes.strip_prefix(b"--")?;
    let (name, value) = match body.iter().position(|b| *b == b'=') {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let name = std::str::from_utf8(name).ok()?.to_string();
    // Splitting at an ASCII byte keeps both halves valid encoded strings.
    let value = value.map(|v| {
        // SAFETY: `v` is `arg`'s encoding after an ASCII '=', so a valid encoded string.
        unsafe { OsStr::from_encoded_bytes_unchecked(v) }.to_os_string()
    });
    Some((name, value))
}

impl Args {
    /// Parse `args` knowing which options take a value and which are flags.
    pub fn parse<S: AsRef<OsStr>>(
        args: &[S],
        valued: &[&str],
        flags: &[&str],
    ) -> Result<Args, ArgError> {
        let mut out = Args::default();
        let mut it = args.iter().map(AsRef::as_ref);
        while let Some(arg) = it.next() {
            if arg == "--" {
                out.positional.extend(it.by_ref().map(OsStr::to_os_string));
                break;
            }
            let Some((name, inline)) = split_option(arg) else {
                out.positional.push(arg.to_os_string());
                continue;
            };
            if flags.contains(&name.as_str()) && inline.is_none() {
                out.flags.push(name);
            } else if valued.contains(&name.as_str()) {
                let value = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .map(OsStr::to_os_string)
                        .ok_or_else(|| ArgError::MissingValue(name.clone()))?,
                };
                out.values.entry(name).or_default().push(value);
            } else {
                return Err(ArgError::Unknown(name));
            }
        }
        Ok(out)
    }

    /// The single value of `name`, if given.
    pub fn one(&self, name: &str) -> Result<Option<&str>, ArgError> {
        self.path(name)?
            .map(|v| {
                v.to_str()
                    .ok_or_else(|| ArgError::NotUtf8(name.to_string()))
            })
            .transpose()
    }

    /// The value of `name` read as a `T` that `valid` accepts, if given; `expected` says what it
    /// must be, for the error (e.g. "a whole number of nodes").
    pub fn parsed<T: std::str::FromStr>(
        &self,
        name: &str,
        expected: &str,
        valid: impl Fn(&T) -> bool,
    ) -> Result<Option<T>, ArgError> {
        self.one(name)?
            .map(|t| {
                t.trim()
                    .parse::<T>()
                    .ok()
                    .filter(|v| valid(v))
                    .ok_or_else(|| ArgError::Bad {
                        option: name.to_string(),
                        message: format!("expected {expected}, got \"{t}\"{}", range_of::<T>(t)),
                    })
            })
            .transpose()
    }

    /// The single value of `name` as a file name (which need not be UTF-8), if given.
    pub fn path(&self, name: &str) -> Result<Option<&OsStr>, ArgError> {
        match self.values.get(name).map(Vec::as_slice) {
            None | Some([]) => Ok(None),
            Some([v]) => Ok(Some(v.as_os_str())),
            Some(_) => Err(ArgError::Repeated(name.to_string())),
        }
    }

    pub fn required(&self, name: &'static str) -> Result<&str, ArgError> {
        self.one(name)?.ok_or(ArgError::Required(name))
    }

    pub fn required_path(&self, name: &'static str) -> Result<&OsStr, ArgError> {
        self.path(name)?.ok_or(ArgError::Required(name))
    }

    /// Every value of a repeatable option, in order.
    pub fn all(&self, name: &str) -> Result<Vec<&str>, ArgError> {
        self.values
            .get(name)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|v| {
                v.to_str()
                    .ok_or_else(|| ArgError::NotUtf8(name.to_string()))
            })
            .collect()
    }

    /// Every value of a repeatable option, as file names (which need not be UTF-8).
    pub fn all_paths(&self, name: &str) -> Result<Vec<&OsStr>, ArgError> {
        Ok(self
            .values
            .get(name)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(OsString::as_os_str)
            .collect())
    }

    pub fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// Refuse arguments that are not options (for commands that read no positional file).
    pub fn no_positional(&self) -> Result<(), ArgError> {
        match self.positional.first() {
            Some(extra) => Err(ArgError::Unexpected(extra.to_string_lossy().into_owned())),
            None => Ok(()),
        }
    }

    /// The one positional file of a command that reads one (`missing` says what it is and how to
    /// give it, for the error when it is missing); a second one is refused.
    pub fn one_file(&self, missing: &'static str) -> Result<&OsStr, ArgError> {
        match self.positional.as_slice() {
            [path] => Ok(path.as_os_str()),
            [] => Err(ArgError::MissingFile(missing)),
            [_, extra, ..] => Err(ArgError::Unexpected(extra.to_string_lossy().into_owned())),
        }
    }
}

/// A comma-separated list of numbers, e.g. `200,100,50,150`.
pub fn number_list(option: &str, text: &str) -> Result<Vec<f64>, ArgError> {
    text.split(',')
        .map(|s| {
            s.trim().parse::<f64>().map_err(|_| ArgError::Bad {
                option: option.to_string(),
                message: format!(
                    "\"{}\" is not a number (expected e.g. 200,100,50,150)",
                    s.trim()
                ),
            })
        })
        .collect()
}

/// What a value of type `T` is, for a message: "a whole number" or "a number".
pub fn kind_of<T>() -> &'static str {
    match std::any::type_name::<T>() {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number",
        _ => "a number",
    }
}

/// For a number that a whole-number option cannot hold, why: `" (at most 4294967295 here)"`,
/// `" (it cannot be negative)"` or `" (it must be whole)"`; else nothing.
fn range_of<T>(text: &str) -> String {
    let max = match std::any::type_name::<T>() {
        "u8" => u64::from(u8::MAX),
        "u16" => u64::from(u16::MAX),
        "u32" => u64::from(u32::MAX),
        "u64" | "usize" => u64::MAX,
        _ => return String::new(),
    };
    match text.trim().parse::<f64>() {
        Ok(v) if v < 0.0 => " (it cannot be negative)".into(),
        Ok(v) if v > max as f64 || (v == max as f64 && text.trim().parse::<u128>().is_ok()) => {
            format!(" (at most {max} here)")
        }
        Ok(v) if v.fract() != 0.0 => " (it must be whole)".into(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn values_flags_and_repeats() {
        let a = Args::parse(
            &strings(&[
                "--bw",
                "1,2",
                "--min=1=3",
                "--min",
                "2=4",
                "--latency",
                "x.json",
            ]),
            &["bw", "min"],
            &["latency"],
        )
        .unwrap();
        assert_eq!(a.one("bw"), Ok(Some("1,2")));
        assert_eq!(a.all("min").unwrap(), ["1=3", "2=4"]);
        assert!(a.flag("latency"));
        assert_eq!(a.positional, ["x.json"]);
        // `--` ends the options: what follows is positional, even when it looks like one.
        let b = Args::parse(&strings(&["--bw", "1", "--", "--bw", "-"]), &["bw"], &[]).unwrap();
        assert_eq!(b.one("bw"), Ok(Some("1")));
        assert_eq!(b.positional, ["--bw", "-"]);
        assert_eq!(b.no_positional(), Err(ArgError::Unexpected("--bw".into())));
        assert_eq!(a.one("min"), Err(ArgError::Repeated("min".into())));
    }

    #[test]
    fn typed_values_name_what_they_expect() {
        let a = Args::parse(
            &strings(&["--seed", " 7 ", "--moves", "-3", "--limit", "2.5"]),
            &["seed", "moves", "limit", "absent"],
            &[],
        )
        .unwrap();
        assert_eq!(
            a.parsed::<u64>("seed", "a whole number", |_| true).unwrap(),
            Some(7)
        );
        assert_eq!(
            a.parsed::<u64>("absent", "a whole number", |_| true)
                .unwrap(),
            None
        );
        let e = a
            .parsed::<u64>("moves", "a whole number", |_| true)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--moves: expected a whole number, got \"-3\" (it cannot be negative)"
        );
        let e = a
            .parsed::<f64>("limit", "at most 2 seconds", |s| *s <= 2.0)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--limit: expected at most 2 seconds, got \"2.5\""
        );
    }

    #[test]
    fn errors() {
        let p = |v: &[&str]| Args::parse(&strings(v), &["bw"], &[]).unwrap_err();
        assert_eq!(p(&["--nope"]), ArgError::Unknown("nope".into()));
        assert_eq!(p(&["--bw"]), ArgError::MissingValue("bw".into()));
        assert_eq!(number_list("bw", "1, 2.5").unwrap(), vec![1.0, 2.5]);
        assert!(number_list("bw", "1,,2").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn file_names_that_are_not_utf8_are_kept() {
        use std::os::unix::ffi::OsStrExt;
        let name = OsStr::from_bytes(b"caf\xe9.json");
        let mut inline = OsString::from("--scenario=");
        inline.push(name);
        let a = Args::parse(&[inline.as_os_str()], &["scenario"], &[]).unwrap();
        assert_eq!(a.path("scenario"), Ok(Some(name)));
        assert_eq!(a.one("scenario"), Err(ArgError::NotUtf8("scenario".into())));
        let b = Args::parse(&[OsStr::new("--scenario"), name], &["scenario"], &[]).unwrap();
        assert_eq!(b.path("scenario"), Ok(Some(name)));
        let c = Args::parse(&[name], &[], &[]).unwrap();
        assert_eq!(c.one_file("route FILE"), Ok(name));
    }
}
