//! The time landscape over two dimensions: at each point of a grid over `(B_i, B_j)`, the least
//! training time with those two bandwidths fixed and every other dimension optimized under the
//! scenario's constraints (none where no design has them), with the constraint lines that involve
//! only `B_i` and `B_j`, the uniform split and the paths of both optimization methods (interior
//! point and projected gradient) to the optimum.

use super::study::Study;
use crate::model::scenario::Objective;
use crate::optimize::linear::{LinearConstraint, Relation};
use crate::optimize::{solve, Method, Problem, SolveError, SolveOptions};
use crate::stepping::{Progress, Stepping};

/// Grid points per axis in the app.
pub const GRID: usize = 32;

/// Why a landscape cannot be drawn.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LandscapeError {
    #[error("the network needs at least two dimensions for a landscape")]
    TooFewDimensions,
    #[error("pick two different dimensions (1 to {dims})")]
    BadPair { dims: usize },
}

/// A constraint drawn as the line `a B_i + b B_j = rhs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub a: f64,
    pub b: f64,
    pub rhs: f64,
    pub label: String,
}

/// One method's iterates projected on `(B_i, B_j)`, from its start to its optimum.
#[derive(Clone, Debug, PartialEq)]
pub struct MethodPath {
    pub method: Method,
    pub points: Vec<(f64, f64)>,
    /// Newton steps (interior point) or gradient steps (projected gradient).
    pub steps: usize,
    /// The training time the method reached (ns).
    pub time_ns: f64,
}

/// The landscape of one pair of dimensions.
#[derive(Clone, Debug, PartialEq)]
pub struct Landscape {
    /// The two dimensions (0-based).
    pub dims: (usize, usize),
    /// Grid values of `B_i` and `B_j`, GB/s, increasing.
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
    /// Row-major over `ys` then `xs`: the least time (ns), None where infeasible.
    pub time_ns: Vec<Option<f64>>,
    /// The network cost of each cell's design ($), as `time_ns`.
    pub cost_usd: Vec<Option<f64>>,
    /// The design's objective: what the cells are coloured by ([`Landscape::score`]).
    pub objective: Objective,
    /// The optimum's objective value (time, time x cost or cost).
    pub optimum_score: f64,
    pub optimum: (f64, f64),
    pub optimum_time_ns: f64,
    pub uniform: Option<(f64, f64)>,
    /// Each method's iterates, in `Method::ALL`'s order; a method that could not solve the
    /// problem is left out.
    pub paths: Vec<MethodPath>,
    pub lines: Vec<Line>,
    /// True when the other dimensions are held at the optimum instead of re-optimized: always
    /// under the cost objective (a search per cell would be too slow to draw), else when the
    /// constraints do not bound them (the objective over them would have no minimum).
    pub slice: bool,
}

impl Landscape {
    pub fn at(&self, ix: usize, iy: usize) -> Option<f64> {
        self.time_ns[iy * self.xs.len() + ix]
    }

    /// How the page says where the optimum is and how each method got there, `names` naming
    /// the two dimensions.
    pub fn paths_text(&self, names: (&str, &str)) -> String {
        let mut text = format!(
            "The optimum (red) sits at {} = {:.2}, {} = {:.2} GB/s.",
            names.0, self.optimum.0, names.1, self.optimum.1
        );
        for (k, p) in self.paths.iter().enumerate() {
            let colour = match p.method {
                Method::InteriorPoint => "black",
                Method::ProjectedGradient => "orange",
            };
            let how = if k == 0 {
                "from its start to the optimum"
            } else {
                "to the same optimum"
            };
            text.push_str(&format!(
                " The {colour} path is the {} method's: {} points shown of {} {}, {how}.",
                p.method.label().to_lowercase(),
                p.points.len(),
                p.steps,
                p.method.step_name()
            ));
        }
        text.push_str(" The grey dot is the uniform split.");
        text
    }

