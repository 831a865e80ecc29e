//! The routing algorithms by name: one list that the command line, the Routing view's study, the
//! view and its permalink share.

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
}

impl Algorithm {
    /// Every algorithm, in the order the Routing view lists them. Links made before the
    /// algorithms had keys name them by their position here, so new ones go at the end.
    pub const ALL: [Algorithm; 6] = [
        Algorithm::Ecmp,
        Algorithm::Greedy,
        Algorithm::GreedyCapacityAware,
        Algorithm::Optimal,
        Algorithm::EdgeColoring,
        Algorithm::Annealing,
    ];

    /// The name on the command line and in links.
    pub fn key(self) -> &'static str {
        match self {
            Algorithm::Ecmp => "ecmp",
            Algorithm::Greedy => "greedy",
            Algorithm::GreedyCapacityAware => "greedy-capacity-aware",
            Algorithm::Optimal => "optimal",
            Algorithm::EdgeColoring => "edge-coloring",
            Algorithm::Annealing => "annealing",
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
        }
    }

    /// A label of at most 11 characters, for bars too narrow for [`Algorithm::label`].
    pub fn short(self) -> &'static str {
        match self {
            Algorithm::GreedyCapacityAware => "greedy cap.",
            Algorithm::EdgeColoring => "edge col.",
            a => a.label(),
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
        assert!(serde_json::from_str::<Algorithm>("6").is_err());
        assert!(serde_json::from_str::<Algorithm>("-1").is_err());
    }
}
