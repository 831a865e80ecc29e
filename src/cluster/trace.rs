//! A job trace for the cluster simulation: the fabric, the jobs as they arrive (model, iterations,
//! compute per iteration, ring size, chunk) and spine or link failures with their recoveries; generated
//! from a seed (Poisson arrivals, a mix of the routing paper's models) or read from JSON, and
//! validated with errors that name the entry.

use crate::format::number;
use crate::limits::{MAX_LINK_GBPS, MIN_LINK_GBPS};
use crate::routing::algorithms::splitmix64;
use crate::routing::paper_jobs::PaperModel;
use crate::routing::scenario::{LinkKind, LinkRef};
use serde::{Deserialize, Serialize};

/// The fabric: a 2-layer Clos of `tors` ToRs of `hosts_per_tor` NICs, each ToR linked to every
/// one of `spines` spines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterNetwork {
    pub tors: u32,
    pub spines: u32,
    pub hosts_per_tor: u32,
    pub link_gbps: f64,
    pub nic_gbps: f64,
}

/// What a job trains: one of the paper's models, or a custom number of shards (NICs per replica).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JobModel {
    Paper(PaperModel),
    Custom { shards: u32 },
}

impl JobModel {
    /// NICs of one replica.
    pub fn shards(self) -> u32 {
        match self {
            JobModel::Paper(m) => m.shards(),
            JobModel::Custom { shards } => shards,
        }
    }
}

/// One job of the trace: `ring_size` replicas of the model's shards, one NIC per shard; each
/// iteration computes for `compute_s`, then every shard's ring runs an All-Reduce of
/// `2 (ring_size - 1)` steps of `chunk_bytes`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceJob {
    pub id: u32,
    pub arrival_s: f64,
    pub model: JobModel,
    pub iterations: u32,
    pub compute_s: f64,
    pub ring_size: u32,
    pub chunk_bytes: f64,
}

impl TraceJob {
    /// NICs the job holds.
    pub fn hosts(&self) -> u64 {
        u64::from(self.model.shards()) * u64::from(self.ring_size)
    }
}

/// What fails: a whole spine (`{"spine": 3}`) or one directed ToR-spine link
/// (`{"link": {"kind": "up", "tor": 0, "spine": 3}}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailedElement {
    Spine(u32),
    Link(LinkRef),
}

/// A spine or a link that fails at `at_s` and comes back at `recover_s` (never when None).
/// Read through [`FailureFields`], so that a misspelt key (`recover_at`) is refused by name, which
/// `#[serde(flatten)]` alone cannot do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "FailureFields")]
pub struct Failure {
    #[serde(flatten)]
    pub element: FailedElement,
    pub at_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recover_s: Option<f64>,
}

/// A failure as written: exactly one of `spine` and `link`, unknown keys refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FailureFields {
    spine: Option<u32>,
    link: Option<LinkRef>,
    at_s: f64,
    #[serde(default)]
    recover_s: Option<f64>,
}

impl TryFrom<FailureFields> for Failure {
    type Error = &'static str;

    fn try_from(f: FailureFields) -> Result<Failure, &'static str> {
        let element = match (f.spine, f.link) {
            (Some(s), None) => FailedElement::Spine(s),
            (None, Some(l)) => FailedElement::Link(l),
            (Some(_), Some(_)) => return Err("a failure names a spine or a link, not both"),
            (None, None) => return Err("a failure needs \"spine\" or \"link\""),
        };
        Ok(Failure {
            element,
            at_s: f.at_s,
            recover_s: f.recover_s,
        })
    }
}

/// The input of `libra-studio simulate`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    pub network: ClusterNetwork,
    pub jobs: Vec<TraceJob>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
}

/// Why a trace cannot be simulated; each names the entry.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TraceError {
    #[error("network.{field}: {} {rule}", number(*.value))]
    BadNetwork {
        field: &'static str,
        value: f64,
        rule: &'static str,
    },
    #[error("the fabric of {tors} ToRs x {hosts_per_tor} NICs is beyond the limit of 131,072 NICs, or {spines} spines beyond 1,024")]
    TooLarge {
        tors: u32,
        spines: u32,
        hosts_per_tor: u32,
    },
    #[error("jobs[{index}] (id {id}): {field} {} {rule}", number(*.value))]
    BadJob {
        index: usize,
        id: u32,
        field: &'static str,
        value: f64,
        rule: &'static str,
    },
    #[error("jobs[{index}] (id {id}) needs {needs} NICs; the cluster has {has}")]
    JobTooLarge {
        index: usize,
        id: u32,
        needs: u64,
        has: u64,
    },
    #[error("jobs[{index}]: id {id} is used twice (first by jobs[{first}])")]
    DuplicateId { index: usize, id: u32, first: usize },
    #[error("failures[{index}]: {message}")]
    BadFailure { index: usize, message: String },
    #[error("{asked} failed {what} asked for, but the fabric has {has}")]
    TooManyFaults {
        what: &'static str,
        asked: u64,
        has: u64,
    },
    #[error("at most {max} jobs in a trace, got {got}")]
    TooManyJobs { max: usize, got: usize },
}

