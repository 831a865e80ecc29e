//! The app's views (its tabs) and everything besides the scenario that a permalink carries: the view
//! shown, the Routing view's state, a pinned scenario to compare with, the landscape's two
//! dimensions and the step of the guided tour.

use crate::model::scenario::Scenario;
use crate::optimize::Method;
use crate::routing::study::RouteLink;
use serde::{Deserialize, Serialize};

/// One of the app's views.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// The network, workloads, constraints and the optimum.
    #[default]
    Design,
    /// Every shape of the design's NPU count compared at every budget.
    Shapes,
    /// Training time over the bandwidths of two dimensions.
    Landscape,
    /// Clos routing of the training traffic.
    Routing,
    /// A cluster over time: jobs arriving and leaving under each routing policy.
    Cluster,
    /// Parallelism, shape and bandwidths searched together for a transformer.
    Codesign,
}

impl View {
    pub const ALL: [View; 6] = [
        View::Design,
        View::Shapes,
        View::Landscape,
        View::Routing,
        View::Cluster,
        View::Codesign,
    ];

    pub fn label(self) -> &'static str {
        match self {
            View::Design => "Network design",
            View::Shapes => "Compare shapes",
            View::Landscape => "Landscape",
            View::Routing => "Routing",
            View::Cluster => "Cluster",
            View::Codesign => "Co-design",
        }
    }

    /// The `data-testid` of the view's tab.
    pub fn testid(self) -> &'static str {
        match self {
            View::Design => "view-design",
            View::Shapes => "view-shapes",
            View::Landscape => "view-landscape",
            View::Routing => "view-routing",
            View::Cluster => "view-cluster",
            View::Codesign => "view-codesign",
        }
    }

    pub fn is_design(&self) -> bool {
        *self == View::Design
    }
}

/// The tab that a key moves to from `current` in the view tabs (the WAI-ARIA tabs pattern:
/// arrows wrap around, Home and End go to the ends), or None for any other key.
pub fn tab_after(current: View, key: &str) -> Option<View> {
    let n = View::ALL.len();
    let i = View::ALL.iter().position(|v| *v == current)?;
    let j = match key {
        "ArrowRight" | "ArrowDown" => (i + 1) % n,
        "ArrowLeft" | "ArrowUp" => (i + n - 1) % n,
        "Home" => 0,
        "End" => n - 1,
        _ => return None,
    };
    Some(View::ALL[j])
}

/// What a link carries besides its scenario. The default is what a plain scenario link means.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkState {
    pub view: View,
    pub route: RouteLink,
    /// A scenario pinned for side-by-side comparison with the one being edited.
    pub pinned: Option<Scenario>,
    /// The landscape's two dimensions (0-based; the first two when not given).
    pub landscape: Option<(usize, usize)>,
    /// The guided tour's step (0-based), when the tour is open.
    pub tour: Option<usize>,
    /// The Co-design view's question (`codesign::CodesignInputs` as JSON: the view is a module
    /// of its own, and the app carries its question without reading it).
    pub codesign: Option<String>,
    /// The Cluster view's state (`cluster::study::ClusterLink` as JSON, carried unread likewise).
    pub cluster: Option<String>,
    /// The method that finds the least time (both certify the same optimum).
    pub method: Method,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrows_move_along_the_tabs_and_wrap_home_and_end_go_to_the_ends() {
        use View::*;
        assert_eq!(tab_after(Design, "ArrowRight"), Some(Shapes));
        assert_eq!(tab_after(Routing, "ArrowRight"), Some(Cluster));
        assert_eq!(tab_after(Cluster, "ArrowRight"), Some(Codesign));
        assert_eq!(tab_after(Codesign, "ArrowRight"), Some(Design));
        assert_eq!(tab_after(Design, "ArrowLeft"), Some(Codesign));
        assert_eq!(tab_after(Landscape, "ArrowUp"), Some(Shapes));
        assert_eq!(tab_after(Shapes, "Home"), Some(Design));
        assert_eq!(tab_after(Shapes, "End"), Some(Codesign));
        assert_eq!(tab_after(Shapes, "Enter"), None);
    }
}
