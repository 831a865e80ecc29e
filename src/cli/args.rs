//! A small command-line option parser: `--name value`, `--name=value`, repeated options and flags.

use std::collections::BTreeMap;

/// Parsed options of one subcommand.
#[derive(Debug, Default)]
pub struct Args {
    values: BTreeMap<String, Vec<String>>,
    flags: Vec<String>,
    pub positional: Vec<String>,
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
}

impl Args {
    /// Parse `args` knowing which options take a value and which are flags.
    pub fn parse(args: &[String], valued: &[&str], flags: &[&str]) -> Result<Args, ArgError> {
        let mut out = Args::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let Some(body) = arg.strip_prefix("--") else {
                out.positional.push(arg.clone());
                continue;
            };
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            if flags.contains(&name) && inline.is_none() {
                out.flags.push(name.to_string());
            } else if valued.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| ArgError::MissingValue(name.to_string()))?,
                };
                out.values.entry(name.to_string()).or_default().push(value);
            } else {
                return Err(ArgError::Unknown(name.to_string()));
            }
        }
        Ok(out)
    }

    /// The single value of `name`, if given.
    pub fn one(&self, name: &str) -> Result<Option<&str>, ArgError> {
        match self.values.get(name).map(Vec::as_slice) {
            None | Some([]) => Ok(None),
            Some([v]) => Ok(Some(v.as_str())),
            Some(_) => Err(ArgError::Repeated(name.to_string())),
        }
    }

    pub fn required(&self, name: &'static str) -> Result<&str, ArgError> {
        self.one(name)?.ok_or(ArgError::Required(name))
    }

    /// Every value of a repeatable option, in order.
    pub fn all(&self, name: &str) -> &[String] {
        self.values.get(name).map_or(&[], Vec::as_slice)
    }

    pub fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
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
        assert_eq!(a.all("min"), ["1=3", "2=4"]);
        assert!(a.flag("latency"));
        assert_eq!(a.positional, ["x.json"]);
        assert_eq!(a.one("min"), Err(ArgError::Repeated("min".into())));
    }

    #[test]
    fn errors() {
        let p = |v: &[&str]| Args::parse(&strings(v), &["bw"], &[]).unwrap_err();
        assert_eq!(p(&["--nope"]), ArgError::Unknown("nope".into()));
        assert_eq!(p(&["--bw"]), ArgError::MissingValue("bw".into()));
        assert_eq!(number_list("bw", "1, 2.5").unwrap(), vec![1.0, 2.5]);
        assert!(number_list("bw", "1,,2").is_err());
    }
}
