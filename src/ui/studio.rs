//! The app's state: the form, what it reads as, the results shown, and the session (shared link,
//! saved scenario). One `Copy` handle of signals, provided as context to every panel.

use super::browser;
use crate::analysis::outcome::{Outcome, Problem};
use crate::analysis::study::{study, study_by, Study};
use crate::form::{Field, FieldError, Form};
use crate::model::scenario::Scenario;
use crate::optimize::Method;
use crate::permalink;
use crate::routing::study::RouteLink;
use crate::session::{self, Elsewhere, Part, SaveSync, Start};
use crate::view::{LinkState, View};
use leptos::prelude::*;
use std::sync::Arc;

/// A message across the top of the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Banner {
    /// A link that could not be read; `link` is what it held, shown so that nothing is lost.
    BadLink { message: String, link: String },
    /// Someone else's scenario is shown; `own` is the visitor's saved one to go back to.
    Shared { own: Option<Scenario> },
    /// Something the page could not do (an import, an export, the clipboard).
    Error(String),
    /// The previous visit did not finish opening `failed` (a link or the saved scenario): the
    /// defaults are shown and `failed` is offered for download.
    Recovered { failed: String },
}

/// The app's state.
#[derive(Clone, Copy)]
pub struct Studio {
    pub form: RwSignal<Form>,
    /// Bumped whenever the form is replaced or restructured, so that its inputs are drawn anew.
    pub layout: RwSignal<u32>,
    pub parsed: Memo<Result<Scenario, Vec<FieldError>>>,
    pub outcome: Memo<Outcome>,
    pub banner: RwSignal<Option<Banner>>,
    /// True until the visitor edits a shared (or badly linked) scenario: nothing is saved meanwhile.
    pub viewing_shared: RwSignal<bool>,
    pub large_text: RwSignal<bool>,
    /// When the last edit happened (ms, `browser::now_ms`), until the charts have redrawn.
    pub edited_at: StoredValue<Option<f64>>,
    /// Charts redrawn since the last edit: the edit's time is read when all of them have.
    pub charts_drawn: StoredValue<usize>,
    pub redraw_ms: RwSignal<Option<f64>>,
    /// The view shown, and what each view holds besides the form: all of it travels in the
    /// permalink too.
    pub view: RwSignal<View>,
    pub route: RwSignal<RouteLink>,
    /// A scenario pinned for side-by-side comparison, and its study.
    pub pinned: RwSignal<Option<Scenario>>,
    pub pinned_study: Memo<Option<Arc<Study>>>,
    pub landscape: RwSignal<Option<(usize, usize)>>,
    /// The method that finds the optimum (in the link).
    pub method: RwSignal<Method>,
    /// The guided tour's step, while the tour is open.
    pub tour: RwSignal<Option<usize>>,
    /// Presentation mode: large type, high contrast, no editing chrome (not part of the link).
    pub presenting: RwSignal<bool>,
    /// A first visit (nothing saved, no link): the tour is offered.
    pub first_visit: RwSignal<bool>,
    /// The Co-design view's question (JSON, kept for the link; the view is its own module).
    pub codesign: RwSignal<Option<String>>,
    /// The Cluster view's state (JSON, from its module).
    pub cluster: RwSignal<Option<String>>,
    /// What this tab knows of the saved parts (`session::SaveSync`): which to write, and which
    /// another tab changed.
    pub sync: StoredValue<SaveSync>,
    /// The parts another tab saved differently, awaiting the visitor's choice (a banner).
    pub elsewhere: RwSignal<Vec<Part>>,
    /// The design's saved text for the design it was made of (one encoding per change).
    scenario_part: StoredValue<Option<(ScenarioKey, String)>>,
}

/// What the design's saved part is made of.
type ScenarioKey = (Scenario, Option<Scenario>, Option<(usize, usize)>, Method);