    /// The least time on the grid.
    pub fn least(&self) -> Option<f64> {
        self.time_ns.iter().flatten().copied().reduce(f64::min)
    }

    /// The objective's value at a cell: the time, time x cost, or (where the time meets the
    /// target) the cost; None where no design is feasible.
    pub fn score(&self, ix: usize, iy: usize) -> Option<f64> {
        let k = iy * self.xs.len() + ix;
        score_of(self.objective, self.time_ns[k]?, self.cost_usd[k]?)
    }

    /// The least objective value on the grid.
    pub fn least_score(&self) -> Option<f64> {
        (0..self.ys.len())
            .flat_map(|iy| (0..self.xs.len()).map(move |ix| (ix, iy)))
            .filter_map(|(ix, iy)| self.score(ix, iy))
            .reduce(f64::min)
    }

    /// An objective value as the page shows it: a duration, LIBRA's time x cost (ns·$/1e10), or
    /// dollars.
    pub fn score_text(&self, v: f64) -> String {
        match self.objective {
            Objective::Time => crate::format::duration_ns(v),
            Objective::TimeXCost => format!("{:.6} ns·$/1e10", v / 1e10),
            Objective::Cost { .. } => crate::format::usd(v),
        }
    }

    /// What the cells show, in a sentence, with how much of the grid is feasible.
    pub fn cells_text(&self, names: (&str, &str)) -> String {
        let (bi, bj) = names;
        let share = self.feasible_share() * 100.0;
        let least = self.least_score().unwrap_or(f64::NAN);
        let bands = format!(
            "Colours are bands above the least {} shown, {}.",
            self.score_name(),
            self.score_text(self.optimum_score.min(least))
        );
        match (self.objective, self.slice) {
            (Objective::Time, false) => format!(
                "Each cell is the least training time with {bi} and {bj} fixed there and every \
                 other dimension re-optimized under the design's constraints; grey cells have no \
                 design that meets them ({share:.0}% of the grid is feasible). {bands}"
            ),
            (Objective::Time, true) => format!(
                "Each cell is the training time with {bi} and {bj} there and the other dimensions \
                 held at the optimum: the constraints do not bound them, so re-optimizing them \
                 would only ever add bandwidth. Grey cells break a constraint ({share:.0}% of the \
                 grid is feasible). {bands}"
            ),
            (Objective::TimeXCost, slice) => format!(
                "Each cell is the least time × cost (LIBRA's PerfPerCost, the design's objective) \
                 with {bi} and {bj} there and the other dimensions {}; grey cells have no design \
                 that meets the constraints ({share:.0}% of the grid is feasible). {bands}",
                match slice {
                    true => "held at the optimum",
                    false => "re-optimized for it",
                }
            ),
            (Objective::Cost { time_target_ns }, slice) => format!(
                "Each cell is the least network cost with {bi} and {bj} there and the other \
                 dimensions {} within the time target of {}; grey cells have no design that \
                 meets it and the constraints ({share:.0}% of the grid is feasible). {bands}",
                match slice {
                    true => "held at the optimum",
                    false => "re-optimized",
                },
                crate::format::duration_ns(time_target_ns)
            ),
        }
    }

    /// What the colours measure, for the legend and the page: "time", "time × cost", "cost".
    pub fn score_name(&self) -> &'static str {
        match self.objective {
            Objective::Time => "time",
            Objective::TimeXCost => "time × cost",
            Objective::Cost { .. } => "cost",
        }
    }

    /// Share of the grid where some design exists.
    pub fn feasible_share(&self) -> f64 {
        self.time_ns.iter().filter(|t| t.is_some()).count() as f64 / self.time_ns.len() as f64
    }
}

/// The objective's value at a time and a cost (None: a cost objective's target is missed).
fn score_of(objective: Objective, time_ns: f64, cost_usd: f64) -> Option<f64> {
    match objective {
        Objective::Time => Some(time_ns),
        Objective::TimeXCost => Some(time_ns * cost_usd),
        Objective::Cost { time_target_ns } => {
            (time_ns <= time_target_ns * (1.0 + 1e-9)).then_some(cost_usd)
        }
    }
}

