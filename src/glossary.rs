//! The words the app uses, explained once, and the sources it follows: what the page's glossary
//! shows (each entry has an anchor, `#term-<key>`, that other text can link to).

/// One glossary entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    /// The anchor's key (`npu` -> `#term-npu`).
    pub key: &'static str,
    pub term: &'static str,
    pub meaning: &'static str,
}

impl Term {
    /// The element id of its entry.
    pub fn anchor(&self) -> String {
        format!("term-{}", self.key)
    }
}

/// Every term, in the order a newcomer meets them.
pub const TERMS: [Term; 22] = [
    Term { key: "npu", term: "NPU", meaning: "A neural processing unit: one accelerator (a GPU, a TPU chip, a Trainium chip). Bandwidths are per NPU." },
    Term { key: "dimension", term: "Dimension", meaning: "One level of a multi-dimensional network (chiplets, package, node, pod), innermost first: n NPUs joined by a Ring, a FullyConnected mesh or a Switch, each with its own bandwidth per NPU." },
    Term { key: "tier", term: "Tier", meaning: "What a dimension is built of and what it costs: LIBRA's InterChiplet, InterPackage, InterNode and InterPod, or a real system's (NVLink, InfiniBand NDR, RoCE, TPU ICI), each with a price per GB/s of links, switches and NICs." },
    Term { key: "ring", term: "Ring", meaning: "A dimension whose NPUs form a ring: a collective takes 2(n-1) steps for an all-reduce, each moving 1/n of the data." },
    Term { key: "fullyconnected", term: "FullyConnected", meaning: "A dimension where every NPU has a direct link to every other (a package's mesh)." },
    Term { key: "switch", term: "Switch", meaning: "A dimension joined through switches (NVSwitch, an InfiniBand fat tree): priced by its links, switch ports and NICs." },
    Term { key: "collective", term: "Collective", meaning: "A communication all NPUs of a group take part in: all-reduce, reduce-scatter, all-gather, all-to-all; each dimension carries its share of the bytes." },
    Term { key: "phases", term: "Forward / InputGrad / WeightGrad", meaning: "The three passes of a layer in training: the forward pass, the gradients of its inputs, and the gradients of its weights (which data parallelism all-reduces)." },
    Term { key: "tp-pp-dp", term: "TP, PP, DP (tp-pp-dp)", meaning: "Tensor parallelism splits each layer over NPUs, pipeline parallelism puts layers on different NPUs, data parallelism trains copies on different data; tp-pp-dp lays TP on the innermost dimensions, then PP, then DP." },
    Term { key: "cp", term: "CP", meaning: "Context parallelism: a long sequence split over NPUs, which pass keys and values around a ring." },
    Term { key: "ep", term: "EP, mixture of experts", meaning: "A mixture of experts replaces a layer's MLP by many experts of which each token uses a few (top-k); expert parallelism spreads the experts over NPUs, and tokens travel to theirs and back in all-to-alls." },
    Term { key: "1f1b", term: "1F1B", meaning: "The pipeline schedule that alternates one forward and one backward micro-batch per stage; filling and draining it idles stages (the bubble)." },
    Term { key: "zero", term: "ZeRO", meaning: "Sharding the optimizer states (stage 1), gradients (2) and weights (3) over data-parallel NPUs to save memory; gradients are reduce-scattered and weights all-gathered." },
    Term { key: "optimum", term: "Certified optimum", meaning: "The bandwidths that minimize training time (or time x cost) under the constraints, with a proof (a Lagrangian lower bound) that no design is better by more than the gap." },
    Term { key: "uniform", term: "Uniform split", meaning: "LIBRA's baseline: every dimension gets the same bandwidth at the same total; the speedup is the uniform split's time over the optimum's." },
    Term { key: "front", term: "Pareto front", meaning: "The least training time at each network cost: no design is both cheaper and faster than a point on it." },
    Term { key: "perfpercost", term: "PerfPerCost", meaning: "LIBRA's objective time x cost (ns x $ / 1e10): the design a fixed amount of training buys cheapest." },
    Term { key: "tor", term: "ToR, spine", meaning: "A Clos fabric's two layers: top-of-rack (leaf) switches that NICs plug into, and the spines that join the leaves." },
    Term { key: "ecmp", term: "ECMP", meaning: "Equal-cost multi-path routing: each flow hashed onto one spine at random, so flows may collide on a link." },
    Term { key: "fluid", term: "Fluid simulation", meaning: "Flows share links max-min fairly and finish at different times; the fluid time follows them to the end, the static time assumes the slowest rate throughout." },
    Term { key: "makespan", term: "Makespan", meaning: "The time until the last job's collective finishes." },
    Term { key: "mfu", term: "MFU", meaning: "Model FLOPs utilisation: the model's FLOPs (without recomputation) per second per NPU over the accelerator's dense BF16 peak." },
];

/// The papers and documents the app follows.
pub const SOURCES: [(&str, &str); 4] = [
    (
        "LIBRA: Enabling Workload-aware Multi-dimensional Network Topology Optimization (arXiv 2109.11762)",
        "https://arxiv.org/abs/2109.11762",
    ),
    (
        "Routing for Large ML Models (arXiv 2503.05324)",
        "https://arxiv.org/abs/2503.05324",
    ),
    (
        "Reducing Activation Recomputation in Large Transformer Models (arXiv 2205.05198)",
        "https://arxiv.org/abs/2205.05198",
    ),
    (
        "The Llama 3 Herd of Models (arXiv 2407.21783) and DeepSeek-V3 (arXiv 2412.19437)",
        "https://arxiv.org/abs/2407.21783",
    ),
];

/// The project's documentation shipped with the app (copied beside it by `index.html`):
/// (title, file). docs/systems.md holds the source of every preset figure.
pub const DOCS: [(&str, &str); 7] = [
    (
        "How the model computes time and cost (LIBRA's formulas, the builder, memory)",
        "model.md",
    ),
    ("The optimizer and its certificates", "optimizer.md"),
    ("The step model against measured runs", "predict.md"),
    (
        "Real systems, their tiers and the sources of every figure",
        "systems.md",
    ),
    (
        "Co-design of parallelism, shape and bandwidths",
        "codesign.md",
    ),
    (
        "Routing over a Clos fabric (the paper's algorithms and ours)",
        "routing.md",
    ),
    ("The cluster simulation", "cluster.md"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_document_exists_and_the_bundle_copies_it() {
        let bundle = include_str!("../scripts/bundle");
        for (_, file) in DOCS {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("docs")
                .join(file);
            assert!(path.exists(), "{file}");
            assert!(bundle.contains(&format!("\"docs/{file}\",")), "{file}");
        }
    }

    #[test]
    fn every_term_has_one_anchor_and_a_meaning_that_ends_a_sentence() {
        let mut keys: Vec<&str> = TERMS.iter().map(|t| t.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), TERMS.len(), "duplicate keys");
        for t in TERMS {
            assert!(t
                .key
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit()));
            assert!(
                t.meaning.ends_with('.') && t.meaning.len() > 40,
                "{}",
                t.term
            );
        }
        for (title, url) in SOURCES {
            assert!(url.starts_with("https://arxiv.org/abs/"), "{title}");
        }
    }
}
