//! `ResultPaths`: where a sweep's result files go, for the runner that writes them and the
//! `report` and `compare` commands that read them.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::confined_dir::ConfinedDir;

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
    /// `<stem>.html`: the self-contained page of the summary with its figures.
    pub html: PathBuf,
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
            html: PathBuf::from(format!("{}.html", stem.display())),
            logs: stem,
            csv,
        }
    }

    /// Claims a new `<results_dir>/<sweep>/<UTC stamp>.csv` by creating its log folder: `create_dir` fails
    /// when the folder exists, so of two sweeps started within the same second only one gets the stamp and
    /// the other takes `<stamp>-2.csv` (and so on) instead of failing on the first one's files.
    pub fn fresh(results_dir: &Path, sweep: &str) -> std::io::Result<ResultPaths> {
        ResultPaths::claim(results_dir, sweep, &utc_stamp())
    }

    fn claim(results_dir: &Path, sweep: &str, stamp: &str) -> std::io::Result<ResultPaths> {
        std::fs::create_dir_all(results_dir.join(sweep))?;
        for n in 1.. {
            let paths = ResultPaths::stamped(results_dir, sweep, stamp, n);
            if paths.csv.exists() {
                continue;
            }
            match std::fs::create_dir(&paths.logs) {
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
                claimed => return claimed.map(|()| paths),
            }
        }
        unreachable!("the suffixes are unbounded")
    }

    /// `<results_dir>/<sweep>/<stamp>.csv`, or `<stamp>-<n>.csv` for n > 1.
    pub fn stamped(results_dir: &Path, sweep: &str, stamp: &str, n: u32) -> ResultPaths {
        let name = if n == 1 { stamp.to_string() } else { format!("{stamp}-{n}") };
        ResultPaths::for_csv(&results_dir.join(sweep).join(format!("{name}.csv")))
    }

    /// The folder of run directories and build logs (`<stem>/`), made when missing, reached from the CSV's
    /// folder without following a link: that folder is the user's (named by `--out`, `--resume` or the
    /// results dir), everything below it sweep's, so a link planted there is refused, never written through.
    pub fn log_folder(&self) -> std::io::Result<ConfinedDir> {
        ConfinedDir::holding(&self.csv)?.create_dir_all(&self.logs)
    }

    /// Every file a sweep writing `self.csv` would create beside it (`X.csv`, `X.json`, `X.summary.md`,
    /// `X.svg`, `X.analysis.json`, `X.html`, `X/`).
    pub fn outputs(&self) -> Vec<PathBuf> {
        let paths = [&self.csv, &self.sidecar, &self.summary, &self.plot, &self.analysis, &self.html, &self.logs];
        paths.map(PathBuf::clone).to_vec()
    }
}

/// The current UTC time as a file-name stamp: `20261130T102922Z`.
pub fn utc_stamp() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string().replace([':', '-'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_sweep_in_the_same_second_gets_a_suffix() {
        let dir = tempfile::tempdir().unwrap();
        let stamp = "20261130T101500Z";
        let first = ResultPaths::claim(dir.path(), "x", stamp).unwrap();
        let second = ResultPaths::claim(dir.path(), "x", stamp).unwrap();
        assert_eq!(first.csv, dir.path().join("x/20261130T101500Z.csv"));
        assert_eq!(second.csv, dir.path().join("x/20261130T101500Z-2.csv"));
        assert!(first.logs.is_dir() && second.logs.is_dir(), "each claim creates its log folder");
        std::fs::write(dir.path().join("x/20261130T101500Z-3.csv"), "").unwrap();
        let third = ResultPaths::claim(dir.path(), "x", stamp).unwrap();
        assert_eq!(third.csv, dir.path().join("x/20261130T101500Z-4.csv"), "a CSV without its folder is taken too");
    }
}
