//! Where a visit starts, and what is saved: the rules of permalinks and the saved scenario, as plain
//! Rust (the app only reads the URL and localStorage and follows these answers).
//!
//! - A link with a scenario shows that scenario, but the visitor's own saved scenario is not
//!   overwritten until they edit (a banner says a shared scenario is shown, with a way back).
//! - A bad link shows the defaults and says what was wrong; the link stays in the address bar, and
//!   the saved scenario is kept, until the visitor edits.
//! - A plain visit shows the saved scenario, or the defaults.
//! - Each part of what is saved (the design, the view shown, the Routing, Cluster and Co-design
//!   views' states) has a key of its own ([`Part`]), and a tab writes only the parts it changed:
//!   two tabs editing different views never overwrite each other. When another tab saves a part
//!   this tab shows differently, this tab says so and offers both ([`SaveSync`]); it never writes
//!   that part meanwhile.

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

/// One part of what a tab saves, each under its own localStorage key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// The design: the scenario, with the pinned scenario, the landscape's dimensions and the
    /// method ([`SAVED_KEY`], a permalink fragment; saves made before the parts had their own
    /// keys hold everything there, and still open).
    Scenario,
    /// Which view is shown, and the tour's step: navigation, not work (the last tab's wins).
    View,
    /// The Routing view's state (`RouteLink` as JSON).
    Routing,
    /// The Cluster view's state (`ClusterLink` as JSON).
    Cluster,
    /// The Co-design view's question (`CodesignInputs` as JSON).
    Codesign,
}

impl Part {
    pub const ALL: [Part; 5] = [
        Part::Scenario,
        Part::View,
        Part::Routing,
        Part::Cluster,
        Part::Codesign,
    ];

    /// Its localStorage key.
    pub fn key(self) -> &'static str {
        match self {
            Part::Scenario => SAVED_KEY,
            Part::View => "libra-studio.view",
            Part::Routing => "libra-studio.routing",
            Part::Cluster => "libra-studio.cluster",
            Part::Codesign => "libra-studio.codesign",
        }
    }

    /// The part saved under `key`, if any.
    pub fn of_key(key: &str) -> Option<Part> {
        Part::ALL.into_iter().find(|p| p.key() == key)
    }

    /// How the banner names it.
    pub fn label(self) -> &'static str {
        match self {
            Part::Scenario => "the design (network, workloads, constraints)",
            Part::View => "the view shown",
            Part::Routing => "the Routing view",
            Part::Cluster => "the Cluster view",
            Part::Codesign => "the Co-design view",
        }
    }

    /// Whether it is work that another tab's save must not silently replace (the view shown is
    /// not).
    pub fn is_work(self) -> bool {
        self != Part::View
    }
}

/// The view shown and the tour's step, as [`Part::View`] saves them.
#[derive(serde::Serialize, serde::Deserialize)]
struct Navigation {
    view: crate::view::View,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tour: Option<usize>,
}

/// The text of the design's part: the scenario with the pinned scenario, the landscape's
/// dimensions and the method.
pub fn scenario_part(sc: &Scenario, state: &LinkState) -> String {
    crate::permalink::encode_with(
        sc,
        &LinkState {
            pinned: state.pinned.clone(),
            landscape: state.landscape,
            method: state.method,
            ..LinkState::default()
        },
    )
}

/// The texts of the other parts of `state` (None: nothing to save, the view's default).
pub fn view_parts(state: &LinkState) -> [(Part, Option<String>); 4] {
    let nav = Navigation {
        view: state.view,
        tour: state.tour,
    };
    [
        (Part::View, serde_json::to_string(&nav).ok()),
        (Part::Routing, serde_json::to_string(&state.route).ok()),
        (Part::Cluster, state.cluster.clone()),
        (Part::Codesign, state.codesign.clone()),
    ]
}

/// `state` with a saved part's text put in (a part that does not read changes nothing; the
/// design's part is read with the scenario, by [`start`]).
pub fn with_part(mut state: LinkState, part: Part, text: &str) -> LinkState {
    match part {
        Part::Scenario => {
            if let Ok((_, s)) = decode_saved(text) {
                state.pinned = s.pinned;
                state.landscape = s.landscape;
                state.method = s.method;
            }
        }
        Part::View => {
            if let Ok(nav) = serde_json::from_str::<Navigation>(text) {
                state.view = nav.view;
                state.tour = nav.tour;
            }
        }
        Part::Routing => {
            if let Ok(route) = serde_json::from_str(text) {
                state.route = route;
            }
        }
        Part::Cluster => state.cluster = Some(text.to_string()),
        Part::Codesign => state.codesign = Some(text.to_string()),
    }
    state
}

