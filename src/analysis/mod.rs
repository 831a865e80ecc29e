//! The app-level analyses built on the solver core (`crate::optimize`): the study the results
//! panel shows, its explanation, side by side, the landscape, and the shape comparison. The
//! solver core imports none of them.

pub mod explain;
pub mod landscape;
pub mod outcome;
pub mod routing_savings;
pub mod shape_run;
pub mod shapes;
pub mod side_by_side;
pub mod study;
