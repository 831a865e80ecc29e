//! The exact routing optimizer (docs/routing.md 3.4): depth-first branch and bound over the inter-ToR
//! flows, seeded with the best of greedy, edge colouring, capacity-aware greedy and ECMP, with symmetry breaking
//! (interchangeable spines, interchangeable flows of one class) and a bound per objective. It
//! proves optimality when the search completes or the incumbent meets a bound; when the node budget
//! runs out it returns the best routing found with `proven: false` and the root bound, never an
//! unproven claim. Flow-lex on fabrics with one spine-link capacity and one flow per NIC direction
//! also uses a counting bound (`lex_count`): it first proves the least max load, then bounds how
//! few flows can sit at the resulting least rate, which often proves the optimum without
//! water-filling at every node.
//!
//! Rates are compared in f64 with a relative tolerance of 1e-9 (the spec's reference uses exact
//! rationals; the difference only matters for near-ties below that tolerance).

use super::algorithms::{ecmp, greedy, greedy_capacity_aware, group_order, visit_order};
use super::edge_coloring::edge_coloring;
use super::lex_count::{uniform_capacity, CountBound};
use super::lex_levels::{Incumbent, LevelBound};
use super::metrics::{rates, ring_time_s, Routing};
use super::rates::max_min_rates;
use super::scenario::Instance;
use std::cmp::Ordering;

/// What the optimizer maximizes or minimizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    /// Lexicographically maximize the ascending flow-rate vector.
    FlowLex,
    /// Lexicographically maximize the ascending job-bottleneck vector; ties by `FlowLex`.
    JobLex,
    /// Minimize the largest number of flows on a ToR-spine link (the authors' ILP).
    MinMaxLinkLoad,
    /// Minimize the largest `n_e / c_e` over ToR-spine links.
    MinMaxNormalizedLoad,
    /// Minimize the static makespan.
    MinMakespan,
}

/// The result of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct Optimum {
    pub routing: Routing,
    /// True when the search proved `routing` optimal.
    pub proven: bool,
    /// A proven bound on the optimum: for the lexicographic objectives an upper bound on the least
    /// flow rate (Gbps), for the load objectives a lower bound on the largest load, for the makespan
    /// a lower bound in seconds.
    pub bound: f64,
    pub nodes: u64,
    /// True when the search was stopped by its watcher (a time limit or a cancel), not by its node
    /// budget or a proof.
    pub stopped: bool,
}

/// How often (in nodes) the search asks its watcher whether to go on.
pub const WATCH_EVERY: u64 = 64;

const TOL: f64 = 1e-9;

fn cmp_f(a: f64, b: f64) -> Ordering {
    if (a - b).abs() <= TOL * a.abs().max(b.abs()) {
        Ordering::Equal
    } else {
        a.total_cmp(&b)
    }
}

/// Lexicographic comparison of two ascending vectors, with tolerance.
fn cmp_lex(a: &[f64], b: &[f64]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match cmp_f(*x, *y) {
            Ordering::Equal => continue,
            o => return o,
        }
    }
    a.len().cmp(&b.len())
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

/// A routing's value: larger is better.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Lex(Vec<f64>, Vec<f64>),
    /// A cost (smaller is better).
    Cost(f64),
}

impl Value {
    fn cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Lex(a1, a2), Value::Lex(b1, b2)) => {
                cmp_lex(a1, b1).then_with(|| cmp_lex(a2, b2))
            }
            (Value::Cost(a), Value::Cost(b)) => cmp_f(*b, *a),
            _ => Ordering::Equal,
        }
    }
}

/// A node of the search that has been expanded: the flow it assigns and its spines to try.
struct Frame {
    id: usize,
    options: Vec<u32>,
    /// How many of `options` have been tried (the last of them is assigned while its subtree is
    /// searched).
    next: usize,
}

/// Where the depth-first search is: about to enter the node below the last frame, about to expand
/// it (it was counted and the watcher asked), or finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cursor {
    Enter,
    Expand,
    Done,
}

/// The branch and bound, kept as an explicit stack so that it can pause between any two nodes and
/// resume where it was (the app runs it across animation frames).
struct Search {
    objective: Objective,
    order: Vec<usize>,
    /// For each position in `order`, the previous member of its flow class (if the class rule holds).
    class_prev: Vec<Option<usize>>,
    /// Spine equivalence class of each spine.
    spine_class: Vec<usize>,
    cap: Vec<f64>,
    routing: Vec<Option<u32>>,
    load: Vec<u32>,
    spine_used: Vec<u32>,
    best: Routing,
    best_value: Value,
    nodes: u64,
    budget: u64,
    exhausted: bool,
    /// The value no routing can beat (reached: stop, proven).
    ceiling: Option<Value>,
    /// nic_gbps over the most flows on one NIC direction.
    nic_share: f64,
    /// For flow-lex on uniform fabrics: the counting bound (see `lex_count`).
    count: Option<CountBound>,
    /// The incumbent's number of flows at `z1` and whether its other flows are all at the top
    /// rate, when its least rate is `z1`.
    best_profile: Option<(usize, bool)>,
    /// For job-lex, the same of the incumbent's job bottlenecks.
    best_jobs: Option<(usize, bool)>,
    /// With the counting bound: the level bound (see `lex_levels`).
    levels: Option<LevelBound>,
    /// Stopped from outside (a time limit or a cancel), not by its node budget or a proof.
    stopped: bool,
    stack: Vec<Frame>,
    cursor: Cursor,
    /// For the makespan: the crowded-ToR bound, which holds at every node.
    floor: f64,
    /// Heuristics seeded so far (of [`SEEDS`]).
    seeded: usize,
    /// The heuristics' routings computed so far, in seed order: they depend on the instance only,
    /// so a search hands them to the next search of the same instance (prelude, then main).
    heuristics: Vec<Routing>,
}

/// What the bounds say of a subtree against the incumbent (flow-lex and job-lex).
enum Verdict {
    /// No completion beats the incumbent.
    Prune,
    /// A completion may, and water-filling has nothing to add.
    Explore,
    /// Undecided; for job-lex, whether a completion's job vector may beat the incumbent's
    /// (when it may not, only the flows can).
    Open { jobs_can_win: bool },
}

/// What a search needs of its instance beyond the instance itself, computed once per instance.
struct Shape {
    order: Vec<usize>,
    class_prev: Vec<Option<usize>>,
    spine_class: Vec<usize>,
    cap: Vec<f64>,
    nic_share: f64,
    flows: usize,
    spines: usize,
}

/// The heuristics the search starts from.
const SEEDS: usize = 5;

impl Search {
    /// A search of `inst` for `objective` within `budget` nodes, not started.
    fn new(inst: &Instance, objective: Objective, budget: u64) -> Search {
        let (order, class_prev) = order_and_classes(inst);
        let shape = Shape {
            order,
            class_prev,
            spine_class: spine_classes(inst),
            cap: inst.capacities(),
            nic_share: nic_share(inst),
            flows: inst.flows.len(),
            spines: inst.fabric.num_spines as usize,
        };
        let mut search = Search::fresh(shape, objective, budget, Vec::new());
        match objective {
            Objective::MinMakespan => search.floor = crowded_tor_s(inst, &search.cap),
            Objective::FlowLex | Objective::JobLex => search.levels = Some(LevelBound::new(inst)),
            _ => {}
        }
        search
    }

