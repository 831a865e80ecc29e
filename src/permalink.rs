//! Scenario <-> URL fragment: `#v1=<payload>`.
//!
//! The payload is URL-safe base64 (no padding) of the raw-DEFLATE-compressed JSON of the scenario's
//! *wire form*: the Scenario's own JSON, except that LIBRA's built-in inputs travel by name (network
//! and cost model `"4d"` / `"3d"`, a workload as `{"preset": "GPT_3", "on": "4d", "weight": 1}`), so
//! that the default scenario's link is a few hundred characters and a custom workload costs only what
//! it compresses to. Numbers are written with serde_json's shortest round-trip form and read back
//! exactly (`float_roundtrip`), so `decode(encode(s)) == s` for every scenario with finite numbers.
//!
//! The decoder never panics and never allocates more than [`MAX_JSON_BYTES`] for any input: every
//! failure is a [`PermalinkError`] that says what was wrong. It does not validate the scenario (a link
//! may carry a half-edited design); callers validate, naming the field.

use crate::model::cost::CostModel;
use crate::model::network::Network;
use crate::model::scenario::{Constraints, Objective, Scenario, WorkloadSpec};
use crate::model::training::ModelOptions;
use crate::optimize::Method;
use crate::presets::{LibraNetwork, LibraWorkload};
use crate::routing::study::RouteLink;
use crate::view::{LinkState, View};
use serde::{Deserialize, Serialize};

/// The version this build writes (and the only one it reads).
pub const VERSION: u32 = 1;

/// The most JSON a link may inflate to (a link is decoded in memory; this bounds a "zip bomb").
pub const MAX_JSON_BYTES: usize = 16 << 20;

/// The most JSON the scenario saved in this browser may inflate to: it was written by the app
/// itself, so it is read whatever its size up to this (far above what localStorage holds).
pub const MAX_SAVED_JSON_BYTES: usize = 1 << 30;

/// The longest link the app makes or shares (browsers keep URLs of up to about 2 MB).
pub const MAX_LINK_CHARS: usize = 2_000_000;

/// Why a fragment cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PermalinkError {
    #[error("the link has no scenario (expected #v1=...)")]
    Empty,
    #[error("the link does not start with a version (expected #v1=..., got \"{0}\")")]
    NoVersion(String),
    #[error("the link is version {0}, but this build reads version {VERSION} only")]
    UnknownVersion(String),
    #[error("the link's scenario is empty (nothing after #v1=)")]
    NoPayload,
    #[error("the link has a character that cannot be in it, '{ch}' at position {position}: was it copied whole?")]
    BadCharacter { ch: char, position: usize },
    #[error("the link is truncated or damaged (its compressed data does not unpack): was it copied whole?")]
    Corrupt,
    #[error("the link's scenario is larger than {MAX_JSON_BYTES} bytes")]
    TooLarge,
    #[error("the link's scenario is not valid: {0}")]
    BadScenario(String),
    #[error("the link names an unknown built-in {kind} \"{name}\"")]
    UnknownPreset { kind: &'static str, name: String },
    #[error("the link's scenario is too large: {0}")]
    Limit(#[from] crate::limits::LimitError),
    #[error("the scenario is too large for a link ({chars} characters; browsers keep about {MAX_LINK_CHARS}): use Scenario JSON to share it")]
    TooLongForLink { chars: usize },
    #[error("the scenario is too large for a link (its JSON is {bytes} bytes; a link holds up to {MAX_JSON_BYTES}): use Scenario JSON to share it")]
    TooLargeForLink { bytes: usize },
}

/// A base URL that cannot carry a link.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BaseUrlError {
    #[error("the base URL must start with http:// or https:// (got \"{0}\")")]
    Scheme(String),
    #[error("the base URL has no host (got \"{0}\")")]
    NoHost(String),
    #[error(
        "the base URL already has a fragment ('#'): give the page's address only (got \"{0}\")"
    )]
    Fragment(String),
    #[error("the base URL has a space or a control character (got {0:?})")]
    Space(String),
}

