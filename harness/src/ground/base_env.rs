//! `BaseEnv`: the environment every child starts from, as the executor sets it and the sidecar records it.

/// The environment every process starts from: inherited, or captured from a setup script.
#[derive(Debug, Clone, Default)]
pub enum BaseEnv {
    #[default]
    Inherit,
    Exactly(Vec<(String, String)>),
}

impl BaseEnv {
    /// What to set on top of an inherited environment to get this one (builds and version probes
    /// run with it too: on Ascend the compiler only works inside the sourced CANN environment).
    pub fn overrides(&self) -> &[(String, String)] {
        match self {
            BaseEnv::Inherit => &[],
            BaseEnv::Exactly(vars) => vars,
        }
    }
}
