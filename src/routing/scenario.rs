//! The routing scenario (docs/routing.md section 2): a 2-layer Clos with failures and capacity
//! overrides, hosts on ToRs, and jobs as lists of rings; its JSON format; and its validation into a
//! [`Fabric`] of directed links and the [`Flow`]s of the jobs, every error naming its field.

use crate::format::number;
use crate::limits::{
    at_most, product, LimitError, MAX_CHUNK_BYTES, MAX_FLOWS, MAX_HOSTS, MAX_JOBS,
    MAX_LINK_ENTRIES, MAX_LINK_GBPS, MAX_SPINES, MAX_TORS, MAX_TOR_SPINE_LINKS, MIN_CHUNK_BYTES,
    MIN_LINK_GBPS,
};
use serde::{Deserialize, Serialize};

/// Which direction of a ToR-spine link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    /// ToR to spine.
    Up,
    /// Spine to ToR.
    Down,
}

/// One directed ToR-spine link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkRef {
    pub kind: LinkKind,
    pub tor: u32,
    pub spine: u32,
}

/// A ToR-spine link's capacity, replacing `link_gbps`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacityOverride {
    pub kind: LinkKind,
    pub tor: u32,
    pub spine: u32,
    pub gbps: f64,
}

/// The fabric: `num_tors` ToRs, each linked up and down to every one of `num_spines` spines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosNetwork {
    pub num_spines: u32,
    pub num_tors: u32,
    pub link_gbps: f64,
    pub nic_gbps: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_spines: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_links: Vec<LinkRef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_capacity_overrides: Vec<CapacityOverride>,
}

/// A host (one NIC) on a ToR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Host {
    pub id: u32,
    pub tor: u32,
}

/// A training job: one ring per model shard, each running a ring All-Reduce of `chunk_bytes` steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    pub name: String,
    pub chunk_bytes: f64,
    pub rings: Vec<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_hint: Option<String>,
}

/// The input of `libra-studio route`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteScenario {
    pub network: ClosNetwork,
    pub hosts: Vec<Host>,
    pub jobs: Vec<Job>,
}

/// Why a scenario is not usable; each message starts with the field's path in the JSON.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RouteError {
    #[error("network.{field} must be at least 1")]
    NoneOf { field: &'static str },
    #[error("{field} must be a positive finite number, got {}", crate::format::number(*.value))]
    BadNumber { field: String, value: f64 },
    #[error("{field}: {what} {value} does not exist (the fabric has {count}: 0 to {})", .count.saturating_sub(1))]
    OutOfRange {
        field: String,
        what: &'static str,
        value: u32,
        count: u32,
    },
    #[error("hosts[{index}].id: host {id} is listed twice")]
    DuplicateHost { index: usize, id: u32 },
    #[error("{field}: unknown host {id}")]
    UnknownHost { field: String, id: u32 },
    #[error("{field}: host {id} appears twice in the ring")]
    RepeatedHost { field: String, id: u32 },
    #[error("{field}: a ring needs at least 2 hosts, got {len}")]
    ShortRing { field: String, len: usize },
    #[error("jobs[{job}] flow {flow} (host {src} on ToR {src_tor} to host {dst} on ToR {dst_tor}): no live spine connects the two ToRs")]
    NoCandidate {
        job: usize,
        flow: usize,
        src: u32,
        dst: u32,
        src_tor: u32,
        dst_tor: u32,
    },
    #[error("the scenario has no jobs")]
    NoJobs,
    #[error(transparent)]
    Limit(#[from] LimitError),
    #[error("{field} must be between {} and {}, got {}", number(*.min), number(*.max), number(*.value))]
    OutOfBounds {
        field: String,
        value: f64,
        min: f64,
        max: f64,
    },
}

fn within(field: impl Into<String>, value: f64, min: f64, max: f64) -> Result<f64, RouteError> {
    let field = field.into();
    let v = positive(field.clone(), value)?;
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(RouteError::OutOfBounds {
            field,
            value,
            min,
            max,
        })
    }
}

