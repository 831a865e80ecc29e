//! The routing algorithms by name: one list that the command line, the Routing view's study, the
//! view and its permalink share, and the cluster simulation's policies.

use super::multipath::LLAMA3_FLOWS;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// A way to route the inter-ToR flows (docs/routing.md section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    Ecmp,
    Greedy,
    GreedyCapacityAware,
    /// The exact branch and bound (`routing::exact`).
    Optimal,
    EdgeColoring,
    Annealing,
    /// ECMP over 16 sub-flows per ring edge (`routing::multipath::LLAMA3_FLOWS`).
    MultiFlowEcmp,
    /// The paper's annealing as its authors' code runs it (`routing::annealing_authors`).
    AnnealingAuthors,
}

impl Algorithm {
    /// Every algorithm, in the order the Routing view lists them. Links made before the
    /// algorithms had keys name them by their position here, so new ones go at the end.
    pub const ALL: [Algorithm; 8] = [
        Algorithm::Ecmp,
        Algorithm::Greedy,
        Algorithm::GreedyCapacityAware,
        Algorithm::Optimal,
        Algorithm::EdgeColoring,
        Algorithm::Annealing,
        Algorithm::MultiFlowEcmp,
        Algorithm::AnnealingAuthors,
    ];

    /// The algorithms the Cluster view and `simulate`/`sweep` compare as the controller's policy,
    /// in the order they list them (the cluster routes with any [`Algorithm`]).
    pub const CLUSTER: [Algorithm; 6] = [
        Algorithm::Ecmp,
        Algorithm::Greedy,
        Algorithm::EdgeColoring,
        Algorithm::Annealing,
        Algorithm::Optimal,
        Algorithm::MultiFlowEcmp,
    ];

    /// Flows per ring edge: [`LLAMA3_FLOWS`] for multi-flow ECMP, else 1.
    pub fn subflows(self) -> u32 {
        match self {
            Algorithm::MultiFlowEcmp => LLAMA3_FLOWS,
            _ => 1,
        }
    }

