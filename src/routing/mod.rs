//! Routing over a 2-layer Clos fabric (arXiv 2503.05324, ../shared/ROUTING.md). For now the fabric and
//! its validation; jobs, flows, max-min fair rates and the routing algorithms arrive with issue 7.

use serde::{Deserialize, Serialize};

/// A 2-layer Clos: `num_tors` ToRs, each linked up and down to every one of `num_spines` spines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClosFabric {
    pub num_spines: u32,
    pub num_tors: u32,
    pub link_gbps: f64,
    pub nic_gbps: f64,
}

/// Why a fabric is not usable; each variant names the field of the scenario JSON.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FabricError {
    #[error("network.num_spines must be at least 1")]
    NoSpines,
    #[error("network.num_tors must be at least 1")]
    NoTors,
    #[error("network.{field} must be a positive finite number of Gbps, got {value}")]
    BadCapacity { field: &'static str, value: f64 },
}

impl ClosFabric {
    pub fn validate(&self) -> Result<(), FabricError> {
        if self.num_spines == 0 {
            return Err(FabricError::NoSpines);
        }
        if self.num_tors == 0 {
            return Err(FabricError::NoTors);
        }
        for (field, value) in [("link_gbps", self.link_gbps), ("nic_gbps", self.nic_gbps)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(FabricError::BadCapacity { field, value });
            }
        }
        Ok(())
    }

    /// Directed spine-layer links before failures: one up and one down per (ToR, spine).
    pub fn spine_links(&self) -> u64 {
        2 * u64::from(self.num_tors) * u64::from(self.num_spines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper_fabric() -> ClosFabric {
        ClosFabric {
            num_spines: 32,
            num_tors: 64,
            link_gbps: 100.0,
            nic_gbps: 100.0,
        }
    }

    #[test]
    fn the_papers_fabric_has_4096_spine_links() {
        assert_eq!(paper_fabric().validate(), Ok(()));
        assert_eq!(paper_fabric().spine_links(), 4096);
    }

    #[test]
    fn errors_name_the_field() {
        let mut f = paper_fabric();
        f.nic_gbps = -1.0;
        assert_eq!(
            f.validate().unwrap_err().to_string(),
            "network.nic_gbps must be a positive finite number of Gbps, got -1"
        );
        f = paper_fabric();
        f.num_spines = 0;
        assert_eq!(f.validate(), Err(FabricError::NoSpines));
    }
}
