//! `TableRun`: one run of a `RunTable`'s stored columns, read in place.

use super::recorded_run::RecordedRun;
use super::stored_runs::StoredRuns;
use crate::launch::RunStatus;
use crate::plan::{Setting, SettingId};

/// A run of a `RunTable` by its index: what analysis reads of it, without copying it out.
#[derive(Debug, Clone, Copy)]
pub struct TableRun<'a> {
    table: &'a StoredRuns,
    run: usize,
}

impl<'a> TableRun<'a> {
    pub(super) fn new(table: &'a StoredRuns, run: usize) -> TableRun<'a> {
        TableRun { table, run }
    }

    fn value(&self, metric: usize) -> Option<f64> {
        Some(self.table.values[metric][self.run]).filter(|value| !value.is_nan())
    }
}

impl RecordedRun for TableRun<'_> {
    fn setting(&self) -> &Setting {
        &self.table.settings[self.setting_id().index()]
    }
    fn setting_id(&self) -> SettingId {
        self.table.setting[self.run]
    }
    fn rep(&self) -> u32 {
        self.table.rep[self.run]
    }
    fn warmup(&self) -> bool {
        self.table.warmup[self.run]
    }
    fn status(&self) -> RunStatus {
        self.table.status[self.run]
    }
    fn error(&self) -> &str {
        let errors = &self.table.errors;
        errors.binary_search_by_key(&self.run, |(run, _)| *run).map_or("", |at| errors[at].1.as_str())
    }
    fn metric(&self, name: &str) -> Option<f64> {
        // The last column of a name, as a header-keyed row reads it.
        let metric = self.table.metrics.iter().rposition(|known| known == name)?;
        self.value(metric)
    }
    fn metrics(&self) -> impl Iterator<Item = (&str, f64)> {
        self.table.by_name.iter().filter_map(|&metric| Some((self.table.metrics[metric].as_str(), self.value(metric)?)))
    }
}