    /// The name on the command line and in links.
    pub fn key(self) -> &'static str {
        match self {
            Algorithm::Ecmp => "ecmp",
            Algorithm::Greedy => "greedy",
            Algorithm::GreedyCapacityAware => "greedy-capacity-aware",
            Algorithm::Optimal => "optimal",
            Algorithm::EdgeColoring => "edge-coloring",
            Algorithm::Annealing => "annealing",
            Algorithm::MultiFlowEcmp => "multi-flow-ecmp",
            Algorithm::AnnealingAuthors => "annealing-authors",
        }
    }

    /// The name people read.
    pub fn label(self) -> &'static str {
        match self {
            Algorithm::Ecmp => "ECMP",
            Algorithm::Greedy => "greedy",
            Algorithm::GreedyCapacityAware => "greedy (capacity-aware)",
            Algorithm::Optimal => "optimal",
            Algorithm::EdgeColoring => "edge coloring",
            Algorithm::Annealing => "annealing",
            Algorithm::MultiFlowEcmp => "ECMP, 16 flows",
            Algorithm::AnnealingAuthors => "annealing (authors')",
        }
    }

    /// A label of at most 11 characters, for bars too narrow for [`Algorithm::label`].
    pub fn short(self) -> &'static str {
        match self {
            Algorithm::GreedyCapacityAware => "greedy cap.",
            Algorithm::EdgeColoring => "edge col.",
            Algorithm::MultiFlowEcmp => "ECMP x16",
            Algorithm::AnnealingAuthors => "anneal. (A)",
            a => a.label(),
        }
    }

    /// How the algorithm routes, and how it stands against the routing paper's authors' code
    /// (docs/routing.md section 3, checked by tests/authors_simulator.rs).
    pub fn definition(self) -> &'static str {
        match self {
            Algorithm::Ecmp => {
                "Each flow hashes its source and destination NICs onto one of its live spines \
                 (splitmix64). The authors' code hashes their node ids with a 32-bit mix: other \
                 draws, the same level (mean largest load 5.46 here, 5.54 theirs on their 52 cells)."
            }
            Algorithm::Greedy => {
                "The paper's greedy: ToR groups (flows leaving a ToR, flows entering it) largest \
                 first; each flow takes the spine with the fewest flows on the busier of its two \
                 links, ties to the lowest spine. The authors' rule exactly: replayed in their visit \
                 order it gives their routing flow for flow; the largest load equals theirs in all \
                 52 cells of their grid."
            }
            Algorithm::GreedyCapacityAware => {
                "Ours: the paper's greedy scoring each link's count plus one over its capacity; \
                 the same as greedy when every link has one capacity."
            }
            Algorithm::Optimal => {
                "Ours: branch and bound over the flows for the chosen objective, seeded with the \
                 heuristics, proven optimal or said not to be (the paper's ILP is one objective)."
            }
            Algorithm::EdgeColoring => {
                "The paper's baseline: the flows are edges of a ToR-to-ToR multigraph, coloured \
                 with as many colours as the busiest ToR side has flows (König); colour c goes to \
                 live spine c mod L. The least largest load possible; the same as the authors' \
                 code in all 52 cells."
            }
            Algorithm::Annealing => {
                "Ours, after the paper's baseline: from ECMP, random single-flow moves accepted \
                 by the sum of squared link loads as the temperature falls. The authors' \
                 annealing differs (one spine per destination NIC, swaps, largest load times the \
                 links at it)."
            }
            Algorithm::MultiFlowEcmp => {
                "What practice does (Meta's Llama 3 training: 16 flows per GPU pair): every ring \
                 edge opens 16 flows, each hashed by ECMP on its own and sending 1/16 of the \
                 data; a ring step waits for the slowest. Loads and rates are per sub-flow. \
                 Not in the paper."
            }
            Algorithm::AnnealingAuthors => {
                "The paper's annealing as the authors' code runs it: one spine per destination \
                 NIC (all flows into it), starting from the NIC's place in its ToR; each of 917 \
                 steps swaps two NICs' spines, scored by the largest link load times the links \
                 at it, as the temperature falls from 1000 to 0.1. Their draws come from Java's \
                 generator; ours from splitmix64 (seed 1234)."
            }
        }
    }

    /// The position in [`Algorithm::ALL`].
    pub fn index(self) -> usize {
        Algorithm::ALL.iter().position(|a| *a == self).unwrap_or(0)
    }

    pub fn from_key(key: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.key() == key)
    }

    /// Every key, for messages and help: `ecmp, greedy, ...`.
    pub fn keys() -> String {
        Algorithm::ALL.map(Algorithm::key).join(", ")
    }
}

impl Serialize for Algorithm {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

/// By key, or (links made before the keys) by position in [`Algorithm::ALL`].
impl<'de> Deserialize<'de> for Algorithm {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Algorithm, D::Error> {
        struct Named;
        impl Visitor<'_> for Named {
            type Value = Algorithm;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a routing algorithm: {}", Algorithm::keys())
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Algorithm, E> {
                Algorithm::from_key(v).ok_or_else(|| {
                    E::custom(format!(
                        "unknown routing algorithm \"{v}\": {}",
                        Algorithm::keys()
                    ))
                })
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Algorithm, E> {
                usize::try_from(v)
                    .ok()
                    .and_then(|i| Algorithm::ALL.get(i).copied())
                    .ok_or_else(|| E::custom(format!("no routing algorithm number {v}")))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Algorithm, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("no routing algorithm number {v}")))
                    .and_then(|v| self.visit_u64(v))
            }
        }
        d.deserialize_any(Named)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_old_indices_still_read() {
        for (i, a) in Algorithm::ALL.into_iter().enumerate() {
            assert_eq!(Algorithm::from_key(a.key()), Some(a));
            assert_eq!(a.index(), i);
            let json = serde_json::to_string(&a).unwrap();
            assert_eq!(json, format!("\"{}\"", a.key()));
            assert_eq!(serde_json::from_str::<Algorithm>(&json).unwrap(), a);
            assert_eq!(
                serde_json::from_str::<Algorithm>(&i.to_string()).unwrap(),
                a
            );
        }
        let e = serde_json::from_str::<Algorithm>("\"fastest\"").unwrap_err();
        assert!(e
            .to_string()
            .contains("unknown routing algorithm \"fastest\": ecmp, greedy"));
        assert!(serde_json::from_str::<Algorithm>("8").is_err());
        assert!(serde_json::from_str::<Algorithm>("-1").is_err());
    }
}