/// A fixing row `B_d = value`.
fn fix(dims: usize, d: usize, value: f64) -> LinearConstraint {
    let mut coeffs = vec![0.0; dims];
    coeffs[d] = 1.0;
    LinearConstraint {
        coeffs,
        rel: Relation::Eq,
        rhs: value,
        label: format!("B{} = {value}", d + 1),
    }
}

/// The best design of `problem` under its own objective (time, time x cost, or cost within the
/// time target) with `B_i` and `B_j` fixed: its time and cost; `Err` when the other dimensions
/// are unbounded (the objective has no minimum over them).
fn least_time(
    problem: &Problem,
    i: usize,
    j: usize,
    x: f64,
    y: f64,
) -> Result<Option<(f64, f64)>, ()> {
    let mut p = problem.clone();
    p.rows.push(fix(p.dims, i, x));
    p.rows.push(fix(p.dims, j, y));
    let opts = SolveOptions {
        rel_gap: 1e-4,
        ..SolveOptions::default()
    };
    match solve(&p, &opts) {
        Ok(s) => Ok(Some((s.time_ns, s.cost_usd))),
        Err(SolveError::Unbounded { .. }) => Err(()),
        Err(_) => Ok(None),
    }
}

/// The time and cost at `bw` if it meets every row of `problem`.
fn time_if_feasible(problem: &Problem, bw: &[f64]) -> Option<(f64, f64)> {
    let ok = problem.rows.iter().all(|r| {
        let lhs: f64 = r.coeffs.iter().zip(bw).map(|(a, b)| a * b).sum();
        let tol = 1e-9 * (r.rhs.abs() + lhs.abs()).max(1.0);
        match r.rel {
            Relation::Le => lhs <= r.rhs + tol,
            Relation::Ge => lhs >= r.rhs - tol,
            Relation::Eq => (lhs - r.rhs).abs() <= tol,
        }
    });
    (ok && bw.iter().all(|b| *b > 0.0)).then(|| (problem.time(bw), problem.cost(bw)))
}

/// The pair of dimensions the landscape shows: the link's (`chosen`, if it names two different
/// dimensions of the `dims`), else the two with the most bandwidth at the optimum `bw`, in
/// dimension order.
pub fn pair_shown(chosen: Option<(usize, usize)>, bw: &[f64]) -> (usize, usize) {
    let dims = bw.len();
    match chosen {
        Some((i, j)) if i != j && i < dims && j < dims => (i, j),
        _ if dims < 2 => (0, 1),
        _ => {
            let neg: Vec<f64> = bw.iter().map(|b| -b).collect();
            let order = crate::order::ascending(&neg);
            let (a, b) = (order[0], order[1]);
            (a.min(b), a.max(b))
        }
    }
}

/// The pair after picking dimension `d` for `axis` (0: horizontal, 1: vertical) of `pair`: picking
/// the other axis's dimension swaps the two, so that the axes never show one dimension twice.
pub fn pick(pair: (usize, usize), axis: usize, d: usize) -> (usize, usize) {
    let (i, j) = pair;
    match (axis, d) {
        (0, d) if d == j => (d, i),
        (0, d) => (d, j),
        (_, d) if d == i => (j, d),
        (_, d) => (i, d),
    }
}

/// The landscape of `study` over dimensions `i` and `j` (0-based) on an `n` by `n` grid.
pub fn landscape(study: &Study, i: usize, j: usize, n: usize) -> Result<Landscape, LandscapeError> {
    let mut run = LandscapeRun::new(study, i, j, n)?;
    while !run.step() {}
    Ok(run.into_landscape())
}

