//! Explanations of a study's numbers in plain words, with the formula and the current values
//! substituted: the training time, the network cost, the speedup, the certificate, and why each
//! dimension gets its bandwidth (the collectives it carries, their sizes, and what one more GB/s
//! would save).

use super::study::Study;
use crate::format::{duration_ns, usd};

/// "125 GB/s" (two decimals below 100).
fn gbps(v: f64) -> String {
    match v >= 100.0 {
        true => format!("{v:.0} GB/s"),
        false => format!("{v:.2} GB/s"),
    }
}
use crate::model::scenario::Objective;
use crate::model::CostComponent;

/// One explained number.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// What is explained, e.g. "d4 Switch: 18.78 GB/s".
    pub title: String,
    /// Plain-words sentences.
    pub text: String,
    /// The formula with the current values substituted.
    pub formula: String,
}

/// Bytes in a readable unit.
fn bytes(b: f64) -> String {
    match b {
        b if b >= 1e9 => format!("{:.2} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.2} MB", b / 1e6),
        b if b >= 1e3 => format!("{:.2} kB", b / 1e3),
        b => format!("{b:.0} B"),
    }
}

/// A dimension "sets the pace" of a pattern when its time there is within this fraction of the
/// pattern's slowest dimension.
pub const PACE_TOLERANCE: f64 = 1e-3;

/// One collective pattern as one dimension sees it at the optimum.
#[derive(Clone, Debug, PartialEq)]
pub struct Carried {
    pub label: String,
    /// Bytes per NPU per iteration on the dimension, `w a_d`.
    pub bytes: f64,
    /// Weighted time on the dimension, `w a_d / B_d` (ns, latency excluded).
    pub time_ns: f64,
    /// The pattern's time, its slowest dimension's (ns, weighted).
    pub pattern_ns: f64,
    /// True when the dimension is (within [`PACE_TOLERANCE`]) the pattern's slowest.
    pub sets_pace: bool,
}

/// The patterns dimension `d` carries at the optimum, largest first.
pub fn carried(study: &Study, d: usize) -> Vec<Carried> {
    let bw = &study.optimum.bw_gbps;
    let out: Vec<Carried> = study
        .problem
        .patterns
        .iter()
        .filter(|p| p.a[d] > 0.0)
        .map(|p| {
            let own = p.alpha[d] + p.a[d] / bw[d];
            let max = p.time(bw).0;
            Carried {
                label: p.label.clone(),
                bytes: p.weight * p.a[d],
                time_ns: p.weight * p.a[d] / bw[d],
                pattern_ns: p.weight * max,
                sets_pace: own >= max * (1.0 - PACE_TOLERANCE),
            }
        })
        .collect();
    crate::order::sorted_by_key(out, |c| -c.time_ns)
}

/// One short sentence for a screen reader after each recompute (the panel itself is not read
/// out): "Optimum: 722.41 ms per iteration, $2.85M, 1.58× faster than the uniform split."
pub fn summary(study: &Study) -> String {
    let ev = &study.evaluation;
    let versus = study
        .speedup()
        .map(|x| format!(", {x:.2}× faster than the uniform split"))
        .unwrap_or_default();
    format!(
        "Optimum: {} per iteration, {}{versus}.",
        duration_ns(ev.time_ns),
        usd(ev.cost_usd)
    )
}

/// One headline number of the results: what it is, its value as shown, and the line under it that
/// says what it is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    pub title: &'static str,
    /// The glossary entry its title links to (`crate::glossary`), if any.
    pub term: Option<&'static str>,
    /// The page's `data-testid` of the value.
    pub testid: &'static str,
    /// The exact value (`data-value`), NaN when there is none.
    pub value: f64,
    pub shown: String,
    pub detail: String,
}

/// A certified gap as shown: 0 below 1e-15, else in scientific notation.
pub fn gap_text(gap: f64) -> String {
    if gap < 1e-15 {
        "0".to_string()
    } else {
        format!("{gap:.1e}")
    }
}

