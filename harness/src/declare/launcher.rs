//! `Launcher`: one kind of launcher (a file of its own under `launchers/`): what a declaration may ask
//! of it and the flags that start its ranks; `launch` renders and starts the processes.

use std::path::Path;

/// One kind of launcher. The defaults are a launcher that starts every rank with one command, given
/// no flags of its own.
pub trait Launcher: Sync {
    /// Its spelling in a profile's `launcher`.
    fn name(&self) -> &'static str;

    /// The program a profile without `launcher_command` runs the engine under (`mpirun`).
    fn default_command(&self) -> Option<&'static str> {
        None
    }

    /// It starts exactly one process, so `ranks` must be 1.
    fn one_process(&self) -> bool {
        false
    }

    /// The harness starts each rank itself, with `{{rank}}` rendered and a log per rank.
    fn starts_each_rank(&self) -> bool {
        false
    }

    /// A hostfile may be given to it.
    fn takes_hostfile(&self) -> bool {
        false
    }

    /// The flags after its command that say how many ranks and where (`-n 4 --hostfile F`).
    fn rank_flags(&self, _ranks: u32, _hostfile: Option<&Path>) -> Vec<String> {
        Vec::new()
    }
}