/// The iterates of each method on `problem` (time objective), projected on `(B_i, B_j)`: the
/// barrier's central path and the projected gradient's steps, so that a class sees two methods
/// reach one optimum. A method without a path (it could not solve the problem, or the objective
/// is solved as a search over budgets, which has no single path) is left out.
pub fn method_paths(problem: &Problem, i: usize, j: usize) -> Vec<MethodPath> {
    Method::ALL
        .into_iter()
        .filter_map(|method| {
            let opts = SolveOptions {
                method,
                central_path: true,
                ..SolveOptions::default()
            };
            let sol = solve(problem, &opts).ok().filter(|s| !s.path.is_empty())?;
            Some(MethodPath {
                method,
                points: sol.path.iter().map(|b| (b[i], b[j])).collect(),
                steps: sol.iterations,
                time_ns: sol.time_ns,
            })
        })
        .collect()
}

/// A landscape computed a row of the grid ([`LandscapeRun::step`]: `n` solves) or a few cells
/// ([`LandscapeRun::step_cells`]) at a time, so the app can spread its `n * n` solves over
/// animation frames; the pieces give the same landscape as [`landscape`].
pub struct LandscapeRun {
    problem: Problem,
    opt: Vec<f64>,
    /// The landscape so far: `time_ns` holds the rows done.
    done: Landscape,
}

impl LandscapeRun {
    /// Check the pair and lay out the grid; no cell is solved yet.
    pub fn new(
        study: &Study,
        i: usize,
        j: usize,
        n: usize,
    ) -> Result<LandscapeRun, LandscapeError> {
        let problem = &study.problem;
        let dims = problem.dims;
        if dims < 2 {
            return Err(LandscapeError::TooFewDimensions);
        }
        if i == j || i >= dims || j >= dims {
            return Err(LandscapeError::BadPair { dims });
        }
        let opt = &study.optimum.bw_gbps;
        let uniform = study.uniform.as_ref().map(|u| (u.bw_gbps[i], u.bw_gbps[j]));
        let axis = |d: usize, u: Option<f64>| {
            let top = 1.8 * opt[d].max(u.unwrap_or(0.0)).max(1e-9);
            let n = n.max(2);
            (1..=n)
                .map(|k| top * k as f64 / n as f64)
                .collect::<Vec<f64>>()
        };
        let xs = axis(i, uniform.map(|u| u.0));
        let ys = axis(j, uniform.map(|u| u.1));
        // Whether the others have a minimum does not depend on where B_i and B_j are fixed; the
        // optimum's own point is feasible, so it tells. Without one, show the slice through the
        // optimum.
        // Minimizing cost within a time target, each cell would be a search of its own (tens of
        // ms): the slice through the optimum shows the same least point (the optimum is the
        // cheapest design meeting the target on any plane through it).
        let slice = matches!(problem.objective, Objective::Cost { .. })
            || least_time(problem, i, j, opt[i], opt[j]).is_err();
        let lines = problem
            .rows
            .iter()
            .filter(|r| {
                r.coeffs
                    .iter()
                    .enumerate()
                    .all(|(d, c)| *c == 0.0 || d == i || d == j)
                    && (r.coeffs[i] != 0.0 || r.coeffs[j] != 0.0)
            })
            .map(|r| Line {
                a: r.coeffs[i],
                b: r.coeffs[j],
                rhs: r.rhs,
                label: r.label.clone(),
            })
            .collect();
        Ok(LandscapeRun {
            problem: problem.clone(),
            opt: opt.clone(),
            done: Landscape {
                dims: (i, j),
                time_ns: Vec::with_capacity(xs.len() * ys.len()),
                cost_usd: Vec::with_capacity(xs.len() * ys.len()),
                objective: problem.objective,
                optimum_score: score_of(
                    problem.objective,
                    study.optimum.time_ns,
                    study.optimum.cost_usd,
                )
                .unwrap_or(study.optimum.time_ns),
                xs,
                ys,
                optimum: (opt[i], opt[j]),
                optimum_time_ns: study.optimum.time_ns,
                uniform,
                paths: method_paths(problem, i, j),
                lines,
                slice,
            },
        })
    }

