//! The routing paper's grid at its scale (64 ToRs x 32 spines, 32 NICs per ToR): jobs 1/3/5,
//! rings of 2/4/8 and 0/1/4/8 failed spines, the exact optimizer on each objective. Prints the
//! median time of 5 runs (natively, this process) and whether it proved its answer, as the
//! Markdown table of README ("Routing"). Target: every cell proven within 100 ms.
//! `cargo bench -p libra-bench --bench paper_grid`.

use libra_studio::routing::exact::{optimize_watched, Objective};
use libra_studio::routing::generate::{generate, Placement};
use std::time::Instant;

const RUNS: usize = 5;
/// A search still running after this is stopped (its cell says so): far beyond the target.
const LIMIT_S: f64 = 2.0;

fn main() {
    let objectives = [
        ("min-max-link-load", Objective::MinMaxLinkLoad),
        ("min-makespan", Objective::MinMakespan),
        ("flow-lex", Objective::FlowLex),
        ("job-lex", Objective::JobLex),
    ];
    println!(
        "| jobs | ring | failed spines | flows | {} |",
        objectives.map(|o| o.0).join(" | ")
    );
    println!("|---|---|---|---|{}", "---|".repeat(objectives.len()));
    let (mut worst, mut unproven) = (0.0f64, 0);
    for jobs in [1, 3, 5] {
        for ring in [2, 4, 8] {
            for failed in [0, 1, 4, 8] {
                let p = Placement::paper(jobs, ring, failed);
                let inst = generate(&p).unwrap().instance().unwrap();
                let flows = inst.flows.iter().filter(|f| f.inter_tor()).count();
                let cells: Vec<String> = objectives
                    .iter()
                    .map(|&(_, objective)| {
                        let mut ms = Vec::new();
                        let mut proven = true;
                        for _ in 0..RUNS {
                            let t0 = Instant::now();
                            let o = optimize_watched(&inst, objective, 10_000_000, &mut |_| {
                                t0.elapsed().as_secs_f64() < LIMIT_S
                            });
                            ms.push(t0.elapsed().as_secs_f64() * 1e3);
                            proven &= o.proven;
                            if o.stopped {
                                break;
                            }
                        }
                        ms.sort_by(f64::total_cmp);
                        let median = ms[ms.len() / 2];
                        worst = worst.max(median);
                        if !proven {
                            unproven += 1;
                        }
                        if ms.len() < RUNS {
                            format!("stopped at {LIMIT_S} s (not proven)")
                        } else {
                            format!(
                                "{median:.1} ms{}",
                                if proven { "" } else { " (not proven)" }
                            )
                        }
                    })
                    .collect();
                println!(
                    "| {jobs} | {ring} | {failed} | {flows} | {} |",
                    cells.join(" | ")
                );
            }
        }
    }
    println!("\nworst median {worst:.1} ms; {unproven} cells not proven");
}
