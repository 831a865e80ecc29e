//! Issue 17's speed target: the co-design of GPT-3 175B on 4,096 NPUs over every shape within the
//! tier limits (74 shapes of LIBRA's kinds), every parallelism, micro-batch and lay order, at 17
//! budgets, in at most 0.5 s natively; issue 35's: DeepSeek-V3 on 2,048 NPUs (LIBRA's kinds of
//! shapes, 17 budgets, every EP and interleaving) within 2 s.

use criterion::{criterion_group, criterion_main, Criterion};
use libra_studio::analysis::shapes::libra_layouts;
use libra_studio::codesign::{CodesignRun, CodesignSetup, ModelPreset, ShapeSpace};
use libra_studio::optimize::sweep::budget_range;
use libra_studio::presets;
use std::hint::black_box;

fn benches(c: &mut Criterion) {
    let setup = CodesignSetup::of_preset(
        ModelPreset::Gpt3,
        4096,
        presets::libra_4d_cost_model(),
        ShapeSpace::WithinLimits(libra_layouts()),
        budget_range(1e6, 1e8, 17),
    );
    let mut group = c.benchmark_group("codesign");
    group.sample_size(10);
    group.bench_function("GPT-3 175B on 4096 NPUs, 74 shapes, 17 budgets", |b| {
        b.iter(|| CodesignRun::new(black_box(&setup)).unwrap().run())
    });
    let deepseek = CodesignSetup::of_preset(
        ModelPreset::DeepseekV3,
        2048,
        presets::libra_4d_cost_model(),
        ShapeSpace::WithinLimits(libra_layouts()),
        budget_range(1e6, 1e8, 17),
    );
    group.bench_function("DeepSeek-V3 on 2048 NPUs, 17 budgets", |b| {
        b.iter(|| CodesignRun::new(black_box(&deepseek)).unwrap().run())
    });
    group.finish();
}

criterion_group!(codesign, benches);
criterion_main!(codesign);
