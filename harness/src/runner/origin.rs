//! `Origin`: what every run of one invocation starts from and is recorded with.

use super::runner_error::RunnerError;
use super::setup_env::capture_setup_env;
use crate::launch::BaseEnv;
use crate::record::Provenance;
use crate::spec::Sweep;

/// The environment ranks start from, and where the results come from (host, commit, toolchains).
#[derive(Debug, Clone)]
pub struct Origin {
    pub base_env: BaseEnv,
    pub provenance: Provenance,
}

impl Origin {
    /// Captures the base environment (running the setup script, if any) and gathers the provenance
    /// under it: on Ascend the toolchain only answers inside the sourced environment.
    pub fn gather(sweep: &Sweep) -> Result<Origin, RunnerError> {
        let base_env = match &sweep.engine.setup {
            Some(script) => BaseEnv::Exactly(capture_setup_env(script, &sweep.engine.tree)?),
            None => BaseEnv::Inherit,
        };
        let provenance = Provenance::gather(&sweep.engine.tree, &sweep.engine.toolchain, base_env.overrides());
        Ok(Origin { base_env, provenance })
    }
}
