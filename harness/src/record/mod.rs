//! Writes results as they happen (CSV row per run, fsynced; JSON sidecar) and reads them back.

mod attempt_index;
mod columns;
mod engine_change;
mod engine_fingerprint;
mod file_range;
#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod fuzz_tests;
mod merged_shards;
mod output_mark;
mod placement;
mod placement_columns;
mod planned_settings;
mod provenance;
#[cfg(test)]
mod read_back_tests;
mod record_error;
mod recorded_attempts;
mod recorded_environment;
mod recorded_grid;
mod recorded_run;
mod result_paths;
mod result_writer;
mod row_quoting;
mod run_table;
mod schedulers;
mod search_build;
mod setting_interner;
mod sidecar;
mod sweep_fingerprint;
#[cfg(test)]
mod test_sidecar;
mod torn_row;

pub use columns::{Columns, METRIC_PREFIX};
pub use engine_change::EngineChange;
pub use engine_fingerprint::EngineFingerprint;
#[cfg(test)]
pub use fixtures::Observation;
pub use merged_shards::MergedShards;
pub use output_mark::OutputMark;
pub use placement::Placement;
pub use placement_columns::PlacementColumns;
pub use planned_settings::planned_settings;
pub use provenance::Provenance;
pub use record_error::RecordError;
pub use recorded_attempts::RecordedAttempts;
pub use recorded_environment::{Inherited, RecordedEnvironment};
pub use recorded_run::{RecordedRun, LOGS_IN};
pub use result_paths::{utc_stamp, ResultPaths};
pub use result_writer::{ResultWriter, RunRow};
pub use run_table::{MetricColumn, RunTable, TableRun};
pub use search_build::SearchBuild;
pub use sidecar::{Sidecar, SIDECAR_SCHEMA_VERSION};
pub use sweep_fingerprint::{declaration_digest, SweepFingerprint};
pub use torn_row::TornRow;