    /// A fresh search of the same instance for another objective and budget (what depends on the
    /// instance alone is copied, not recomputed; the floor only serves the makespan, which never
    /// comes this way).
    fn like(&self, objective: Objective, budget: u64) -> Search {
        debug_assert!(objective != Objective::MinMakespan);
        let shape = Shape {
            order: self.order.clone(),
            class_prev: self.class_prev.clone(),
            spine_class: self.spine_class.clone(),
            cap: self.cap.clone(),
            nic_share: self.nic_share,
            flows: self.routing.len(),
            spines: self.spine_used.len(),
        };
        let mut search = Search::fresh(shape, objective, budget, self.heuristics.clone());
        if matches!(objective, Objective::FlowLex | Objective::JobLex) {
            search.levels = self.levels.clone();
        }
        search
    }

    /// A search not started, on an instance of `shape`.
    fn fresh(shape: Shape, objective: Objective, budget: u64, heuristics: Vec<Routing>) -> Search {
        Search {
            objective,
            order: shape.order,
            class_prev: shape.class_prev,
            spine_class: shape.spine_class,
            routing: vec![None; shape.flows],
            load: vec![0; shape.cap.len()],
            cap: shape.cap,
            spine_used: vec![0; shape.spines],
            best: Routing(vec![None; shape.flows]),
            best_value: Value::Cost(f64::INFINITY),
            nodes: 0,
            budget,
            exhausted: false,
            ceiling: None,
            nic_share: shape.nic_share,
            count: None,
            best_profile: None,
            best_jobs: None,
            levels: None,
            stopped: false,
            stack: Vec::new(),
            cursor: Cursor::Enter,
            floor: 0.0,
            seeded: 0,
            heuristics,
        }
    }

    fn value(&self, inst: &Instance, routing: &Routing) -> Value {
        match self.objective {
            Objective::FlowLex | Objective::JobLex => {
                let x = rates(inst, routing);
                let jobs: Vec<f64> = if self.objective == Objective::JobLex {
                    inst.jobs
                        .iter()
                        .map(|(_, rings)| {
                            rings
                                .iter()
                                .flat_map(|&r| inst.rings[r].flows.iter().map(|&f| x[f]))
                                .fold(f64::INFINITY, f64::min)
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                Value::Lex(sorted(jobs), sorted(x))
            }
            Objective::MinMaxLinkLoad => {
                Value::Cost(routing.loads(inst).iter().copied().max().unwrap_or(0) as f64)
            }
            Objective::MinMaxNormalizedLoad => {
                let loads = routing.loads(inst);
                Value::Cost(
                    loads
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| **n > 0)
                        .map(|(e, n)| f64::from(*n) / self.cap[e])
                        .fold(0.0, f64::max),
                )
            }
            Objective::MinMakespan => {
                let x = rates(inst, routing);
                Value::Cost(
                    inst.jobs
                        .iter()
                        .flat_map(|(chunk, rings)| {
                            rings.iter().map(|&r| {
                                let ring = &inst.rings[r];
                                let m = ring
                                    .flows
                                    .iter()
                                    .map(|&f| x[f])
                                    .fold(f64::INFINITY, f64::min);
                                ring_time_s(ring.members, *chunk, m)
                            })
                        })
                        .fold(0.0, f64::max),
                )
            }
        }
    }

    /// Max-min rates with the unassigned flows on their NIC links only.
    fn partial_rates(&self, inst: &Instance) -> Vec<f64> {
        let paths: Vec<Vec<usize>> = inst
            .flows
            .iter()
            .map(|f| f.path(&inst.fabric, self.routing[f.id]))
            .collect();
        max_min_rates(&paths, &self.cap)
    }

    /// Make `r` the incumbent if it is better (after seeding).
    fn offer(&mut self, inst: &Instance, r: Routing) {
        let v = self.value(inst, &r);
        if v.cmp(&self.best_value) == Ordering::Greater {
            self.set_best(r, v);
        }
    }

    /// Make `r` (of value `v`) the incumbent.
    fn set_best(&mut self, r: Routing, v: Value) {
        (self.best_profile, self.best_jobs) = match (&self.count, &v) {
            (Some(cb), Value::Lex(jobs, x))
                if x.first()
                    .is_some_and(|m| cmp_f(*m, cb.z1) == Ordering::Equal) =>
            {
                let jobs = (self.objective == Objective::JobLex).then(|| cb.profile(jobs));
                (Some(cb.profile(x)), jobs)
            }
            _ => (None, None),
        };
        self.best = r;
        self.best_value = v;
    }

    /// True when the counting bound proves the incumbent optimal: it has the fewest possible
    /// flows at the least possible rate and every other flow at the top rate, and for job-lex
    /// the same of its jobs.
    fn counted_optimal(&self) -> bool {
        let jobs = match (&self.count, self.best_jobs) {
            _ if self.objective == Objective::FlowLex => true,
            (Some(cb), Some((m, true))) => m <= cb.least_jobs,
            _ => false,
        };
        match (&self.count, self.best_profile) {
            (Some(cb), Some((n, true))) => jobs && n <= cb.root,
            _ => false,
        }
    }

    /// What the counting and lexicographic bounds say of the subtree of the current partial
    /// routing against the incumbent (flow-lex and job-lex).
    fn counted(&self) -> Verdict {
        // Job-lex: whether the job vector can still beat the incumbent's, and the fewest jobs
        // at z1 below this node.
        let (mut jobs_can_win, mut jobs_at_least) = (self.objective == Objective::JobLex, 0);
        if let (Some(cb), Some((n, rest_top))) = (&self.count, self.best_profile) {
            if let Some((m, jobs_top)) = self.best_jobs {
                match cb.jobs_bound(&self.load, &self.routing) {
                    None => return Verdict::Prune,
                    Some(b) if b > m => return Verdict::Prune,
                    // Its job vector can at best tie the incumbent's: the flows decide.
                    Some(b) if b == m && jobs_top => jobs_can_win = false,
                    // Fewer jobs at z1 beat it whatever the flows.
                    Some(_) if jobs_top => return Verdict::Explore,
                    Some(b) => jobs_at_least = b,
                }
            }
            let Some(b) = cb.bound(&self.load, &self.routing) else {
                return Verdict::Prune;
            };
            if !jobs_can_win {
                if b > n || (b == n && rest_top) {
                    return Verdict::Prune;
                }
                // The incumbent's other flows are at the top rate: only fewer flows at z1 can
                // beat it, which the count decides without water-filling.
                if rest_top {
                    return Verdict::Explore;
                }
            }
        }
        let (Some(levels), Value::Lex(jobs, flows)) = (&self.levels, &self.best_value) else {
            return Verdict::Open { jobs_can_win };
        };
        let best = Incumbent {
            jobs: jobs_can_win.then_some(jobs.as_slice()),
            flows,
            jobs_at_least,
        };
        match levels.dominated(&self.load, &self.routing, &best) {
            true => Verdict::Prune,
            false => Verdict::Open { jobs_can_win },
        }
    }

    /// Whether a completion of the current partial routing may have a better flow vector than
    /// the incumbent, by water-filling.
    fn flows_promising(&self, inst: &Instance) -> bool {
        let Value::Lex(_, best) = &self.best_value else {
            return true;
        };
        // Cheap first: no completion's least rate beats the least fair share now.
        let least = best.first().copied().unwrap_or(f64::INFINITY);
        match cmp_f(self.fair_share_bound(), least) {
            Ordering::Less => return false,
            Ordering::Greater => return true,
            Ordering::Equal => {}
        }
        let p = sorted(self.partial_rates(inst));
        cmp_lex(&p, best) == Ordering::Greater
    }

    /// Whether the subtree of the current partial routing may still hold a strictly better routing.
    fn promising(&self, inst: &Instance) -> bool {
        match self.objective {
            Objective::FlowLex => match self.counted() {
                Verdict::Prune => false,
                Verdict::Explore => true,
                Verdict::Open { .. } => self.flows_promising(inst),
            },
            Objective::JobLex => {
                match self.counted() {
                    Verdict::Prune => return false,
                    Verdict::Explore => return true,
                    // No completion's job vector beats the incumbent's: as flow-lex.
                    Verdict::Open {
                        jobs_can_win: false,
                    } => return self.flows_promising(inst),
                    Verdict::Open { jobs_can_win: true } => {}
                }
                if let Value::Lex(jobs, _) = &self.best_value {
                    let least = jobs.first().copied().unwrap_or(f64::INFINITY);
                    if cmp_f(self.fair_share_bound(), least) == Ordering::Less {
                        return false;
                    }
                }
                let min = self
                    .partial_rates(inst)
                    .into_iter()
                    .fold(f64::INFINITY, f64::min);
                let Value::Lex(jobs, _) = &self.best_value else {
                    return true;
                };
                jobs.first()
                    .is_none_or(|b| cmp_f(min, *b) != Ordering::Less)
            }
            Objective::MinMaxLinkLoad => {
                let cur = self.load.iter().copied().max().unwrap_or(0) as f64;
                let Value::Cost(best) = self.best_value else {
                    return true;
                };
                cur < best - 0.5
            }
            Objective::MinMaxNormalizedLoad => {
                let cur = self
                    .load
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| **n > 0)
                    .map(|(e, n)| f64::from(*n) / self.cap[e])
                    .fold(0.0, f64::max);
                let Value::Cost(best) = self.best_value else {
                    return true;
                };
                cmp_f(cur, best) == Ordering::Less
            }
            Objective::MinMakespan => {
                let lb = self.makespan_bound(inst);
                let Value::Cost(best) = self.best_value else {
                    return true;
                };
                cmp_f(lb, best) == Ordering::Less
            }
        }
    }

    /// The least `c_e / n_e` over the links the assigned flows load and the NIC links: some flow on
    /// that link gets at most that rate, in any completion too.
    fn fair_share_bound(&self) -> f64 {
        self.load
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(e, n)| self.cap[e] / f64::from(*n))
            .fold(self.nic_share, f64::min)
    }

