//! Realistic routing scenarios, seeded: jobs placed as a cluster scheduler would (each job a
//! contiguous block of hosts in ToR order: whole ToRs plus a partial one at the ends), data-parallel
//! rings that join the same rank of every replica (so rings cross ToRs), and a given number of
//! failed spines and failed ToR-spine links (none that would leave a flow without a path).

use super::algorithms::splitmix64;
use super::paper_jobs::{place, PaperModel};
use super::scenario::{ClosNetwork, Host, Job, LinkKind, LinkRef, RouteScenario};

/// What to generate.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Placement {
    pub tors: u32,
    pub spines: u32,
    pub hosts_per_tor: u32,
    pub jobs: u32,
    /// Hosts per ring (the data-parallel degree).
    pub ring_size: u32,
    pub failed_spines: u32,
    pub failed_links: u32,
    pub seed: u64,
    pub chunk_bytes: f64,
    /// Every ToR-spine link's rate, Gb/s (and the NICs' unless `nic_gbps` says).
    #[serde(default = "default_link_gbps", skip_serializing_if = "is_default_link")]
    pub link_gbps: f64,
    /// The hosts' NIC rate, Gb/s (None: the links').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_gbps: Option<f64>,
    /// The paper's jobs, in order (then `jobs` and `chunk_bytes` are ignored: one job per model,
    /// its chunk from its weights).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<PaperModel>,
}

impl Default for Placement {
    /// 8 ToRs of 8 hosts under 4 spines, 3 jobs, rings of 4, 64 MB chunks, no failures.
    fn default() -> Self {
        Placement {
            tors: 8,
            spines: 4,
            hosts_per_tor: 8,
            jobs: 3,
            ring_size: 4,
            failed_spines: 0,
            failed_links: 0,
            seed: 1,
            chunk_bytes: 64e6,
            link_gbps: DEFAULT_LINK_GBPS,
            nic_gbps: None,
            models: Vec::new(),
        }
    }
}

/// The routing paper's links: 100 Gb/s.
pub const DEFAULT_LINK_GBPS: f64 = 100.0;

fn default_link_gbps() -> f64 {
    DEFAULT_LINK_GBPS
}

fn is_default_link(v: &f64) -> bool {
    *v == DEFAULT_LINK_GBPS
}

impl Placement {
    /// The routing paper's fabric (64 ToRs x 32 spines, 32 NICs per ToR) with `jobs` equal jobs of
    /// rings of `ring_size` and `failed_spines` failed spines.
    pub fn paper(jobs: u32, ring_size: u32, failed_spines: u32) -> Placement {
        Placement {
            tors: 64,
            spines: 32,
            hosts_per_tor: 32,
            jobs,
            ring_size,
            failed_spines,
            ..Placement::default()
        }
    }
}

