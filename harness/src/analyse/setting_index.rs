//! `SettingIndex`: which entry of a per-setting vector a run's `SettingId` has.

use crate::plan::SettingId;

/// Maps setting ids to the index of their entry (a run is found by one vector lookup, never by its labels).
#[derive(Debug, Default, Clone)]
pub struct SettingIndex {
    /// By `SettingId::index`: the entry's index, if the setting has one.
    entries: Vec<Option<usize>>,
}

impl SettingIndex {
    /// An index of the given settings, the i-th at index i.
    pub fn of(settings: impl Iterator<Item = SettingId>) -> SettingIndex {
        let mut index = SettingIndex::default();
        for (i, id) in settings.enumerate() {
            index.get_or_insert_with(id, || i);
        }
        index
    }

    /// The index of setting `id`, if known.
    pub fn get(&self, id: SettingId) -> Option<usize> {
        self.entries.get(id.index()).copied().flatten()
    }

    /// The index of setting `id`, given the next free index (`next()`) when it is new.
    pub fn get_or_insert_with(&mut self, id: SettingId, next: impl FnOnce() -> usize) -> usize {
        if self.entries.len() <= id.index() {
            self.entries.resize(id.index() + 1, None);
        }
        *self.entries[id.index()].get_or_insert_with(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_keeps_its_first_index_and_others_are_not_found() {
        let [a, b, c] = [SettingId::new(3), SettingId::new(0), SettingId::new(7)];
        let mut index = SettingIndex::of([a, b, a].into_iter());
        assert_eq!((index.get(a), index.get(b), index.get(c)), (Some(0), Some(1), None));
        assert_eq!(index.get_or_insert_with(c, || 2), 2);
        assert_eq!(index.get_or_insert_with(a, || 9), 0);
    }
}