impl RouteScenario {
    /// Every size that drives allocation or time against its limit (`crate::limits`), before
    /// anything is built.
    pub fn check_limits(&self) -> Result<(), RouteError> {
        let n = &self.network;
        let (t, s) = (u64::from(n.num_tors), u64::from(n.num_spines));
        at_most("network.num_tors", "ToRs", t, MAX_TORS)?;
        at_most("network.num_spines", "spines", s, MAX_SPINES)?;
        at_most(
            "network.num_tors x network.num_spines",
            "ToR-spine links",
            product(t, s),
            MAX_TOR_SPINE_LINKS,
        )?;
        let count = |v: usize| u64::try_from(v).unwrap_or(u64::MAX);
        at_most(
            "network.failed_links",
            "entries",
            count(n.failed_links.len()),
            MAX_LINK_ENTRIES,
        )?;
        at_most(
            "network.link_capacity_overrides",
            "entries",
            count(n.link_capacity_overrides.len()),
            MAX_LINK_ENTRIES,
        )?;
        at_most(
            "network.failed_spines",
            "entries",
            count(n.failed_spines.len()),
            MAX_SPINES,
        )?;
        at_most("hosts", "hosts", count(self.hosts.len()), MAX_HOSTS)?;
        at_most("jobs", "jobs", count(self.jobs.len()), MAX_JOBS)?;
        let flows = self
            .jobs
            .iter()
            .flat_map(|j| &j.rings)
            .fold(0u64, |a, r| a.saturating_add(count(r.len())));
        at_most("jobs[].rings", "flows", flows, MAX_FLOWS)?;
        Ok(())
    }
}

/// A directed link of the fabric, by index: `up(t, s)`, `down(t, s)`, then each host's NIC up and
/// NIC down.
#[derive(Clone, Debug, PartialEq)]
pub struct Fabric {
    pub num_spines: u32,
    pub num_tors: u32,
    pub nic_gbps: f64,
    /// Capacity of every link (None: failed), indexed as described above.
    pub capacity: Vec<Option<f64>>,
    /// Host id to its index (NIC links) and ToR.
    pub hosts: Vec<Host>,
}

impl Fabric {
    pub fn up(&self, tor: u32, spine: u32) -> usize {
        (tor * self.num_spines + spine) as usize
    }

    pub fn down(&self, tor: u32, spine: u32) -> usize {
        ((self.num_tors + tor) * self.num_spines + spine) as usize
    }

    fn spine_links(&self) -> usize {
        2 * (self.num_tors * self.num_spines) as usize
    }

    pub fn nic_up(&self, host_index: usize) -> usize {
        self.spine_links() + 2 * host_index
    }

    pub fn nic_down(&self, host_index: usize) -> usize {
        self.spine_links() + 2 * host_index + 1
    }

    /// Whether link `e` is a ToR-spine link.
    pub fn is_spine_link(&self, e: usize) -> bool {
        e < self.spine_links()
    }

    /// `up:tor{t}:spine{s}`, `down:tor{t}:spine{s}`, `nic_up:host{id}`, `nic_down:host{id}`.
    pub fn link_name(&self, e: usize) -> String {
        let ts = (self.num_tors * self.num_spines) as usize;
        let s = self.num_spines as usize;
        if e < ts {
            format!("up:tor{}:spine{}", e / s, e % s)
        } else if e < 2 * ts {
            format!("down:tor{}:spine{}", (e - ts) / s, (e - ts) % s)
        } else {
            let h = (e - 2 * ts) / 2;
            let kind = if (e - 2 * ts).is_multiple_of(2) {
                "nic_up"
            } else {
                "nic_down"
            };
            format!("{kind}:host{}", self.hosts[h].id)
        }
    }
}

/// One flow: a ring member sending to its successor.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub id: usize,
    pub job: usize,
    /// Index of the ring over all jobs.
    pub ring: usize,
    pub src: u32,
    pub dst: u32,
    pub src_tor: u32,
    pub dst_tor: u32,
    /// Host indices (for the NIC links).
    pub src_index: usize,
    pub dst_index: usize,
    /// Live spines connecting the ToRs, ascending; empty for an intra-ToR flow.
    pub candidates: Vec<u32>,
    /// Which of its ring edge's parallel sub-flows this is: 0 unless the instance is split
    /// (`multipath`), where the hash of multi-flow ECMP takes it in.
    pub sub: u32,
}