    /// docs/routing.md's makespan bound at the current partial routing.
    fn makespan_bound(&self, inst: &Instance) -> f64 {
        let fabric = &inst.fabric;
        let job_unit: Vec<f64> = (0..inst.jobs.len())
            .map(|j| ring_time_s(inst.ring_sizes(j).min().unwrap_or(2), inst.jobs[j].0, 1.0))
            .collect();
        let cf = contention_free_s(inst).max(self.floor);
        // Per link: the least unit time of the jobs that use it or could.
        let mut least = vec![f64::INFINITY; fabric.capacity.len()];
        for f in inst.flows.iter().filter(|f| f.inter_tor()) {
            let u = job_unit[f.job];
            match self.routing[f.id] {
                Some(s) => {
                    for e in [fabric.up(f.src_tor, s), fabric.down(f.dst_tor, s)] {
                        least[e] = least[e].min(u);
                    }
                }
                None => {
                    for &s in &f.candidates {
                        for e in [fabric.up(f.src_tor, s), fabric.down(f.dst_tor, s)] {
                            least[e] = least[e].min(u);
                        }
                    }
                }
            }
        }
        self.load
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(e, n)| f64::from(*n) / self.cap[e] * least[e])
            .fold(cf, f64::max)
    }

    /// Whether the incumbent is proven optimal already (the ceiling or the counting bound).
    fn settled(&self) -> bool {
        self.counted_optimal()
            || self
                .ceiling
                .as_ref()
                .is_some_and(|c| self.best_value.cmp(c) != Ordering::Less)
    }

    /// Search depth first until the search ends (true) or `watch`, asked every [`WATCH_EVERY`]
    /// nodes, says to pause (false: a later call resumes at the same node).
    fn run(&mut self, inst: &Instance, watch: &mut dyn FnMut(u64) -> bool) -> bool {
        loop {
            match self.cursor {
                Cursor::Done => return true,
                Cursor::Enter => {
                    if self.exhausted || self.settled() {
                        self.end();
                        continue;
                    }
                    self.nodes += 1;
                    if self.nodes > self.budget {
                        self.exhausted = true;
                        self.end();
                        continue;
                    }
                    self.cursor = Cursor::Expand;
                    if self.nodes.is_multiple_of(WATCH_EVERY) && !watch(self.nodes) {
                        return false;
                    }
                }
                Cursor::Expand => {
                    let pos = self.stack.len();
                    self.cursor = if pos == self.order.len() {
                        let r = Routing(self.routing.clone());
                        let v = self.value(inst, &r);
                        if v.cmp(&self.best_value) == Ordering::Greater {
                            self.set_best(r, v);
                        }
                        self.leave(inst)
                    } else if pos > 0 && !self.promising(inst) {
                        self.leave(inst)
                    } else {
                        let options = self.options(inst, pos);
                        self.stack.push(Frame {
                            id: self.order[pos],
                            options,
                            next: 0,
                        });
                        self.next_child(inst)
                    }
                }
            }
        }
    }

    /// End the search where it is.
    fn end(&mut self) {
        self.stack.clear();
        self.cursor = Cursor::Done;
    }

    /// The spines to try for the flow at `pos`, least loaded first; an unused spine only if it is
    /// the lowest unused of its class, and no spine below the previous member of the flow's class.
    fn options(&self, inst: &Instance, pos: usize) -> Vec<u32> {
        let f = &inst.flows[self.order[pos]];
        let fabric = &inst.fabric;
        let floor = self.class_prev[pos].and_then(|p| self.routing[p]);
        let mut seen_unused_class = Vec::new();
        let mut options: Vec<(u32, u32)> = Vec::new();
        for &s in &f.candidates {
            if floor.is_some_and(|fl| s < fl) {
                continue;
            }
            if self.spine_used[s as usize] == 0 {
                let c = self.spine_class[s as usize];
                if seen_unused_class.contains(&c) {
                    continue;
                }
                seen_unused_class.push(c);
            }
            let (u, d) = (fabric.up(f.src_tor, s), fabric.down(f.dst_tor, s));
            options.push((self.load[u].max(self.load[d]), s));
        }
        options.sort_unstable();
        options.into_iter().map(|(_, s)| s).collect()
    }

    /// Put flow `id` on spine `s` (`add`) or take it off.
    fn assign(&mut self, inst: &Instance, id: usize, s: u32, add: bool) {
        let f = &inst.flows[id];
        let (u, d) = (inst.fabric.up(f.src_tor, s), inst.fabric.down(f.dst_tor, s));
        if add {
            self.routing[id] = Some(s);
            self.load[u] += 1;
            self.load[d] += 1;
            self.spine_used[s as usize] += 1;
        } else {
            self.spine_used[s as usize] -= 1;
            self.load[u] -= 1;
            self.load[d] -= 1;
            self.routing[id] = None;
        }
    }

    /// The node below the last frame is done: take its assignment back and go to its next sibling.
    fn leave(&mut self, inst: &Instance) -> Cursor {
        if let Some(top) = self.stack.last() {
            let (id, s) = (top.id, top.options[top.next - 1]);
            self.assign(inst, id, s, false);
        }
        self.next_child(inst)
    }

    /// Enter the last frame's next option, or, when it has none left, leave that frame's node.
    fn next_child(&mut self, inst: &Instance) -> Cursor {
        let Some(top) = self.stack.last_mut() else {
            return Cursor::Done;
        };
        if let Some(&s) = top.options.get(top.next) {
            top.next += 1;
            let id = top.id;
            self.assign(inst, id, s, true);
            return Cursor::Enter;
        }
        self.stack.pop();
        self.leave(inst)
    }

    /// Seed the incumbent with the heuristics and set the ceiling (after the counting bound, if
    /// any, is known). Idempotent.
    fn seed(&mut self, inst: &Instance) {
        while self.seed_step(inst) {}
    }

    /// Seed with the next heuristic (greedy, edge colouring, capacity-aware greedy, ECMP, the
    /// counting construction of `lex_seed`), with the
    /// ceiling set before the first. False when seeding was done already. Once the incumbent meets
    /// the ceiling (or the counting bound) no later heuristic can beat it, so the rest are skipped:
    /// the incumbent is the one that seeding them all would keep (the first of the best).
    fn seed_step(&mut self, inst: &Instance) -> bool {
        if self.seeded >= SEEDS {
            return false;
        }
        if self.seeded == 0 {
            // A bound the incumbent meets ends the search at once. For the lexicographic
            // objectives: the value of the NIC-only allocation (no routing beats it; a routing
            // that reaches it is optimal).
            self.ceiling = match self.objective {
                Objective::FlowLex | Objective::JobLex => {
                    let nic_only = Routing(vec![None; inst.flows.len()]);
                    Some(self.value(inst, &nic_only))
                }
                _ => Some(Value::Cost(root_bound(inst, self.objective, &self.cap))),
            };
        }
        let r = match self.heuristics.get(self.seeded) {
            Some(r) => r.clone(),
            None => {
                let r = match self.seeded {
                    0 => greedy(inst),
                    1 => edge_coloring(inst),
                    2 => greedy_capacity_aware(inst),
                    3 => ecmp(inst),
                    // The counting construction (`lex_seed`), where it applies; else greedy's
                    // again (the incumbent keeps the first of equals).
                    _ => super::lex_seed::counting_seed(inst)
                        .unwrap_or_else(|| self.heuristics[0].clone()),
                };
                self.heuristics.push(r.clone());
                r
            }
        };
        let v = self.value(inst, &r);
        if self.seeded == 0 || v.cmp(&self.best_value) == Ordering::Greater {
            self.set_best(r, v);
        }
        self.seeded += 1;
        if self.settled() {
            self.seeded = SEEDS;
        }
        true
    }

    /// The result: the incumbent, whether it is proven, and the bound.
    fn optimum(self, inst: &Instance) -> Optimum {
        let proven = self.settled() || !self.exhausted;
        let bound = root_bound(inst, self.objective, &self.cap);
        let value_bound = match (&self.best_value, proven) {
            (Value::Lex(_, x), true) => x.first().copied().unwrap_or(f64::INFINITY),
            (Value::Cost(c), true) => *c,
            // With the counting bound, the least rate is proven to be at most z1.
            (_, false) => self.count.as_ref().map_or(bound, |cb| bound.min(cb.z1)),
        };
        Optimum {
            routing: self.best,
            proven,
            bound: value_bound,
            nodes: self.nodes,
            stopped: self.stopped,
        }
    }
}

