//! `local`: the engine started as one process, so `ranks` must be 1.

use crate::declare::Launcher;

pub struct Local;

impl Launcher for Local {
    fn name(&self) -> &'static str {
        "local"
    }

    fn one_process(&self) -> bool {
        true
    }
}