/// The latest time a trace may name, and the simulated clock's limit (s): about 31.7 years. Up
/// to there an f64 keeps time to 0.12 microseconds, so no duration of a job is lost to rounding
/// (at 1e300 s, a whole job's run would round to nothing).
pub const MAX_TIME_S: f64 = 1e9;

/// Jobs in one trace at most.
pub const MAX_TRACE_JOBS: usize = 10_000;
/// Iterations of one job at most (each is two events).
pub const MAX_ITERATIONS: u32 = 100_000;

impl Trace {
    /// A trace from its JSON (a byte order mark and CRLF line ends accepted); `validate` checks it.
    pub fn from_json(text: &str) -> Result<Trace, serde_json::Error> {
        serde_json::from_str(crate::text::without_bom(text))
    }

    /// NICs in the cluster.
    pub fn hosts(&self) -> u64 {
        u64::from(self.network.tors) * u64::from(self.network.hosts_per_tor)
    }

    /// Check every entry; the simulation assumes a valid trace.
    pub fn validate(&self) -> Result<(), TraceError> {
        let n = &self.network;
        for (field, value) in [
            ("tors", f64::from(n.tors)),
            ("spines", f64::from(n.spines)),
            ("hosts_per_tor", f64::from(n.hosts_per_tor)),
        ] {
            if value < 1.0 {
                return Err(TraceError::BadNetwork {
                    field,
                    value,
                    rule: "must be at least 1",
                });
            }
        }
        for (field, value) in [("link_gbps", n.link_gbps), ("nic_gbps", n.nic_gbps)] {
            if !(MIN_LINK_GBPS..=MAX_LINK_GBPS).contains(&value) {
                return Err(TraceError::BadNetwork {
                    field,
                    value,
                    rule: "must be from 1e-6 to 1e9 Gbit/s",
                });
            }
        }
        if self.hosts() > 1 << 17 || n.spines > 1_024 {
            return Err(TraceError::TooLarge {
                tors: n.tors,
                spines: n.spines,
                hosts_per_tor: n.hosts_per_tor,
            });
        }
        if self.jobs.len() > MAX_TRACE_JOBS {
            return Err(TraceError::TooManyJobs {
                max: MAX_TRACE_JOBS,
                got: self.jobs.len(),
            });
        }
        let mut seen = std::collections::HashMap::new();
        for (index, j) in self.jobs.iter().enumerate() {
            let bad = |field, value: f64, rule| TraceError::BadJob {
                index,
                id: j.id,
                field,
                value,
                rule,
            };
            if let Some(&first) = seen.get(&j.id) {
                return Err(TraceError::DuplicateId {
                    index,
                    id: j.id,
                    first,
                });
            }
            seen.insert(j.id, index);
            if !(0.0..=MAX_TIME_S).contains(&j.arrival_s) {
                return Err(bad(
                    "arrival_s",
                    j.arrival_s,
                    "must be a time from 0 to 1e9 s",
                ));
            }
            if !(0.0..=MAX_TIME_S).contains(&j.compute_s) {
                return Err(bad(
                    "compute_s",
                    j.compute_s,
                    "must be a time from 0 to 1e9 s",
                ));
            }
            if j.iterations == 0 || j.iterations > MAX_ITERATIONS {
                return Err(bad(
                    "iterations",
                    f64::from(j.iterations),
                    "must be from 1 to 100,000",
                ));
            }
            if j.ring_size < 2 {
                return Err(bad(
                    "ring_size",
                    f64::from(j.ring_size),
                    "must be at least 2",
                ));
            }
            if j.model.shards() == 0 {
                return Err(bad("model.shards", 0.0, "must be at least 1"));
            }
            if !(j.chunk_bytes.is_finite() && j.chunk_bytes >= 1.0 && j.chunk_bytes <= 1e18) {
                return Err(bad("chunk_bytes", j.chunk_bytes, "must be from 1 to 1e18"));
            }
            if j.hosts() > self.hosts() {
                return Err(TraceError::JobTooLarge {
                    index,
                    id: j.id,
                    needs: j.hosts(),
                    has: self.hosts(),
                });
            }
        }
        for (index, f) in self.failures.iter().enumerate() {
            let bad = |message: String| TraceError::BadFailure { index, message };
            let (tor, spine) = match f.element {
                FailedElement::Spine(spine) => (None, spine),
                FailedElement::Link(l) => (Some(l.tor), l.spine),
            };
            if spine >= n.spines {
                return Err(bad(format!(
                    "spine {spine} is not among the {} spines",
                    n.spines
                )));
            }
            if let Some(tor) = tor.filter(|t| *t >= n.tors) {
                return Err(bad(format!("ToR {tor} is not among the {} ToRs", n.tors)));
            }
            if !(0.0..=MAX_TIME_S).contains(&f.at_s) {
                return Err(bad(format!(
                    "at_s {} must be a time from 0 to 1e9 s",
                    number(f.at_s)
                )));
            }
            if let Some(r) = f.recover_s {
                if !(r > f.at_s && r <= MAX_TIME_S) {
                    return Err(bad(format!(
                        "recover_s {} must come after at_s {} and by 1e9 s",
                        number(r),
                        number(f.at_s)
                    )));
                }
            }
        }
        Ok(())
    }
}

