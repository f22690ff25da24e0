//! `RunKey`: what identifies a recorded run, so `--resume` never repeats a (setting, rep) pair.

use crate::plan::SettingId;

/// A run as `--resume` matches it: its setting's id in the plan being resumed (a CSV's rows are mapped to
/// it once per setting, `RunTable::plan_ids`), its rep, and whether it is a warmup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct RunKey {
    pub setting: SettingId,
    pub rep: u32,
    pub warmup: bool,
}
