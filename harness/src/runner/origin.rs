//! `Origin`: what every run of one invocation starts from and is recorded with; `SettingOrigins`: each
//! setting's, when its setup script is chosen by a param. An engine's environment script is run once per
//! sweep (`source scripts/ascend_env.sh`) and the environment it leaves captured, so every rank gets
//! exactly that environment.

use std::path::Path;
use std::time::Duration;

use super::runner_error::RunnerError;
use crate::declare::Sweep;
use crate::ground::BaseEnv;
use crate::launch::{head_commit, tree_dirty, version_line, Captured, OWNER_HOST_VAR, OWNER_VAR};
use crate::plan::Setting;
use crate::record::Provenance;

/// The environment ranks start from, and where the results come from (host, commit, toolchains).
#[derive(Debug, Clone)]
pub struct Origin {
    pub base_env: BaseEnv,
    pub provenance: Provenance,
}

impl Origin {
    /// Captures the base environment (running the setup script, if any) and gathers the provenance
    /// under it: on Ascend the toolchain only answers inside the sourced environment. A setup script
    /// chosen by a param (`envs/cann-{{cann}}.sh`) is rendered for `first`, the plan's first setting:
    /// builds and the sidecar use that origin, runs their own (`SettingOrigins`).
    pub fn gather(sweep: &Sweep, first: &Setting) -> Result<Origin, RunnerError> {
        let script = setup_for(sweep, first)?;
        Origin::gather_with(sweep, script.as_deref().map(Path::new))
    }

    /// The origin of one (rendered) setup script, or none.
    pub fn gather_with(sweep: &Sweep, script: Option<&Path>) -> Result<Origin, RunnerError> {
        let base_env = match script {
            Some(script) => BaseEnv::Exactly(capture_setup_env(script, &sweep.engine.tree)?),
            None => BaseEnv::Inherit,
        };
        let (tree, toolchain) = (&sweep.engine.tree, &sweep.engine.toolchain);
        let versions = toolchain.iter().map(|(name, argv)| (name.clone(), version_line(argv, base_env.overrides())));
        let provenance = Provenance::gather(head_commit(tree), tree_dirty(tree), versions.collect());
        Ok(Origin { base_env, provenance })
    }
}

/// The setup script a setting's runs source: its path rendered over the setting's params.
pub fn setup_for(sweep: &Sweep, setting: &Setting) -> Result<Option<String>, RunnerError> {
    let Some(template) = &sweep.engine.setup else { return Ok(None) };
    template.render(&setting.context()).map(Some).map_err(RunnerError::SetupTemplate)
}

/// The origin (environment and provenance) each setting's runs start from: one origin per distinct setup
/// script when the profile's `setup` is a template over params (`envs/cann-{{cann}}.sh`), so versions
/// interleave in one sweep and pair by round.
#[derive(Debug, Clone)]
pub struct SettingOrigins {
    origins: Vec<Origin>,
    /// Per plan setting, its index into `origins`.
    of_setting: Vec<usize>,
}

impl SettingOrigins {
    /// Renders the setup script's path for every setting and captures each distinct one once (with
    /// its toolchain versions). None when the setup is not a template: every run shares one origin.
    pub fn gather(sweep: &Sweep, settings: &[Setting]) -> Result<Option<SettingOrigins>, RunnerError> {
        // Not when the profile's setup script path does not depend on the params.
        if !sweep.engine.setup.as_ref().is_some_and(|path| path.text().contains("{{")) {
            return Ok(None);
        }
        let mut paths: Vec<String> = Vec::new();
        let mut origins = Vec::new();
        let mut of_setting = Vec::new();
        for setting in settings {
            let path = setup_for(sweep, setting)?.unwrap_or_default();
            if !paths.contains(&path) {
                origins.push(Origin::gather_with(sweep, Some(Path::new(&path)))?);
                paths.push(path.clone());
            }
            of_setting.push(paths.iter().position(|known| *known == path).expect("just added"));
        }
        Ok(Some(SettingOrigins { origins, of_setting }))
    }

    pub fn of(&self, setting: usize) -> &Origin {
        &self.origins[self.of_setting[setting]]
    }
}

/// Longest a setup script may take: sourcing an environment is quick; a hang must not hang the sweep.
const SETUP_TIMEOUT: Duration = Duration::from_secs(600);

/// Sources `script` in bash from `tree` and returns the resulting environment.
fn capture_setup_env(script: &Path, tree: &Path) -> Result<Vec<(String, String)>, RunnerError> {
    let failure = |reason: String| RunnerError::Setup { script: script.to_path_buf(), reason };
    let dir = tempfile::tempdir().map_err(|error| failure(format!("cannot create a temporary directory: {error}")))?;
    let env_file = dir.path().join("env");
    let argv = [
        "bash".to_string(),
        "-c".to_string(),
        r#"set -e; source "$1" >&2; env -0 > "$2""#.to_string(),
        "sweep-setup".to_string(),
        script.display().to_string(),
        env_file.display().to_string(),
    ];
    let captured = Captured::run(&argv, tree, &[], SETUP_TIMEOUT);
    if let Some(reason) = captured.failure() {
        return Err(failure(format!("{reason}: {}", captured.output.lines().last().unwrap_or(""))));
    }
    let env = std::fs::read(&env_file).map_err(|error| failure(format!("left no environment: {error}")))?;
    Ok(env
        .split(|&byte| byte == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            entry.split_once('=').map(|(k, v)| (k.to_string(), v.to_string()))
        })
        // SWEEP_OWNER is this sweep's mark on its children, not part of the engine's environment.
        .filter(|(name, _)| {
            !name.is_empty() && !["_", "SHLVL", "PWD", OWNER_VAR, OWNER_HOST_VAR].contains(&name.as_str())
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scripts_exports_reach_the_captured_environment() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("env.sh");
        std::fs::write(&script, "export ASCEND_TOOLKIT_HOME=/opt/cann\nexport MULTI='a b\nc'\necho sourced\n").unwrap();
        let env = capture_setup_env(&script, dir.path()).unwrap();
        assert!(env.contains(&("ASCEND_TOOLKIT_HOME".to_string(), "/opt/cann".to_string())));
        assert!(env.contains(&("MULTI".to_string(), "a b\nc".to_string())));
        assert!(env.iter().all(|(name, _)| name != OWNER_VAR), "sweep's own mark was captured");
    }

    #[test]
    fn a_failing_script_stops_the_sweep_with_its_last_words() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("env.sh");
        std::fs::write(&script, "echo 'CANN not found' >&2\nfalse\n").unwrap();
        let error = capture_setup_env(&script, dir.path()).unwrap_err().to_string();
        assert!(error.contains("CANN not found"), "{error}");
    }
}