/// Spines with identical links and capacities (to every ToR, both directions) share a class.
fn spine_classes(inst: &Instance) -> Vec<usize> {
    let fabric = &inst.fabric;
    let key = |s: u32| -> Vec<Option<u64>> {
        (0..fabric.num_tors)
            .flat_map(|t| [fabric.up(t, s), fabric.down(t, s)])
            .map(|e| fabric.capacity[e].map(f64::to_bits))
            .collect()
    };
    let keys: Vec<Vec<Option<u64>>> = (0..fabric.num_spines).map(key).collect();
    (0..keys.len())
        .map(|s| keys.iter().position(|k| *k == keys[s]).expect("itself"))
        .collect()
}

/// The search order (greedy visit order, each flow class kept together) and each position's
/// previous class member, when flows of a class are interchangeable (each NIC direction carries at
/// most one flow and the job's rings are equal).
fn order_and_classes(inst: &Instance) -> (Vec<usize>, Vec<Option<usize>>) {
    let visit = visit_order(&group_order(inst));
    let hosts = inst.fabric.hosts.len();
    let (mut out_deg, mut in_deg) = (vec![0; hosts], vec![0; hosts]);
    for f in &inst.flows {
        out_deg[f.src_index] += 1;
        in_deg[f.dst_index] += 1;
    }
    let nic_single = out_deg.iter().chain(&in_deg).all(|d| *d <= 1);
    let equal_rings = |j: usize| {
        let rings = &inst.jobs[j].1;
        rings
            .iter()
            .all(|&r| inst.rings[r].members == inst.rings[rings[0]].members)
    };
    let key = |id: usize| {
        let f = &inst.flows[id];
        (f.job, f.src_tor, f.dst_tor)
    };
    // Each flow class in the visit order of its first member, its members in visit order (one
    // pass with a map: comparing every pair took 30 ms at 2,048 ToRs).
    let mut classes: std::collections::HashMap<(usize, u32, u32), Vec<usize>> =
        std::collections::HashMap::new();
    let mut first_seen = Vec::new();
    for &id in &visit {
        let members = classes.entry(key(id)).or_default();
        if members.is_empty() {
            first_seen.push(key(id));
        }
        members.push(id);
    }
    let mut order = Vec::with_capacity(visit.len());
    for k in first_seen {
        order.extend(classes.remove(&k).unwrap_or_default());
    }
    let prev = (0..order.len())
        .map(|i| {
            let f = &inst.flows[order[i]];
            (i > 0 && nic_single && equal_rings(f.job) && key(order[i - 1]) == key(order[i]))
                .then(|| order[i - 1])
        })
        .collect();
    (order, prev)
}

/// The largest contention-free All-Reduce time over the jobs (a bound for every routing).
fn contention_free_s(inst: &Instance) -> f64 {
    (0..inst.jobs.len())
        .map(|j| {
            let n = inst.ring_sizes(j).max().unwrap_or(2);
            ring_time_s(n, inst.jobs[j].0, inst.fabric.nic_gbps)
        })
        .fold(0.0, f64::max)
}

/// `nic_gbps` over the most flows on one NIC direction.
pub fn nic_share(inst: &Instance) -> f64 {
    let mut per_nic = vec![0u32; 2 * inst.fabric.hosts.len()];
    for f in &inst.flows {
        per_nic[2 * f.src_index] += 1;
        per_nic[2 * f.dst_index + 1] += 1;
    }
    inst.fabric.nic_gbps / f64::from(per_nic.iter().copied().max().unwrap_or(1).max(1))
}

/// The root bound of `objective` (see [`Optimum::bound`]).
fn root_bound(inst: &Instance, objective: Objective, cap: &[f64]) -> f64 {
    let fabric = &inst.fabric;
    match objective {
        Objective::FlowLex | Objective::JobLex => {
            let nic_only = Routing(vec![None; inst.flows.len()]);
            let paths: Vec<Vec<usize>> = inst
                .flows
                .iter()
                .map(|f| f.path(fabric, nic_only.0[f.id]))
                .collect();
            max_min_rates(&paths, cap)
                .into_iter()
                .fold(f64::INFINITY, f64::min)
        }
        Objective::MinMaxLinkLoad | Objective::MinMaxNormalizedLoad => {
            let t = fabric.num_tors as usize;
            let (mut u, mut d) = (vec![0u32; t], vec![0u32; t]);
            for f in inst.flows.iter().filter(|f| f.inter_tor()) {
                u[f.src_tor as usize] += 1;
                d[f.dst_tor as usize] += 1;
            }
            let links = |tor: u32, up: bool| {
                (0..fabric.num_spines)
                    .filter(|&s| {
                        let e = if up {
                            fabric.up(tor, s)
                        } else {
                            fabric.down(tor, s)
                        };
                        fabric.capacity[e].is_some()
                    })
                    .count()
                    .max(1) as u32
            };
            let count = (0..fabric.num_tors)
                .map(|tor| {
                    u[tor as usize]
                        .div_ceil(links(tor, true))
                        .max(d[tor as usize].div_ceil(links(tor, false)))
                })
                .max()
                .unwrap_or(0);
            if objective == Objective::MinMaxLinkLoad {
                f64::from(count)
            } else {
                let top = cap
                    .iter()
                    .take(2 * (fabric.num_tors * fabric.num_spines) as usize)
                    .copied()
                    .fold(0.0, f64::max);
                f64::from(count) / top.max(f64::MIN_POSITIVE)
            }
        }
        Objective::MinMakespan => contention_free_s(inst).max(crowded_tor_s(inst, cap)),
    }
}

