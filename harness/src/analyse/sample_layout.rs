//! `SampleLayout`: which setting and which round each sample of a two-way design is in, densely indexed.

use std::collections::{BTreeMap, BTreeSet};

use super::run_sample::RunSample;

/// Every sample's setting and round as indices `0..settings` and `0..rounds`, ascending with the setting
/// index and the round number: the arrays a million-sample fit iterates over instead of maps (`u32`:
/// half the memory of `usize`, and far more rounds than a sweep runs).
#[derive(Debug, Clone, PartialEq)]
pub struct SampleLayout {
    pub setting_of: Vec<u32>,
    pub settings: usize,
    pub round_of: Vec<u32>,
    pub rounds: usize,
}

impl SampleLayout {
    pub fn of(samples: &[RunSample]) -> SampleLayout {
        let ((setting_of, settings), (round_of, rounds)) = rayon::join(
            || dense(samples.iter().map(|s| s.setting as u64)),
            || dense(samples.iter().map(|s| u64::from(s.round))),
        );
        SampleLayout { setting_of, settings, round_of, rounds }
    }
}

/// Each key's index among the distinct keys in ascending order, and how many distinct keys there are.
/// Keys are setting indices and round numbers, small and dense, so a lookup table serves (a sorted
/// map only when they are sparse).
fn dense(keys: impl Iterator<Item = u64> + Clone) -> (Vec<u32>, usize) {
    let (count, max) = keys.clone().fold((0usize, 0u64), |(n, max), key| (n + 1, max.max(key)));
    if (max as usize) <= count.saturating_mul(4) {
        let mut index = vec![u32::MAX; max as usize + 1];
        keys.clone().for_each(|key| index[key as usize] = 0);
        let mut distinct = 0;
        for slot in index.iter_mut().filter(|slot| **slot == 0) {
            *slot = distinct;
            distinct += 1;
        }
        return (keys.map(|key| index[key as usize]).collect(), distinct as usize);
    }
    let distinct: BTreeMap<u64, u32> = keys.clone().collect::<BTreeSet<_>>().into_iter().zip(0..).collect();
    (keys.map(|key| distinct[&key]).collect(), distinct.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_and_dense_keys_are_indexed_in_ascending_order() {
        let sample = |setting, round| RunSample { setting, round, value: 0.0, control: None };
        let layout = SampleLayout::of(&[sample(7, 1_000_000), sample(2, 3), sample(7, 3)]);
        assert_eq!((layout.setting_of, layout.settings), (vec![1, 0, 1], 2));
        assert_eq!((layout.round_of, layout.rounds), (vec![1, 0, 0], 2));
    }
}
