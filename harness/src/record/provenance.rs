//! Where a result came from: host and scheduler job, engine commit and dirtiness, toolchain versions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::placement::Placement;
use super::schedulers;

/// Recorded once per sweep, written with every row.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Provenance {
    pub host: String,
    /// `git rev-parse HEAD` of the engine tree, or `unknown` outside git.
    pub engine_commit: String,
    /// Uncommitted changes in the engine tree: a result of a dirty tree cannot be rebuilt from the commit.
    pub engine_dirty: bool,
    /// Toolchain name -> first line of its version command (`unavailable` when it fails or cannot run).
    pub toolchain: BTreeMap<String, String>,
    /// The scheduler's job and task the sweep ran in, empty outside one.
    #[serde(flatten)]
    pub placement: Placement,
}

impl Provenance {
    /// This host and scheduler job, with what the runner probed: the engine tree's commit (`None` outside
    /// git) and dirtiness, and each toolchain's version line.
    pub fn gather(
        engine_commit: Option<String>,
        engine_dirty: bool,
        toolchain: BTreeMap<String, String>,
    ) -> Provenance {
        let host = nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_default();
        let engine_commit = engine_commit.unwrap_or_else(|| "unknown".to_string());
        let placement = schedulers::placement(&|name| std::env::var(name).ok());
        Provenance { host, engine_commit, engine_dirty, toolchain, placement }
    }
}
