//! `SettingOrigins`: one origin per distinct setup script when the profile's `setup` is a template over
//! params (`envs/cann-{{cann}}.sh`), so versions interleave in one sweep and pair by round.

use std::path::Path;

use super::origin::{setup_for, Origin};
use super::runner_error::RunnerError;
use crate::plan::Setting;
use crate::spec::Sweep;

/// The origin (environment and provenance) each setting's runs start from.
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
