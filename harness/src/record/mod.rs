//! Writes results as they happen (CSV row per run, fsynced; JSON sidecar) and reads them back.

mod columns;
#[cfg(test)]
mod fuzz_tests;
mod provenance;
mod record_error;
mod result_table;
mod result_writer;
mod sidecar;
mod torn_row;

pub use columns::Columns;
pub use provenance::{version_line, Provenance};
pub use record_error::RecordError;
pub use result_table::{ResultTable, RunKey};
pub use result_writer::{ResultWriter, RunRow};
pub use sidecar::{read_sidecar, write_sidecar};
pub use torn_row::{cut_torn_row, TornRow};
