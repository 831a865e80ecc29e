//! Where a job's NICs go: whole ToRs first, as the routing paper's jobs are placed (consecutive
//! free ToRs from a ToR boundary, falling back to the lowest free NICs), or scattered over the
//! lowest free NICs. A job that does not fit waits.

use serde::{Deserialize, Serialize};

/// How jobs are placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    #[default]
    WholeTors,
    Scattered,
}

impl Placement {
    pub fn from_key(key: &str) -> Option<Placement> {
        match key {
            "whole-tors" => Some(Placement::WholeTors),
            "scattered" => Some(Placement::Scattered),
            _ => None,
        }
    }
}

/// The cluster's NICs, free or held.
#[derive(Clone, Debug)]
pub struct Nics {
    free: Vec<bool>,
    per_tor: usize,
}

impl Nics {
    pub fn new(tors: u32, per_tor: u32) -> Nics {
        Nics {
            free: vec![true; tors as usize * per_tor as usize],
            per_tor: per_tor as usize,
        }
    }

    pub fn free_count(&self) -> usize {
        self.free.iter().filter(|f| **f).count()
    }

    /// `count` free NICs by `how` (ascending), now held; None when fewer are free.
    pub fn take(&mut self, count: usize, how: Placement) -> Option<Vec<u32>> {
        if count > self.free_count() {
            return None;
        }
        let whole = match how {
            Placement::WholeTors => self.whole_tors(count),
            Placement::Scattered => None,
        };
        let chosen: Vec<usize> = whole.unwrap_or_else(|| {
            (0..self.free.len())
                .filter(|&i| self.free[i])
                .take(count)
                .collect()
        });
        for &i in &chosen {
            self.free[i] = false;
        }
        Some(chosen.into_iter().map(|i| i as u32).collect())
    }

    /// The first run of consecutive wholly free ToRs that holds `count` NICs.
    fn whole_tors(&self, count: usize) -> Option<Vec<usize>> {
        let need = count.div_ceil(self.per_tor);
        let tors = self.free.len() / self.per_tor;
        let tor_free = |t: usize| {
            self.free[t * self.per_tor..(t + 1) * self.per_tor]
                .iter()
                .all(|f| *f)
        };
        let mut run = 0;
        for t in 0..tors {
            run = if tor_free(t) { run + 1 } else { 0 };
            if run == need {
                let first = (t + 1 - need) * self.per_tor;
                return Some((first..first + count).collect());
            }
        }
        None
    }

    pub fn give_back(&mut self, nics: &[u32]) {
        for &i in nics {
            self.free[i as usize] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_tors_first_then_the_lowest_free_nics() {
        let mut n = Nics::new(4, 4);
        let a = n.take(6, Placement::WholeTors).unwrap();
        assert_eq!(a, vec![0, 1, 2, 3, 4, 5]);
        // ToRs 0 and 1 are taken (1 partly): the next whole ToRs are 2 and 3.
        let b = n.take(5, Placement::WholeTors).unwrap();
        assert_eq!(b, vec![8, 9, 10, 11, 12]);
        // No whole ToR left: the lowest free NICs.
        let c = n.take(3, Placement::WholeTors).unwrap();
        assert_eq!(c, vec![6, 7, 13]);
        assert_eq!(n.take(3, Placement::Scattered), None);
        n.give_back(&a);
        assert_eq!(n.take(2, Placement::Scattered).unwrap(), vec![0, 1]);
    }
}
