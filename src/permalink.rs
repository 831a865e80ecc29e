//! Scenario <-> URL fragment. For now the versioned envelope `#v1=<payload>`; the scenario codec
//! itself arrives with issue 6.

/// The version this build writes.
pub const VERSION: u32 = 1;

/// Why a fragment cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PermalinkError {
    #[error("the link has no scenario (expected #v1=...)")]
    Empty,
    #[error("the link does not start with a version (expected #v1=..., got \"{0}\")")]
    NoVersion(String),
    #[error("the link is version {0}, but this build reads version {VERSION} only")]
    UnknownVersion(String),
}

/// Split a fragment (with or without its leading `#`) into its version and payload.
pub fn split_fragment(fragment: &str) -> Result<(u32, &str), PermalinkError> {
    let body = fragment.strip_prefix('#').unwrap_or(fragment);
    if body.is_empty() {
        return Err(PermalinkError::Empty);
    }
    let shown = || body.chars().take(40).collect::<String>();
    let (version, payload) = body
        .strip_prefix('v')
        .and_then(|rest| rest.split_once('='))
        .ok_or_else(|| PermalinkError::NoVersion(shown()))?;
    match version.parse::<u32>() {
        Ok(VERSION) => Ok((VERSION, payload)),
        Ok(_) => Err(PermalinkError::UnknownVersion(version.to_string())),
        Err(_) => Err(PermalinkError::NoVersion(shown())),
    }
}

/// The fragment for a payload, in the version this build writes.
pub fn fragment(payload: &str) -> String {
    format!("#v{VERSION}={payload}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_round_trip() {
        let f = fragment("abc-_");
        assert_eq!(f, "#v1=abc-_");
        assert_eq!(split_fragment(&f), Ok((1, "abc-_")));
        assert_eq!(split_fragment("v1="), Ok((1, "")));
    }

    #[test]
    fn bad_fragments_are_named() {
        assert_eq!(split_fragment("#"), Err(PermalinkError::Empty));
        assert!(matches!(
            split_fragment("#hello"),
            Err(PermalinkError::NoVersion(_))
        ));
        assert_eq!(
            split_fragment("#v9=x"),
            Err(PermalinkError::UnknownVersion("9".into()))
        );
        assert!(matches!(
            split_fragment("#vé=x"),
            Err(PermalinkError::NoVersion(_))
        ));
    }
}
