//! An engine profile (`sweeps/engines/<name>.toml`): how to build, launch and read one engine.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration_value;
use super::launchers::LauncherKind;
use crate::template::Template;

/// Where the engine prints its one result line.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ResultLine {
    /// The first token of the result line, e.g. `tpe_result`; empty means any line with `key=value` tokens.
    pub prefix: String,
    /// The rank whose log holds it (per-rank launcher); other launchers have one merged log.
    #[serde(default)]
    pub rank: u32,
    /// The keys the line prints, as the engine documents them; when given, `[metrics] result` must
    /// name only these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
}

/// The profile file as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EngineProfile {
    #[serde(default)]
    pub description: String,
    /// The engine's source tree, relative to the profile file.
    pub tree: String,
    /// The engine binary: relative to the build dir when it has no `/`... see `program_path`.
    pub program: Template,
    /// Build argv, rendered with `{{tree}}` and `{{build_dir}}`; empty means nothing to build.
    #[serde(default)]
    pub build: Vec<Template>,
    /// Build directory, relative to the tree.
    #[serde(default = "default_build_dir")]
    pub build_dir: String,
    pub launcher: LauncherKind,
    /// The launcher program and its fixed flags (default `["mpirun"]` / `["srun"]`), rendered with `{{tree}}`.
    #[serde(default)]
    pub launcher_command: Vec<Template>,
    /// An MPI hostfile, relative to the profile file.
    pub hostfile: Option<String>,
    pub ranks: u32,
    #[serde(default)]
    pub env: BTreeMap<String, Template>,
    #[serde(deserialize_with = "duration_value::deserialize")]
    pub timeout: Duration,
    #[serde(default = "default_grace", deserialize_with = "duration_value::deserialize")]
    pub grace: Duration,
    /// A shell script sourced once per sweep; the environment it leaves is given to every rank.
    pub setup: Option<String>,
    /// Commands (argv templates) run in the run directory before each run.
    #[serde(default)]
    pub pre_run: Vec<Vec<Template>>,
    pub result: ResultLine,
    /// Prefix of phase-profile lines (`tpe_phase`, `qwen_phase`).
    pub profile_prefix: Option<String>,
    /// Toolchain name -> version command argv; the first output line is recorded with every run.
    #[serde(default)]
    pub toolchain: BTreeMap<String, Vec<String>>,
}

/// The keys of `[engine]` in a sweep: which profile, and what this sweep changes in it.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EngineOverrides {
    /// A profile name (looked up as `engines/<name>.toml` beside the sweep or above it) or a path.
    pub profile: String,
    pub tree: Option<String>,
    /// A count, or a template over params (`"{{nodes}}"`) rendered per setting.
    pub ranks: Option<RanksOverride>,
    /// An MPI hostfile template over params, relative to the sweep file (`"hosts/{{nodes}}.txt"`).
    pub hostfile: Option<Template>,
    pub launcher: Option<LauncherKind>,
    #[serde(default, deserialize_with = "duration_value::deserialize_option")]
    pub timeout: Option<Duration>,
    #[serde(default, deserialize_with = "duration_value::deserialize_option")]
    pub grace: Option<Duration>,
    /// Merged over the profile's env.
    #[serde(default)]
    pub env: BTreeMap<String, Template>,
}

impl EngineProfile {
    /// Applies a sweep's overrides; `tree` is copied as written, the caller resolves it against the sweep's folder.
    pub fn apply(&mut self, overrides: &EngineOverrides) {
        if let Some(tree) = &overrides.tree {
            self.tree.clone_from(tree);
        }
        if let Some(RanksOverride::Count(ranks)) = overrides.ranks {
            self.ranks = ranks;
        }
        self.launcher = overrides.launcher.unwrap_or(self.launcher);
        self.timeout = overrides.timeout.unwrap_or(self.timeout);
        self.grace = overrides.grace.unwrap_or(self.grace);
        self.env.extend(overrides.env.clone());
    }
}

fn default_build_dir() -> String {
    "build".to_string()
}

fn default_grace() -> Duration {
    Duration::from_secs(5)
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum RanksOverride {
    Count(u32),
    /// Rendered per setting: the rank count is then a parameter of the topology, recorded as `ranks`.
    Template(String),
}
