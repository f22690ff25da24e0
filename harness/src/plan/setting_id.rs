//! `SettingId`: a setting's identity in memory, from the plan through its record, analysis and report.

/// A setting by its position: in `Plan::settings` (and in the order its sidecar lists them) for a planned
/// sweep, in first-seen order for a CSV read without one. Dense, so per-setting data is a vector indexed by
/// it rather than a map keyed by labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SettingId(u32);

impl SettingId {
    /// The id of the `index`-th setting.
    pub fn new(index: usize) -> SettingId {
        SettingId(u32::try_from(index).expect("fewer than 2^32 settings"))
    }

    /// Its position, to index per-setting vectors.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
