//! Permalinks: the round trip is exact on random scenarios (custom networks, tiers, workloads,
//! constraints, objectives, model options; LIBRA's presets by name), and the decoder returns an error,
//! never panics, on random text, on valid-alphabet garbage, on random DEFLATE streams and on mutated
//! real links (a seeded generator, so a failure reproduces).

use libra_studio::model::communicator::Communicator;
use libra_studio::model::cost::{CostModel, CostTier};
use libra_studio::model::network::{Dim, Network, Topology};
use libra_studio::model::scenario::{Objective, Scenario, TotalBandwidth, WorkloadSpec};
use libra_studio::model::workload::{Collective, Layer, Phase, Workload};
use libra_studio::model::{DimCombine, TrainingLoop};
use libra_studio::permalink::{decode, encode};
use libra_studio::presets::{self, LibraNetwork, LibraWorkload};

mod common;
use common::Rng;

/// A finite number of any magnitude, with all 53 bits of mantissa used.
fn number(rng: &mut Rng) -> f64 {
    let mantissa = rng.range(0.0, 1.0);
    let exp = rng.below(40) as i32 - 20;
    mantissa * 10f64.powi(exp)
}

fn maybe(rng: &mut Rng, f: impl FnOnce(&mut Rng) -> f64) -> Option<f64> {
    (rng.below(2) == 0).then(|| f(rng))
}

fn text(rng: &mut Rng) -> String {
    const CHARS: &[&str] = &["a", "Z", "_", "-", " ", "é", "\"", "<b>", "\\", "💡", "9"];
    (0..rng.below(12))
        .map(|_| CHARS[rng.below(CHARS.len())])
        .collect()
}

fn phase(rng: &mut Rng) -> Phase {
    Phase {
        compute_ns: number(rng),
        collective: Collective::ALL[rng.below(Collective::ALL.len())],
        size_bytes: number(rng),
        count: 1 + rng.below(3) as u32,
        over: Default::default(),
    }
}

fn random_scenario(rng: &mut Rng) -> Scenario {
    let net = LibraNetwork::ALL[rng.below(2)];
    let mut sc = presets::libra_scenario(LibraWorkload::ALL[rng.below(5)], net);
    sc.name = text(rng);
    if rng.below(2) == 0 {
        let dims = 1 + rng.below(5);
        sc.network = Network {
            dims: (0..dims)
                .map(|i| Dim {
                    topology: Topology::ALL[rng.below(3)],
                    npus: 1 + rng.below(100) as u32,
                    tier: format!("t{}", i % 3),
                    latency_ns: number(rng),
                })
                .collect(),
        };
        sc.costs = CostModel {
            tiers: (0..3)
                .map(|i| CostTier {
                    name: format!("t{i}"),
                    link: number(rng),
                    switch: maybe(rng, number),
                    nic: maybe(rng, number),
                    max_npus: (rng.below(2) == 0).then(|| 2 + rng.below(100) as u32),
                    latency_ns: number(rng),
                    max_gbps: maybe(rng, number),
                    oversubscription: (rng.below(2) == 0).then(|| 1.0 + number(rng)),
                    in_network_usd: maybe(rng, number),
                })
                .collect(),
        };
    }
    let dims = sc.network.dims.len();
    // A second workload: a preset with a weight, or a custom one.
    if rng.below(2) == 0 {
        let mut w = LibraWorkload::ALL[rng.below(5)].spec(LibraNetwork::ALL[rng.below(2)]);
        w.weight = number(rng);
        sc.workloads.push(w);
    } else {
        let groups = |rng: &mut Rng| {
            (0..dims)
                .map(|_| (rng.below(2) == 0).then(|| 2 + rng.below(9) as u32))
                .collect::<Vec<_>>()
        };
        sc.workloads.push(WorkloadSpec {
            name: text(rng),
            weight: number(rng),
            workload: Workload {
                parallelism: (rng.below(2) == 0).then(|| text(rng)),
                layers: (0..1 + rng.below(30))
                    .map(|i| Layer {
                        name: format!("layer{i}"),
                        reserved: rng.below(3) as i64 - 1,
                        forward: phase(rng),
                        input_grad: phase(rng),
                        weight_grad: phase(rng),
                        update_ns: number(rng),
                    })
                    .collect(),
            },
            communicator: Communicator {
                forward: groups(rng),
                input_grad: groups(rng),
                weight_grad: groups(rng),
                pipeline: if rng.below(2) == 0 {
                    Vec::new()
                } else {
                    groups(rng)
                },
                ..Default::default()
            },
        });
    }
    let c = &mut sc.constraints;
    c.total_bw = match rng.below(3) {
        0 => None,
        1 => Some(TotalBandwidth::Equal(number(rng))),
        _ => Some(TotalBandwidth::AtMost(number(rng))),
    };
    c.budget_usd = maybe(rng, number);
    if rng.below(2) == 0 {
        c.min_gbps = (0..dims).map(|_| maybe(rng, number)).collect();
        c.max_gbps = (0..dims).map(|_| maybe(rng, number)).collect();
    }
    c.linear = (0..rng.below(4)).map(|_| text(rng)).collect();
    sc.objective = match rng.below(3) {
        0 => Objective::Time,
        1 => Objective::TimeXCost,
        _ => Objective::Cost {
            time_target_ns: number(rng),
        },
    };
    sc.model.combine = [DimCombine::Max, DimCombine::Sum][rng.below(2)];
    sc.model.latency = rng.below(2) == 0;
    if rng.below(2) == 0 {
        sc.efficiency = (0..dims)
            .map(|_| maybe(rng, |r| r.range(0.01, 1.0)))
            .collect();
    }
    sc.model.training_loop =
        [TrainingLoop::NoOverlap, TrainingLoop::OverlapWeightGrad][rng.below(2)];
    sc
}