impl Studio {
    /// The state at page load, from the URL fragment and the saved scenario.
    pub fn new() -> Studio {
        let (fragment, saved) = (browser::fragment(), browser::load(session::SAVED_KEY));
        // The previous start's mark, if it never finished (see session::STARTING_KEY): keep what it
        // was opening, then mark this start (cleared once the page has drawn, in ui::start).
        let mark = browser::load(session::STARTING_KEY);
        if let Some(failed) = &mark {
            browser::save(session::FAILED_KEY, failed);
        }
        let start = session::start_after(mark.as_deref(), Some(&fragment), saved.as_deref());
        let plain = fragment.trim().trim_start_matches('#').is_empty();
        let state = match start {
            Start::Recovered { .. } => LinkState::default(),
            // A plain visit: the design's part, then each view's own.
            _ if plain => session::saved_state(|p| browser::load(p.key())),
            _ => session::state_start(Some(&fragment), saved.as_deref()),
        };
        let opening = match start {
            Start::Recovered { .. } => String::new(),
            _ => session::starting_mark(Some(&fragment), saved.as_deref()),
        };
        browser::save(session::STARTING_KEY, &opening);
        let form = RwSignal::new(Form::from_scenario(&start.scenario()));
        let parsed = Memo::new(move |_| form.with(Form::to_scenario));
        let method = RwSignal::new(Method::InteriorPoint);
        let outcome = Memo::new(move |prev: Option<&Outcome>| {
            let result = match parsed.get() {
                Err(errors) => Err(Problem::Fields(errors)),
                Ok(sc) => {
                    let t0 = browser::now_ms();
                    let result = study_by(&sc, method.get());
                    let ms = browser::now_ms() - t0;
                    result.map(|s| (s, ms)).map_err(Problem::Study)
                }
            };
            Outcome::next(prev, result)
        });
        let pinned = RwSignal::new(None::<Scenario>);
        let pinned_study = Memo::new(move |_| {
            pinned.with(|p| p.as_ref().and_then(|sc| study(sc).ok().map(Arc::new)))
        });
        let studio = Studio {
            form,
            layout: RwSignal::new(0),
            parsed,
            outcome,
            banner: RwSignal::new(None),
            viewing_shared: RwSignal::new(false),
            large_text: RwSignal::new(false),
            edited_at: StoredValue::new(None),
            charts_drawn: StoredValue::new(0),
            redraw_ms: RwSignal::new(None),
            view: RwSignal::new(View::Design),
            route: RwSignal::new(RouteLink::default()),
            pinned,
            pinned_study,
            landscape: RwSignal::new(None),
            method,
            tour: RwSignal::new(None),
            presenting: RwSignal::new(false),
            first_visit: RwSignal::new(
                saved.is_none() && fragment.trim_start_matches('#').is_empty(),
            ),
            codesign: RwSignal::new(None),
            cluster: RwSignal::new(None),
            sync: StoredValue::new(SaveSync::default()),
            elsewhere: RwSignal::new(Vec::new()),
            scenario_part: StoredValue::new(None),
        };
        studio.show_start(start, state);
        studio
    }

    /// Show what a visit (or a link opened in this tab) starts with; not an edit, so nothing is
    /// saved until the visitor edits.
    pub fn show_start(&self, start: Start, state: LinkState) {
        let scenario = start.scenario();
        let (banner, shared) = match start {
            Start::Own(_) => (None, false),
            Start::Shared { own, .. } => (Some(Banner::Shared { own }), true),
            Start::BadLink { error, link, .. } => (
                Some(Banner::BadLink {
                    message: error.to_string(),
                    link,
                }),
                true,
            ),
            Start::Recovered { failed } => (Some(Banner::Recovered { failed }), true),
        };
        self.viewing_shared.set(shared);
        self.banner.set(banner);
        self.form.set(Form::from_scenario(&scenario));
        self.view.set(state.view);
        self.route.set(state.route);
        self.pinned.set(state.pinned);
        self.landscape.set(state.landscape);
        self.method.set(state.method);
        self.tour.set(state.tour);
        self.codesign.set(state.codesign);
        self.cluster.set(state.cluster);
        self.layout.update(|v| *v += 1);
        // What this tab shows now is its baseline: only the parts it changes are saved (a link's
        // other parts never replace the saved ones unless edited).
        let shows: Vec<(Part, Option<String>)> = Part::ALL
            .into_iter()
            .map(|p| (p, self.part_text(p)))
            .collect();
        self.sync
            .set_value(SaveSync::new(|p| browser::load(p.key()), &shows));
        self.elsewhere.set(Vec::new());
    }

