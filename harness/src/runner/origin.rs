//! `Origin`: what every run of one invocation starts from and is recorded with; `SettingOrigins`: each
//! setting's, when its setup script is chosen by a param.

use std::path::Path;

use super::runner_error::RunnerError;
use super::setup_env::capture_setup_env;
use crate::declare::Sweep;
use crate::launch::BaseEnv;
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
        let provenance = Provenance::gather(&sweep.engine.tree, &sweep.engine.toolchain, base_env.overrides());
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
        if !is_templated(sweep) {
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

/// Whether the profile's setup script path depends on the params.
pub fn is_templated(sweep: &Sweep) -> bool {
    sweep.engine.setup.as_ref().is_some_and(|path| path.text().contains("{{"))
}