/// The state a plain visit restores: the design's part (with everything, for saves made before
/// the parts), then each other part saved under its own key.
pub fn saved_state(read: impl Fn(Part) -> Option<String>) -> LinkState {
    let base = state_start(None, read(Part::Scenario).as_deref());
    Part::ALL[1..]
        .iter()
        .fold(base, |state, &part| match read(part) {
            Some(text) => with_part(state, part, &text),
            None => state,
        })
}

/// What another tab's save of a part means for this tab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elsewhere {
    /// This tab shows the same, or the part is navigation: nothing to say.
    Nothing,
    /// This tab has nothing of that part (a view it never opened): it takes theirs, silently
    /// (nothing of its own is lost, and its later edits start from theirs).
    Adopt,
    /// This tab shows something else: the visitor chooses (keep mine / take theirs), and this
    /// tab does not save the part meanwhile.
    Choose,
}

/// What a tab knows of the saved parts: each part's saved text as this tab last read or wrote
/// it, what the tab showed of each when it started (or opened a link), and the parts another tab
/// changed that await the visitor's choice (with their text).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SaveSync {
    known: std::collections::BTreeMap<Part, Option<String>>,
    shown: std::collections::BTreeMap<Part, Option<String>>,
    pending: std::collections::BTreeMap<Part, Option<String>>,
}

impl SaveSync {
    /// At the tab's start (or when a link is opened in it): the parts as `saved` reads them, and
    /// those the tab `shows`. A part is written once the tab changes it from what it showed, or
    /// when nothing of it is saved yet; so a link's other parts never replace the saved ones
    /// unless the visitor edits them.
    pub fn new(
        saved: impl Fn(Part) -> Option<String>,
        shows: &[(Part, Option<String>)],
    ) -> SaveSync {
        SaveSync {
            known: Part::ALL.into_iter().map(|p| (p, saved(p))).collect(),
            shown: shows.iter().cloned().collect(),
            pending: Default::default(),
        }
    }

    /// Of this tab's parts `mine`, those to write now: those that differ from what is saved as
    /// this tab knows it and that the tab changed since it showed them (or that nothing is saved
    /// of), except the parts awaiting a choice. They are known as written.
    pub fn to_write(&mut self, mine: &[(Part, Option<String>)]) -> Vec<(Part, String)> {
        let mut out = Vec::new();
        for (part, text) in mine {
            let Some(text) = text else { continue };
            let known = self.known.get(part).cloned().flatten();
            let shown = self.shown.get(part).cloned().flatten();
            if self.pending.contains_key(part)
                || known.as_deref() == Some(text.as_str())
                || (known.is_some() && shown.as_deref() == Some(text.as_str()))
            {
                continue;
            }
            self.known.insert(*part, Some(text.clone()));
            self.shown.insert(*part, Some(text.clone()));
            out.push((*part, text.clone()));
        }
        out
    }

    /// Another tab saved `theirs` for `part` (a `storage` event); this tab shows `mine`.
    pub fn saved_elsewhere(
        &mut self,
        part: Part,
        theirs: Option<String>,
        mine: Option<&str>,
    ) -> Elsewhere {
        let differs = theirs.is_some() && theirs.as_deref() != mine;
        self.known.insert(part, theirs.clone());
        if part.is_work() && differs && mine.is_none() {
            self.pending.remove(&part);
            Elsewhere::Adopt
        } else if part.is_work() && differs {
            self.pending.insert(part, theirs);
            Elsewhere::Choose
        } else {
            // Theirs is what this tab shows (or was removed, or is navigation): nothing waits.
            self.pending.remove(&part);
            Elsewhere::Nothing
        }
    }

    /// The parts awaiting the visitor's choice.
    pub fn pending(&self) -> Vec<Part> {
        self.pending.keys().copied().collect()
    }

    /// Keep this tab's `part`: it is written at the next [`SaveSync::to_write`] (over theirs, as
    /// the visitor chose).
    pub fn keep_mine(&mut self, part: Part) {
        self.pending.remove(&part);
        self.shown.remove(&part);
    }

    /// Take the other tab's `part`: its text, for this tab to show (then nothing to write).
    pub fn take_theirs(&mut self, part: Part) -> Option<String> {
        self.pending.remove(&part).flatten()
    }
}

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