    /// Solve the next row of the grid; true when every row is done.
    pub fn step(&mut self) -> bool {
        let left_in_row = self.done.xs.len() - self.done.time_ns.len() % self.done.xs.len().max(1);
        self.step_cells(left_in_row)
    }

    /// Solve up to `cells` more cells of the grid, row after row; true when every cell is done.
    /// A page steps a few cells per slice: a row of 32 solves took 56 ms on a slow machine.
    pub fn step_cells(&mut self, cells: usize) -> bool {
        let l = &mut self.done;
        let (i, j) = l.dims;
        for _ in 0..cells {
            let k = l.time_ns.len();
            let (Some(&x), Some(&y)) = (
                l.xs.get(k % l.xs.len().max(1)),
                l.ys.get(k / l.xs.len().max(1)),
            ) else {
                break;
            };
            let t = if l.slice {
                let mut bw = self.opt.clone();
                bw[i] = x;
                bw[j] = y;
                time_if_feasible(&self.problem, &bw)
            } else {
                least_time(&self.problem, i, j, x, y).ok().flatten()
            };
            l.time_ns.push(t.map(|t| t.0));
            l.cost_usd.push(t.map(|t| t.1));
        }
        l.time_ns.len() == l.xs.len() * l.ys.len()
    }

    /// The fraction of the grid solved, from 0 to 1.
    pub fn fraction(&self) -> f64 {
        let l = &self.done;
        l.time_ns.len() as f64 / (l.xs.len() * l.ys.len()).max(1) as f64
    }

    /// The landscape (complete once [`LandscapeRun::step`] has returned true).
    pub fn into_landscape(self) -> Landscape {
        self.done
    }
}

impl Stepping for LandscapeRun {
    type Output = Landscape;
    type Error = std::convert::Infallible;

    /// `cells` cells of the grid (at least one).
    fn step(&mut self, cells: u64) -> bool {
        self.step_cells(usize::try_from(cells).unwrap_or(usize::MAX).max(1))
    }

    fn progress(&self) -> Progress {
        let l = &self.done;
        Progress::of(l.time_ns.len(), l.xs.len() * l.ys.len(), "cells")
    }

    fn finish(mut self) -> Result<Landscape, Self::Error> {
        while !LandscapeRun::step(&mut self) {}
        Ok(self.into_landscape())
    }
}

#[cfg(test)]
mod tests {
    use super::{pair_shown, pick};

    #[test]
    fn the_pair_shown_is_the_links_else_the_two_widest_and_picks_never_repeat_a_dimension() {
        let bw = [338.4, 84.6, 58.2, 18.8];
        assert_eq!(pair_shown(None, &bw), (0, 1));
        assert_eq!(pair_shown(None, &[1.0, 5.0, 3.0]), (1, 2));
        assert_eq!(pair_shown(Some((3, 2)), &bw), (3, 2));
        // A link's pair that is not two dimensions of this design falls back.
        assert_eq!(pair_shown(Some((2, 2)), &bw), (0, 1));
        assert_eq!(pair_shown(Some((0, 7)), &bw), (0, 1));
        assert_eq!(pair_shown(None, &[5.0]), (0, 1));
        assert_eq!(pick((0, 1), 0, 2), (2, 1));
        assert_eq!(pick((0, 1), 1, 3), (0, 3));
        // The other axis's dimension: the axes swap.
        assert_eq!(pick((0, 1), 0, 1), (1, 0));
        assert_eq!(pick((0, 1), 1, 0), (1, 0));
        assert_eq!(pick((2, 3), 0, 2), (2, 3));
    }

    use super::*;
    use crate::analysis::study::study;
    use crate::presets;

