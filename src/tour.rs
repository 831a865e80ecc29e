//! The guided tour: a few steps on LIBRA's GPT-3 4D case, from the uniform split to the optimum,
//! then the Pareto front, the landscape and the shape comparison. Each step names the view it shows
//! and says what to look at, with the study's own numbers.

use crate::analysis::study::Study;
use crate::format::{duration_ns, usd};
use crate::view::View;

/// One step of the tour.
#[derive(Clone, Debug, PartialEq)]
pub struct TourStep {
    pub title: String,
    pub text: String,
    pub view: View,
    /// The CSS selector of what the step talks about: the page scrolls it into view.
    pub target: &'static str,
}

/// The tour's steps for `study` (LIBRA's GPT-3 on the 4D network, as the tour opens it).
pub fn tour_steps(study: &Study) -> Vec<TourStep> {
    let bw = |v: &[f64]| {
        v.iter()
            .map(|b| format!("{b:.1}"))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let opt = &study.evaluation;
    let (uniform_text, speedup_text) = match (&study.uniform, study.speedup()) {
        (Some(u), Some(x)) => (
            format!(
                "LIBRA's baseline splits the 500 GB/s per NPU evenly: {} GB/s on each of the {} dimensions. \
                 GPT-3 then takes {} per iteration, of which {} is communication that compute does not \
                 hide. The dimensions do not carry the same traffic, so an even split leaves some of them \
                 idle while others hold everyone up.",
                bw(&u.bw_gbps),
                study.dim_labels.len(),
                duration_ns(u.evaluation.time_ns),
                duration_ns(u.evaluation.time_ns - u.evaluation.compute_ns)
            ),
            format!(
                "The optimizer moves bandwidth to where the traffic is: {} GB/s. The same 500 GB/s now \
                 trains in {}, {x:.3}× faster than the uniform split, and the solver proves that no split is \
                 better by more than {:.0e}. Read \"Why each dimension gets its bandwidth\" below the table.",
                bw(&study.optimum.bw_gbps),
                duration_ns(opt.time_ns),
                study.optimum.gap.max(1e-12)
            ),
        ),
        _ => (
            "This scenario has no uniform split to start from.".to_string(),
            format!("The optimum trains in {}.", duration_ns(opt.time_ns)),
        ),
    };
    let front_text = match &study.front {
        Ok(f) if !f.points.is_empty() => format!(
            "Drop the 500 GB/s rule and ask instead: what is the fastest network for each budget? The Pareto \
             front answers it with {} optimal designs from {} to {}. Hover a point to see its bandwidths, click \
             it to load it. The red dot is the design above ({}), the grey one the uniform split.",
            f.points.len(),
            usd(f.points[0].cost_usd),
            usd(f.points[f.points.len() - 1].cost_usd),
            usd(opt.cost_usd)
        ),
        _ => "The Pareto front shows the fastest design at each budget.".to_string(),
    };
    vec![
        TourStep {
            title: "1. The uniform split".into(),
            text: uniform_text,
            view: View::Design,
            target: ".results-table",
        },
        TourStep {
            title: "2. The optimum".into(),
            text: speedup_text,
            view: View::Design,
            target: ".results-table",
        },
        TourStep {
            title: "3. The Pareto front".into(),
            text: front_text,
            view: View::Design,
            target: "[data-testid=chart-pareto]",
        },
        TourStep {
            title: "4. The landscape".into(),
            text: "Training time over two dimensions' bandwidths, the others re-optimized at each point: a \
                   flat valley means the exact split matters little, a narrow one that it matters a lot. The \
                   black path is the optimizer's way from its start to the optimum; grey is where the 500 \
                   GB/s rule cannot hold."
                .into(),
            view: View::Landscape,
            target: "[data-testid=chart-landscape]",
        },
        TourStep {
            title: "5. Other network shapes".into(),
            text: "Is Ring × fully-connected × Ring × Switch even the right shape for 4,096 NPUs? The \
                   comparison optimizes every way to lay them on 2 to 4 dimensions that can be built (at most 8 \
                   chiplets per package, 16 packages per group, 32 nodes per ring), each timed with its tiers' \
                   latency per step, at every budget. The thick line is the best shape per budget; the table ranks them at this design's budget."
                .into(),
            view: View::Shapes,
            target: "[data-testid=chart-compare]",
        },
        TourStep {
            title: "6. Your turn".into(),
            text: "Change a dimension's NPUs or tier, or lay the design on a real system (a DGX SuperPOD,                    Meta's RoCE cluster, a TPU pod), and every number above follows. The Co-design tab asks                    which parallelism, shape and bandwidths train a model fastest for the money (Llama 3,                    Mixtral, DeepSeek-V3 with its experts); Routing sends the traffic over a Clos fabric;                    the glossary at the foot of the page explains the words. Copy link shares exactly                    what you see."
                .into(),
            view: View::Design,
            target: "[data-testid=network-panel]",
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::study::study;
    use crate::presets;

    #[test]
    fn the_tour_of_gpt3_4d_quotes_its_numbers() {
        let s = study(&presets::default_scenario()).unwrap();
        let steps = tour_steps(&s);
        assert_eq!(steps.len(), 6);
        assert!(
            steps[0].text.contains("125.0 / 125.0 / 125.0 / 125.0"),
            "{}",
            steps[0].text
        );
        assert!(steps[0].text.contains("775.05 ms"), "{}", steps[0].text);
        assert!(steps[1].text.contains("722.41 ms"), "{}", steps[1].text);
        assert!(steps[1].text.contains("1.073×"), "{}", steps[1].text);
        assert!(
            steps[2].text.contains("48 optimal designs"),
            "{}",
            steps[2].text
        );
        assert_eq!(
            steps.iter().map(|s| s.view).collect::<Vec<_>>(),
            [
                View::Design,
                View::Design,
                View::Design,
                View::Landscape,
                View::Shapes,
                View::Design
            ]
        );
    }
}