/// A makespan bound from crowded ToRs: a ToR with `n` inter-ToR flows leaving (or entering) over
/// `L < n` live links puts at least `k = ⌈n/L⌉` of them on one link in every routing, and the
/// slowest of those gets at most `c/k` (c: that ToR's largest link capacity), so its job's
/// All-Reduce takes at least the ring time at that rate. The job is not known, hence the least
/// over the jobs with flows there; the bound is the largest over the ToRs and both directions.
fn crowded_tor_s(inst: &Instance, cap: &[f64]) -> f64 {
    let fabric = &inst.fabric;
    let t = fabric.num_tors as usize;
    let jobs = inst.jobs.len();
    // Per ToR and direction: the flow count and the jobs present.
    let mut count = vec![0usize; 2 * t];
    let mut present = vec![false; 2 * t * jobs];
    for f in inst.flows.iter().filter(|f| f.inter_tor()) {
        for (side, tor) in [(0, f.src_tor as usize), (1, f.dst_tor as usize)] {
            count[2 * tor + side] += 1;
            present[(2 * tor + side) * jobs + f.job] = true;
        }
    }
    let unit: Vec<f64> = (0..jobs)
        .map(|j| ring_time_s(inst.ring_sizes(j).min().unwrap_or(2), inst.jobs[j].0, 1.0))
        .collect();
    let mut bound = 0.0f64;
    for tor in 0..t {
        for side in 0..2 {
            let links: Vec<f64> = (0..fabric.num_spines)
                .map(|s| {
                    if side == 0 {
                        fabric.up(tor as u32, s)
                    } else {
                        fabric.down(tor as u32, s)
                    }
                })
                .filter(|&e| fabric.capacity[e].is_some())
                .map(|e| cap[e])
                .collect();
            let n = count[2 * tor + side];
            if links.is_empty() || n <= links.len() {
                continue;
            }
            let k = n.div_ceil(links.len()) as f64;
            let top = links.iter().copied().fold(0.0, f64::max);
            let least_unit = (0..jobs)
                .filter(|&j| present[(2 * tor + side) * jobs + j])
                .map(|j| unit[j])
                .fold(f64::INFINITY, f64::min);
            // ring_time is inversely proportional to the rate: unit time (at 1 Gbps) / rate.
            bound = bound.max(least_unit / (top / k));
        }
    }
    bound
}

/// The least fair share `min c_e / n_e` over the loaded spine links (None when none is loaded).
fn least_fair_share(inst: &Instance, loads: &[u32]) -> Option<f64> {
    let fabric = &inst.fabric;
    let spine_links = 2 * (fabric.num_tors * fabric.num_spines) as usize;
    (0..spine_links)
        .filter(|e| loads[*e] > 0)
        .filter_map(|e| fabric.capacity[e].map(|c| c / f64::from(loads[e])))
        .reduce(f64::min)
}

/// Find the best routing for `objective`, exploring at most `node_budget` nodes.
pub fn optimize(inst: &Instance, objective: Objective, node_budget: u64) -> Optimum {
    optimize_watched(inst, objective, node_budget, &mut |_| true)
}

/// [`optimize`], asking `watch` every [`WATCH_EVERY`] nodes (with the nodes explored so far)
/// whether to go on: a time limit, progress and a cancel live there, outside the pure search.
/// A stopped search returns its best routing and bound, not proven, with `stopped` set.
pub fn optimize_watched(
    inst: &Instance,
    objective: Objective,
    node_budget: u64,
    watch: &mut dyn FnMut(u64) -> bool,
) -> Optimum {
    let mut run = ExactRun::new(inst, objective, node_budget);
    if !run.advance(inst, watch) {
        run.stop(inst);
    }
    run.optimum(inst)
}

/// An exact search that can pause and resume: [`ExactRun::advance`] explores until its watcher
/// says to pause or the search ends, so the app can spread one search over many animation frames
/// (and drop it to cancel). Paused and resumed, it explores the same nodes in the same order as
/// one uninterrupted [`optimize`].
pub struct ExactRun {
    search: Search,
    /// Flow-lex and job-lex first prove the least max load (it gives the counting bound).
    prelude: Option<Box<ExactRun>>,
    /// Job-lex when every job's bottleneck is the least rate: answered by the flow-lex optimum.
    delegate: Option<Box<ExactRun>>,
    /// Job-lex otherwise: a flow-lex search of at most [`SCOUT_NODES`] nodes whose best routing
    /// seeds the main search (the flow-lex optimum often has the best job vector too, and an
    /// incumbent that good lets the bounds prune from the start).
    scout: Option<Box<ExactRun>>,
    /// Nodes the scout explored.
    scouted: u64,
}

/// The node budget of job-lex's flow-lex scout.
const SCOUT_NODES: u64 = 20_000;

impl ExactRun {
    /// A search of `inst` for `objective` within `node_budget` nodes, not started.
    pub fn new(inst: &Instance, objective: Objective, node_budget: u64) -> ExactRun {
        let search = Search::new(inst, objective, node_budget);
        let prelude = if matches!(objective, Objective::FlowLex | Objective::JobLex) {
            // The least possible max load (on uneven links, max normalized load), proven, gives
            // the flow-lex optimum's least rate.
            let least = match uniform_capacity(inst) {
                Some(_) => Objective::MinMaxLinkLoad,
                None => Objective::MinMaxNormalizedLoad,
            };
            Some(Box::new(ExactRun::of(
                search.like(least, node_budget.clamp(1, 200_000)),
            )))
        } else {
            // Seeded by the first advance, or a heuristic at a time by `seed_step`.
            None
        };
        ExactRun {
            prelude,
            ..ExactRun::of(search)
        }
    }

    /// A run of `search` alone.
    fn of(search: Search) -> ExactRun {
        ExactRun {
            search,
            prelude: None,
            delegate: None,
            scout: None,
            scouted: 0,
        }
    }

    /// The scout's best routing offered to the main search.
    fn take_scout(&mut self, inst: &Instance) {
        if let Some(scout) = self.scout.take() {
            self.scouted = scout.nodes();
            // The node budget holds for the scout and the main search together.
            self.search.budget = self.search.budget.saturating_sub(self.scouted);
            let found = scout.optimum(inst).routing;
            self.search.seed(inst);
            self.search.offer(inst, found);
        }
    }

