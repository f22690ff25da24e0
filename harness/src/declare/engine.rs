//! An engine profile resolved against the file system: absolute paths, overrides applied; and its
//! `Topology`: the rank count and MPI hostfile of a run when a sweep templates them over params
//! (`[engine] ranks = "{{nodes}}"`, `hostfile = "hosts/{{nodes}}.txt"`), rendered per setting.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::engine_profile::ResultLine;
use super::launchers::LauncherKind;
use super::near_name::near_name;
use super::source_file::SourceFile;
use super::spec_error::SpecError;
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

    /// The program exists, or its build makes it: a typo in `program` would otherwise fail every run
    /// (or every run after a full build) with "no such file". A program path (with a `/`) exists; a
    /// missing one the build will make is accepted unless a file of a near name sits where it should be
    /// (`tp-engin` beside `tp-engine`). A bare name is looked up on `PATH`, unless a setup script (which
    /// may extend `PATH`) runs first.
    pub fn check_program(&self) -> Result<(), SpecError> {
        let at = |message: String| self.profile.error_at("program", message);
        let program = self.program_at(&self.tree, &self.build_dir).map_err(|error| at(error.to_string()))?;
        let path = Path::new(&program);
        if !program.contains('/') {
            let on_path = std::env::var_os("PATH")
                .is_some_and(|dirs| std::env::split_paths(&dirs).any(|dir| dir.join(&program).is_file()));
            if on_path || self.setup.is_some() {
                return Ok(());
            }
            return Err(at(format!("program `{program}` is not on PATH: every run would fail to start")));
        }
        if path.exists() || path.is_relative() {
            return Ok(());
        }
        let near = near_file(path);
        let built = !self.build.is_empty() && path.starts_with(&self.tree);
        match (near, built) {
            (None, true) => Ok(()),
            (Some(near), _) => Err(at(format!("program {program} does not exist; did you mean {near}?"))),
            (None, false) => Err(at(format!("program {program} does not exist: every run would fail to start"))),
        }
    }
}

/// A profile is recorded (in the sidecar) by its path.
fn path_of<S: Serializer>(source: &SourceFile, serializer: S) -> Result<S::Ok, S::Error> {
    source.path.serialize(serializer)
}

/// A file beside `path` whose name is near `path`'s, as a full path.
fn near_file(path: &Path) -> Option<String> {
    let (dir, name) = (path.parent()?, path.file_name()?.to_str()?);
    let names: Vec<String> =
        std::fs::read_dir(dir).ok()?.filter_map(|entry| entry.ok()?.file_name().into_string().ok()).collect();
    near_name(name, names.iter().map(String::as_str)).map(|near| dir.join(near).display().to_string())
}

/// Templates of the topology; `None` fields take the profile's fixed value.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Topology {
    pub ranks: Option<Template>,
    pub hostfile: Option<Template>,
    /// The sweep file's folder: a rendered hostfile is relative to it.
    pub sweep_dir: PathBuf,
}

impl Topology {
    pub fn is_templated(&self) -> bool {
        self.ranks.is_some() || self.hostfile.is_some()
    }

    /// The rank count for `params`, if templated: a whole number from 1 to `max`, or the reason it is not.
    pub fn ranks_for(&self, params: &Map<String, Value>, max: u32) -> Option<Result<u32, String>> {
        let text = self.ranks.as_ref()?;
        Some(text.render(params).map_err(|error| error.to_string()).and_then(|rendered| {
            rendered
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| format!("`{text}` rendered to `{rendered}`, not a rank count from 1 to {max}"))
        }))
    }

    /// The hostfile for `params`, if templated.
    pub fn hostfile_for(&self, params: &Map<String, Value>) -> Option<Result<PathBuf, String>> {
        let text = self.hostfile.as_ref()?;
        Some(text.render(params).map(|file| self.sweep_dir.join(file)).map_err(|error| error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(nodes: i64) -> Map<String, Value> {
        [("nodes".to_string(), Value::from(nodes))].into_iter().collect()
    }

    #[test]
    fn ranks_render_per_setting_and_must_be_a_count() {
        let topology = Topology { ranks: Template::parse("{{nodes}}").ok(), ..Topology::default() };
        assert_eq!(topology.ranks_for(&params(4), 8), Some(Ok(4)));
        assert!(topology.ranks_for(&params(0), 8).unwrap().unwrap_err().contains("rendered to `0`"));
        assert!(topology.ranks_for(&params(9), 8).unwrap().is_err());
        assert_eq!(Topology::default().ranks_for(&params(4), 8), None);
    }

    #[test]
    fn a_hostfile_is_relative_to_the_sweep() {
        let hostfile = Template::parse("hosts/{{nodes}}.txt").ok();
        let topology = Topology { hostfile, sweep_dir: "/s".into(), ..Default::default() };
        assert_eq!(topology.hostfile_for(&params(2)), Some(Ok(PathBuf::from("/s/hosts/2.txt"))));
    }
}