impl Flow {
    pub fn inter_tor(&self) -> bool {
        self.src_tor != self.dst_tor
    }

    /// The directed links of the flow's path through `spine` (None for an intra-ToR flow).
    pub fn path(&self, fabric: &Fabric, spine: Option<u32>) -> Vec<usize> {
        let mut p = vec![fabric.nic_up(self.src_index)];
        if let (true, Some(s)) = (self.inter_tor(), spine) {
            p.push(fabric.up(self.src_tor, s));
            p.push(fabric.down(self.dst_tor, s));
        }
        p.push(fabric.nic_down(self.dst_index));
        p
    }
}

/// A ring of the scenario: its job, size and flows.
#[derive(Clone, Debug, PartialEq)]
pub struct Ring {
    pub job: usize,
    pub flows: Vec<usize>,
    /// The hosts on the ring (its flows number `members` times the sub-flows per edge).
    pub members: usize,
}

/// A validated scenario: the fabric, the flows in id order and the rings.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    pub fabric: Fabric,
    pub flows: Vec<Flow>,
    pub rings: Vec<Ring>,
    /// Per job: the bytes each flow sends per ring step (a sub-flow's share when split), ring
    /// indices.
    pub jobs: Vec<(f64, Vec<usize>)>,
    /// Parallel sub-flows per ring edge (1 unless split by `multipath::split`).
    pub subflows: u32,
}

impl Instance {
    /// Every link's capacity, failed links at 0.
    pub fn capacities(&self) -> Vec<f64> {
        self.fabric
            .capacity
            .iter()
            .map(|c| c.unwrap_or(0.0))
            .collect()
    }

    /// The sizes of job `j`'s rings.
    pub fn ring_sizes(&self, j: usize) -> impl Iterator<Item = usize> + '_ {
        self.jobs[j].1.iter().map(|&r| self.rings[r].members)
    }
}

fn positive(field: impl Into<String>, value: f64) -> Result<f64, RouteError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(RouteError::BadNumber {
            field: field.into(),
            value,
        })
    }
}

fn in_range(field: String, what: &'static str, value: u32, count: u32) -> Result<u32, RouteError> {
    if value < count {
        Ok(value)
    } else {
        Err(RouteError::OutOfRange {
            field,
            what,
            value,
            count,
        })
    }
}

impl RouteScenario {
    pub fn from_json(text: &str) -> Result<RouteScenario, serde_json::Error> {
        serde_json::from_str(crate::text::without_bom(text))
    }