    #[test]
    fn a_landscape_row_by_row_equals_the_landscape_at_once() {
        let s = study(&presets::default_scenario()).unwrap();
        let mut run = LandscapeRun::new(&s, 1, 3, 6).unwrap();
        let mut fractions = vec![run.fraction()];
        while !run.step() {
            fractions.push(run.fraction());
        }
        fractions.push(run.fraction());
        assert_eq!(fractions.len(), 7);
        assert!(fractions.windows(2).all(|w| w[1] > w[0]));
        assert_eq!((fractions[0], fractions[6]), (0.0, 1.0));
        assert!(run.into_landscape() == landscape(&s, 1, 3, 6).unwrap());
        // A few cells at a time (as the page steps it) gives the same grid.
        let mut cells = LandscapeRun::new(&s, 1, 3, 6).unwrap();
        let mut steps = 0;
        while !cells.step_cells(4) {
            steps += 1;
        }
        assert_eq!(steps, 36 / 4 - 1);
        assert!(cells.into_landscape() == landscape(&s, 1, 3, 6).unwrap());
    }

    #[test]
    fn the_optimum_is_the_lowest_point_and_the_total_bandwidth_bounds_the_feasible_set() {
        let s = study(&presets::default_scenario()).unwrap();
        let l = landscape(&s, 0, 1, 16).unwrap();
        assert_eq!((l.xs.len(), l.ys.len(), l.time_ns.len()), (16, 16, 256));
        // No grid point beats the optimum (others re-optimized at each point).
        let least = l.least().unwrap();
        assert!(least >= s.optimum.time_ns * (1.0 - 1e-6), "{least}");
        // sum B = 500 with B3, B4 > 0: feasible only where B1 + B2 < 500.
        for (iy, y) in l.ys.iter().enumerate() {
            for (ix, x) in l.xs.iter().enumerate() {
                if x + y >= 500.0 - 1e-9 {
                    assert_eq!(l.at(ix, iy), None, "({x}, {y})");
                } else if x + y < 480.0 {
                    assert!(l.at(ix, iy).is_some(), "({x}, {y})");
                }
            }
        }
        assert!(l.feasible_share() > 0.3 && l.feasible_share() < 0.9);
        // At the optimum's own (B1, B2) the least time is the optimum's.
        let (at, cost) = least_time(&s.problem, 0, 1, l.optimum.0, l.optimum.1)
            .unwrap()
            .unwrap();
        assert!(!l.slice);
        assert!((at / s.optimum.time_ns - 1.0).abs() < 1e-3, "{at}");
        assert!(cost > 0.0);
        // Both methods' paths start elsewhere and end at the optimum (each within its certified
        // gap of the study's).
        let methods: Vec<Method> = l.paths.iter().map(|p| p.method).collect();
        assert_eq!(methods, Method::ALL);
        for p in &l.paths {
            assert!(p.points.len() >= 3, "{:?}", p.method);
            assert!(p.steps >= 1);
            assert_ne!(p.points[0], l.optimum);
            assert!((p.time_ns / s.optimum.time_ns - 1.0).abs() <= 2e-6, "{p:?}");
            let end = *p.points.last().unwrap();
            let near = |a: f64, b: f64| (a - b).abs() <= 1e-3 * b.max(1.0);
            assert!(
                near(end.0, l.optimum.0) && near(end.1, l.optimum.1),
                "{p:?}"
            );
        }
        let text = l.paths_text(("d1", "d2"));
        assert!(
            text.contains("black path is the interior point (barrier) method's"),
            "{text}"
        );
        assert!(
            text.contains("orange path is the projected gradient (accelerated)"),
            "{text}"
        );
        assert_eq!(l.uniform, Some((125.0, 125.0)));
        // The total bandwidth row involves every dimension: no line in this plane.
        assert!(l.lines.is_empty());
    }

