//! One scheduled run: which setting, which repetition, where in the order.

use super::setting_id::SettingId;

/// A (setting, rep) pair in its scheduled position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedRun {
    /// 1-based position in the schedule, recorded as the `order` column.
    pub order: usize,
    /// Its setting: the index into `Plan::settings`.
    pub setting: SettingId,
    /// 1-based repetition number (warmups count separately from 1).
    pub rep: u32,
    pub warmup: bool,
}
