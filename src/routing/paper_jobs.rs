//! The routing paper's jobs: GPT-3 (TP 8 x PP 8), BLOOM (TP 4 x PP 12) and LLaMA2-70B (TP 8 x
//! PP 16). A job of model M with ring size d holds d replicas of its TP x PP shards, one NIC per
//! shard; the d copies of each shard form one data-parallel ring, and a ring's chunk is the
//! model's FP32 weights over its shards and over d (each ring step sends 1/d of the shard). Each
//! job starts at a ToR boundary and fills whole ToRs where its size allows (8-NIC hosts, so a ToR
//! of 32 NICs is 4 hosts).

use super::scenario::Job;

/// A model of the paper's job mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PaperModel {
    Gpt3,
    Bloom,
    Llama2,
}

impl PaperModel {
    pub const ALL: [PaperModel; 3] = [PaperModel::Gpt3, PaperModel::Bloom, PaperModel::Llama2];

    /// The name the command line takes (`--models gpt3,bloom,llama2`).
    pub fn key(self) -> &'static str {
        match self {
            PaperModel::Gpt3 => "gpt3",
            PaperModel::Bloom => "bloom",
            PaperModel::Llama2 => "llama2",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            PaperModel::Gpt3 => "GPT-3 175B (TP 8 x PP 8)",
            PaperModel::Bloom => "BLOOM 176B (TP 4 x PP 12)",
            PaperModel::Llama2 => "LLaMA2-70B (TP 8 x PP 16)",
        }
    }

    pub fn parse(key: &str) -> Option<PaperModel> {
        PaperModel::ALL.into_iter().find(|m| m.key() == key.trim())
    }

    pub fn parameters(self) -> f64 {
        match self {
            PaperModel::Gpt3 => 175e9,
            PaperModel::Bloom => 176e9,
            PaperModel::Llama2 => 70e9,
        }
    }

    /// Tensor- and pipeline-parallel degrees.
    pub fn tp_pp(self) -> (u32, u32) {
        match self {
            PaperModel::Gpt3 => (8, 8),
            PaperModel::Bloom => (4, 12),
            PaperModel::Llama2 => (8, 16),
        }
    }

    /// NICs of one replica: one per shard.
    pub fn shards(self) -> u32 {
        let (tp, pp) = self.tp_pp();
        tp * pp
    }

    /// Bytes each ring flow sends per step: FP32 weights / shards / ring size.
    pub fn chunk_bytes(self, ring_size: u32) -> f64 {
        4.0 * self.parameters() / f64::from(self.shards()) / f64::from(ring_size)
    }
}

/// The jobs of `models` with rings of `ring_size`, on `total` NICs in ToRs of `per_tor`: each job
/// from the next ToR boundary. Errors name what does not fit.
/// The paper's jobs do not fit the fabric.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("the jobs {models} with rings of {ring_size} need {needed} ToRs of {per_tor} NICs; the fabric has {tors}")]
pub struct PlaceError {
    pub models: String,
    pub ring_size: u32,
    pub needed: u64,
    pub per_tor: u32,
    pub tors: u32,
}

pub fn place(
    models: &[PaperModel],
    ring_size: u32,
    per_tor: u32,
    total: u32,
) -> Result<Vec<Job>, PlaceError> {
    let mut next = 0u64;
    let mut jobs = Vec::with_capacity(models.len());
    for (j, m) in models.iter().enumerate() {
        let shards = m.shards();
        let size = u64::from(shards) * u64::from(ring_size);
        let first = next.div_ceil(u64::from(per_tor)) * u64::from(per_tor);
        if first + size > u64::from(total) {
            let needed: u64 = models
                .iter()
                .map(|m| {
                    (u64::from(m.shards()) * u64::from(ring_size)).div_ceil(u64::from(per_tor))
                })
                .sum();
            return Err(PlaceError {
                models: models.iter().map(|m| m.key()).collect::<Vec<_>>().join(","),
                ring_size,
                needed,
                per_tor,
                tors: total / per_tor.max(1),
            });
        }
        let first = first as u32;
        let rings = (0..shards)
            .map(|k| (0..ring_size).map(|r| first + r * shards + k).collect())
            .collect();
        jobs.push(Job {
            name: format!("{}-{j}", m.key()),
            chunk_bytes: m.chunk_bytes(ring_size),
            rings,
            model_hint: Some(m.label().to_string()),
        });
        next = u64::from(first) + size;
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_mix_fills_whole_tors_of_the_papers_fabric() {
        let models = PaperModel::ALL;
        let jobs = place(&models, 8, 32, 64 * 32).unwrap();
        // 512 + 384 + 1024 NICs: 16 + 12 + 32 ToRs, each job from a ToR boundary.
        let firsts: Vec<u32> = jobs.iter().map(|j| j.rings[0][0]).collect();
        assert_eq!(firsts, vec![0, 512, 896]);
        assert_eq!(
            jobs.iter().map(|j| j.rings.len()).collect::<Vec<_>>(),
            vec![64, 48, 128]
        );
        assert!(jobs.iter().all(|j| j.rings.iter().all(|r| r.len() == 8)));
        // GPT-3: 700 GB of FP32 weights over 64 shards and 8 ring members.
        assert_eq!(jobs[0].chunk_bytes, 4.0 * 175e9 / 64.0 / 8.0);
        // A ring joins shard k of every replica: members one replica (64 NICs) apart.
        assert!(jobs[0].rings[5].windows(2).all(|w| w[1] - w[0] == 64));
        // Too many for the fabric: said with the ToRs needed.
        let e = place(&[PaperModel::Llama2; 3], 8, 32, 64 * 32)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("need 96 ToRs of 32 NICs; the fabric has 64"),
            "{e}"
        );
        assert_eq!(PaperModel::parse(" bloom"), Some(PaperModel::Bloom));
    }
}
