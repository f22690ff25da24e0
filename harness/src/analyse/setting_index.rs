//! `SettingIndex`: which of a sweep's settings a run belongs to, found without hashing its labels per run.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHashMap;

use crate::record::Labels;

/// A label vector compared by where it lives rather than by what it holds.
#[derive(Clone, Copy)]
struct ByAddress<'a>(&'a Labels);

impl PartialEq for ByAddress<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for ByAddress<'_> {}

impl Hash for ByAddress<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(self.0, state);
    }
}

/// Maps label vectors to the index of their setting. The runs of a `RunTable` share one label vector per
/// setting, so a run is found by the address of its labels (one pointer hash; a million-run analysis
/// would otherwise hash every run's strings); labels met at a new address are found by content, so
/// runs that own their labels (`Observation`s) are indexed all the same.
#[derive(Default, Clone)]
pub struct SettingIndex<'a> {
    by_content: FxHashMap<&'a Labels, usize>,
    by_address: FxHashMap<ByAddress<'a>, usize>,
}

impl<'a> SettingIndex<'a> {
    /// An index of the given settings' labels, the i-th at index i.
    pub fn of(settings: impl Iterator<Item = &'a Labels>) -> SettingIndex<'a> {
        let mut index = SettingIndex::default();
        for (i, labels) in settings.enumerate() {
            index.by_content.entry(labels).or_insert(i);
        }
        index
    }

    /// The index of `labels`, if known.
    pub fn get(&mut self, labels: &'a Labels) -> Option<usize> {
        if let Some(&index) = self.by_address.get(&ByAddress(labels)) {
            return Some(index);
        }
        let index = *self.by_content.get(labels)?;
        self.by_address.insert(ByAddress(labels), index);
        Some(index)
    }

    /// The index of `labels`, given the next free index (`next()`) when they are new.
    pub fn get_or_insert_with(&mut self, labels: &'a Labels, next: impl FnOnce() -> usize) -> usize {
        if let Some(index) = self.get(labels) {
            return index;
        }
        let index = next();
        self.by_content.insert(labels, index);
        self.by_address.insert(ByAddress(labels), index);
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ParamValue;

    fn labels(rows: i64) -> Labels {
        vec![("rows".to_string(), ParamValue::Int(rows)), ("variant".into(), ParamValue::Text("default".into()))]
    }

    #[test]
    fn equal_labels_at_different_addresses_are_one_setting() {
        let (a, b, c) = (labels(512), labels(512), labels(1024));
        let mut index = SettingIndex::default();
        let mut next = 0;
        let mut slot = |labels| {
            index.get_or_insert_with(labels, || {
                next += 1;
                next - 1
            })
        };
        assert_eq!([slot(&a), slot(&b), slot(&c), slot(&a)], [0, 0, 1, 0]);
    }

    #[test]
    fn known_settings_are_found_and_others_are_not() {
        let settings = [labels(512), labels(1024)];
        let mut index = SettingIndex::of(settings.iter());
        let (copy, other) = (labels(1024), labels(2048));
        assert_eq!(index.get(&copy), Some(1));
        assert_eq!(index.get(&settings[0]), Some(0));
        assert_eq!(index.get(&other), None);
    }
}
