//! `RowLayout`: where the columns a `RunTable` keeps sit in a result CSV's header.

use super::columns::{Columns, ATTEMPT_COLUMN, METRIC_PREFIX, PARAM_PREFIX};

/// Column positions (0-based) of the cells a run is read from. A name the header repeats reads from its
/// last column, as the header-keyed reader did.
#[derive(Debug, Clone)]
pub(super) struct RowLayout {
    /// The params in `Columns::params` order, then `variant`: the cells that name a setting.
    pub setting: Vec<usize>,
    pub rep: usize,
    /// `None` in a CSV written before attempts were recorded: every row is attempt 1.
    pub attempt: Option<usize>,
    pub warmup: usize,
    pub status: usize,
    pub error: usize,
    /// The metrics in `Columns::metrics` order.
    pub metrics: Vec<usize>,
    /// 1-based column of each metric as an error names it: its first occurrence in the header.
    pub metric_columns: Vec<usize>,
}

impl RowLayout {
    /// The layout of `header`, which `Columns::from_header` accepted as `columns`.
    pub fn of(header: &[String], columns: &Columns) -> RowLayout {
        let last = |name: &str| header.iter().rposition(|column| column == name).expect("accepted headers hold it");
        let metric_names: Vec<String> = columns.metrics.iter().map(|name| format!("{METRIC_PREFIX}{name}")).collect();
        let mut setting: Vec<usize> =
            columns.params.iter().map(|name| last(&format!("{PARAM_PREFIX}{name}"))).collect();
        setting.push(last("variant"));
        RowLayout {
            setting,
            rep: last("rep"),
            attempt: header.iter().rposition(|column| column == ATTEMPT_COLUMN),
            warmup: last("warmup"),
            status: last("status"),
            error: last("error"),
            metrics: metric_names.iter().map(|name| last(name)).collect(),
            metric_columns: metric_names
                .iter()
                .map(|name| header.iter().position(|column| column == name).map_or(0, |index| index + 1))
                .collect(),
        }
    }
}