/// The whole link: the address the app is published at (`https://host/path/`) and the fragment.
/// A bare host gets its `/`; any other address is kept as given (a sub-path without its final
/// `/` is redirected by static hosts, and the fragment survives the redirect).
pub fn full_link(base_url: &str, fragment: &str) -> Result<String, BaseUrlError> {
    let given = || base_url.to_string();
    let rest = base_url
        .strip_prefix("https://")
        .or_else(|| base_url.strip_prefix("http://"))
        .ok_or_else(|| BaseUrlError::Scheme(given()))?;
    if base_url.contains('#') {
        return Err(BaseUrlError::Fragment(given()));
    }
    if base_url
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(BaseUrlError::Space(given()));
    }
    let host = rest.split(['/', '?']).next().unwrap_or("");
    if host.is_empty() {
        return Err(BaseUrlError::NoHost(given()));
    }
    let slash = if rest.len() == host.len() { "/" } else { "" };
    Ok(format!("{base_url}{slash}{fragment}"))
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

/// A built-in input by name, or the thing itself.
#[derive(Serialize)]
#[serde(untagged)]
enum ByName<T> {
    Preset(String),
    Custom(T),
}

/// A string is a preset's name, an object the thing itself. Read without serde's untagged
/// buffering, which would compile every nested type's reader a second time into the wasm.
impl<'de, T: Deserialize<'de>> Deserialize<'de> for ByName<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{value::MapAccessDeserializer, MapAccess, Visitor};
        struct ByNameVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ByNameVisitor<T> {
            type Value = ByName<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a built-in's name or an object")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ByName::Preset(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(ByName::Custom)
            }
        }
        d.deserialize_any(ByNameVisitor(std::marker::PhantomData))
    }
}

/// A workload of the wire form: one of LIBRA's (with its communicator for one of LIBRA's networks)
/// by name, or the whole spec.
#[derive(Serialize, Deserialize)]
#[serde(untagged, try_from = "AnyWorkload")]
enum WireWorkload {
    Preset {
        preset: String,
        on: String,
        weight: f64,
    },
    Custom(WorkloadSpec),
}

/// Either form of [`WireWorkload`] read as one object (no untagged buffering, see [`ByName`]).
#[derive(Deserialize)]
struct AnyWorkload {
    preset: Option<String>,
    on: Option<String>,
    weight: Option<f64>,
    name: Option<String>,
    workload: Option<crate::model::workload::Workload>,
    communicator: Option<crate::model::communicator::Communicator>,
}

