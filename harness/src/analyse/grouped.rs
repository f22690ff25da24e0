//! `Grouped`: the samples of each key (setting, round or block) as one array in key order, for passes
//! that visit a million-run sweep key by key.

use rayon::prelude::*;

/// The included samples of each key, as one array of sample indices in key order and each key's range.
pub(super) struct Grouped {
    samples: Vec<u32>,
    starts: Vec<usize>,
}

impl Grouped {
    /// The samples of each of `keys` keys (`key_of` per sample) but the `excluded` ones, in sample order
    /// within a key (a counting sort: one pass to count, one to place).
    pub(super) fn of(key_of: &[u32], keys: usize, excluded: &[bool]) -> Grouped {
        let mut starts = vec![0usize; keys + 1];
        for (i, &key) in key_of.iter().enumerate() {
            if !excluded[i] {
                starts[key as usize + 1] += 1;
            }
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut next = starts.clone();
        let mut samples = vec![0u32; starts[keys]];
        for (i, &key) in key_of.iter().enumerate() {
            if !excluded[i] {
                samples[next[key as usize]] = i as u32;
                next[key as usize] += 1;
            }
        }
        Grouped { samples, starts }
    }

    /// How many samples the groups hold.
    pub(super) fn len(&self) -> usize {
        self.samples.len()
    }

    pub(super) fn groups(&self) -> impl Iterator<Item = &[u32]> {
        self.starts.windows(2).map(|range| &self.samples[range[0]..range[1]])
    }

    /// The groups, on every core.
    pub(super) fn par_groups(&self) -> impl IndexedParallelIterator<Item = &[u32]> {
        self.starts.par_windows(2).map(|range| &self.samples[range[0]..range[1]])
    }

    /// (Σ x, Σ x²) of `values` over each group.
    pub(super) fn sums(&self, values: &[f64]) -> Vec<(f64, f64)> {
        self.par_groups()
            .map(|members| {
                members.iter().fold((0.0, 0.0), |(sum, sum_sq), &i| {
                    let x = values[i as usize];
                    (sum + x, sum_sq + x * x)
                })
            })
            .collect()
    }
}
