//! `Added`: what adding one result file did to the store.

/// The outcome of `HistoryStore::add`, each naming the version (its label) and the runs it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    /// A new version, last in the order versions were added.
    New { label: String, runs: usize },
    /// The same file (same sha256) was added before: nothing changed.
    Unchanged { label: String },
    /// The file of a version grew (`sweep run --resume` completed it): its runs were replaced.
    Replaced { label: String, runs: usize },
}
