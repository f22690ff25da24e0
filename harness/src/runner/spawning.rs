//! `Spawning`: how one invocation starts child processes (runs and builds).

use crate::launch::{BaseEnv, RunEvents};

/// Children start from `base_env`; their exits and the signals `sweep` receives arrive on `events`.
#[derive(Clone, Copy)]
pub struct Spawning<'a> {
    pub base_env: &'a BaseEnv,
    pub events: &'a RunEvents,
}