    #[test]
    fn under_time_x_cost_the_cells_are_coloured_by_it_and_the_optimum_is_the_least() {
        // The trap: coloured by time, the certified time x cost optimum sat outside
        // the darkest band. Each cell re-optimizes the others for time x cost: none beats the
        // optimum (within the cells' solver tolerance).
        let mut sc = presets::default_scenario();
        sc.objective = crate::model::scenario::Objective::TimeXCost;
        let s = study(&sc).unwrap();
        let l = landscape(&s, 0, 1, 12).unwrap();
        assert!(!l.slice);
        assert_eq!(l.score_name(), "time × cost");
        let want = s.optimum.time_ns * s.optimum.cost_usd;
        assert!((l.optimum_score / want - 1.0).abs() < 1e-12);
        let least = l.least_score().unwrap();
        assert!(
            least >= l.optimum_score * (1.0 - 1e-6),
            "{least} < {}",
            l.optimum_score
        );
        // A cell's score is its time times its cost.
        let k = l.time_ns.iter().position(Option::is_some).unwrap();
        let (ix, iy) = (k % l.xs.len(), k / l.xs.len());
        assert_eq!(
            l.score(ix, iy),
            Some(l.time_ns[k].unwrap() * l.cost_usd[k].unwrap())
        );
        assert!(l.cells_text(("B1", "B2")).contains("time × cost"));
        // Minimizing time, cells are times and their least is the optimum's.
        let t = landscape(&study(&presets::default_scenario()).unwrap(), 0, 1, 12).unwrap();
        assert_eq!(t.score(ix, iy), t.time_ns[k]);
        assert_eq!(t.score_name(), "time");
    }

    #[test]
    fn bounds_on_the_two_dimensions_are_lines_and_bad_pairs_are_errors() {
        let mut sc = presets::default_scenario();
        sc.constraints.linear = vec!["B1 + B2 <= 400".into()];
        let s = study(&sc).unwrap();
        let l = landscape(&s, 0, 1, 8).unwrap();
        assert_eq!(l.lines.len(), 1);
        assert_eq!(
            (l.lines[0].a, l.lines[0].b, l.lines[0].rhs),
            (1.0, 1.0, 400.0)
        );
        assert_eq!(
            landscape(&s, 1, 1, 8).unwrap_err(),
            LandscapeError::BadPair { dims: 4 }
        );
        assert!(landscape(&s, 0, 4, 8).is_err());
    }

    #[test]
    fn minimizing_cost_the_map_is_the_cost_on_the_slice_through_the_optimum() {
        use crate::model::scenario::Objective as Goal;
        let mut sc = presets::default_scenario();
        sc.constraints.total_bw = None;
        sc.objective = Goal::Cost {
            time_target_ns: 7.5e8,
        };
        let s = study(&sc).unwrap();
        let l = landscape(&s, 0, 3, 8).unwrap();
        // The others are held at the optimum (the slice through it).
        assert!(l.slice);
        assert_eq!(l.score_name(), "cost");
        // A cell scores its cost where its time meets the target, nothing where it misses it.
        for (k, t) in l.time_ns.iter().enumerate() {
            let (ix, iy) = (k % l.xs.len(), k / l.xs.len());
            let t = t.unwrap();
            match t <= 7.5e8 {
                true => assert_eq!(l.score(ix, iy), l.cost_usd[k]),
                false => assert_eq!(l.score(ix, iy), None, "cell {k}: {t}"),
            }
        }
        // No cell meeting the target is cheaper than the certified optimum.
        let least = l.least_score().unwrap();
        assert!(least >= s.optimum.cost_usd * (1.0 - 1e-6), "{least}");
        // A cell is the model's time and cost there.
        let mut bw = s.optimum.bw_gbps.clone();
        bw[0] = l.xs[2];
        bw[3] = l.ys[5];
        let k = 5 * l.xs.len() + 2;
        assert_eq!(l.time_ns[k], Some(s.problem.time(&bw)));
        assert_eq!(l.cost_usd[k], Some(s.problem.cost(&bw)));
        assert!((l.optimum_score - s.optimum.cost_usd).abs() < 1e-9 * s.optimum.cost_usd);
    }
}
