//! `ResultPaths`: where a sweep's result files go, for the runner that writes them and the
//! `report` and `compare` commands that read them.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Where a sweep's files go: `<stem>.csv`, `<stem>.json`, `<stem>.summary.md`, `<stem>.svg`,
/// `<stem>/runs/...`.
#[derive(Debug, Clone)]
pub struct ResultPaths {
    pub csv: PathBuf,
    pub sidecar: PathBuf,
    pub summary: PathBuf,
    /// The SVG plot beside the summary (written when the analysis has something to plot).
    pub plot: PathBuf,
    /// `<stem>.analysis.json`: the verdicts as data.
    pub analysis: PathBuf,
    /// Run directories and build logs.
    pub logs: PathBuf,
}

impl ResultPaths {
    /// Absolute, because run directories and inputs are handed to ranks that run elsewhere (their
    /// working directory is the run directory).
    pub fn for_csv(csv: &Path) -> ResultPaths {
        let csv = std::path::absolute(csv).unwrap_or_else(|_| csv.to_path_buf());
        let stem = csv.with_extension("");
        ResultPaths {
            sidecar: csv.with_extension("json"),
            summary: PathBuf::from(format!("{}.summary.md", stem.display())),
            plot: PathBuf::from(format!("{}.svg", stem.display())),
            analysis: PathBuf::from(format!("{}.analysis.json", stem.display())),
            logs: stem,
            csv,
        }
    }

    /// A new `<results_dir>/<sweep>/<UTC stamp>.csv`; a second sweep started within the same second
    /// gets `<stamp>-2.csv` (and so on) instead of failing on the first one's file.
    pub fn fresh(results_dir: &Path, sweep: &str) -> ResultPaths {
        let stamp = humantime::format_rfc3339_seconds(SystemTime::now()).to_string().replace([':', '-'], "");
        let dir = results_dir.join(sweep);
        let taken = |name: &str| dir.join(format!("{name}.csv")).exists() || dir.join(name).exists();
        let name = (1..)
            .map(|n| if n == 1 { stamp.clone() } else { format!("{stamp}-{n}") })
            .find(|name| !taken(name))
            .expect("unbounded");
        ResultPaths::for_csv(&dir.join(format!("{name}.csv")))
    }
}
