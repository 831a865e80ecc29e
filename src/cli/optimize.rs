//! `libra-studio optimize` and `libra-studio pareto`.

use super::args::{ArgError, Args};
use super::inputs::{self, SCENARIO_FLAGS, SCENARIO_OPTIONS};
use super::Failure;
use crate::model::scenario::{Objective, Scenario, TotalBandwidth};
use crate::optimize::sweep::{budget_range, pareto as sweep_pareto, uniform};
use crate::optimize::{compile, solve, Method, SolveOptions};
use serde::Serialize;
use std::ffi::OsString;
use std::time::Instant;

const CONSTRAINT_OPTIONS: [&str; 11] = [
    "efficiency",
    "method",
    "total-bw",
    "total-bw-max",
    "budget",
    "min",
    "max",
    "constraint",
    "objective",
    "time-target",
    "gap",
];

fn number(option: &str, text: &str) -> Result<f64, ArgError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| ArgError::Bad {
            option: option.into(),
            message: format!("expected a number, got \"{text}\""),
        })
}

/// `LO:HI:N`: N budgets from LO to HI $, log-spaced (see `budget_range`).
pub fn budget_list(option: &str, spec: &str) -> Result<Vec<f64>, ArgError> {
    let bad = || ArgError::Bad {
        option: option.into(),
        message: format!("expected LO:HI:N with 0 < LO <= HI and N >= 1, got \"{spec}\""),
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let [lo, hi, n] = parts[..] else {
        return Err(bad());
    };
    let (lo, hi) = (number(option, lo)?, number(option, hi)?);
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    let wrong = |message: &str| ArgError::Bad {
        option: option.into(),
        message: format!("{message}, got \"{spec}\""),
    };
    if !(lo > 0.0 && lo.is_finite()) {
        return Err(wrong("LO (the first of LO:HI:N) must be a positive number"));
    }
    if !(hi >= lo && hi.is_finite()) {
        return Err(wrong(
            "HI must be at least LO (LO:HI:N runs from LO up to HI)",
        ));
    }
    if !(1..=10_000).contains(&n) {
        return Err(wrong("N (budgets in the range) must be from 1 to 10,000"));
    }
    Ok(budget_range(lo, hi, n))
}

/// A positive finite number of `what` (e.g. "$").
pub fn positive(option: &str, text: &str, what: &str) -> Result<f64, ArgError> {
    number(option, text)?;
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| ArgError::Bad {
            option: option.into(),
            message: format!("expected a positive number of {what}, got \"{text}\""),
        })
}

/// `D=V` with D a 1-based dimension.
fn bound(option: &str, text: &str, dims: usize) -> Result<(usize, f64), ArgError> {
    let bad = |message: String| ArgError::Bad {
        option: option.into(),
        message,
    };
    let (d, v) = text
        .split_once('=')
        .ok_or_else(|| bad(format!("expected DIM=GBPS, e.g. 2=50, got \"{text}\"")))?;
    let d: usize = d
        .trim()
        .trim_start_matches(['B', 'b'])
        .parse()
        .map_err(|_| bad(format!("\"{d}\" is not a dimension number")))?;
    if d == 0 || d > dims {
        return Err(bad(format!("dimension {d} does not exist (1 to {dims})")));
    }
    Ok((d, number(option, v)?))
}

/// Apply the constraint and objective options to the scenario.
fn constrain(sc: &mut Scenario, args: &Args) -> Result<(), ArgError> {
    let dims = sc.network.dims.len();
    if let Some(t) = args.one("total-bw")? {
        sc.constraints.total_bw = Some(TotalBandwidth::Equal(number("total-bw", t)?));
    }
    if let Some(t) = args.one("total-bw-max")? {
        if args.has("total-bw") {
            return Err(ArgError::Bad {
                option: "total-bw-max".into(),
                message: "give --total-bw or --total-bw-max, not both".into(),
            });
        }
        sc.constraints.total_bw = Some(TotalBandwidth::AtMost(number("total-bw-max", t)?));
    }
    if let Some(b) = args.one("budget")? {
        sc.constraints.budget_usd = Some(number("budget", b)?);
    }
    for text in args.all("efficiency")? {
        let (d, v) = bound("efficiency", text, dims)?;
        sc.efficiency.resize(dims, None);
        sc.efficiency[d - 1] = Some(v);
    }
    for (option, field) in [("min", 0), ("max", 1)] {
        for text in args.all(option)? {
            let (d, v) = bound(option, text, dims)?;
            let list = if field == 0 {
                &mut sc.constraints.min_gbps
            } else {
                &mut sc.constraints.max_gbps
            };
            list.resize(dims, None);
            list[d - 1] = Some(v);
        }
    }
    sc.constraints
        .linear
        .extend(args.all("constraint")?.into_iter().map(String::from));
    let target = args
        .one("time-target")?
        .map(|t| number("time-target", t))
        .transpose()?;
    if let Some(o) = args.one("objective")? {
        sc.objective = match o {
            "time" => Objective::Time,
            "time-x-cost" => Objective::TimeXCost,
            "cost" => Objective::Cost {
                time_target_ns: target.ok_or(ArgError::Required("time-target"))?,
            },
            _ => {
                return Err(ArgError::Bad {
                    option: "objective".into(),
                    message: format!("expected time, time-x-cost or cost, got \"{o}\""),
                })
            }
        };
    } else if target.is_some() {
        return Err(ArgError::Bad {
            option: "time-target".into(),
            message: "only used with --objective cost".into(),
        });
    }
    Ok(())
}

