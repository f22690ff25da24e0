//! An engine profile resolved against the file system: absolute paths, overrides applied.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use super::engine_profile::{LauncherKind, ResultLine};

/// Everything the later stages need to build, launch and read the engine.
#[derive(Debug, Clone, Serialize)]
pub struct Engine {
    pub profile_file: PathBuf,
    pub tree: PathBuf,
    /// Template over `tree` and `build_dir`.
    pub program: String,
    /// Argv templates over `tree` and `build_dir`.
    pub build: Vec<String>,
    pub build_dir: PathBuf,
    pub launcher: LauncherKind,
    pub launcher_command: Vec<String>,
    pub hostfile: Option<PathBuf>,
    pub ranks: u32,
    pub env: BTreeMap<String, String>,
    pub timeout: Duration,
    pub grace: Duration,
    pub setup: Option<PathBuf>,
    pub pre_run: Vec<Vec<String>>,
    pub result: ResultLine,
    pub profile_prefix: Option<String>,
    pub toolchain: BTreeMap<String, Vec<String>>,
}