#[test]
fn round_trip_is_exact_on_random_scenarios() {
    let mut rng = Rng(0x5eed_0001);
    for case in 0..500 {
        let sc = random_scenario(&mut rng);
        let link = encode(&sc);
        assert!(
            link.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"#=-_".contains(&b)),
            "case {case}: {link}"
        );
        let back = decode(&link).unwrap_or_else(|e| panic!("case {case}: {e}"));
        assert_eq!(back, sc, "case {case}");
    }
}

#[test]
fn every_builtin_scenario_has_a_short_link() {
    for w in LibraWorkload::ALL {
        for n in LibraNetwork::ALL {
            let sc = presets::libra_scenario(w, n);
            let link = encode(&sc);
            assert!(
                link.len() < 400,
                "{} {}: {}",
                w.name(),
                n.name(),
                link.len()
            );
            assert_eq!(decode(&link).unwrap(), sc);
        }
    }
}

const LINK_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

#[test]
fn the_decoder_never_panics() {
    let mut rng = Rng(0x5eed_0002);
    let links: Vec<String> = (0..20)
        .map(|_| encode(&random_scenario(&mut rng)))
        .collect();
    for _ in 0..20_000 {
        let input: String = match rng.below(4) {
            // Any text.
            0 => (0..rng.below(200))
                .map(|_| char::from_u32(rng.below(0x3000) as u32).unwrap_or('?'))
                .collect(),
            // The right envelope and alphabet, random content (random DEFLATE blocks).
            1 => format!(
                "#v1={}",
                (0..rng.below(600))
                    .map(|_| LINK_CHARS[rng.below(64)] as char)
                    .collect::<String>()
            ),
            // A real link, mutated: characters replaced, removed, or the end cut off.
            _ => {
                let mut b = links[rng.below(links.len())].clone().into_bytes();
                for _ in 0..1 + rng.below(4) {
                    let at = 4 + rng.below(b.len() - 4);
                    match rng.below(3) {
                        0 => b[at] = LINK_CHARS[rng.below(64)],
                        1 => {
                            b.remove(at);
                        }
                        _ => b.truncate(at),
                    }
                    if b.len() <= 5 {
                        break;
                    }
                }
                String::from_utf8(b).unwrap()
            }
        };
        let _ = decode(&input);
    }
}