    /// Search until the end (true) or until `watch` says to pause (false); call again to resume.
    pub fn advance(&mut self, inst: &Instance, watch: &mut dyn FnMut(u64) -> bool) -> bool {
        if let Some(d) = &mut self.delegate {
            return d.advance(inst, watch);
        }
        if let Some(p) = &mut self.prelude {
            if !p.advance(inst, watch) {
                return false;
            }
            let least = self.prelude.take().map(|mut p| {
                self.search.heuristics = std::mem::take(&mut p.search.heuristics);
                p.optimum(inst)
            });
            if let Some(least) = least.filter(|l| l.proven) {
                let loads = least.routing.loads(inst);
                let count = match uniform_capacity(inst) {
                    Some(_) => CountBound::new(inst, loads.iter().copied().max().unwrap_or(0)),
                    None => {
                        least_fair_share(inst, &loads).and_then(|z1| CountBound::at_rate(inst, z1))
                    }
                };
                let every_job = count.as_ref().is_some_and(|cb| cb.every_job_at_z1());
                if self.search.objective == Objective::JobLex && !every_job {
                    // Job-lex counts the jobs at z1, then the flows, from the scout's routing.
                    let budget = SCOUT_NODES.min(self.search.budget);
                    let mut scout = self.search.like(Objective::FlowLex, budget);
                    scout.count.clone_from(&count);
                    scout.heuristics.clone_from(&self.search.heuristics);
                    self.scout = Some(Box::new(ExactRun::of(scout)));
                    self.search.count = count;
                } else if self.search.objective == Objective::FlowLex {
                    self.search.count = count;
                } else {
                    // Every job's bottleneck is z1 in every routing that reaches z1: no job
                    // vector beats the flow-lex optimum's, and job-lex breaks the tie by flow-lex.
                    // That search's own prelude would prove the same least max load within the
                    // same budget, so it starts from this one's counting bound.
                    let mut flow_lex = self.search.like(Objective::FlowLex, self.search.budget);
                    flow_lex.count = count;
                    flow_lex.heuristics = std::mem::take(&mut self.search.heuristics);
                    let d = self.delegate.insert(Box::new(ExactRun::of(flow_lex)));
                    return d.advance(inst, watch);
                }
            }
        }
        if let Some(scout) = &mut self.scout {
            if !scout.advance(inst, watch) {
                return false;
            }
            self.take_scout(inst);
        }
        self.search.seed(inst);
        self.search.run(inst, watch)
    }

    /// Stop where it is: the result is the best routing found, not proven unless a bound proves
    /// it, with `stopped` set.
    pub fn stop(&mut self, inst: &Instance) {
        if let Some(d) = &mut self.delegate {
            return d.stop(inst);
        }
        self.prelude = None;
        self.take_scout(inst);
        self.search.seed(inst);
        self.search.stopped = true;
        self.search.exhausted = true;
        self.search.end();
    }

    /// Seed the search with its next heuristic (a piece of work of its own at scale); false when
    /// there is none left to seed this way (or the objective seeds after its prelude).
    pub fn seed_step(&mut self, inst: &Instance) -> bool {
        self.prelude.is_none() && self.delegate.is_none() && self.search.seed_step(inst)
    }

    /// Nodes explored so far (by the main search).
    pub fn nodes(&self) -> u64 {
        match (&self.delegate, &self.scout) {
            (Some(d), _) => d.nodes(),
            (None, Some(scout)) => scout.nodes(),
            (None, None) => self.scouted + self.search.nodes,
        }
    }

    /// The node budget (of the scout, if any, and the main search together).
    pub fn budget(&self) -> u64 {
        self.scouted + self.search.budget
    }

