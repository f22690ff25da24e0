//! store stage: the results store of `sweep history` (SQLite, one file, no server): every run of every
//! result file added, keyed by sweep and version, and the series `history show` and `history changes`
//! read back out of it.

mod added;
mod found_change;
mod history_store;
mod ingested_file;
mod metric_series;
mod schema;
mod setting_trend;
mod store_error;
mod stored_history;
mod stored_run;
#[cfg(test)]
mod test_fixture_results;

pub use added::Added;
pub use found_change::FoundChange;
pub use history_store::{HistoryStore, STORE_FILE};
pub use metric_series::{MetricSeries, MIN_VERSIONS};
pub use schema::STORE_SCHEMA_VERSION;
pub use setting_trend::SettingTrend;
pub use store_error::StoreError;
pub use stored_history::StoredHistory;