impl TryFrom<AnyWorkload> for WireWorkload {
    type Error = String;
    fn try_from(w: AnyWorkload) -> Result<Self, String> {
        let missing = |field: &str| format!("a workload without \"{field}\"");
        match w.preset {
            Some(preset) => Ok(WireWorkload::Preset {
                preset,
                on: w.on.ok_or_else(|| missing("on"))?,
                weight: w.weight.ok_or_else(|| missing("weight"))?,
            }),
            None => Ok(WireWorkload::Custom(WorkloadSpec {
                name: w.name.ok_or_else(|| missing("name"))?,
                weight: w.weight.unwrap_or(1.0),
                workload: w.workload.ok_or_else(|| missing("workload"))?,
                communicator: w.communicator.ok_or_else(|| missing("communicator"))?,
            })),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Wire {
    name: String,
    network: ByName<Network>,
    costs: ByName<CostModel>,
    workloads: Vec<WireWorkload>,
    #[serde(default)]
    constraints: Constraints,
    #[serde(default)]
    objective: Objective,
    #[serde(default)]
    model: ModelOptions,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    efficiency: Vec<Option<f64>>,
    /// The Routing view's state, when it is not the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    route: Option<RouteLink>,
    /// The view shown, when it is not the design view.
    #[serde(default, skip_serializing_if = "View::is_design")]
    view: View,
    /// A scenario pinned for comparison (in the same wire form; its own extras are ignored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pinned: Option<Box<Wire>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    landscape: Option<(usize, usize)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tour: Option<usize>,
    /// The Co-design view's question, as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    codesign: Option<String>,
    /// The Cluster view's state, as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cluster: Option<String>,
    /// The optimization method, when it is not the interior-point method.
    #[serde(default, skip_serializing_if = "Method::is_interior_point")]
    method: Method,
}

fn network_by_name(network: &Network) -> ByName<Network> {
    LibraNetwork::ALL
        .into_iter()
        .find(|n| &n.network() == network)
        .map_or_else(
            || ByName::Custom(network.clone()),
            |n| ByName::Preset(n.name().into()),
        )
}

fn costs_by_name(costs: &CostModel) -> ByName<CostModel> {
    LibraNetwork::ALL
        .into_iter()
        .find(|n| &n.cost_model() == costs)
        .map_or_else(
            || ByName::Custom(costs.clone()),
            |n| ByName::Preset(n.name().into()),
        )
}

/// LIBRA's workloads on LIBRA's networks, built once per encoding (not once per workload).
fn preset_specs() -> Vec<(LibraWorkload, LibraNetwork, WorkloadSpec)> {
    LibraWorkload::ALL
        .into_iter()
        .flat_map(|w| {
            LibraNetwork::ALL
                .into_iter()
                .map(move |n| (w, n, w.spec(n)))
        })
        .collect()
}

fn workload_by_name(
    spec: &WorkloadSpec,
    presets: &[(LibraWorkload, LibraNetwork, WorkloadSpec)],
) -> WireWorkload {
    for (w, n, p) in presets {
        if p.name == spec.name && p.communicator == spec.communicator && p.workload == spec.workload
        {
            return WireWorkload::Preset {
                preset: w.name().into(),
                on: n.name().into(),
                weight: spec.weight,
            };
        }
    }
    WireWorkload::Custom(spec.clone())
}

fn libra_network(name: &str) -> Result<LibraNetwork, PermalinkError> {
    LibraNetwork::ALL
        .into_iter()
        .find(|n| n.name() == name)
        .ok_or_else(|| PermalinkError::UnknownPreset {
            kind: "network",
            name: name.chars().take(40).collect(),
        })
}

impl Wire {
    fn of(sc: &Scenario, state: &LinkState) -> Wire {
        Wire {
            name: sc.name.clone(),
            network: network_by_name(&sc.network),
            costs: costs_by_name(&sc.costs),
            workloads: {
                let presets = preset_specs();
                sc.workloads
                    .iter()
                    .map(|w| workload_by_name(w, &presets))
                    .collect()
            },
            constraints: sc.constraints.clone(),
            objective: sc.objective,
            model: sc.model,
            efficiency: sc.efficiency.clone(),
            route: (state.route != RouteLink::default()).then(|| state.route.clone()),
            view: state.view,
            pinned: state
                .pinned
                .as_ref()
                .map(|p| Box::new(Wire::of(p, &LinkState::default()))),
            landscape: state.landscape,
            tour: state.tour,
            codesign: state.codesign.clone(),
            cluster: state.cluster.clone(),
            method: state.method,
        }
    }

    /// Workloads and layers against their limits before LIBRA's presets are expanded (a 17 KB
    /// link naming a preset 100,000 times once took 4 minutes to open).
    fn check_limits(&self) -> Result<(), PermalinkError> {
        use crate::limits::{at_most, MAX_LAYERS, MAX_WORKLOADS};
        let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        let mut workloads = count(self.workloads.len());
        let mut layers = 0u64;
        let mut wire = Some(self);
        while let Some(w) = wire {
            for wl in &w.workloads {
                layers = layers.saturating_add(match wl {
                    WireWorkload::Preset { .. } => 0,
                    WireWorkload::Custom(spec) => count(spec.workload.layers.len()),
                });
            }
            wire = w.pinned.as_deref();
            if let Some(p) = wire {
                workloads = workloads.max(count(p.workloads.len()));
            }
        }
        at_most("workloads", "workloads", workloads, MAX_WORKLOADS)?;
        at_most("layers", "layers", layers, MAX_LAYERS)?;
        Ok(())
    }

    fn into_parts(mut self) -> Result<(Scenario, LinkState), PermalinkError> {
        self.check_limits()?;
        let state = LinkState {
            view: self.view,
            route: self.route.take().unwrap_or_default(),
            pinned: match self.pinned.take() {
                Some(p) => Some(p.into_parts()?.0),
                None => None,
            },
            landscape: self.landscape,
            tour: self.tour,
            codesign: self.codesign.take(),
            cluster: self.cluster.take(),
            method: self.method,
        };
        let network = match self.network {
            ByName::Preset(n) => libra_network(&n)?.network(),
            ByName::Custom(n) => n,
        };
        let costs = match self.costs {
            ByName::Preset(n) => libra_network(&n)?.cost_model(),
            ByName::Custom(c) => c,
        };
        let workloads = self
            .workloads
            .into_iter()
            .map(|w| match w {
                WireWorkload::Preset { preset, on, weight } => {
                    let w = LibraWorkload::parse(&preset).ok_or_else(|| {
                        PermalinkError::UnknownPreset {
                            kind: "workload",
                            name: preset.chars().take(40).collect(),
                        }
                    })?;
                    Ok(WorkloadSpec {
                        weight,
                        ..w.spec(libra_network(&on)?)
                    })
                }
                WireWorkload::Custom(spec) => Ok(spec),
            })
            .collect::<Result<Vec<_>, PermalinkError>>()?;
        Ok((
            Scenario {
                name: self.name,
                network,
                costs,
                workloads,
                constraints: self.constraints,
                objective: self.objective,
                model: self.model,
                efficiency: self.efficiency,
            },
            state,
        ))
    }
}

/// The fragment (`#v1=...`) that reopens `sc`.
pub fn encode(sc: &Scenario) -> String {
    encode_with(sc, &LinkState::default())
}

/// The fragment that reopens `sc` and the rest of the app's state.
pub fn encode_with(sc: &Scenario, state: &LinkState) -> String {
    let json = serde_json::to_vec(&Wire::of(sc, state)).expect("a scenario always serializes");
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    fragment(&base64url::encode(&packed))
}

/// The fragment that reopens `sc` and the app's state, if it makes a link that opens anywhere:
/// its JSON within [`MAX_JSON_BYTES`] (what [`decode`] accepts), its length within
/// [`MAX_LINK_CHARS`] and its sizes within the limits. Never a link that would not decode.
pub fn encode_link(sc: &Scenario, state: &LinkState) -> Result<String, PermalinkError> {
    let wire = Wire::of(sc, state);
    wire.check_limits()?;
    let json = serde_json::to_vec(&wire).expect("a scenario always serializes");
    if json.len() > MAX_JSON_BYTES {
        return Err(PermalinkError::TooLargeForLink { bytes: json.len() });
    }
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    let link = fragment(&base64url::encode(&packed));
    if link.len() > MAX_LINK_CHARS {
        return Err(PermalinkError::TooLongForLink { chars: link.len() });
    }
    Ok(link)
}

/// The scenario of a fragment (with or without its `#`).
pub fn decode(fragment: &str) -> Result<Scenario, PermalinkError> {
    decode_with(fragment).map(|(sc, _)| sc)
}

/// The scenario and the rest of the app's state of a fragment.
pub fn decode_with(fragment: &str) -> Result<(Scenario, LinkState), PermalinkError> {
    decode_within(fragment, MAX_JSON_BYTES)
}

/// The scenario and state saved in this browser (the same format, read up to
/// [`MAX_SAVED_JSON_BYTES`]: a scenario too large for a link is still saved and restored).
pub fn decode_saved(fragment: &str) -> Result<(Scenario, LinkState), PermalinkError> {
    decode_within(fragment, MAX_SAVED_JSON_BYTES)
}

fn decode_within(fragment: &str, max_json: usize) -> Result<(Scenario, LinkState), PermalinkError> {
    let (_, payload) = split_fragment(fragment.trim())?;
    if payload.is_empty() {
        return Err(PermalinkError::NoPayload);
    }
    let packed = base64url::decode(payload)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, max_json).map_err(
        |e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => PermalinkError::TooLarge,
            _ => PermalinkError::Corrupt,
        },
    )?;
    let wire: Wire =
        serde_json::from_slice(&json).map_err(|e| PermalinkError::BadScenario(e.to_string()))?;
    wire.into_parts()
}

/// URL-safe base64 without padding (RFC 4648 section 5): the alphabet of a URL fragment.
mod base64url {
    use super::PermalinkError;

    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    pub fn encode(bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..=chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            }
        }
        out
    }

    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'-' => Some(62),
            b'_' => Some(63),
            _ => None,
        }
    }

    pub fn decode(text: &str) -> Result<Vec<u8>, PermalinkError> {
        let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
        let (mut acc, mut bits) = (0u32, 0u32);
        for (position, ch) in text.char_indices() {
            let v = u8::try_from(ch)
                .ok()
                .and_then(value)
                .ok_or(PermalinkError::BadCharacter { ch, position })?;
            acc = (acc << 6) | v;
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
                acc &= (1 << bits) - 1;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

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
        assert_eq!(decode("#v1="), Err(PermalinkError::NoPayload));
        assert_eq!(
            decode("#v1=ab c"),
            Err(PermalinkError::BadCharacter {
                ch: ' ',
                position: 2
            })
        );
        assert_eq!(decode("#v1=AAAA"), Err(PermalinkError::Corrupt));
    }

    #[test]
    fn base64url_matches_rfc_4648_vectors() {
        // RFC 4648 section 10, without padding.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url::encode(plain.as_bytes()), coded);
            assert_eq!(base64url::decode(coded).unwrap(), plain.as_bytes());
        }
        assert_eq!(base64url::encode(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn the_default_scenario_is_short_and_reopens_exactly() {
        let sc = presets::default_scenario();
        let link = encode(&sc);
        assert!(link.starts_with("#v1="));
        assert!(link.len() < 400, "{} characters: {link}", link.len());
        assert_eq!(decode(&link).unwrap(), sc);
        // Without the '#', and with whitespace around it (pasted).
        assert_eq!(decode(&format!(" {} \n", &link[1..])).unwrap(), sc);
    }

    #[test]
    fn the_views_state_travels_in_the_link() {
        use crate::routing::study::RoutePreset;
        let sc = presets::default_scenario();
        let state = LinkState {
            view: View::Routing,
            route: RouteLink {
                setup: RoutePreset::DegradedLink.setup(),
                algorithm: crate::routing::Algorithm::Optimal,
            },
            pinned: Some(presets::libra_scenario(
                LibraWorkload::Dlrm,
                LibraNetwork::D3,
            )),
            landscape: Some((1, 3)),
            tour: Some(2),
            codesign: Some(
                serde_json::to_string(&crate::codesign::CodesignInputs::around(&sc, 1e7)).unwrap(),
            ),
            cluster: Some(
                serde_json::to_string(&crate::cluster::study::ClusterLink {
                    setup: crate::cluster::study::ClusterPreset::PaperFailedSpines.setup(),
                    ..Default::default()
                })
                .unwrap(),
            ),
            method: crate::optimize::Method::ProjectedGradient,
        };
        let link = encode_with(&sc, &state);
        assert_eq!(decode_with(&link).unwrap(), (sc.clone(), state));
        assert_eq!(
            decode_with(&encode(&sc)).unwrap(),
            (sc.clone(), LinkState::default())
        );
        // The default state adds nothing to the link.
        assert_eq!(encode_with(&sc, &LinkState::default()), encode(&sc));
        // A pinned preset travels by name: the link stays short.
        let pinned = LinkState {
            pinned: Some(sc.clone()),
            ..LinkState::default()
        };
        assert!(encode_with(&sc, &pinned).len() < 2 * encode(&sc).len());
    }

    #[test]
    fn a_truncated_link_is_an_error_not_a_panic() {
        let link = encode(&presets::default_scenario());
        for cut in 0..link.len() {
            let r = decode(&link[..cut]);
            assert!(r.is_err(), "a link cut at {cut} decoded");
        }
    }
}
