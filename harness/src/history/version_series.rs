//! `VersionSeries`: one setting's (or the control's) runs at each version, on the log scale, where a
//! machine's or a version's slowdown multiplies every time alike.

#[derive(Debug, Clone)]
pub struct VersionSeries {
    /// Per version, in order, the mean log of its runs.
    pub means: Vec<f64>,
}

impl VersionSeries {
    /// From each version's runs (positive times, at least one a version).
    pub fn of_runs(runs: &[Vec<f64>]) -> VersionSeries {
        let mean_log = |runs: &Vec<f64>| runs.iter().map(|run| run.ln()).sum::<f64>() / runs.len() as f64;
        VersionSeries { means: runs.iter().map(mean_log).collect() }
    }

    /// This series less `common` version by version (a machine's effect taken out).
    pub fn less(&self, common: &[f64]) -> VersionSeries {
        VersionSeries { means: self.means.iter().zip(common).map(|(mean, common)| mean - common).collect() }
    }
}
