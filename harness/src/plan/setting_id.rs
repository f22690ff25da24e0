//! `SettingId`: a setting's identity in memory, from the plan through its record, analysis and report.

/// A setting by its position: in `Plan::settings` while a sweep runs; in the list of settings its sidecar
/// records (the plan's, after any a resumed sweep recorded before) when its CSV is read; first-seen for a
/// CSV without one. Dense, so per-setting data is a vector indexed by it, never a map keyed by labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
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