    /// Validate and build the fabric and the flows.
    pub fn instance(&self) -> Result<Instance, RouteError> {
        let n = &self.network;
        if n.num_spines == 0 {
            return Err(RouteError::NoneOf {
                field: "num_spines",
            });
        }
        if n.num_tors == 0 {
            return Err(RouteError::NoneOf { field: "num_tors" });
        }
        self.check_limits()?;
        within(
            "network.link_gbps",
            n.link_gbps,
            MIN_LINK_GBPS,
            MAX_LINK_GBPS,
        )?;
        within("network.nic_gbps", n.nic_gbps, MIN_LINK_GBPS, MAX_LINK_GBPS)?;
        let (s_count, t_count) = (n.num_spines, n.num_tors);
        let mut fabric = Fabric {
            num_spines: s_count,
            num_tors: t_count,
            nic_gbps: n.nic_gbps,
            capacity: Vec::new(),
            hosts: self.hosts.clone(),
        };
        let spine_links = 2 * (s_count * t_count) as usize;
        let mut capacity = vec![Some(n.link_gbps); spine_links];
        let link_index = |field: String, kind: LinkKind, tor: u32, spine: u32| {
            let tor = in_range(format!("{field}.tor"), "ToR", tor, t_count)?;
            let spine = in_range(format!("{field}.spine"), "spine", spine, s_count)?;
            Ok::<usize, RouteError>(match kind {
                LinkKind::Up => fabric.up(tor, spine),
                LinkKind::Down => fabric.down(tor, spine),
            })
        };
        for (i, o) in n.link_capacity_overrides.iter().enumerate() {
            let field = format!("network.link_capacity_overrides[{i}]");
            let e = link_index(field.clone(), o.kind, o.tor, o.spine)?;
            capacity[e] = Some(within(
                format!("{field}.gbps"),
                o.gbps,
                MIN_LINK_GBPS,
                MAX_LINK_GBPS,
            )?);
        }
        for (i, l) in n.failed_links.iter().enumerate() {
            let e = link_index(format!("network.failed_links[{i}]"), l.kind, l.tor, l.spine)?;
            capacity[e] = None;
        }
        for (i, &s) in n.failed_spines.iter().enumerate() {
            in_range(format!("network.failed_spines[{i}]"), "spine", s, s_count)?;
            for t in 0..t_count {
                capacity[fabric.up(t, s)] = None;
                capacity[fabric.down(t, s)] = None;
            }
        }
        let mut index_of = std::collections::HashMap::new();
        for (i, h) in self.hosts.iter().enumerate() {
            in_range(format!("hosts[{i}].tor"), "ToR", h.tor, t_count)?;
            if index_of.insert(h.id, i).is_some() {
                return Err(RouteError::DuplicateHost { index: i, id: h.id });
            }
        }
        capacity.extend(std::iter::repeat_n(Some(n.nic_gbps), 2 * self.hosts.len()));
        fabric.capacity = capacity;
        if self.jobs.is_empty() {
            return Err(RouteError::NoJobs);
        }
        let mut flows = Vec::new();
        let mut rings = Vec::new();
        let mut jobs = Vec::new();
        for (j, job) in self.jobs.iter().enumerate() {
            let chunk = within(
                format!("jobs[{j}].chunk_bytes"),
                job.chunk_bytes,
                MIN_CHUNK_BYTES,
                MAX_CHUNK_BYTES,
            )?;
            let mut ring_ids = Vec::new();
            if job.rings.is_empty() {
                return Err(RouteError::ShortRing {
                    field: format!("jobs[{j}].rings"),
                    len: 0,
                });
            }
            for (r, ring) in job.rings.iter().enumerate() {
                let field = format!("jobs[{j}].rings[{r}]");
                if ring.len() < 2 {
                    return Err(RouteError::ShortRing {
                        field,
                        len: ring.len(),
                    });
                }
                let mut seen = std::collections::HashSet::new();
                let mut members = Vec::with_capacity(ring.len());
                for (k, &id) in ring.iter().enumerate() {
                    let &hi = index_of.get(&id).ok_or_else(|| RouteError::UnknownHost {
                        field: format!("{field}[{k}]"),
                        id,
                    })?;
                    if !seen.insert(id) {
                        return Err(RouteError::RepeatedHost {
                            field: field.clone(),
                            id,
                        });
                    }
                    members.push(hi);
                }
                let ring_index = rings.len();
                let mut ids = Vec::with_capacity(members.len());
                for (i, &a) in members.iter().enumerate() {
                    let b = members[(i + 1) % members.len()];
                    let (ha, hb) = (self.hosts[a], self.hosts[b]);
                    let candidates: Vec<u32> = if ha.tor == hb.tor {
                        Vec::new()
                    } else {
                        (0..s_count)
                            .filter(|&s| {
                                fabric.capacity[fabric.up(ha.tor, s)].is_some()
                                    && fabric.capacity[fabric.down(hb.tor, s)].is_some()
                            })
                            .collect()
                    };
                    let id = flows.len();
                    if ha.tor != hb.tor && candidates.is_empty() {
                        return Err(RouteError::NoCandidate {
                            job: j,
                            flow: id,
                            src: ha.id,
                            dst: hb.id,
                            src_tor: ha.tor,
                            dst_tor: hb.tor,
                        });
                    }
                    flows.push(Flow {
                        id,
                        job: j,
                        ring: ring_index,
                        src: ha.id,
                        dst: hb.id,
                        src_tor: ha.tor,
                        dst_tor: hb.tor,
                        src_index: a,
                        dst_index: b,
                        candidates,
                        sub: 0,
                    });
                    ids.push(id);
                }
                rings.push(Ring {
                    job: j,
                    members: ids.len(),
                    flows: ids,
                });
                ring_ids.push(ring_index);
            }
            jobs.push((chunk, ring_ids));
        }
        Ok(Instance {
            fabric,
            flows,
            rings,
            jobs,
            subflows: 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn small() -> RouteScenario {
        // 2 spines, 2 ToRs, 2 hosts per ToR; one ring across the ToRs.
        serde_json::from_str(
            r#"{"network": {"num_spines": 2, "num_tors": 2, "link_gbps": 100, "nic_gbps": 100},
                "hosts": [{"id": 0, "tor": 0}, {"id": 1, "tor": 0}, {"id": 2, "tor": 1}, {"id": 3, "tor": 1}],
                "jobs": [{"name": "j", "chunk_bytes": 1e6, "rings": [[0, 2, 1, 3]]}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn flows_ids_and_candidates() {
        let inst = small().instance().unwrap();
        let f = &inst.flows;
        assert_eq!(f.len(), 4);
        assert_eq!((f[0].src, f[0].dst, f[3].src, f[3].dst), (0, 2, 3, 0));
        assert!(f
            .iter()
            .all(|x| x.inter_tor() && x.candidates == vec![0, 1]));
        assert_eq!(
            inst.fabric.link_name(inst.fabric.up(1, 0)),
            "up:tor1:spine0"
        );
        assert_eq!(
            inst.fabric.link_name(inst.fabric.down(0, 1)),
            "down:tor0:spine1"
        );
        assert_eq!(
            inst.fabric.link_name(inst.fabric.nic_down(2)),
            "nic_down:host2"
        );
        let p = f[0].path(&inst.fabric, Some(1));
        assert_eq!(
            p,
            vec![
                inst.fabric.nic_up(0),
                inst.fabric.up(0, 1),
                inst.fabric.down(1, 1),
                inst.fabric.nic_down(2)
            ]
        );
    }

    #[test]
    fn failures_remove_candidates_and_bad_input_names_the_field() {
        let mut sc = small();
        sc.network.failed_spines = vec![0];
        assert!(sc
            .instance()
            .unwrap()
            .flows
            .iter()
            .all(|f| f.candidates == vec![1]));
        sc.network.failed_links = vec![LinkRef {
            kind: LinkKind::Down,
            tor: 1,
            spine: 1,
        }];
        let e = sc.instance().unwrap_err().to_string();
        assert_eq!(e, "jobs[0] flow 0 (host 0 on ToR 0 to host 2 on ToR 1): no live spine connects the two ToRs");
        type Edit = Box<dyn Fn(&mut RouteScenario)>;
        let cases: Vec<(Edit, &str)> = vec![
            (
                Box::new(|s| s.hosts[1].tor = 5),
                "hosts[1].tor: ToR 5 does not exist (the fabric has 2: 0 to 1)",
            ),
            (
                Box::new(|s| s.hosts[2].id = 0),
                "hosts[2].id: host 0 is listed twice",
            ),
            (
                Box::new(|s| s.jobs[0].rings[0][1] = 9),
                "jobs[0].rings[0][1]: unknown host 9",
            ),
            (
                Box::new(|s| s.jobs[0].rings[0][1] = 0),
                "jobs[0].rings[0]: host 0 appears twice in the ring",
            ),
            (
                Box::new(|s| s.jobs[0].rings[0] = vec![1]),
                "jobs[0].rings[0]: a ring needs at least 2 hosts, got 1",
            ),
            (
                Box::new(|s| s.jobs[0].chunk_bytes = -1.0),
                "jobs[0].chunk_bytes must be a positive finite number, got -1",
            ),
            (
                Box::new(|s| s.network.failed_spines = vec![2]),
                "network.failed_spines[0]: spine 2 does not exist (the fabric has 2: 0 to 1)",
            ),
            (
                Box::new(|s| s.network.nic_gbps = 0.0),
                "network.nic_gbps must be a positive finite number, got 0",
            ),
        ];
        for (edit, want) in cases {
            let mut s = small();
            edit(&mut s);
            assert_eq!(s.instance().unwrap_err().to_string(), want);
        }
    }
}