    /// A link opened in this tab (the fragment changed by hand or by a click on a link).
    pub fn open_link(&self, fragment: &str) {
        let saved = browser::load(session::SAVED_KEY);
        self.show_start(
            session::start(Some(fragment), saved.as_deref()),
            session::state_start(Some(fragment), saved.as_deref()),
        );
    }

    /// Open the guided tour on LIBRA's GPT-3 4D case. The visitor's own scenario is kept (as when a
    /// shared link is opened: a banner leads back to it, and nothing is saved until they edit).
    pub fn start_tour(&self) {
        self.first_visit.set(false);
        let own = self.parsed.get_untracked().ok().or_else(|| {
            browser::load(session::SAVED_KEY)
                .and_then(|f| permalink::decode_saved(&f).ok().map(|(sc, _)| sc))
        });
        match session::tour_start(own) {
            // Already the tour's case: only the tour opens (nothing to reload).
            Start::Own(_) => {
                self.tour.set(Some(0));
                self.view.set(View::Design);
            }
            start => self.show_start(
                start,
                LinkState {
                    tour: Some(0),
                    ..LinkState::default()
                },
            ),
        }
    }

    /// Pin the current scenario (when it is valid) to compare the edits that follow with it.
    pub fn pin(&self) {
        if let Ok(sc) = self.parsed.get_untracked() {
            self.pinned.set(Some(sc));
        }
    }

    /// A change typed by the visitor (no re-render of the inputs).
    pub fn edit(&self, f: impl FnOnce(&mut Form)) {
        self.edited_at.set_value(Some(browser::now_ms()));
        self.charts_drawn.set_value(0);
        self.now_own();
        self.form.update(f);
    }

    /// An edit of the Routing view (it makes the scenario the visitor's own, as any edit does).
    pub fn edit_route(&self, f: impl FnOnce(&mut RouteLink)) {
        self.now_own();
        self.route.update(f);
    }

    /// After an edit the scenario is the visitor's own: the link banners go, saving resumes.
    fn now_own(&self) {
        self.viewing_shared.set(false);
        if matches!(
            self.banner.get_untracked(),
            Some(Banner::Shared { .. } | Banner::BadLink { .. })
        ) {
            self.banner.set(None);
        }
    }

    /// A change to the form's structure (rows added, removed, moved; presets picked): the inputs
    /// are drawn anew.
    pub fn restructure(&self, f: impl FnOnce(&mut Form)) {
        self.edit(f);
        self.layout.update(|v| *v += 1);
    }

    /// Show `sc` in the form (a reset, an import, a front point, going back to one's own).
    pub fn load(&self, sc: &Scenario) {
        self.restructure(|f| *f = Form::from_scenario(sc));
    }

    /// The error of `field`, if the form has one.
    pub fn error_of(&self, field: Field) -> Option<String> {
        self.parsed.with(|p| match p {
            Err(errors) => errors
                .iter()
                .find(|e| e.field == field)
                .map(|e| e.message.clone()),
            Ok(_) => None,
        })
    }

    /// The app's state besides the form, as a link carries it.
    pub fn link_state(&self) -> LinkState {
        LinkState {
            view: self.view.get_untracked(),
            route: self.route.get_untracked(),
            pinned: self.pinned.get_untracked(),
            landscape: self.landscape.get_untracked(),
            tour: self.tour.get_untracked(),
            codesign: self.codesign.get_untracked(),
            cluster: self.cluster.get_untracked(),
            method: self.method.get_untracked(),
        }
    }

    /// Track every part of the state a link carries besides the form (for the URL sync).
    pub fn track_link_state(&self) {
        self.view.track();
        self.route.track();
        self.pinned.track();
        self.landscape.track();
        self.tour.track();
        self.codesign.track();
        self.cluster.track();
        self.method.track();
    }

