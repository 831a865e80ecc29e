//! Where a visit starts, and what is saved: the rules of permalinks and the saved scenario, as plain
//! Rust (the app only reads the URL and localStorage and follows these answers).
//!
//! - A link with a scenario shows that scenario, but the visitor's own saved scenario is not
//!   overwritten until they edit (a banner says a shared scenario is shown, with a way back).
//! - A bad link shows the defaults and says what was wrong; the link stays in the address bar, and
//!   the saved scenario is kept, until the visitor edits.
//! - A plain visit shows the saved scenario, or the defaults.

use crate::model::scenario::Scenario;
use crate::permalink::{decode, decode_saved, decode_with, PermalinkError};
use crate::presets;
use crate::view::LinkState;

/// The localStorage key of the saved scenario (its permalink fragment, read by
/// [`decode_saved`] whatever its size).
pub const SAVED_KEY: &str = "libra-studio.scenario";

/// The localStorage key of the start-in-progress mark: set to what a start opens (the link, or the
/// saved scenario) before it is restored, cleared once the page has drawn. Found at the next start,
/// it means that start failed (a panic, a frozen tab closed), so that one opens the defaults.
pub const STARTING_KEY: &str = "libra-studio.starting";

/// The localStorage key where a scenario whose start failed is kept (never deleted silently), to be
/// downloaded from the banner.
pub const FAILED_KEY: &str = "libra-studio.failed";

/// The start-in-progress mark for a visit: the link's fragment when there is one, else the saved
/// scenario, else empty (the defaults).
pub fn starting_mark(fragment: Option<&str>, saved: Option<&str>) -> String {
    let f = fragment
        .map(|f| f.trim().trim_start_matches('#'))
        .unwrap_or("");
    if !f.is_empty() {
        format!("#{f}")
    } else {
        saved.unwrap_or("").to_string()
    }
}

/// The file offered for a scenario whose start failed (the mark's text): its Scenario JSON when it
/// reads, else the text itself. (file name, content, MIME type)
pub fn failed_download(failed: &str) -> (String, String, &'static str) {
    match decode_saved(failed) {
        Ok((sc, _)) => (
            "libra-studio-failed-scenario.json".into(),
            sc.to_json(),
            "application/json",
        ),
        Err(_) => (
            "libra-studio-failed-link.txt".into(),
            failed.to_string(),
            "text/plain",
        ),
    }
}

/// What a visit opens with.
#[derive(Clone, Debug, PartialEq)]
pub enum Start {
    /// The visitor's own scenario (saved, or the defaults): edits are saved.
    Own(Scenario),
    /// A scenario from a link. `own` is the visitor's saved scenario, if any, to go back to.
    Shared {
        scenario: Scenario,
        own: Option<Scenario>,
    },
    /// A link that could not be read: the defaults are shown.
    BadLink {
        error: PermalinkError,
        link: String,
        own: Option<Scenario>,
    },
    /// The previous start did not finish (its mark was found): the defaults are shown, and
    /// `failed` (what it was opening) is kept and offered for download.
    Recovered { failed: String },
}

impl Start {
    /// The scenario to show first.
    pub fn scenario(&self) -> Scenario {
        match self {
            Start::Own(sc) | Start::Shared { scenario: sc, .. } => sc.clone(),
            Start::BadLink { .. } | Start::Recovered { .. } => presets::default_scenario(),
        }
    }
}

/// The tour step (0-based) of a short tour link: `#tour` (the first step) or `#tour=N` (step N,
/// from 1), which opens the guided tour on LIBRA's GPT-3 4D case.
pub fn tour_link(fragment: &str) -> Option<usize> {
    let f = fragment.trim().trim_start_matches('#');
    if f == "tour" {
        return Some(0);
    }
    let n: usize = f.strip_prefix("tour=")?.trim().parse().ok()?;
    Some(n.max(1) - 1)
}

/// Where the guided tour starts: LIBRA's GPT-3 4D case, keeping the visitor's `own` scenario to
/// go back to (as a shared link does) unless it is that case already.
pub fn tour_start(own: Option<Scenario>) -> Start {
    let scenario = presets::default_scenario();
    if own.as_ref() == Some(&scenario) {
        Start::Own(scenario)
    } else {
        Start::Shared { scenario, own }
    }
}

/// Decide from the previous start's mark (see [`STARTING_KEY`]), the URL fragment and the saved
/// fragment: a mark left behind means that start failed, so this one opens the defaults.
pub fn start_after(mark: Option<&str>, fragment: Option<&str>, saved: Option<&str>) -> Start {
    match mark {
        Some(failed) => Start::Recovered {
            failed: failed.to_string(),
        },
        None => start(fragment, saved),
    }
}

