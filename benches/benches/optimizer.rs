//! The speed targets of docs/design.md section 7: one solve of LIBRA's GPT-3 4D scenario (<= 20 us
//! native), a 64-point Pareto front (<= 1 ms), compile of a 100,000-layer workload (< 50 ms).

use criterion::{criterion_group, criterion_main, Criterion};
use libra_studio::analysis::shapes;
use libra_studio::model::scenario::Scenario;
use libra_studio::optimize::sweep::{budget_range, pareto};
use libra_studio::optimize::{compile, solve, SolveOptions};
use libra_studio::presets;
use std::hint::black_box;

fn front_scenario() -> Scenario {
    let mut sc = presets::default_scenario();
    sc.constraints.total_bw = None;
    sc.constraints.min_gbps = vec![Some(1.0); 4];
    sc
}

fn benches(c: &mut Criterion) {
    let problem = compile(&presets::default_scenario()).unwrap();
    let opts = SolveOptions::default();
    c.bench_function("solve GPT-3 4D, total 500 GB/s, gap 1e-6", |b| {
        b.iter(|| solve(black_box(&problem), &opts).unwrap())
    });

    let front = compile(&front_scenario()).unwrap();
    let budgets = budget_range(8e6, 8e7, 64);
    c.bench_function("pareto front, 64 budgets", |b| {
        b.iter(|| pareto(black_box(&front), &budgets, &opts).unwrap())
    });

    let base = presets::default_scenario();
    let all = shapes::enumerate(4096, &shapes::libra_layouts(), &base.costs);
    let few = budget_range(2e7, 2e8, 16);
    c.bench_function(
        "74 shapes of 4096 NPUs within the tier limits, 16 budgets each",
        |b| b.iter(|| shapes::compare(&base, black_box(&all), &few, 1.0, &opts)),
    );

    let study = libra_studio::analysis::study::study(&presets::default_scenario()).unwrap();
    c.bench_function("landscape of d1 x d2, 32 x 32 solves", |b| {
        b.iter(|| {
            libra_studio::analysis::landscape::landscape(black_box(&study), 0, 1, 32).unwrap()
        })
    });

    let mut big = presets::default_scenario();
    let layers = big.workloads[0].workload.layers.clone();
    let mut all = Vec::with_capacity(100_000);
    while all.len() < 100_000 {
        all.extend(layers.iter().cloned());
    }
    all.truncate(100_000);
    big.workloads[0].workload.layers = all;
    c.bench_function("compile 100,000 layers", |b| {
        b.iter(|| compile(black_box(&big)).unwrap())
    });
}

criterion_group!(group, benches);
criterion_main!(group);