/// The four headline numbers of a study: training time, network cost, speedup over the uniform
/// split, and the certified gap, each with what it is made of.
pub fn headline_metrics(s: &Study) -> [Metric; 4] {
    let ev = &s.evaluation;
    let comm = ev.time_ns - ev.compute_ns;
    let components = CostComponent::ALL
        .map(|c| {
            let total: f64 = ev.cost.dims.iter().map(|d| d.usd(c)).sum();
            format!("{} {}", c.label(), usd(total))
        })
        .join(" · ");
    let speedup = s.speedup();
    let uniform = s.uniform.as_ref().map_or_else(
        || "no uniform split satisfies the constraints".to_string(),
        |u| {
            format!(
                "uniform split: {} per dimension, {} at {}",
                gbps(u.bw_gbps.first().copied().unwrap_or(0.0)),
                duration_ns(u.evaluation.time_ns),
                usd(u.evaluation.cost_usd)
            )
        },
    );
    let objective = match s.problem.objective {
        Objective::Time => "minimizing training time".to_string(),
        Objective::TimeXCost => format!(
            "minimizing time × cost: {:.6} (ns·$/1e10, as LIBRA)",
            ev.time_x_cost()
        ),
        Objective::Cost { time_target_ns } => {
            format!("minimizing cost for time ≤ {}", duration_ns(time_target_ns))
        }
    };
    [
        Metric {
            title: "Training time per iteration",
            term: None,
            testid: "result-time-ns",
            value: ev.time_ns,
            shown: duration_ns(ev.time_ns),
            detail: format!(
                "compute {} + exposed communication {}",
                duration_ns(ev.compute_ns),
                duration_ns(comm)
            ),
        },
        Metric {
            title: "Network cost",
            term: Some("tier"),
            testid: "result-cost-usd",
            value: ev.cost_usd,
            shown: usd(ev.cost_usd),
            detail: components,
        },
        Metric {
            title: "Speedup over uniform",
            term: Some("uniform"),
            testid: "result-speedup",
            value: speedup.unwrap_or(f64::NAN),
            shown: speedup.map_or("—".to_string(), |x| format!("{x:.4}×")),
            detail: uniform,
        },
        Metric {
            title: "Certified optimality gap",
            term: Some("optimum"),
            testid: "result-gap",
            value: s.optimum.gap,
            shown: gap_text(s.optimum.gap),
            detail: match s.optimum.iterations {
                // Found directly: a closed form (one row prices every bandwidth) or a nearby
                // solve's active set. The Landscape's path, from the uniform split, shows the
                // steps the method takes from there.
                0 => format!(
                    "proven: no design is better by more than this fraction; {objective}; found \
                     directly, without {} (the Landscape shows them from the uniform split)",
                    s.method.step_name()
                ),
                n => format!(
                    "proven: no design is better by more than this fraction; {objective}; {n} {} \
                     of the {} method",
                    s.method.step_name(),
                    s.method.label().to_lowercase()
                ),
            },
        },
    ]
}

