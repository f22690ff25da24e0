//! Shared helpers of the integration tests: the real `sweep` binary, the repository, the reference
//! engine (built once per test binary), and temporary sweep folders.

#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Once, OnceLock};

/// The `sweep` binary cargo built for these tests.
pub fn sweep_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_sweep"))
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ has a parent").to_path_buf()
}

/// This test binary's own copy of engine/ (build outputs included, timestamps kept, so a current build
/// stays current): tests build and run there, never in the repository's tree. Made once per test binary
/// under cargo's target tmp dir, replacing the copy a previous run of the same binary left.
pub fn engine_tree() -> &'static Path {
    static TREE: OnceLock<PathBuf> = OnceLock::new();
    TREE.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary has a path");
        let name = exe.file_name().expect("the test binary has a name").to_string_lossy().into_owned();
        let copy = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("engine-{name}"));
        let _ = std::fs::remove_dir_all(&copy);
        let status = Command::new("cp").arg("-a").arg(repo_root().join("engine")).arg(&copy).status().expect("cp runs");
        assert!(status.success(), "copying engine/ to {} failed", copy.display());
        // A tree an interrupted in-place ablation left rendered is not the engine.
        let _ = std::fs::remove_dir_all(copy.join(".sweep-inplace"));
        copy
    })
}

/// Builds `engine_tree()`'s tp-engine once per test binary (make is a no-op when it is current).
pub fn ensure_engine_built() {
    static BUILD: Once = Once::new();
    BUILD.call_once(|| {
        let status = Command::new("make").args(["-s", "-C"]).arg(engine_tree()).arg("-j2").status().expect("make runs");
        assert!(status.success(), "building the reference engine failed; run engine/install-deps.sh");
    });
}

/// Runs `sweep` with `args` in `cwd`.
pub fn sweep(cwd: &Path, args: &[&str]) -> Output {
    Command::new(sweep_bin()).args(args).current_dir(cwd).output().expect("sweep runs")
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A temporary folder holding `sweeps/engines/reference.toml` (pointing at `engine_tree()`) so a
/// test sweep can name the `reference` profile; results go under it too.
pub struct Workspace {
    pub dir: tempfile::TempDir,
}

impl Workspace {
    pub fn new() -> Workspace {
        let dir = tempfile::tempdir().expect("tempdir");
        let engines = dir.path().join("sweeps/engines");
        std::fs::create_dir_all(&engines).unwrap();
        let profile = std::fs::read_to_string(repo_root().join("sweeps/engines/reference.toml")).unwrap();
        let tree = engine_tree();
        let profile = profile.replace("tree = \"../../engine\"", &format!("tree = \"{}\"", tree.display()));
        std::fs::write(engines.join("reference.toml"), profile).unwrap();
        Workspace { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `sweeps/<name>.toml` and returns its path relative to the workspace.
    pub fn write_sweep(&self, name: &str, text: &str) -> String {
        let relative = format!("sweeps/{name}.toml");
        std::fs::write(self.path().join(&relative), text).unwrap();
        relative
    }

    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Writes `sweeps/engines/fixture.toml`: the FIXTURE rank script (`tests/fixtures/rank_fixture.sh`) as
    /// a local one-rank engine whose `fixture` toolchain reports `fixture-toolkit <version>`.
    pub fn write_fixture_profile(&self, version: &str) {
        let fixture = repo_root().join("harness/tests/fixtures");
        self.write(
            "sweeps/engines/fixture.toml",
            &format!(
                "tree = \"{}\"\nprogram = \"{{{{tree}}}}/rank_fixture.sh\"\nlauncher = \"local\"\nranks = 1\ntimeout = \"10s\"\n[result]\nprefix = \"fixture_result\"\n[toolchain]\nfixture = [\"echo\", \"fixture-toolkit {version}\"]\n",
                fixture.display()
            ),
        );
    }

    /// The one result CSV under `results/<sweep>/`.
    pub fn result_csv(&self, sweep: &str) -> PathBuf {
        let dir = self.path().join("results").join(sweep);
        let mut csvs: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "csv"))
            .collect();
        assert_eq!(csvs.len(), 1, "expected one CSV in {}: {csvs:?}", dir.display());
        csvs.pop().unwrap()
    }
}

/// Data rows of a CSV as header-keyed maps.
pub fn csv_rows(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_string).collect();
    reader.records().map(|r| header.iter().cloned().zip(r.unwrap().iter().map(str::to_string)).collect()).collect()
}

/// Processes other than sweep whose working directory is under `dir` (ranks run in their run
/// directory), as `pid comm`.
pub fn processes_under(dir: &std::path::Path) -> Vec<String> {
    let dir = dir.canonicalize().unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let cwd = std::fs::read_link(entry.path().join("cwd")).ok()?;
            let comm = std::fs::read_to_string(entry.path().join("comm")).ok()?;
            (cwd.starts_with(&dir) && comm.trim() != "sweep")
                .then(|| format!("{} {}", entry.file_name().to_string_lossy(), comm.trim()))
        })
        .collect()
}