fn options(args: &Args) -> Result<SolveOptions, ArgError> {
    let mut opts = SolveOptions::default();
    if let Some(g) = args.one("gap")? {
        let g = number("gap", g)?;
        if !(g > 0.0 && g < 1.0) {
            return Err(ArgError::Bad {
                option: "gap".into(),
                message: format!("the relative gap must be in (0, 1), got {g}"),
            });
        }
        opts.rel_gap = g;
    }
    if let Some(m) = args.one("method")? {
        opts.method = Method::from_key(m).ok_or_else(|| ArgError::Bad {
            option: "method".into(),
            message: format!(
                "unknown method '{m}': {}",
                Method::ALL.map(|m| m.key()).join(", ")
            ),
        })?;
    }
    Ok(opts)
}

fn parse(args: &[OsString], extra: &[&str], flags: &[&str]) -> Result<Args, ArgError> {
    let valued: Vec<&str> = SCENARIO_OPTIONS
        .iter()
        .chain(&CONSTRAINT_OPTIONS)
        .chain(extra)
        .copied()
        .collect();
    let flags: Vec<&str> = SCENARIO_FLAGS.iter().chain(flags).copied().collect();
    let args = Args::parse(args, &valued, &flags)?;
    args.no_positional()?;
    Ok(args)
}

/// `optimize`: the optimal bandwidths as JSON.
pub fn optimize(args: &[OsString]) -> Result<String, Failure> {
    let args = parse(args, &[], &["timings"])?;
    let mut sc = inputs::scenario(&args)?;
    constrain(&mut sc, &args)?;
    let opts = options(&args)?;
    let problem = compile(&sc).map_err(Failure::input)?;
    let started = Instant::now();
    let s = solve(&problem, &opts).map_err(Failure::input)?;
    let solve_us = started.elapsed().as_secs_f64() * 1e6;
    let base = uniform(&problem).map(|bw| {
        let time_ns = problem.time(&bw);
        UniformReport {
            time_ns,
            cost_usd: problem.cost(&bw),
            speedup: time_ns / s.time_ns,
            bw_gbps: bw,
        }
    });
    let patterns = problem
        .patterns
        .iter()
        .zip(&s.bounding_dim)
        .map(|(p, d)| PatternReport {
            label: &p.label,
            weight: p.weight,
            bytes_per_dim: &p.a,
            bounding_dim: d.map(|d| d + 1),
        })
        .collect();
    let report = OptimizeReport {
        scenario: &sc.name,
        objective: &sc.objective,
        bw_gbps: &s.bw_gbps,
        time_ns: s.time_ns,
        cost_usd: s.cost_usd,
        objective_value: s.objective_value,
        lower_bound: s.lower_bound,
        gap: s.gap,
        method: opts.method.key(),
        iterations: s.iterations,
        idle_dims: s.idle_dims.iter().map(|d| d + 1).collect(),
        uniform: base,
        patterns,
        // Wall time differs from run to run: only on request, so that repeated runs diff clean.
        solve_us: args.flag("timings").then_some(solve_us),
    };
    Ok(serde_json::to_string_pretty(&report).expect("json"))
}

/// What `optimize` prints (dimensions numbered from 1).
#[derive(Serialize)]
struct OptimizeReport<'a> {
    scenario: &'a str,
    objective: &'a Objective,
    bw_gbps: &'a [f64],
    time_ns: f64,
    cost_usd: f64,
    objective_value: f64,
    lower_bound: f64,
    /// Certified: `(value - lower_bound) / value`.
    gap: f64,
    method: &'static str,
    iterations: usize,
    idle_dims: Vec<usize>,
    uniform: Option<UniformReport>,
    patterns: Vec<PatternReport<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    solve_us: Option<f64>,
}

/// The uniform split of the same total, for comparison.
#[derive(Serialize)]
struct UniformReport {
    bw_gbps: Vec<f64>,
    time_ns: f64,
    cost_usd: f64,
    /// Its time over the optimum's.
    speedup: f64,
}

/// One compiled pattern and the dimension that bounds it at the optimum.
#[derive(Serialize)]
struct PatternReport<'a> {
    label: &'a str,
    weight: f64,
    bytes_per_dim: &'a [f64],
    bounding_dim: Option<usize>,
}

/// `pareto`: the front of cost against time over `--budgets LO:HI:N`, as JSON or CSV.
pub fn pareto(args: &[OsString]) -> Result<String, Failure> {
    let args = parse(args, &["budgets"], &["csv"])?;
    let mut sc = inputs::scenario(&args)?;
    constrain(&mut sc, &args)?;
    let opts = options(&args)?;
    let budgets = budget_list("budgets", args.required("budgets")?)?;
    let problem = compile(&sc).map_err(Failure::input)?;
    let front = sweep_pareto(&problem, &budgets, &opts).map_err(Failure::input)?;
    if args.flag("csv") {
        return Ok(front.to_csv(problem.dims));
    }
    let report = ParetoReport {
        scenario: &sc.name,
        points: &front.points,
        infeasible_budgets: &front.infeasible_budgets,
    };
    Ok(serde_json::to_string_pretty(&report).expect("json"))
}

/// What `pareto` prints: the front's designs, and the budgets no design meets.
#[derive(Serialize)]
struct ParetoReport<'a> {
    scenario: &'a str,
    points: &'a [crate::optimize::sweep::FrontPoint],
    infeasible_budgets: &'a [f64],
}