/// The headline numbers explained.
pub fn explain_results(study: &Study) -> Vec<Explanation> {
    let ev = &study.evaluation;
    let comm = ev.time_ns - ev.compute_ns;
    let p = &study.problem;
    let bw = &study.optimum.bw_gbps;
    let cost_terms: Vec<String> = p
        .cost_per_gbps
        .iter()
        .zip(bw)
        .map(|(c, b)| format!("{} × {b:.2}", usd(*c)))
        .collect();
    let mut out = vec![
        Explanation {
            title: format!("Training time: {}", duration_ns(ev.time_ns)),
            text: format!(
                "One training iteration is its compute plus the communication that is not hidden behind \
                 it. Each collective runs over the dimensions it spans, pipelined, so it takes as long as \
                 its slowest dimension: bytes on that dimension over its bandwidth. Here compute is {} and \
                 exposed communication {}.",
                duration_ns(ev.compute_ns),
                duration_ns(comm)
            ),
            formula: format!(
                "T = T_compute + Σ_patterns w · max_d (a_d / B_d) = {} + {} = {}",
                duration_ns(ev.compute_ns),
                duration_ns(comm),
                duration_ns(ev.time_ns)
            ),
        },
        Explanation {
            title: format!("Network cost: {}", usd(ev.cost_usd)),
            text: "Links, switches and NICs of every dimension scale with its bandwidth, at the price of \
                   its cost tier, so the cost is linear in the bandwidths: a price per GB/s per NPU times \
                   the bandwidth, summed over the dimensions."
                .to_string(),
            formula: format!(
                "Cost = Σ_d c_d · B_d = {} = {}",
                cost_terms.join(" + "),
                usd(ev.cost_usd)
            ),
        },
    ];
    if let (Some(u), Some(x)) = (&study.uniform, study.speedup()) {
        out.push(Explanation {
            title: format!("Speedup over uniform: {x:.4}×"),
            text: format!(
                "LIBRA's baseline: every dimension at the same bandwidth, the most the \
                 constraints allow ({} here; a loaded front point's budget changes it). The \
                 speedup is how much faster the optimum trains.",
                gbps(u.bw_gbps.first().copied().unwrap_or(0.0))
            ),
            formula: format!(
                "speedup = T_uniform / T_opt = {} / {} = {x:.4}",
                duration_ns(u.evaluation.time_ns),
                duration_ns(ev.time_ns)
            ),
        });
    }
    out.push(Explanation {
        title: format!("Certified gap: {:.1e}", study.optimum.gap),
        text: "The solver proves a lower bound on the best possible objective from its Lagrange \
               multipliers (weak duality). The gap between the design found and that bound is the most \
               any design could improve on it."
            .to_string(),
        formula: format!(
            "gap = (f(B*) − lower bound) / f(B*), lower bound = {:.6e}, f(B*) = {:.6e}",
            study.optimum.lower_bound, study.optimum.objective_value
        ),
    });
    out
}