/// Decide from the URL fragment (with or without `#`) and the saved fragment, if any.
pub fn start(fragment: Option<&str>, saved: Option<&str>) -> Start {
    let own = saved.and_then(|s| decode_saved(s).ok().map(|(sc, _)| sc));
    let fragment = fragment
        .map(|f| f.trim().trim_start_matches('#'))
        .filter(|f| !f.is_empty());
    match fragment {
        None => Start::Own(own.unwrap_or_else(presets::default_scenario)),
        Some(f) if tour_link(f).is_some() => tour_start(own),
        Some(f) => match decode(f) {
            // Opening one's own link is not "someone else's".
            Ok(sc) if own.as_ref() == Some(&sc) => Start::Own(sc),
            Ok(scenario) => Start::Shared { scenario, own },
            Err(error) => Start::BadLink {
                error,
                link: f.to_string(),
                own,
            },
        },
    }
}

/// The app's state besides the scenario (view, Routing view, pinned scenario, tour) a visit opens
/// with: the link's when the link reads, the saved one's on a plain visit, the default after a bad
/// link.
pub fn state_start(fragment: Option<&str>, saved: Option<&str>) -> LinkState {
    let route_of = |f: &str| decode_with(f).ok().map(|(_, state)| state);
    let saved_state = |f: &str| decode_saved(f).ok().map(|(_, state)| state);
    let fragment = fragment
        .map(|f| f.trim().trim_start_matches('#'))
        .filter(|f| !f.is_empty());
    match fragment {
        Some(f) => match tour_link(f) {
            Some(step) => Some(LinkState {
                tour: Some(step),
                ..LinkState::default()
            }),
            None => route_of(f),
        },
        None => saved.and_then(saved_state),
    }
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permalink::encode;
    use crate::presets::{LibraNetwork, LibraWorkload};

    #[test]
    fn plain_visits_shared_links_and_bad_links() {
        let mine = presets::libra_scenario(LibraWorkload::Dlrm, LibraNetwork::D3);
        let theirs = presets::libra_scenario(LibraWorkload::ResNet50, LibraNetwork::D4);
        let saved = encode(&mine);
        assert_eq!(start(None, None), Start::Own(presets::default_scenario()));
        assert_eq!(start(Some(""), Some(&saved)), Start::Own(mine.clone()));
        assert_eq!(
            start(Some(&encode(&theirs)), Some(&saved)),
            Start::Shared {
                scenario: theirs.clone(),
                own: Some(mine.clone())
            }
        );
        assert_eq!(start(Some(&saved), Some(&saved)), Start::Own(mine.clone()));
        let bad = &encode(&theirs)[..30];
        let s = start(Some(bad), Some(&saved));
        assert!(matches!(&s, Start::BadLink { link, own: Some(_), .. } if link == &bad[1..]));
        assert_eq!(s.scenario(), presets::default_scenario());
        // The rest of the state: the link's, else the saved one's.
        let mut state = LinkState {
            view: crate::view::View::Routing,
            tour: Some(1),
            ..LinkState::default()
        };
        state.route.setup.placement.spines = 8;
        let with_state = crate::permalink::encode_with(&mine, &state);
        assert_eq!(state_start(Some(&with_state), None), state);
        assert_eq!(state_start(None, Some(&with_state)), state);
        assert_eq!(
            state_start(Some(&saved), Some(&with_state)),
            LinkState::default()
        );
        assert_eq!(
            state_start(Some("#v1=bad"), Some(&with_state)),
            LinkState::default()
        );
        // A short tour link opens the tour on the default scenario, keeping one's own.
        assert_eq!(tour_link("#tour"), Some(0));
        assert_eq!(tour_link("tour=3"), Some(2));
        assert_eq!(tour_link("#tour=0"), Some(0));
        assert_eq!(tour_link("#tour=x"), None);
        assert_eq!(tour_link("#touring"), None);
        assert_eq!(
            start(Some("#tour=2"), Some(&saved)),
            Start::Shared {
                scenario: presets::default_scenario(),
                own: Some(mine.clone())
            }
        );
        assert_eq!(
            state_start(Some("#tour=2"), Some(&with_state)).tour,
            Some(1)
        );
        // A corrupt saved scenario is as good as none.
        assert_eq!(
            start(None, Some("#v1=garbage")),
            Start::Own(presets::default_scenario())
        );
    }
}
