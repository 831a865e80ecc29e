//! `libra-studio permalink`: the URL fragment that opens a scenario in the app, and back.

use super::args::Args;
use super::inputs::{self, SCENARIO_FLAGS, SCENARIO_OPTIONS};
use super::Failure;
use crate::permalink;
use std::ffi::OsString;

/// `permalink --scenario S.json` (or LIBRA's files) prints `#v1=...`; `permalink --decode FRAGMENT`
/// prints the scenario JSON of a link (the whole URL or just its fragment).
pub fn permalink(args: &[OsString]) -> Result<String, Failure> {
    let valued: Vec<&str> = SCENARIO_OPTIONS
        .iter()
        .chain(&["decode", "base-url"])
        .copied()
        .collect();
    let args = Args::parse(args, &valued, &SCENARIO_FLAGS)?;
    args.no_positional()?;
    if let Some(link) = args.one("decode")? {
        let fragment = link.split_once('#').map_or(link, |(_, f)| f);
        let sc = permalink::decode(fragment).map_err(Failure::input)?;
        return Ok(sc.to_json());
    }
    let base = args.one("base-url")?;
    let sc = inputs::scenario(&args)?;
    // Never a link that would not open: a scenario too large for one is an error.
    let fragment =
        permalink::encode_link(&sc, &crate::view::LinkState::default()).map_err(Failure::input)?;
    match base {
        Some(base) => permalink::full_link(base, &fragment)
            .map_err(|e| Failure::Usage(format!("--base-url: {e}"))),
        None => Ok(fragment),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::run_with;
    use crate::presets;

    #[test]
    fn encode_then_decode_through_the_command_line() {
        let dir = std::env::temp_dir().join(format!("libra-permalink-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.json");
        let sc = presets::default_scenario();
        std::fs::write(&path, sc.to_json()).unwrap();
        let (code, out, err) = run_with(&["permalink", "--scenario", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let link = out.trim();
        assert_eq!(link, crate::permalink::encode(&sc));
        let url = format!("http://127.0.0.1:8080/{link}");
        let (code, out, _) = run_with(&["permalink", "--decode", &url]);
        assert_eq!(code, 0);
        assert_eq!(
            crate::model::scenario::Scenario::from_json(&out).unwrap(),
            sc
        );
        // The whole link, for other people: the published address and the fragment.
        let scenario = path.to_str().unwrap();
        for (base, want) in [
            (
                "https://example.org/libra-studio/",
                "https://example.org/libra-studio/#v1=",
            ),
            ("https://example.org", "https://example.org/#v1="),
            (
                "http://10.0.0.2:8080/x/index.html",
                "http://10.0.0.2:8080/x/index.html#v1=",
            ),
        ] {
            let (code, out, err) =
                run_with(&["permalink", "--scenario", scenario, "--base-url", base]);
            assert_eq!(code, 0, "{err}");
            assert_eq!(out.trim(), format!("{}{}", want, &link[4..]));
        }
        for (base, says) in [
            ("example.org", "must start with http:// or https://"),
            ("https:///x", "has no host"),
            ("https://h/#v1=x", "already has a fragment"),
            ("https://h/a b", "a space"),
        ] {
            let (code, out, err) =
                run_with(&["permalink", "--scenario", scenario, "--base-url", base]);
            assert_eq!(code, 2, "{base}: {out}");
            assert!(err.contains(says) && err.contains("--base-url"), "{err}");
        }
        let (code, _, err) = run_with(&["permalink", "--decode", "#v1=garbage!"]);
        assert_eq!(code, 1, "a link that is not one is bad input");
        assert!(err.contains("'!' at position 7"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