/// Why each dimension gets its bandwidth.
pub fn explain_dimensions(study: &Study) -> Vec<Explanation> {
    let p = &study.problem;
    let bw = &study.optimum.bw_gbps;
    (0..p.dims)
        .map(|d| {
            let label = &study.dim_labels[d];
            let title = format!("{label}: {:.2} GB/s", bw[d]);
            let n = d + 1;
            let list = carried(study, d);
            let Some(top) = list.first() else {
                return Explanation {
                    title,
                    text: "No collective uses this dimension, so it gets the least bandwidth its \
                           constraints allow."
                        .to_string(),
                    formula: String::new(),
                };
            };
            let pace: Vec<&Carried> = list.iter().filter(|c| c.sets_pace).collect();
            let describe = |c: &Carried| {
                format!(
                    "{} ({} per NPU per iteration, {} here{})",
                    c.label,
                    bytes(c.bytes),
                    duration_ns(c.time_ns),
                    if c.sets_pace { ", the slowest" } else { "" }
                )
            };
            let shown: Vec<String> = list.iter().take(3).map(describe).collect();
            let more = list.len().saturating_sub(3);
            let why = if pace.is_empty() {
                "On none of them is it the slowest dimension, so more bandwidth here would not shorten \
                 the iteration: it gets what the constraints require."
                    .to_string()
            } else {
                format!(
                    "It is the slowest dimension (or tied for slowest) of {} of them: the optimizer gave it \
                     just enough bandwidth to keep pace with the other dimensions those collectives span. \
                     Less would make it their bottleneck; more would be spent without effect unless the \
                     others grow too.",
                    pace.len()
                )
            };
            Explanation {
                title,
                text: format!(
                    "It carries {} collective pattern(s): {}{}. {why}",
                    list.len(),
                    shown.join("; "),
                    if more > 0 { format!("; and {more} more") } else { String::new() },
                ),
                formula: format!(
                    "time on d{n} = bytes / B_{n} = {} / {:.2} GB/s = {} ({})",
                    bytes(top.bytes),
                    bw[d],
                    duration_ns(top.time_ns),
                    top.label
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::study::study;
    use crate::presets;

    #[test]
    fn the_headline_numbers_say_what_they_are_made_of() {
        let s = crate::analysis::study::study(&crate::presets::default_scenario()).unwrap();
        let [time, cost, speedup, gap] = super::headline_metrics(&s);
        assert_eq!(time.value, s.evaluation.time_ns);
        assert!(
            time.detail.starts_with("compute ")
                && time.detail.contains(" + exposed communication ")
        );
        assert_eq!(cost.value, s.evaluation.cost_usd);
        assert!(
            cost.detail.starts_with("links $") && cost.detail.contains(" · switches $"),
            "{}",
            cost.detail
        );
        assert!(cost.detail.contains(" · NICs $"), "{}", cost.detail);
        assert!(speedup.value > 1.0 && speedup.shown.ends_with('×'));
        assert!(speedup
            .detail
            .starts_with("uniform split: 125 GB/s per dimension, "));
        assert_eq!(gap.shown, super::gap_text(s.optimum.gap));
        assert!(
            gap.detail.contains("minimizing training time"),
            "{}",
            gap.detail
        );
        // LIBRA's GPT-3 has one total-bandwidth row: its optimum is found without a step.
        assert_eq!(s.optimum.iterations, 0);
        assert!(
            gap.detail.contains("found directly, without Newton steps")
                && gap
                    .detail
                    .ends_with("(the Landscape shows them from the uniform split)"),
            "{}",
            gap.detail
        );
        assert_eq!(super::gap_text(0.0), "0");
        assert_eq!(super::gap_text(3.2e-7), "3.2e-7");
    }

    #[test]
    fn the_summary_is_one_short_sentence_with_the_headline_numbers() {
        let s = study(&presets::default_scenario()).unwrap();
        let line = summary(&s);
        assert_eq!(
            line,
            format!(
                "Optimum: {} per iteration, {}, 1.07× faster than the uniform split.",
                duration_ns(s.evaluation.time_ns),
                usd(s.evaluation.cost_usd)
            )
        );
        assert!(line.len() < 100, "{line}");
    }

    #[test]
    fn the_default_study_is_explained_with_its_numbers() {
        let s = study(&presets::default_scenario()).unwrap();
        let r = explain_results(&s);
        assert_eq!(r.len(), 4);
        assert!(r[0].formula.ends_with(&duration_ns(s.evaluation.time_ns)));
        assert!(r[2].formula.contains("1.0729"), "{}", r[2].formula);
        let d = explain_dimensions(&s);
        assert_eq!(d.len(), 4);
        assert!(d[3].title.starts_with("d4 Switch: 18.7"), "{}", d[3].title);
        assert!(d[3].formula.contains("/ 18.7"), "{}", d[3].formula);
        // The bytes over the bandwidth are the time (1 GB/s moves one byte per ns).
        for dim in 0..4 {
            for c in carried(&s, dim) {
                let t = c.bytes / s.optimum.bw_gbps[dim];
                assert!((t / c.time_ns - 1.0).abs() < 1e-12);
                assert!(c.bytes > 1e6, "{c:?}");
            }
        }
        // Under sum B = 500 with every dimension busy, each dimension is the slowest of some
        // pattern at the optimum (else it could give bandwidth to the others and save time).
        for (dim, text) in d.iter().enumerate() {
            let c = carried(&s, dim);
            assert!(!c.is_empty());
            assert!(c.iter().any(|c| c.sets_pace), "d{}: {c:?}", dim + 1);
            assert!(c.iter().all(|c| c.time_ns <= c.pattern_ns * (1.0 + 1e-9)));
            assert!(text.text.contains("the slowest"), "{}", text.text);
        }
    }
}