/// What `libra-studio trace` generates.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSpec {
    pub network: ClusterNetwork,
    pub jobs: u32,
    /// Mean arrivals per second (Poisson).
    pub arrival_rate: f64,
    pub iterations: u32,
    pub compute_s: f64,
    pub ring_size: u32,
    /// Every job's chunk; None: each model's FP32 weights over its shards and the ring size.
    pub chunk_bytes: Option<f64>,
    /// Models drawn uniformly for each job.
    pub mix: Vec<PaperModel>,
    /// The spines and uplinks that fail, and when.
    pub faults: Faults,
    pub seed: u64,
}

/// The spines and ToR uplinks that fail in a generated trace, all at one time, and when they
/// recover.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Faults {
    /// The first spines.
    pub spines: u32,
    /// Uplinks spread over the ToRs: the k-th from ToR `k mod T` to spine `S - 1 - (k / T) mod S`
    /// (from the last spine down, so apart from the failed spines while there are other spines).
    pub links: u32,
    /// When they fail (s).
    pub at_s: f64,
    /// When they recover (s); never when None.
    pub recover_s: Option<f64>,
}

impl Faults {
    /// `spines` spines down from the start, never recovering.
    pub fn spines(spines: u32) -> Faults {
        Faults {
            spines,
            ..Faults::default()
        }
    }

    /// The trace's failures on `network` ([`generate`] refuses more spines or links than it has).
    pub fn failures(&self, network: &ClusterNetwork) -> Vec<Failure> {
        let (tors, spines) = (network.tors, network.spines);
        let links = u64::from(self.links).min(u64::from(tors) * u64::from(spines)) as u32;
        let spine_faults = (0..self.spines.min(spines)).map(FailedElement::Spine);
        let link_faults = (0..links).map(|k| {
            FailedElement::Link(LinkRef {
                kind: LinkKind::Up,
                tor: k % tors,
                spine: spines - 1 - (k / tors) % spines,
            })
        });
        spine_faults
            .chain(link_faults)
            .map(|element| Failure {
                element,
                at_s: self.at_s,
                recover_s: self.recover_s,
            })
            .collect()
    }
}

/// A uniform number in [0, 1) from a splitmix64 stream.
fn uniform(state: &mut u64) -> f64 {
    *state = state.wrapping_add(1);
    (splitmix64(*state) >> 11) as f64 / (1u64 << 53) as f64
}

