//! A system's scale-out fabric as the leaf-spine Clos it is built as: how many NICs one leaf
//! (ToR) switch joins, how many spines each leaf reaches, how many leaves one plane holds, and
//! how many planes (rails) the system has. The Routing view routes one plane of it
//! (`RouteSetup::of_system`): the traffic of one dimension of LIBRA's model is what one rail's
//! Clos carries (on a rail-optimized SuperPOD, GPU `r` of every node sits on rail `r`).

use super::system::SystemSpec;
use crate::format::number;
use serde::{Deserialize, Serialize};

/// The leaf-spine tree of a system's fabric tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeafSpine {
    /// The fabric tier whose links the tree is made of (its `gbps_per_npu` is one NIC's rate).
    pub tier: String,
    /// Planes of the fabric, each a tree of its own: 8 on a rail-optimized DGX (one per GPU of
    /// a node), 1 when every NIC of a rack shares its ToR.
    pub rails: u32,
    /// NICs one leaf joins (a non-blocking leaf gives half its radix to them).
    pub leaf_npus: u32,
    /// Spines each leaf reaches, one link to each.
    pub spines: u32,
    /// Leaves in one plane (a pod; the largest tree of these switches).
    pub max_leaves: u32,
    /// Where the figures come from.
    pub source: String,
}

/// One plane of a system's fabric, within the limits of the view that routes it.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteFabric {
    pub tors: u32,
    pub spines: u32,
    pub hosts_per_tor: u32,
    /// One link's (and one NIC's) rate, Gb/s.
    pub link_gbps: f64,
    /// What was taken, in words (and what was left out to fit).
    pub summary: String,
}

/// Why a system's fabric cannot be routed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FabricError {
    #[error("system {system} has no leaf-spine fabric (its scale-out links form no Clos: a torus, or a fabric without public switch figures)")]
    NoFabric { system: String },
    #[error("system {system}: its fabric names tier \"{tier}\", which the system does not have")]
    UnknownTier { system: String, tier: String },
    #[error("system {system}: fabric field {field} must be at least 1")]
    Zero { system: String, field: &'static str },
    #[error("system {system}: its leaves reach {spines} spines, more than the {most} this view routes (use `libra-studio route` with a scenario file)")]
    Spines {
        system: String,
        spines: u32,
        most: u64,
    },
}

impl LeafSpine {
    /// Check the figures against `system`'s tiers.
    pub fn validate(&self, system: &SystemSpec) -> Result<(), FabricError> {
        if system.tier(&self.tier).is_none() {
            return Err(FabricError::UnknownTier {
                system: system.name.clone(),
                tier: self.tier.clone(),
            });
        }
        for (field, v) in [
            ("rails", self.rails),
            ("leaf_npus", self.leaf_npus),
            ("spines", self.spines),
            ("max_leaves", self.max_leaves),
        ] {
            if v == 0 {
                return Err(FabricError::Zero {
                    system: system.name.clone(),
                    field,
                });
            }
        }
        Ok(())
    }
}

impl SystemSpec {
    /// One plane of the system's fabric with as many leaves as a view of `max_hosts` NICs and
    /// `max_spines` spines routes (all of the plane when it fits).
    pub fn route_fabric(
        &self,
        max_hosts: u64,
        max_spines: u64,
    ) -> Result<RouteFabric, FabricError> {
        let f = self.fabric.as_ref().ok_or_else(|| FabricError::NoFabric {
            system: self.name.clone(),
        })?;
        f.validate(self)?;
        if u64::from(f.spines) > max_spines {
            return Err(FabricError::Spines {
                system: self.name.clone(),
                spines: f.spines,
                most: max_spines,
            });
        }
        let tier = self.tier(&f.tier).expect("validated");
        let fit = (max_hosts / u64::from(f.leaf_npus)).max(1);
        let tors = u64::from(f.max_leaves).min(fit) as u32;
        let link_gbps = tier.gbps_per_npu * 8.0;
        let plane = match f.rails {
            1 => "its fabric".to_string(),
            r => format!("one of its {r} rails"),
        };
        let cut = match tors < f.max_leaves {
            true => format!(
                " (of the plane's {} leaves: the view routes up to {} NICs)",
                f.max_leaves,
                number(max_hosts as f64)
            ),
            false => String::new(),
        };
        Ok(RouteFabric {
            tors,
            spines: f.spines,
            hosts_per_tor: f.leaf_npus,
            link_gbps,
            summary: format!(
                "{}: {plane}, {tors} leaves{cut} of {} NICs under {} spines at {} Gb/s ({})",
                self.name,
                f.leaf_npus,
                f.spines,
                number(link_gbps),
                tier.title
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::systems::system_preset;

    #[test]
    fn a_superpod_plane_is_64_leaves_of_32_nics_under_32_spines() {
        // A 2-level tree of radix-64 switches: 32 NICs down and 32 links up a leaf, 64 leaves
        // under 32 spines of 64 ports: 2,048 NICs, as the tier's limit says.
        let h100 = system_preset("dgx-h100").unwrap();
        let f = h100.route_fabric(2048, 32).unwrap();
        assert_eq!((f.tors, f.spines, f.hosts_per_tor), (64, 32, 32));
        assert_eq!(f.link_gbps, 400.0);
        assert_eq!(
            u64::from(f.tors * f.hosts_per_tor),
            u64::from(h100.tier("ib-ndr").unwrap().max_npus)
        );
        // A smaller view takes fewer leaves and says so.
        let small = h100.route_fabric(256, 32).unwrap();
        assert_eq!(small.tors, 8);
        assert!(
            small.summary.contains("of the plane's 64 leaves"),
            "{}",
            small.summary
        );
        // Too few spines in the view: refused, naming the limit.
        assert!(h100
            .route_fabric(2048, 16)
            .unwrap_err()
            .to_string()
            .contains("32 spines"));
        // HDR's 40-port switches: 20 down, 20 up, 40 leaves (800 NICs).
        let a100 = system_preset("dgx-a100")
            .unwrap()
            .route_fabric(2048, 32)
            .unwrap();
        assert_eq!((a100.tors, a100.spines, a100.hosts_per_tor), (40, 20, 20));
        assert_eq!(a100.link_gbps, 200.0);
        // A torus has no Clos.
        let tpu = system_preset("tpu-v4").unwrap().route_fabric(2048, 32);
        assert!(tpu
            .unwrap_err()
            .to_string()
            .contains("no leaf-spine fabric"));
    }
}
