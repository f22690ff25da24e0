//! `ChangePoint`: where a series changed, by how much, and how sure.

/// A change of one setting's series, or of the machine (every series, or the control metric).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Setting,
    Machine,
}

#[derive(Debug, Clone)]
pub struct ChangePoint {
    /// The series (a setting's index; 0 for the machine).
    pub series: usize,
    pub kind: ChangeKind,
    /// The first version after the change.
    pub at: usize,
    /// Geometric mean after over before, with its 95% interval (Student's t on the version means, df
    /// `df`; conditional on the split found, so no wider for having searched it).
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    pub df: f64,
    /// Permutation p-value of the largest step in the series (never 0: at least 1 / (permutations + 1)).
    pub p: f64,
    /// Benjamini-Hochberg adjusted p across the settings' series (the machine's: its own p).
    pub q: f64,
}
