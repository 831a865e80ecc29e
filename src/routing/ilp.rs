//! The routing paper's ILP in CPLEX LP format, for anyone to check the exact optimizer against
//! their own solver (CBC, HiGHS, Gurobi read it): a binary `x_f_s` for each inter-ToR flow `f` and
//! candidate spine `s`, every flow on exactly one spine, and an integer `z` at least the number of
//! flows on every ToR-spine link; minimize `z`. A scenario with no inter-ToR flow gives the trivial
//! model (minimize `z >= 0`).

use super::scenario::Instance;
use std::fmt::Write;

/// Longest line written (LP readers limit line length; expressions continue on the next line).
const LINE: usize = 200;

/// Sizes of the model: variables (flow-spine pairs plus `z`) and constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IlpSize {
    pub variables: usize,
    pub constraints: usize,
}

/// Append `terms` (e.g. `+ x_0_1`) to `out` after `head`, breaking lines before [`LINE`].
fn expression(out: &mut String, head: &str, terms: impl Iterator<Item = String>, tail: &str) {
    let mut line = String::from(head);
    for t in terms {
        if line.len() + t.len() + 1 > LINE {
            out.push_str(&line);
            out.push('\n');
            line = String::from("   ");
        }
        line.push(' ');
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push_str(tail);
    out.push('\n');
}

/// The most flow-spine variables an export writes (2^24: a file of several hundred MB).
pub const MAX_LP_VARIABLES: usize = 1 << 24;

/// The ILP of `inst` in CPLEX LP format, and its size; refused beyond [`MAX_LP_VARIABLES`].
pub fn to_lp(inst: &Instance) -> Result<(String, IlpSize), crate::limits::LimitError> {
    let variables: usize = inst
        .flows
        .iter()
        .filter(|f| f.inter_tor())
        .map(|f| f.candidates.len())
        .sum();
    crate::limits::at_most(
        "the ILP",
        "flow-spine variables",
        variables as u64,
        MAX_LP_VARIABLES as u64,
    )?;
    Ok(write_lp(inst))
}

fn write_lp(inst: &Instance) -> (String, IlpSize) {
    let fabric = &inst.fabric;
    let flows: Vec<_> = inst
        .flows
        .iter()
        .filter(|f| f.inter_tor() && !f.candidates.is_empty())
        .collect();
    let x = |f: usize, s: u32| format!("x_{f}_{s}");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\\ libra-studio: the routing paper's ILP (arXiv 2503.05324): the least largest number of flows\n\
         \\ on a ToR-spine link. {} ToRs, {} spines, {} inter-ToR flows.",
        fabric.num_tors,
        fabric.num_spines,
        flows.len()
    );
    out.push_str("Minimize\n obj: z\nSubject To\n");
    let mut constraints = 0;
    for f in &flows {
        expression(
            &mut out,
            &format!(" assign_{}:", f.id),
            f.candidates
                .iter()
                .enumerate()
                .map(|(k, s)| format!("{}{}", if k == 0 { "" } else { "+ " }, x(f.id, *s))),
            " = 1",
        );
        constraints += 1;
    }
    // Per directed link: the flows that may use it.
    let t = fabric.num_tors as usize;
    let s = fabric.num_spines as usize;
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); t * s];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); t * s];
    for f in &flows {
        for &sp in &f.candidates {
            up[f.src_tor as usize * s + sp as usize].push(f.id);
            down[f.dst_tor as usize * s + sp as usize].push(f.id);
        }
    }
    for (kind, users) in [("up", &up), ("down", &down)] {
        for (link, ids) in users.iter().enumerate().filter(|(_, ids)| ids.len() > 1) {
            let (tor, sp) = (link / s, (link % s) as u32);
            expression(
                &mut out,
                &format!(" {kind}_t{tor}_s{sp}:"),
                ids.iter()
                    .enumerate()
                    .map(|(k, id)| format!("{}{}", if k == 0 { "" } else { "+ " }, x(*id, sp))),
                " - z <= 0",
            );
            constraints += 1;
        }
    }
    // A link only one flow may use carries at most one flow: z >= 1 covers it when any flow exists.
    if flows.is_empty() {
        out.push_str(" trivial: z >= 0\n");
    } else {
        out.push_str(" one_flow: z >= 1\n");
    }
    constraints += 1;
    out.push_str("Bounds\n z >= 0\n");
    let mut variables = 1;
    if !flows.is_empty() {
        out.push_str("Binaries\n");
        for f in &flows {
            expression(&mut out, "", f.candidates.iter().map(|s| x(f.id, *s)), "");
            variables += f.candidates.len();
        }
    }
    out.push_str("Generals\n z\nEnd\n");
    (
        out,
        IlpSize {
            variables,
            constraints,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::exact::{optimize, Objective};
    use crate::routing::generate::{generate, Placement};
    use std::collections::HashMap;

    /// A constraint read back: its name, coefficients by variable, sense and right-hand side.
    type Row = (String, HashMap<String, f64>, String, f64);

    /// A reader of the subset of LP format [`to_lp`] writes: the constraints as maps from
    /// variable to coefficient, with their sense and right-hand side, and the binaries.
    fn read_back(lp: &str) -> (Vec<Row>, Vec<String>) {
        let mut section = "";
        let (mut rows, mut binaries) = (Vec::new(), Vec::new());
        let mut pending = String::new();
        for line in lp.lines().filter(|l| !l.starts_with('\\')) {
            match line.trim() {
                "Minimize" | "Subject To" | "Bounds" | "Binaries" | "Generals" | "End" => {
                    section = line.trim();
                    continue;
                }
                _ => {}
            }
            match section {
                "Subject To" => {
                    pending.push(' ');
                    pending.push_str(line.trim());
                    if let Some(op) = ["<=", ">=", "="]
                        .into_iter()
                        .find(|op| pending.contains(op))
                    {
                        let (lhs, rhs) = pending.split_once(op).unwrap();
                        let (name, expr) = lhs.split_once(':').unwrap();
                        let mut coef = HashMap::new();
                        let mut sign = 1.0;
                        for tok in expr.split_whitespace() {
                            match tok {
                                "+" => sign = 1.0,
                                "-" => sign = -1.0,
                                v => {
                                    *coef.entry(v.to_string()).or_insert(0.0) += sign;
                                    sign = 1.0;
                                }
                            }
                        }
                        rows.push((
                            name.trim().to_string(),
                            coef,
                            op.to_string(),
                            rhs.trim().parse().unwrap(),
                        ));
                        pending.clear();
                    }
                }
                "Binaries" => binaries.extend(line.split_whitespace().map(String::from)),
                _ => {}
            }
        }
        (rows, binaries)
    }

    #[test]
    fn the_model_read_back_holds_the_proven_optimum_and_nothing_better() {
        let p = Placement {
            tors: 8,
            spines: 4,
            hosts_per_tor: 8,
            jobs: 3,
            ring_size: 4,
            failed_links: 3,
            ..Placement::default()
        };
        let inst = generate(&p).unwrap().instance().unwrap();
        let (lp, size) = to_lp(&inst).unwrap();
        assert!(
            lp.lines().all(|l| l.len() <= LINE + 20),
            "a line is too long"
        );
        let (rows, binaries) = read_back(&lp);
        assert_eq!(rows.len(), size.constraints);
        assert_eq!(binaries.len() + 1, size.variables);
        let best = optimize(&inst, Objective::MinMaxLinkLoad, 1_000_000);
        assert!(best.proven);
        // The optimum's assignment with z = its largest load satisfies every row; z one less does
        // not (some link row is violated).
        let value = |z: f64| {
            let mut v: HashMap<String, f64> = HashMap::new();
            for f in inst.flows.iter().filter(|f| f.inter_tor()) {
                v.insert(format!("x_{}_{}", f.id, best.routing.0[f.id].unwrap()), 1.0);
            }
            v.insert("z".into(), z);
            v
        };
        let holds = |v: &HashMap<String, f64>| {
            rows.iter().all(|(_, coef, op, rhs)| {
                let lhs: f64 = coef
                    .iter()
                    .map(|(k, c)| c * v.get(k).copied().unwrap_or(0.0))
                    .sum();
                match op.as_str() {
                    "<=" => lhs <= rhs + 1e-9,
                    ">=" => lhs >= rhs - 1e-9,
                    _ => (lhs - rhs).abs() <= 1e-9,
                }
            })
        };
        assert!(holds(&value(best.bound)));
        assert!(!holds(&value(best.bound - 1.0)));
    }

    #[test]
    fn no_inter_tor_flow_gives_the_trivial_model() {
        // One ring inside one ToR.
        let text = r#"{"network": {"num_spines": 2, "num_tors": 2, "link_gbps": 100, "nic_gbps": 100},
            "hosts": [{"id": 0, "tor": 0}, {"id": 1, "tor": 0}, {"id": 2, "tor": 1}],
            "jobs": [{"name": "local", "chunk_bytes": 1e6, "rings": [[0, 1]]}]}"#;
        let inst = crate::routing::RouteScenario::from_json(text)
            .unwrap()
            .instance()
            .unwrap();
        assert!(inst.flows.iter().all(|f| !f.inter_tor()));
        let (lp, size) = to_lp(&inst).unwrap();
        assert_eq!(
            size,
            IlpSize {
                variables: 1,
                constraints: 1
            }
        );
        assert!(lp.contains("trivial: z >= 0") && lp.ends_with("End\n"));
        assert!(!lp.contains("Binaries"));
        let (rows, binaries) = read_back(&lp);
        assert_eq!((rows.len(), binaries.len()), (1, 0));
    }
}