/// The trace of `spec`: arrivals with exponential gaps of mean `1 / arrival_rate` from t = 0, each
/// job's model drawn from the mix; the same seed gives the same trace.
pub fn generate(spec: &TraceSpec) -> Result<Trace, TraceError> {
    let mut state = spec.seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
    let mut t = 0.0;
    let mix = if spec.mix.is_empty() {
        PaperModel::ALL.to_vec()
    } else {
        spec.mix.clone()
    };
    let jobs = (0..spec.jobs)
        .map(|id| {
            if id > 0 {
                t += -(1.0 - uniform(&mut state)).ln() / spec.arrival_rate;
            }
            let pick = ((uniform(&mut state) * mix.len() as f64) as usize).min(mix.len() - 1);
            let model = mix[pick];
            TraceJob {
                id,
                arrival_s: t,
                model: JobModel::Paper(model),
                iterations: spec.iterations,
                compute_s: spec.compute_s,
                ring_size: spec.ring_size,
                chunk_bytes: spec
                    .chunk_bytes
                    .unwrap_or_else(|| model.chunk_bytes(spec.ring_size)),
            }
        })
        .collect();
    let trace = Trace {
        network: spec.network.clone(),
        jobs,
        failures: spec.faults.failures(&spec.network),
    };
    if !(spec.arrival_rate.is_finite() && spec.arrival_rate > 0.0) {
        return Err(TraceError::BadJob {
            index: 0,
            id: 0,
            field: "arrival_rate",
            value: spec.arrival_rate,
            rule: "must be a positive rate",
        });
    }
    let net = &spec.network;
    if spec.faults.spines > net.spines {
        return Err(TraceError::TooManyFaults {
            what: "spines",
            asked: u64::from(spec.faults.spines),
            has: u64::from(net.spines),
        });
    }
    let links = u64::from(net.tors) * u64::from(net.spines);
    if u64::from(spec.faults.links) > links {
        return Err(TraceError::TooManyFaults {
            what: "ToR-spine uplinks",
            asked: u64::from(spec.faults.links),
            has: links,
        });
    }
    if let Some(late) = trace.jobs.iter().find(|j| j.arrival_s > MAX_TIME_S) {
        return Err(TraceError::BadJob {
            index: late.id as usize,
            id: late.id,
            field: "arrival_rate",
            value: spec.arrival_rate,
            rule: "(jobs per second) is so low that arrivals fall past the 1e9 s limit of the simulated time",
        });
    }
    trace.validate()?;
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn paper_spec(jobs: u32, seed: u64) -> TraceSpec {
        TraceSpec {
            network: ClusterNetwork {
                tors: 64,
                spines: 32,
                hosts_per_tor: 32,
                link_gbps: 400.0,
                nic_gbps: 400.0,
            },
            jobs,
            arrival_rate: 0.5,
            iterations: 10,
            compute_s: 1.0,
            ring_size: 4,
            chunk_bytes: None,
            mix: Vec::new(),
            faults: Faults::default(),
            seed,
        }
    }

    #[test]
    fn generated_faults_spread_uplinks_over_the_tors_from_the_last_spine() {
        let network = ClusterNetwork {
            tors: 2,
            spines: 4,
            hosts_per_tor: 2,
            link_gbps: 100.0,
            nic_gbps: 100.0,
        };
        let faults = Faults {
            spines: 1,
            links: 3,
            at_s: 5.0,
            recover_s: Some(9.0),
        };
        let up = |tor, spine| {
            FailedElement::Link(LinkRef {
                kind: LinkKind::Up,
                tor,
                spine,
            })
        };
        let failures = faults.failures(&network);
        let elements: Vec<FailedElement> = failures.iter().map(|f| f.element).collect();
        assert_eq!(
            elements,
            vec![FailedElement::Spine(0), up(0, 3), up(1, 3), up(0, 2)]
        );
        assert!(failures
            .iter()
            .all(|f| f.at_s == 5.0 && f.recover_s == Some(9.0)));
        // More than the fabric has: every spine and every uplink, once.
        let all = Faults {
            spines: 9,
            links: 100,
            ..Faults::default()
        }
        .failures(&network);
        assert_eq!(all.len(), 4 + 8);
        let distinct = |i: usize| all[..i].iter().all(|f| f.element != all[i].element);
        assert!((0..all.len()).all(distinct));
    }

    #[test]
    fn a_seed_gives_one_trace_and_arrivals_average_the_rate() {
        let a = generate(&paper_spec(2_000, 7)).unwrap();
        assert_eq!(a, generate(&paper_spec(2_000, 7)).unwrap());
        assert_ne!(a, generate(&paper_spec(2_000, 8)).unwrap());
        // Mean gap 1 / 0.5 = 2 s, within 10% over 2,000 jobs.
        let last = a.jobs.last().unwrap().arrival_s;
        assert!((last / 1_999.0 - 2.0).abs() < 0.2, "{last}");
        // Every model of the mix appears.
        for m in PaperModel::ALL {
            assert!(a.jobs.iter().any(|j| j.model == JobModel::Paper(m)));
        }
        // Round trip through JSON.
        let text = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<Trace>(&text).unwrap(), a);
    }

    #[test]
    fn bad_entries_are_named() {
        let mut t = generate(&paper_spec(3, 1)).unwrap();
        t.jobs[2].id = 0;
        assert_eq!(
            t.validate().unwrap_err().to_string(),
            "jobs[2]: id 0 is used twice (first by jobs[0])"
        );
        let mut t = generate(&paper_spec(3, 1)).unwrap();
        t.jobs[1].arrival_s = -1.0;
        assert!(t
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("jobs[1] (id 1): arrival_s -1 must be a time from 0 to 1e9 s"));
        let mut t = generate(&paper_spec(3, 1)).unwrap();
        t.jobs[0].ring_size = 64;
        assert!(
            t.validate()
                .unwrap_err()
                .to_string()
                .contains("NICs; the cluster has 2048"),
            "{:?}",
            t.validate()
        );
        let text = r#"{"network": {"tors": 2, "spines": 2, "hosts_per_tor": 4, "link_gbps": 100,
            "nic_gbps": 100}, "jobs": [{"id": 0, "arrival_s": 0, "model": "gpt4", "iterations": 1,
            "compute_s": 1, "ring_size": 2, "chunk_bytes": 1e6}]}"#;
        assert!(serde_json::from_str::<Trace>(text).is_err());
    }
}