/// Why a placement cannot be generated; each names the setting.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GenerateError {
    #[error("tors, spines, hosts-per-tor and jobs must all be at least 1")]
    Empty,
    #[error("ring-size must be at least 2, got {0}")]
    RingSize(u32),
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
    #[error("chunk-bytes must be between {min} and {max:e}, got {got}")]
    ChunkBytes { min: f64, max: f64, got: String },
    #[error("failed-spines ({failed}) must leave at least one of the {spines} spines")]
    FailedSpines { failed: u32, spines: u32 },
    #[error("{jobs} jobs with rings of {ring_size} need {needed} hosts; the fabric has {hosts}")]
    TooFewHosts {
        jobs: u32,
        ring_size: u32,
        needed: u64,
        hosts: u32,
    },
    #[error(transparent)]
    Models(#[from] super::paper_jobs::PlaceError),
    #[error("cannot fail {0} links and keep a path for every flow")]
    FailedLinks(u32),
    #[error(transparent)]
    Route(#[from] super::scenario::RouteError),
    #[error("{0} must be positive")]
    NotPositive(&'static str),
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(1);
        splitmix64(self.0) % n.max(1)
    }
}

/// Every size of `p` against its limit, before anything is allocated (hosts are ToRs x hosts per
/// ToR, counted without overflow).
fn check_limits(p: &Placement) -> Result<(), GenerateError> {
    use crate::limits::*;
    let (t, s) = (u64::from(p.tors), u64::from(p.spines));
    let checks = [
        at_most("tors", "ToRs", t, MAX_TORS),
        at_most("spines", "spines", s, MAX_SPINES),
        at_most(
            "tors x spines",
            "ToR-spine links",
            product(t, s),
            MAX_TOR_SPINE_LINKS,
        ),
        at_most(
            "tors x hosts-per-tor",
            "hosts",
            product(t, u64::from(p.hosts_per_tor)),
            MAX_HOSTS,
        ),
        at_most("jobs", "jobs", u64::from(p.jobs), MAX_JOBS),
        at_most(
            "failed-links",
            "failed links",
            u64::from(p.failed_links),
            MAX_GENERATED_FAILED_LINKS.min(product(t, s)),
        ),
    ];
    for c in checks {
        c?;
    }
    if !(MIN_CHUNK_BYTES..=MAX_CHUNK_BYTES).contains(&p.chunk_bytes) {
        return Err(GenerateError::ChunkBytes {
            min: MIN_CHUNK_BYTES,
            max: MAX_CHUNK_BYTES,
            got: crate::format::number(p.chunk_bytes),
        });
    }
    Ok(())
}

/// Generate the scenario, or say which setting cannot be met.
pub fn generate(p: &Placement) -> Result<RouteScenario, GenerateError> {
    if p.tors == 0 || p.spines == 0 || p.hosts_per_tor == 0 || p.jobs == 0 {
        return Err(GenerateError::Empty);
    }
    if p.ring_size < 2 {
        return Err(GenerateError::RingSize(p.ring_size));
    }
    if !(p.link_gbps.is_finite() && p.link_gbps > 0.0) {
        return Err(GenerateError::NotPositive("link-gbps"));
    }
    if p.nic_gbps.is_some_and(|n| !(n.is_finite() && n > 0.0)) {
        return Err(GenerateError::NotPositive("nic-gbps"));
    }
    check_limits(p)?;
    if p.failed_spines >= p.spines {
        return Err(GenerateError::FailedSpines {
            failed: p.failed_spines,
            spines: p.spines,
        });
    }
    let total = p.tors * p.hosts_per_tor;
    if !p.models.is_empty() {
        crate::limits::at_most(
            "models",
            "jobs",
            p.models.len() as u64,
            crate::limits::MAX_JOBS,
        )?;
        let jobs = place(&p.models, p.ring_size, p.hosts_per_tor, total)?;
        return finish(
            p,
            total,
            jobs,
            Rng(p.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        );
    }
    // Equal jobs, each a multiple of the ring size, using as many hosts as fit.
    let per_job = total / p.jobs / p.ring_size * p.ring_size;
    if per_job < p.ring_size {
        return Err(GenerateError::TooFewHosts {
            jobs: p.jobs,
            ring_size: p.ring_size,
            needed: u64::from(p.jobs) * u64::from(p.ring_size),
            hosts: total,
        });
    }
    let mut rng = Rng(p.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // Leave the idle hosts at a random place: the first job starts after a random offset.
    let spare = total - per_job * p.jobs;
    let offset = rng.below(u64::from(spare) + 1) as u32;
    let jobs: Vec<Job> = (0..p.jobs)
        .map(|j| {
            let first = offset + j * per_job;
            let replicas = p.ring_size;
            let rank_count = per_job / replicas;
            let rings = (0..rank_count)
                .map(|rank| {
                    (0..replicas)
                        .map(|r| first + r * rank_count + rank)
                        .collect()
                })
                .collect();
            Job {
                name: format!("job{j}"),
                chunk_bytes: p.chunk_bytes,
                rings,
                model_hint: None,
            }
        })
        .collect();
    finish(p, total, jobs, rng)
}

/// The hosts, the failed spines and links around `jobs`.
fn finish(
    p: &Placement,
    total: u32,
    jobs: Vec<Job>,
    mut rng: Rng,
) -> Result<RouteScenario, GenerateError> {
    let hosts: Vec<Host> = (0..total)
        .map(|i| Host {
            id: i,
            tor: i / p.hosts_per_tor,
        })
        .collect();
    let mut spines: Vec<u32> = (0..p.spines).collect();
    let mut failed_spines = Vec::new();
    for _ in 0..p.failed_spines {
        let k = rng.below(spines.len() as u64) as usize;
        failed_spines.push(spines.remove(k));
    }
    failed_spines.sort_unstable();
    let mut sc = RouteScenario {
        network: ClosNetwork {
            num_spines: p.spines,
            num_tors: p.tors,
            link_gbps: p.link_gbps,
            nic_gbps: p.nic_gbps.unwrap_or(p.link_gbps),
            failed_spines,
            failed_links: Vec::new(),
            link_capacity_overrides: Vec::new(),
        },
        hosts,
        jobs,
    };
    if p.failed_links > 0 {
        fail_links(&mut sc, p, &spines, &mut rng)?;
    }
    sc.instance()?;
    Ok(sc)
}

/// Fail `p.failed_links` random ToR-spine links of the live `spines`, none that would leave a flow
/// without a path. A link is kept failed when every pair of ToRs that a flow joins still has a
/// spine with both its links up: checked on the pairs that link touches (a few thousand steps),
/// not by rebuilding the scenario (which made 4,096 failed links at the paper's scale take
/// seconds).
fn fail_links(
    sc: &mut RouteScenario,
    p: &Placement,
    spines: &[u32],
    rng: &mut Rng,
) -> Result<(), GenerateError> {
    let inst = sc.instance()?;
    let (t, s) = (p.tors as usize, p.spines as usize);
    // The ToR pairs that flows join, by source and by destination ToR.
    let mut to: Vec<Vec<usize>> = vec![Vec::new(); t];
    let mut from: Vec<Vec<usize>> = vec![Vec::new(); t];
    for f in inst.flows.iter().filter(|f| f.inter_tor()) {
        let (a, b) = (f.src_tor as usize, f.dst_tor as usize);
        if !to[a].contains(&b) {
            to[a].push(b);
            from[b].push(a);
        }
    }
    let live: Vec<usize> = spines.iter().map(|&x| x as usize).collect();
    let (mut up_dead, mut down_dead) = (vec![false; t * s], vec![false; t * s]);
    let joined = |up_dead: &[bool], down_dead: &[bool], a: usize, b: usize| {
        live.iter()
            .any(|&x| !up_dead[a * s + x] && !down_dead[b * s + x])
    };
    let mut tries = 0;
    while (sc.network.failed_links.len() as u32) < p.failed_links {
        tries += 1;
        if tries > 100 * (p.failed_links + 1) {
            return Err(GenerateError::FailedLinks(p.failed_links));
        }
        let link = LinkRef {
            kind: if rng.below(2) == 0 {
                LinkKind::Up
            } else {
                LinkKind::Down
            },
            tor: rng.below(u64::from(p.tors)) as u32,
            spine: spines[rng.below(spines.len() as u64) as usize],
        };
        let (tor, e) = (
            link.tor as usize,
            link.tor as usize * s + link.spine as usize,
        );
        let ok = match link.kind {
            LinkKind::Up if !up_dead[e] => {
                up_dead[e] = true;
                let ok = to[tor]
                    .iter()
                    .all(|&b| joined(&up_dead, &down_dead, tor, b));
                up_dead[e] = ok;
                ok
            }
            LinkKind::Down if !down_dead[e] => {
                down_dead[e] = true;
                let ok = from[tor]
                    .iter()
                    .all(|&a| joined(&up_dead, &down_dead, a, tor));
                down_dead[e] = ok;
                ok
            }
            // Failed already.
            _ => false,
        };
        if ok {
            sc.network.failed_links.push(link);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_placement() {
        let sc = generate(&Placement::default()).unwrap();
        let inst = sc.instance().unwrap();
        // 64 hosts, 3 jobs of 20 (rings of 4: 5 rings each), 4 hosts idle.
        assert_eq!(sc.jobs.len(), 3);
        assert!(sc
            .jobs
            .iter()
            .all(|j| j.rings.len() == 5 && j.rings.iter().all(|r| r.len() == 4)));
        assert_eq!(inst.flows.len(), 60);
        // Rings join the same rank of each replica: members 5 hosts apart.
        let r = &sc.jobs[0].rings[0];
        assert!(r.windows(2).all(|w| w[1] - w[0] == 5));
        // Seeded: the same input gives the same scenario; failures as asked.
        let p = Placement {
            failed_spines: 1,
            failed_links: 3,
            seed: 7,
            ..Placement::default()
        };
        let a = generate(&p).unwrap();
        assert_eq!(a, generate(&p).unwrap());
        assert_eq!(a.network.failed_spines.len(), 1);
        assert_eq!(a.network.failed_links.len(), 3);
        assert!(generate(&Placement {
            ring_size: 1,
            ..Placement::default()
        })
        .is_err());
        assert!(generate(&Placement {
            failed_spines: 4,
            ..Placement::default()
        })
        .is_err());
    }

    #[test]
    fn failed_links_are_those_of_rebuilding_the_scenario_after_each_one() {
        // The oracle: the former check, rebuilding the scenario after each failed link.
        for (tors, spines, hosts, failed_links, seed) in [
            (8, 4, 8, 6, 1),
            (16, 8, 8, 40, 3),
            (12, 3, 4, 20, 9),
            (6, 2, 4, 5, 2),
        ] {
            let p = Placement {
                tors,
                spines,
                hosts_per_tor: hosts,
                failed_links,
                seed,
                ..Placement::default()
            };
            let fast = generate(&p);
            let mut plain = generate(&Placement {
                failed_links: 0,
                ..p.clone()
            })
            .unwrap();
            // Replay the random choices as generate makes them.
            let mut rng = Rng(p.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let total = tors * hosts;
            let per_job = total / p.jobs / p.ring_size * p.ring_size;
            rng.below(u64::from(total - per_job * p.jobs) + 1);
            let mut live: Vec<u32> = (0..spines).collect();
            for _ in 0..p.failed_spines {
                let k = rng.below(live.len() as u64) as usize;
                live.remove(k);
            }
            let mut tries = 0;
            let mut gave_up = false;
            while (plain.network.failed_links.len() as u32) < failed_links {
                tries += 1;
                if tries > 100 * (failed_links + 1) {
                    gave_up = true;
                    break;
                }
                let link = LinkRef {
                    kind: if rng.below(2) == 0 {
                        LinkKind::Up
                    } else {
                        LinkKind::Down
                    },
                    tor: rng.below(u64::from(tors)) as u32,
                    spine: live[rng.below(live.len() as u64) as usize],
                };
                if plain.network.failed_links.contains(&link) {
                    continue;
                }
                plain.network.failed_links.push(link);
                if plain.instance().is_err() {
                    plain.network.failed_links.pop();
                }
            }
            match fast {
                Ok(sc) => assert_eq!(sc, plain, "{p:?}"),
                Err(_) => assert!(gave_up, "{p:?}"),
            }
        }
    }
}
