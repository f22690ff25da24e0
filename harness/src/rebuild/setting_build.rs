//! `SettingBuild`: one setting's build command: the profile's build argv with the sweep's `[build]` args
//! appended and its `[build] env`, rendered over the setting's build-time params.

use std::path::Path;

use serde_json::{Map, Value};

use super::build_job::render_build_argv;
use crate::declare::Sweep;
use crate::template::{Template, TemplateError};

/// Where the cache key sees the tree and build dir: a key names what is built, not where its copy lives.
const KEY_TREE: &str = "<tree>";
const KEY_BUILD_DIR: &str = "<build_dir>";

/// The build of one setting, still to be placed in a tree.
#[derive(Debug, Clone)]
pub struct SettingBuild<'a> {
    argv: Vec<&'a Template>,
    env: Vec<(&'a String, &'a Template)>,
    /// Only the build-time params: a run-time param never splits builds.
    params: Map<String, Value>,
}

impl<'a> SettingBuild<'a> {
    /// The build of the setting whose template context is `context`.
    pub fn of(sweep: &'a Sweep, context: &Map<String, Value>) -> SettingBuild<'a> {
        let build_time = sweep.build_time_params();
        let params = context.iter().filter(|(name, _)| build_time.contains(name)).map(|(k, v)| (k.clone(), v.clone()));
        let params = params.collect();
        SettingBuild {
            argv: sweep.engine.build.iter().chain(&sweep.build.args).collect(),
            env: sweep.build.env.iter().collect(),
            params,
        }
    }

    /// The command rendered for `tree` and `build_dir`, run directly (never through a shell).
    pub fn argv(&self, tree: &Path, build_dir: &Path) -> Result<Vec<String>, TemplateError> {
        render_build_argv(self.argv.iter().copied(), tree, build_dir, &self.params)
    }

    /// `[build] env`, rendered over the build-time params.
    pub fn env(&self) -> Result<Vec<(String, String)>, TemplateError> {
        self.env.iter().map(|(name, text)| Ok((name.to_string(), text.render(&self.params)?))).collect()
    }

    /// What the build cache keys on: the command and env as this setting renders them, paths left out, so
    /// settings with one tuple of build-time values share a build and a changed value never reuses one.
    pub fn key_argv(&self) -> Result<Vec<String>, TemplateError> {
        let mut argv = self.argv(Path::new(KEY_TREE), Path::new(KEY_BUILD_DIR))?;
        argv.extend(self.env()?.into_iter().map(|(name, value)| format!("env {name}={value}")));
        Ok(argv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::ParamValue;

    fn sweep() -> (tempfile::TempDir, Sweep) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("engines")).unwrap();
        std::fs::write(
            dir.path().join("engines/e.toml"),
            "tree = \".\"\nprogram = \"true\"\nbuild = [\"make\", \"BUILD_DIR={{build_dir}}\"]\nlauncher = \"local\"\n\
             ranks = 1\ntimeout = \"1s\"\n[result]\nprefix = \"r\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("s.toml"),
            "name = \"s\"\n[engine]\nprofile = \"e\"\n[params]\nblock = [64, 128]\nrows = [1, 2]\n\
             [build]\nargs = [\"BLOCK={{block}}\"]\nenv = { CFLAGS = \"-DB={{block}}\" }\n\
             [metrics]\nresult = [\"t\"]\n[analysis]\nprimary = \"t\"\n",
        )
        .unwrap();
        let sweep = crate::declare::load_sweep(&dir.path().join("s.toml")).unwrap();
        (dir, sweep)
    }

    fn setting(block: i64, rows: i64) -> Map<String, Value> {
        let values = [("block".into(), ParamValue::Int(block)), ("rows".into(), ParamValue::Int(rows))];
        crate::plan::labels_object(&values)
    }

    #[test]
    fn only_build_time_params_split_the_key() {
        let (_dir, sweep) = sweep();
        assert_eq!(sweep.build_time_params(), ["block"]);
        let key = |block, rows| SettingBuild::of(&sweep, &setting(block, rows)).key_argv().unwrap();
        assert_eq!(key(64, 1), key(64, 2));
        assert_ne!(key(64, 1), key(128, 1));
        assert_eq!(key(64, 1), ["make", "BUILD_DIR=<build_dir>", "BLOCK=64", "env CFLAGS=-DB=64"]);
    }

    #[test]
    fn argv_and_env_render_for_the_copy() {
        let (_dir, sweep) = sweep();
        let build = SettingBuild::of(&sweep, &setting(128, 1));
        assert_eq!(build.argv(Path::new("/t"), Path::new("/t/b")).unwrap(), ["make", "BUILD_DIR=/t/b", "BLOCK=128"]);
        assert_eq!(build.env().unwrap(), [("CFLAGS".to_string(), "-DB=128".to_string())]);
    }
}
