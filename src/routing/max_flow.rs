//! A maximum flow by breadth-first augmenting paths (Edmonds-Karp) on small integer graphs: the
//! b-matchings of the flow-lex seed (`lex_seed`) and of the counting bound (`lex_count`).

/// A small residual graph for the maximum flow (BFS augmenting paths).
pub struct FlowGraph {
    /// (to, capacity left, index of the reverse edge).
    edges: Vec<(usize, usize, usize)>,
    out: Vec<Vec<usize>>,
    /// Each forward edge's capacity, to read its flow back.
    cap: Vec<usize>,
}

impl FlowGraph {
    pub fn new(n: usize) -> FlowGraph {
        FlowGraph {
            edges: Vec::new(),
            out: vec![Vec::new(); n],
            cap: Vec::new(),
        }
    }

    /// Add `u -> v` of capacity `c`; returns the edge's index.
    pub fn add(&mut self, u: usize, v: usize, c: usize) -> usize {
        let e = self.edges.len();
        self.edges.push((v, c, e + 1));
        self.edges.push((u, 0, e));
        self.cap.push(c);
        self.cap.push(0);
        self.out[u].push(e);
        self.out[v].push(e + 1);
        e
    }

    /// Send `amount` along edge `e` before augmenting (a flow to start from).
    pub fn preload(&mut self, e: usize, amount: usize) {
        self.edges[e].1 -= amount;
        let rev = self.edges[e].2;
        self.edges[rev].1 += amount;
    }

    pub fn flow(&self, e: usize) -> usize {
        self.cap[e] - self.edges[e].1
    }

    pub fn max_flow(&mut self, s: usize, t: usize) -> usize {
        let mut total = 0;
        loop {
            let mut prev: Vec<Option<usize>> = vec![None; self.out.len()];
            let mut queue = std::collections::VecDeque::from([s]);
            let mut seen = vec![false; self.out.len()];
            seen[s] = true;
            while let Some(u) = queue.pop_front() {
                for &e in &self.out[u] {
                    let (v, c, _) = self.edges[e];
                    if c > 0 && !seen[v] {
                        seen[v] = true;
                        prev[v] = Some(e);
                        queue.push_back(v);
                    }
                }
            }
            if !seen[t] {
                return total;
            }
            let mut push = usize::MAX;
            let mut v = t;
            while let Some(e) = prev[v] {
                push = push.min(self.edges[e].1);
                v = self.edges[self.edges[e].2].0;
            }
            let mut v = t;
            while let Some(e) = prev[v] {
                self.edges[e].1 -= push;
                let rev = self.edges[e].2;
                self.edges[rev].1 += push;
                v = self.edges[rev].0;
            }
            total += push;
        }
    }
}
