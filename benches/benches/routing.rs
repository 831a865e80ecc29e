//! The routing targets of docs/design.md section 7, at the paper's scale (64 ToRs x 32 spines, 2048
//! hosts, every flow of the generated rings): ECMP or greedy routing plus max-min fair rates
//! (<= 5 ms native), and the fluid simulation of one All-Reduce round (<= 200 ms native).

use criterion::{criterion_group, criterion_main, Criterion};
use libra_studio::routing::fluid::fluid_times;
use libra_studio::routing::generate::{generate, Placement};
use libra_studio::routing::metrics::rates;
use libra_studio::routing::{ecmp, greedy};
use std::hint::black_box;

fn benches(c: &mut Criterion) {
    let sc = generate(&Placement {
        tors: 64,
        spines: 32,
        hosts_per_tor: 32,
        jobs: 4,
        ring_size: 8,
        ..Placement::default()
    })
    .unwrap();
    let inst = sc.instance().unwrap();
    c.bench_function("ECMP + max-min rates, 64x32 Clos, 2048 flows", |b| {
        b.iter(|| rates(black_box(&inst), &ecmp(&inst)))
    });
    c.bench_function("greedy + max-min rates, 64x32 Clos, 2048 flows", |b| {
        b.iter(|| rates(black_box(&inst), &greedy(&inst)))
    });
    let paths = greedy(&inst).paths(&inst);
    let mut group = c.benchmark_group("fluid");
    group.sample_size(10);
    // The exact optimizer, flow-lex, on the generator's default scenario (8 ToRs x 4 spines, 3
    // jobs, 60 flows): proven by the counting bound.
    let default = generate(&Placement::default()).unwrap().instance().unwrap();
    group.bench_function("optimal flow-lex, generator default (8x4, 60 flows)", |b| {
        b.iter(|| {
            let o = libra_studio::routing::exact::optimize(
                black_box(&default),
                libra_studio::routing::exact::Objective::FlowLex,
                10_000_000,
            );
            assert!(o.proven);
        })
    });
    group.bench_function("fluid All-Reduce (greedy), 64x32 Clos, 2048 flows", |b| {
        b.iter(|| fluid_times(black_box(&inst), &paths))
    });
    group.bench_function("fluid All-Reduce (ECMP), 64x32 Clos, 2048 flows", |b| {
        let paths = ecmp(&inst).paths(&inst);
        b.iter(|| fluid_times(black_box(&inst), &paths))
    });
    group.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
