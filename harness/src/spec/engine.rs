//! An engine profile resolved against the file system: absolute paths, overrides applied.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Serialize, Serializer};

use super::engine_profile::{LauncherKind, ResultLine};
use super::source_file::SourceFile;
use super::topology::Topology;
use crate::template::{Template, TemplateError};

/// Everything the later stages need to build, launch and read the engine.
#[derive(Debug, Clone, Serialize)]
pub struct Engine {
    /// The profile as read, so a later error in one of its templates is located without reading it again.
    #[serde(rename = "profile_file", serialize_with = "path_of")]
    pub profile: SourceFile,
    pub tree: PathBuf,
    /// Template over `tree` and `build_dir`.
    pub program: Template,
    /// Argv templates over `tree` and `build_dir`.
    pub build: Vec<Template>,
    pub build_dir: PathBuf,
    pub launcher: LauncherKind,
    pub launcher_command: Vec<Template>,
    pub hostfile: Option<PathBuf>,
    pub ranks: u32,
    pub env: BTreeMap<String, Template>,
    pub timeout: Duration,
    pub grace: Duration,
    /// The setup script's absolute path, a template over params (`../envs/{{compiler}}.sh`).
    pub setup: Option<Template>,
    pub pre_run: Vec<Vec<Template>>,
    pub result: ResultLine,
    pub profile_prefix: Option<String>,
    pub toolchain: BTreeMap<String, Vec<String>>,
    /// Rank count and hostfile templated over params by the sweep, if any.
    pub topology: Topology,
}

impl Engine {
    /// The engine binary for a tree and build dir (`program` is a template over them).
    pub fn program_at(&self, tree: &Path, build_dir: &Path) -> Result<String, TemplateError> {
        let context =
            serde_json::json!({ "tree": tree.display().to_string(), "build_dir": build_dir.display().to_string() });
        self.program.render(&context)
    }
}

/// A profile is recorded (in the sidecar) by its path.
fn path_of<S: Serializer>(source: &SourceFile, serializer: S) -> Result<S::Ok, S::Error> {
    source.path.serialize(serializer)
}
