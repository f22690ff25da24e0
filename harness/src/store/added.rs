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

impl Added {
    /// What adding `csv` to the store at `store` did, in one line.
    pub fn line(&self, csv: &std::path::Path, store: &std::path::Path) -> String {
        let (csv, store) = (csv.display(), store.display());
        match self {
            Added::New { label, runs } => format!("{csv}: added to {store} as version `{label}` ({runs} runs)"),
            Added::Unchanged { label } => format!("{csv}: already in {store} as version `{label}`; nothing changed"),
            Added::Replaced { label, runs } => {
                format!("{csv}: grew since it was added; version `{label}` in {store} now holds its {runs} runs")
            }
        }
    }
}
