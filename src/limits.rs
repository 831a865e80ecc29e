//! The documented limits on every size that drives allocation or running time. Each is checked,
//! with checked arithmetic, before anything of that size is allocated, and an input beyond one is
//! refused with a [`LimitError`] that names the field and the limit (README, "Limits").
//!
//! The limits are far above the sizes the papers study (LIBRA: 4 dimensions, 4,096 NPUs, a few
//! hundred layers; the routing paper: 64 ToRs x 32 spines, 2,048 hosts, 5 jobs) and low enough
//! that the work they allow stays within seconds and the memory within a few hundred MB.

/// ToRs of a Clos fabric.
pub const MAX_TORS: u64 = 4_096;
/// Spines of a Clos fabric.
pub const MAX_SPINES: u64 = 1_024;
/// ToR-spine links (ToRs x spines).
pub const MAX_TOR_SPINE_LINKS: u64 = 1 << 20;
/// Hosts of a routing scenario (ToRs x hosts per ToR when generated).
pub const MAX_HOSTS: u64 = 1 << 17;
/// Jobs of a routing scenario.
pub const MAX_JOBS: u64 = 4_096;
/// Flows of a routing scenario (the sum of its ring sizes).
pub const MAX_FLOWS: u64 = 1 << 18;
/// Failed ToR-spine links, and link capacity overrides, listed in a routing scenario.
pub const MAX_LINK_ENTRIES: u64 = 1 << 16;
/// Failed links a generated scenario may ask for (each is placed and checked in turn).
pub const MAX_GENERATED_FAILED_LINKS: u64 = 4_096;
/// The smallest chunk of a ring All-Reduce, bytes (the fluid simulation's steps stay positive).
pub const MIN_CHUNK_BYTES: f64 = 1.0;
/// The largest chunk, bytes (1 EB: times stay finite at any link speed the fabric allows).
pub const MAX_CHUNK_BYTES: f64 = 1e18;
/// Link and NIC speeds, Gbps.
pub const MIN_LINK_GBPS: f64 = 1e-6;
pub const MAX_LINK_GBPS: f64 = 1e9;
/// Workloads of a scenario, after LIBRA's presets are expanded.
pub const MAX_WORKLOADS: u64 = 64;
/// Layers of a scenario, summed over its workloads after presets are expanded.
pub const MAX_LAYERS: u64 = 2_000_000;
/// Nesting depth of a YAML or JSON input (maps and lists within each other).
pub const MAX_NESTING: usize = 64;
/// Size of an input file read by the command line or imported in the app, bytes.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// An input beyond a limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {value} is more than the limit of {limit} {what}")]
pub struct LimitError {
    /// Where the size comes from (a field or option name).
    pub field: String,
    /// What is counted.
    pub what: &'static str,
    /// The size asked for (saturated at u64::MAX when it overflows).
    pub value: u64,
    pub limit: u64,
}

/// `value` if it is at most `limit`, else the error naming `field`.
pub fn at_most(
    field: impl Into<String>,
    what: &'static str,
    value: u64,
    limit: u64,
) -> Result<u64, LimitError> {
    if value <= limit {
        Ok(value)
    } else {
        Err(LimitError {
            field: field.into(),
            what,
            value,
            limit,
        })
    }
}

/// `a * b`, saturated at u64::MAX (then beyond every limit above).
pub fn product(a: u64, b: u64) -> u64 {
    a.saturating_mul(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_name_the_field_and_saturate() {
        assert_eq!(at_most("tors", "ToRs", 64, MAX_TORS), Ok(64));
        let e = at_most("tors", "ToRs", 65_537, MAX_TORS).unwrap_err();
        assert_eq!(
            e.to_string(),
            "tors: 65537 is more than the limit of 4096 ToRs"
        );
        assert_eq!(product(u64::MAX, 2), u64::MAX);
        assert_eq!(product(65_536, 65_535), 4_294_901_760);
    }
}
