//! The repository a command runs in, from any folder of it: its root is the nearest folder at or above
//! the current one holding `sweeps/`. A sweep name such as `slices` is the root's `sweeps/slices.toml`,
//! and results go under the root's `results/`, wherever inside the repository `sweep` was started.

use std::path::{Path, PathBuf};

use super::near_name::did_you_mean;
use super::spec_error::{Location, SpecError};

/// The folder of sweep declarations in the repository root.
const SWEEPS: &str = "sweeps";

/// The repository root as the current folder sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repository {
    /// The root's absolute path; None when no folder at or above holds `sweeps/`.
    root: Option<PathBuf>,
    /// The root is the current folder itself: paths are written relative to it, as they always were.
    here: bool,
}

impl Repository {
    /// The repository around `cwd` (absolute, as `std::env::current_dir` gives it).
    pub fn around(cwd: &Path) -> Repository {
        let root = cwd.ancestors().find(|dir| dir.join(SWEEPS).is_dir());
        Repository { here: root == Some(cwd), root: root.map(Path::to_path_buf) }
    }

    /// The declaration `spec` names: a path (holding `/` or ending in `.toml`) is itself, a bare name the
    /// root's `sweeps/<name>.toml`. A name that is not there is refused, with the near name if any.
    pub fn declaration(&self, spec: &str) -> Result<PathBuf, SpecError> {
        if spec.contains('/') || spec.ends_with(".toml") {
            return Ok(PathBuf::from(spec));
        }
        let file = Path::new(SWEEPS).join(format!("{spec}.toml"));
        let path = self.written().join(&file);
        // Looked for at the root's absolute path; outside any repository, in the current folder.
        let root = self.root.as_deref().unwrap_or(Path::new(""));
        // Anything at the name (a FIFO, an unreadable file) is the reader's to refuse, in its own words.
        if root.join(&file).symlink_metadata().is_ok() {
            return Ok(path);
        }
        let message = match &self.root {
            Some(_) => {
                let names = names_in(&root.join(SWEEPS));
                format!("no such sweep declaration{}", did_you_mean(spec, names.iter().map(String::as_str)))
            }
            None => format!(
                "no such sweep declaration, and no folder at or above this one holds `{SWEEPS}/`: run inside the \
                 repository, or give the declaration's path"
            ),
        };
        Err(SpecError::Invalid { location: Location { file: path, line: None, key: String::new() }, message })
    }

    /// Where result folders go unless `--results-dir` says: the root's `results/` (the current folder's
    /// outside any repository).
    pub fn results_dir(&self) -> PathBuf {
        self.written().join("results")
    }

    /// The root when it is a folder above the current one (names and results are then found up there).
    pub fn root_above(&self) -> Option<&Path> {
        self.root.as_deref().filter(|_| !self.here)
    }

    /// The root's path as commands write it: empty for the current folder (and outside any repository).
    fn written(&self) -> &Path {
        self.root_above().unwrap_or(Path::new(""))
    }
}

/// The sweep names of a `sweeps/` folder: its `.toml` files' stems, sorted.
fn names_in(sweeps: &Path) -> Vec<String> {
    let entries = std::fs::read_dir(sweeps).into_iter().flatten().flatten();
    let mut names: Vec<String> =
        entries.filter_map(|entry| entry.file_name().to_str()?.strip_suffix(".toml").map(String::from)).collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sweep run slices` from a subfolder failed with `cannot read` and wrote results there.
    #[test]
    fn a_sweep_name_from_a_subfolder_is_the_roots_and_so_are_its_results() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("sweeps")).unwrap();
        std::fs::create_dir_all(root.join("harness/src")).unwrap();
        std::fs::write(root.join("sweeps/slices.toml"), "").unwrap();
        let below = Repository::around(&root.join("harness/src"));
        assert_eq!(below.declaration("slices").unwrap(), root.join("sweeps/slices.toml"));
        assert_eq!(below.results_dir(), root.join("results"));
        assert_eq!(below.root_above(), Some(root.as_path()));
        assert_eq!(Repository::around(&root).root_above(), None);
        let at_root = Repository::around(&root);
        assert_eq!(at_root.declaration("slices").unwrap(), Path::new("sweeps/slices.toml"), "relative, as before");
        assert_eq!(at_root.results_dir(), Path::new("results"));
        assert_eq!(at_root.declaration("other/x.toml").unwrap(), Path::new("other/x.toml"), "a path is itself");
        let near = below.declaration("slice").unwrap_err().to_string();
        assert_eq!(
            near,
            format!("{}: no such sweep declaration; did you mean `slices`?", root.join("sweeps/slice.toml").display())
        );
    }

    #[test]
    fn outside_any_repository_a_name_says_where_to_run() {
        let dir = tempfile::tempdir().unwrap();
        let outside = Repository::around(dir.path());
        let error = outside.declaration("slices").unwrap_err().to_string();
        assert!(error.starts_with("sweeps/slices.toml: no such sweep declaration, and no folder"), "{error}");
        assert_eq!(outside.results_dir(), Path::new("results"));
    }
}