    /// This tab's text of `part` as it would be saved (None: the form has errors, or the view
    /// has nothing to save).
    pub fn part_text(&self, part: Part) -> Option<String> {
        let state = self.link_state();
        match part {
            Part::Scenario => {
                let sc = self.parsed.with_untracked(|p| p.as_ref().ok().cloned())?;
                let key: ScenarioKey = (sc, state.pinned.clone(), state.landscape, state.method);
                if let Some(text) = self.scenario_part.with_value(|c| {
                    c.as_ref()
                        .filter(|(k, _)| *k == key)
                        .map(|(_, t)| t.clone())
                }) {
                    return Some(text);
                }
                let text = session::scenario_part(&key.0, &state);
                self.scenario_part.set_value(Some((key, text.clone())));
                Some(text)
            }
            _ => session::view_parts(&state)
                .into_iter()
                .find(|(p, _)| *p == part)
                .and_then(|(_, t)| t),
        }
    }

    /// Save the parts this tab changed (each under its own key; none another tab changed that
    /// awaits the visitor's choice). False when the browser refused one.
    pub fn save_parts(&self) -> bool {
        let mine: Vec<(Part, Option<String>)> = Part::ALL
            .into_iter()
            .map(|p| (p, self.part_text(p)))
            .collect();
        let writes = self
            .sync
            .try_update_value(|s| s.to_write(&mine))
            .unwrap_or_default();
        writes.iter().fold(true, |ok, (part, text)| {
            browser::save(part.key(), text) && ok
        })
    }

    /// Another tab saved `theirs` under `key` (a `storage` event): say so when this tab shows
    /// that part differently (a shared scenario on view is not this tab's own: nothing to say).
    pub fn saved_elsewhere(&self, key: &str, theirs: Option<String>) {
        let Some(part) = Part::of_key(key) else {
            return;
        };
        let mine = if self.viewing_shared.get_untracked() {
            theirs.clone()
        } else {
            self.part_text(part)
        };
        let heard = self
            .sync
            .try_update_value(|s| s.saved_elsewhere(part, theirs.clone(), mine.as_deref()));
        if heard == Some(Elsewhere::Adopt) {
            if let Some(text) = theirs {
                self.show_part(part, text);
            }
        }
        self.elsewhere.set(self.sync.with_value(SaveSync::pending));
    }

    /// Keep this tab's `part`, over the other tab's (as the visitor chose): saved now.
    pub fn keep_mine(&self, part: Part) {
        self.sync.update_value(|s| s.keep_mine(part));
        self.elsewhere.set(self.sync.with_value(SaveSync::pending));
        self.save_parts();
    }

    /// Show the other tab's `part` here (as the visitor chose).
    pub fn take_theirs(&self, part: Part) {
        let theirs = self
            .sync
            .try_update_value(|s| s.take_theirs(part))
            .flatten();
        self.elsewhere.set(self.sync.with_value(SaveSync::pending));
        if let Some(text) = theirs {
            self.show_part(part, text);
        }
    }

    /// Show another tab's `text` of `part` here.
    fn show_part(&self, part: Part, text: String) {
        match part {
            Part::Scenario => {
                if let Ok((sc, st)) = permalink::decode_saved(&text) {
                    self.pinned.set(st.pinned);
                    self.landscape.set(st.landscape);
                    self.method.set(st.method);
                    self.load(&sc);
                }
            }
            Part::View => {}
            Part::Routing => {
                if let Ok(link) = serde_json::from_str::<RouteLink>(&text) {
                    self.route.set(link);
                    super::module_bridge::ROUTING.push_state(&text);
                }
            }
            Part::Cluster => {
                self.cluster.set(Some(text.clone()));
                super::module_bridge::CLUSTER.push_state(&text);
            }
            Part::Codesign => {
                self.codesign.set(Some(text.clone()));
                super::module_bridge::CODESIGN.push_state(&text);
            }
        }
    }

    /// The current scenario's permalink fragment (with the rest of the app's state), when the form
    /// is valid: what is saved in this browser, whatever its size.
    pub fn fragment(&self) -> Option<String> {
        let state = self.link_state();
        self.parsed
            .with_untracked(|p| p.as_ref().ok().map(|sc| permalink::encode_with(sc, &state)))
    }

    /// The current scenario's link, when the form is valid: a fragment that opens anywhere, or why
    /// the scenario cannot travel in a link.
    pub fn link(&self) -> Option<Result<String, permalink::PermalinkError>> {
        let state = self.link_state();
        self.parsed
            .with_untracked(|p| p.as_ref().ok().map(|sc| permalink::encode_link(sc, &state)))
    }
}