    /// The result so far (final once [`ExactRun::advance`] has returned true or after
    /// [`ExactRun::stop`]).
    pub fn optimum(mut self, inst: &Instance) -> Optimum {
        match self.delegate {
            Some(d) => d.optimum(inst),
            None => {
                // A run never advanced still answers with its seeds.
                self.take_scout(inst);
                if self.prelude.is_none() {
                    self.search.seed(inst);
                }
                let scouted = self.scouted;
                let mut optimum = self.search.optimum(inst);
                optimum.nodes += scouted;
                optimum
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::scenario::RouteScenario;

    #[test]
    fn a_watcher_stops_the_search_with_its_best_unproven() {
        use crate::routing::generate::{generate, Placement};
        // The paper's fabric with 200 failed single links, flow-lex: no bound proves it at once
        // (without failures, edge colouring proves it at the root).
        let p = Placement {
            failed_links: 200,
            ..Placement::paper(5, 8, 0)
        };
        let inst = generate(&p).unwrap().instance().unwrap();
        let mut asked = Vec::new();
        let opt = optimize_watched(&inst, Objective::FlowLex, u64::MAX, &mut |n| {
            asked.push(n);
            asked.len() < 3
        });
        assert!(opt.stopped && !opt.proven);
        assert_eq!(asked.len(), 3);
        assert!(asked.iter().all(|n| n % WATCH_EVERY == 0));
        // Its routing is complete and its bound an upper bound on the least rate.
        assert!(opt
            .routing
            .0
            .iter()
            .zip(&inst.flows)
            .all(|(s, f)| s.is_some() == f.inter_tor()));
        assert!(opt.bound > 0.0);
    }

    #[test]
    fn a_search_paused_at_every_watch_and_resumed_equals_one_uninterrupted_search() {
        use crate::routing::generate::{generate, Placement};
        let objectives = [
            Objective::FlowLex,
            Objective::JobLex,
            Objective::MinMaxLinkLoad,
            Objective::MinMaxNormalizedLoad,
            Objective::MinMakespan,
        ];
        let mut pauses = 0;
        // Placements whose searches end proven after hundreds of nodes, or run out of budget.
        let cases = [
            (6, 4, 3, 3, 4, 3, 1),
            (6, 6, 3, 4, 3, 3, 3),
            (5, 4, 3, 3, 3, 3, 2),
            (6, 6, 3, 4, 3, 1, 2),
            (8, 8, 4, 3, 4, 3, 1),
        ];
        for (tors, hosts_per_tor, spines, jobs, ring_size, failed_links, seed) in cases {
            let p = Placement {
                tors,
                hosts_per_tor,
                spines,
                jobs,
                ring_size,
                failed_links,
                seed,
                ..Placement::default()
            };
            let inst = generate(&p).unwrap().instance().unwrap();
            for objective in objectives {
                let whole = optimize(&inst, objective, 1_500);
                let mut run = ExactRun::new(&inst, objective, 1_500);
                let mut seen = Vec::new();
                while !run.advance(&inst, &mut |n| {
                    seen.push(n);
                    false
                }) {
                    pauses += 1;
                    assert!(run.nodes() <= run.budget());
                }
                assert_eq!(run.optimum(&inst), whole, "{p:?}, {objective:?}");
            }
        }
        // The searches were long enough to pause, many times.
        assert!(pauses > 200, "{pauses}");
    }

    #[test]
    fn at_the_papers_scale_the_load_and_makespan_optima_are_proven_at_the_root() {
        use crate::routing::edge_coloring::max_degree;
        use crate::routing::generate::{generate, Placement};
        for (jobs, ring, failed) in [(5, 8, 0), (3, 2, 4), (1, 4, 8), (5, 4, 1)] {
            let p = Placement::paper(jobs, ring, failed);
            let inst = generate(&p).unwrap().instance().unwrap();
            let k = max_degree(&inst).div_ceil(32 - failed as usize) as f64;
            let load = optimize(&inst, Objective::MinMaxLinkLoad, 1_000);
            assert!(load.proven && load.nodes == 0, "{p:?}");
            assert_eq!(load.bound, k);
            let span = optimize(&inst, Objective::MinMakespan, 1_000);
            assert!(span.proven && span.nodes == 0, "{p:?}");
            // The crowded-ToR bound: the rings run at c / k (all jobs alike here).
            let unit = ring_time_s(ring as usize, inst.jobs[0].0, 100.0);
            assert!((span.bound - unit * k).abs() <= 1e-9 * span.bound, "{p:?}");
            if failed == 0 {
                let lex = optimize(&inst, Objective::FlowLex, 1_000);
                assert!(lex.proven, "{p:?}");
            }
        }
    }

    fn all_routings(inst: &Instance) -> Vec<Routing> {
        let mut out = vec![vec![None; inst.flows.len()]];
        for f in inst.flows.iter().filter(|f| f.inter_tor()) {
            out = out
                .into_iter()
                .flat_map(|r| {
                    f.candidates.iter().map(move |&s| {
                        let mut r = r.clone();
                        r[f.id] = Some(s);
                        r
                    })
                })
                .collect();
        }
        out.into_iter().map(Routing).collect()
    }

    fn tiny(seed: u64) -> Option<Instance> {
        let mut x = seed;
        let mut next = |n: u64| {
            x = x.wrapping_add(1);
            crate::routing::splitmix64(x) % n
        };
        let spines = 1 + next(3) as u32;
        let tors = 2 + next(2) as u32;
        let per = 1 + next(3) as u32;
        let hosts: Vec<String> = (0..tors * per)
            .map(|i| format!(r#"{{"id": {i}, "tor": {}}}"#, i / per))
            .collect();
        let mut free: Vec<u32> = (0..tors * per).collect();
        let mut jobs = Vec::new();
        for j in 0..1 + next(2) {
            let n = 2 + next(2) as usize;
            if free.len() < n {
                break;
            }
            let ring: Vec<u32> = (0..n)
                .map(|_| free.remove(next(free.len() as u64) as usize))
                .collect();
            jobs.push(format!(
                r#"{{"name": "j{j}", "chunk_bytes": {}, "rings": [{:?}]}}"#,
                1e6 * (1 + next(3)) as f64,
                ring
            ));
        }
        let over = if next(2) == 0 && spines > 1 {
            r#", "link_capacity_overrides": [{"kind": "up", "tor": 0, "spine": 0, "gbps": 40}]"#
        } else {
            ""
        };
        let text = format!(
            r#"{{"network": {{"num_spines": {spines}, "num_tors": {tors}, "link_gbps": 100, "nic_gbps": 100{over}}},
                "hosts": [{}], "jobs": [{}]}}"#,
            hosts.join(","),
            jobs.join(",")
        );
        RouteScenario::from_json(&text).unwrap().instance().ok()
    }

    #[test]
    fn the_optimum_of_every_objective_matches_brute_force() {
        let (mut checked, mut improved) = (0, 0);
        for seed in 0..150 {
            let Some(inst) = tiny(seed) else { continue };
            let all = all_routings(&inst);
            if all.len() > 5000 {
                continue;
            }
            for objective in [
                Objective::FlowLex,
                Objective::JobLex,
                Objective::MinMaxLinkLoad,
                Objective::MinMaxNormalizedLoad,
                Objective::MinMakespan,
            ] {
                let opt = optimize(&inst, objective, 10_000_000);
                assert!(opt.proven, "seed {seed} {objective:?}");
                let probe = Search {
                    objective,
                    order: Vec::new(),
                    class_prev: Vec::new(),
                    spine_class: Vec::new(),
                    cap: inst.capacities(),
                    routing: Vec::new(),
                    load: Vec::new(),
                    spine_used: Vec::new(),
                    best: Routing(Vec::new()),
                    best_value: Value::Cost(0.0),
                    nodes: 0,
                    budget: 0,
                    exhausted: false,
                    ceiling: None,
                    nic_share: 0.0,
                    count: None,
                    best_profile: None,
                    best_jobs: None,
                    levels: None,
                    stopped: false,
                    stack: Vec::new(),
                    cursor: Cursor::Done,
                    floor: 0.0,
                    seeded: SEEDS,
                    heuristics: Vec::new(),
                };
                let best = all
                    .iter()
                    .map(|r| probe.value(&inst, r))
                    .max_by(|a, b| a.cmp(b))
                    .unwrap();
                let ours = probe.value(&inst, &opt.routing);
                assert_eq!(
                    ours.cmp(&best),
                    Ordering::Equal,
                    "seed {seed} {objective:?}: {ours:?} vs {best:?}"
                );
                if probe.value(&inst, &greedy(&inst)).cmp(&best) == Ordering::Less {
                    improved += 1;
                }
            }
            checked += 1;
        }
        assert!(checked >= 80, "only {checked}");
        // The search is not idle: on some instances it beats the greedy seed.
        assert!(
            improved >= 5,
            "the optimum beat greedy only {improved} times"
        );
        eprintln!("{checked} instances, greedy improved on {improved} times");
    }

    /// 3 ToRs of 4 hosts over 2 spines of equal capacity, 1 to 3 random rings of 4: enough
    /// contention for a max load of 2 or more, few enough routings to enumerate.
    fn contended(seed: u64) -> Option<Instance> {
        let mut x = seed.wrapping_mul(7919);
        let mut next = |n: u64| {
            x = x.wrapping_add(1);
            crate::routing::splitmix64(x) % n
        };
        let hosts: Vec<String> = (0..12)
            .map(|i| format!(r#"{{"id": {i}, "tor": {}}}"#, i / 4))
            .collect();
        let mut free: Vec<u32> = (0..12).collect();
        // One job per ring.
        let jobs: Vec<String> = (0..1 + next(3))
            .map(|j| {
                let ring: Vec<u32> = (0..4)
                    .map(|_| free.remove(next(free.len() as u64) as usize))
                    .collect();
                format!(r#"{{"name": "j{j}", "chunk_bytes": 1e6, "rings": [{ring:?}]}}"#)
            })
            .collect();
        let text = format!(
            r#"{{"network": {{"num_spines": 2, "num_tors": 3, "link_gbps": 100, "nic_gbps": 100}},
                "hosts": [{}], "jobs": [{}]}}"#,
            hosts.join(","),
            jobs.join(",")
        );
        RouteScenario::from_json(&text).unwrap().instance().ok()
    }

    /// The flow-lex optimum over `all` routings of `inst`, after checking that the search proves
    /// the same rate vector.
    fn flow_lex_checked(inst: &Instance, all: &[Routing], seed: u64) -> Vec<f64> {
        let best = all
            .iter()
            .map(|r| sorted(rates(inst, r)))
            .max_by(|a, b| cmp_lex(a, b))
            .unwrap();
        let opt = optimize(inst, Objective::FlowLex, 10_000_000);
        assert!(opt.proven, "seed {seed}");
        let got = sorted(rates(inst, &opt.routing));
        assert_eq!(
            cmp_lex(&got, &best),
            Ordering::Equal,
            "seed {seed}: {got:?} vs {best:?}"
        );
        best
    }

    /// A contended instance (`contended`) with one or two spine links degraded to 25, 50 or 75
    /// Gbps.
    fn degraded(seed: u64) -> Option<Instance> {
        let mut inst = contended(seed)?;
        let spine_links = 2 * (inst.fabric.num_tors * inst.fabric.num_spines) as u64;
        let pick = |k: u64| crate::routing::splitmix64(seed * 31 + k);
        for k in 0..1 + pick(9) % 2 {
            let e = (pick(k) % spine_links) as usize;
            inst.fabric.capacity[e] = Some([25.0, 50.0, 75.0][(pick(k + 5) % 3) as usize]);
        }
        Some(inst)
    }

    /// A routing's ascending job bottlenecks and ascending flow rates: job-lex compares the
    /// first, then the second.
    fn job_probe(inst: &Instance, r: &Routing) -> (Vec<f64>, Vec<f64>) {
        let x = rates(inst, r);
        let jobs: Vec<f64> = inst
            .jobs
            .iter()
            .map(|(_, rings)| {
                rings
                    .iter()
                    .flat_map(|&g| inst.rings[g].flows.iter().map(|&f| x[f]))
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        (sorted(jobs), sorted(x))
    }

    fn job_key(a: &(Vec<f64>, Vec<f64>), b: &(Vec<f64>, Vec<f64>)) -> Ordering {
        cmp_lex(&a.0, &b.0).then_with(|| cmp_lex(&a.1, &b.1))
    }

    #[test]
    fn on_uneven_links_the_counting_bound_keeps_the_flow_lex_and_job_lex_optima() {
        // The search (whose prelude proves the least max normalized load and counts at that
        // rate, then bounds whole vectors by equal splits) against every routing.
        let (mut checked, mut counted) = (0, 0);
        for seed in 0..160u64 {
            let Some(inst) = degraded(seed) else {
                continue;
            };
            let all = all_routings(&inst);
            if all.len() > 4096 {
                continue;
            }
            let best = flow_lex_checked(&inst, &all, seed);
            checked += 1;
            if let Some(cb) = CountBound::at_rate(&inst, best[0]) {
                counted += 1;
                // Never above the optimum's count at its least rate.
                assert!(cb.root <= cb.profile(&best).0, "seed {seed}");
            }
            let best_job = all.iter().map(|r| job_probe(&inst, r)).max_by(job_key);
            let opt = optimize(&inst, Objective::JobLex, 10_000_000);
            assert!(opt.proven, "seed {seed}");
            assert_eq!(
                job_key(&job_probe(&inst, &opt.routing), &best_job.unwrap()),
                Ordering::Equal,
                "job-lex, seed {seed}"
            );
        }
        eprintln!("{checked} uneven instances checked, {counted} with the counting bound");
        assert!(
            checked >= 150 && counted >= 80,
            "{checked} checked, {counted} counted"
        );
    }

    #[test]
    fn the_lexicographic_bound_never_cuts_a_better_completion() {
        // At random partial routings of small instances (even and degraded), against random
        // incumbents: whenever the bound says no completion beats the incumbent, none does, in
        // the flow order and in the job order.
        let (mut pruned, mut tried) = (0, 0);
        for seed in 0..120u64 {
            let Some(inst) = (if seed % 2 == 0 {
                contended(seed)
            } else {
                degraded(seed)
            }) else {
                continue;
            };
            let all = all_routings(&inst);
            if all.len() > 4096 {
                continue;
            }
            let levels = LevelBound::new(&inst);
            let probes: Vec<_> = all.iter().map(|r| job_probe(&inst, r)).collect();
            let pick = |k: u64| crate::routing::splitmix64(seed * 1009 + k) as usize;
            for trial in 0..40u64 {
                let whole = &all[pick(trial) % all.len()];
                // Keep each routed flow with probability one half.
                let partial: Vec<Option<u32>> = whole
                    .0
                    .iter()
                    .enumerate()
                    .map(|(f, s)| s.filter(|_| pick(trial * 97 + f as u64) % 2 == 0))
                    .collect();
                let mut load = vec![0u32; inst.fabric.capacity.len()];
                for f in &inst.flows {
                    if let Some(s) = partial[f.id] {
                        load[inst.fabric.up(f.src_tor, s)] += 1;
                        load[inst.fabric.down(f.dst_tor, s)] += 1;
                    }
                }
                let completions: Vec<usize> = (0..all.len())
                    .filter(|i| {
                        partial
                            .iter()
                            .zip(&all[*i].0)
                            .all(|(p, a)| p.is_none() || p == a)
                    })
                    .collect();
                let incumbent = &probes[pick(trial * 13 + 1) % all.len()];
                for with_jobs in [false, true] {
                    let best = Incumbent {
                        jobs: with_jobs.then_some(incumbent.0.as_slice()),
                        flows: &incumbent.1,
                        jobs_at_least: 0,
                    };
                    tried += 1;
                    if !levels.dominated(&load, &partial, &best) {
                        continue;
                    }
                    pruned += 1;
                    for i in &completions {
                        let beats = if with_jobs {
                            job_key(&probes[*i], incumbent) == Ordering::Greater
                        } else {
                            cmp_lex(&probes[*i].1, &incumbent.1) == Ordering::Greater
                        };
                        assert!(!beats, "seed {seed} trial {trial} jobs {with_jobs}");
                    }
                }
            }
        }
        eprintln!("{pruned} of {tried} subtrees pruned by the lexicographic bound");
        assert!(pruned >= 500, "only {pruned} of {tried} pruned");
    }

    #[test]
    fn on_a_degraded_four_by_four_fabric_job_lex_proves_in_few_nodes() {
        // Issue 37's case: 4 ToRs x 4 spines, 8 hosts per ToR, two jobs of rings of 4 (the CLI's
        // `route-scenario --tors 4 --spines 4 --hosts-per-tor 8 --jobs 2`), one uplink at
        // 50 Gbps. Before the job count at z1 the search took 157,375 nodes.
        let hosts: Vec<String> = (0..32)
            .map(|i| format!(r#"{{"id": {i}, "tor": {}}}"#, i / 8))
            .collect();
        let ring = |first: u32| -> Vec<u32> { (0..4).map(|k| first + 4 * k).collect() };
        let jobs: Vec<String> = (0..2)
            .map(|j| {
                let rings: Vec<Vec<u32>> = (0..4).map(|r| ring(16 * j + r)).collect();
                format!(r#"{{"name": "job{j}", "chunk_bytes": 64e6, "rings": {rings:?}}}"#)
            })
            .collect();
        let text = format!(
            r#"{{"network": {{"num_spines": 4, "num_tors": 4, "link_gbps": 100, "nic_gbps": 100,
                "link_capacity_overrides": [{{"kind": "up", "tor": 0, "spine": 0, "gbps": 50}}]}},
                "hosts": [{}], "jobs": [{}]}}"#,
            hosts.join(","),
            jobs.join(",")
        );
        let inst = RouteScenario::from_json(&text).unwrap().instance().unwrap();
        let opt = optimize(&inst, Objective::JobLex, 10_000_000);
        assert!(opt.proven);
        let (jobs, flows) = job_probe(&inst, &opt.routing);
        assert_eq!(jobs, vec![50.0, 100.0]);
        assert_eq!(flows.iter().filter(|x| **x == 50.0).count(), 1);
        assert!(opt.nodes <= 100, "{} nodes", opt.nodes);
    }

    #[test]
    fn the_counting_bound_keeps_the_flow_lex_and_job_lex_optima() {
        let (mut counted, mut jobs_forced) = (0, 0);
        for seed in 0..80 {
            let Some(inst) = contended(seed) else {
                continue;
            };
            let all = all_routings(&inst);
            if all.len() > 4096 {
                continue;
            }
            let best = flow_lex_checked(&inst, &all, seed);
            let k = optimize(&inst, Objective::MinMaxLinkLoad, 1_000_000)
                .routing
                .loads(&inst)
                .into_iter()
                .max()
                .unwrap_or(0);
            if let Some(cb) = CountBound::new(&inst, k) {
                counted += 1;
                // The root bound never exceeds the optimum's count at z1.
                assert!(cb.root <= cb.profile(&best).0, "seed {seed}");
                jobs_forced += usize::from(cb.every_job_at_z1());
            }
            // Job-lex against brute force: the job vector, then the flow vector.
            let probe = |r: &Routing| job_probe(&inst, r);
            let best_job = all.iter().map(probe).max_by(job_key).unwrap();
            let opt = optimize(&inst, Objective::JobLex, 10_000_000);
            assert!(opt.proven, "seed {seed}");
            assert_eq!(
                job_key(&probe(&opt.routing), &best_job),
                Ordering::Equal,
                "job-lex, seed {seed}"
            );
        }
        assert!(
            counted >= 20,
            "only {counted} instances used the counting bound"
        );
        assert!(
            jobs_forced >= 5,
            "only {jobs_forced} instances had every job at z1"
        );
    }
}
