//! Appends one CSV row per run and makes it durable (fsync) before the next run starts, so a
//! crash loses at most the run in flight.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use super::columns::Columns;
use super::provenance::Provenance;
use super::record_error::RecordError;
use super::result_table::ResultTable;
use crate::launch::RunStatus;

/// Everything one row says about one run.
#[derive(Debug, Clone)]
pub struct RunRow<'a> {
    pub param_values: Vec<String>,
    pub variant: &'a str,
    pub rep: u32,
    pub warmup: bool,
    pub order: usize,
    pub status: RunStatus,
    pub error: String,
    pub started_at: String,
    pub duration_s: f64,
    pub metrics: &'a BTreeMap<String, f64>,
    pub variant_hash: &'a str,
    pub log_dir: &'a Path,
}

pub struct ResultWriter {
    path: PathBuf,
    columns: Columns,
    provenance: Provenance,
    csv: csv::Writer<File>,
}

impl ResultWriter {
    /// Starts a new CSV (refusing to overwrite one) and writes the header durably.
    pub fn create(path: &Path, columns: Columns, provenance: Provenance) -> Result<ResultWriter, RecordError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(RecordError::io(parent))?;
        }
        let file = OpenOptions::new().write(true).create_new(true).open(path).map_err(RecordError::io(path))?;
        let mut writer =
            ResultWriter { path: path.to_path_buf(), csv: csv::Writer::from_writer(file), columns, provenance };
        let header = writer.columns.header();
        writer.write_record(&header)?;
        Ok(writer)
    }

    /// Reopens a partial CSV of the same sweep to complete it, in its own layout (a CSV written before
    /// the Slurm columns gets rows without them).
    pub fn append(path: &Path, mut columns: Columns, provenance: Provenance) -> Result<ResultWriter, RecordError> {
        let existing = ResultTable::read(path)?;
        columns.slurm = existing.columns.slurm;
        if existing.columns != columns {
            return Err(RecordError::ResumeMismatch {
                path: path.to_path_buf(),
                reason: describe_difference(&existing.columns, &columns),
            });
        }
        let file = OpenOptions::new().append(true).open(path).map_err(RecordError::io(path))?;
        let csv = csv::WriterBuilder::new().has_headers(false).from_writer(file);
        Ok(ResultWriter { path: path.to_path_buf(), columns, provenance, csv })
    }

    pub fn write(&mut self, row: &RunRow<'_>) -> Result<(), RecordError> {
        let mut record: Vec<String> = row.param_values.clone();
        record.extend([
            row.variant.to_string(),
            row.rep.to_string(),
            row.warmup.to_string(),
            row.order.to_string(),
            row.status.to_string(),
            row.error.replace(['\n', '\r'], " "),
            row.started_at.clone(),
            format!("{:.6}", row.duration_s),
        ]);
        record.extend(
            self.columns.metrics.iter().map(|name| row.metrics.get(name).map_or(String::new(), |v| v.to_string())),
        );
        record.extend([
            self.provenance.host.clone(),
            self.provenance.engine_commit.clone(),
            self.provenance.engine_dirty.to_string(),
            row.variant_hash.to_string(),
        ]);
        if self.columns.slurm {
            record.extend([self.provenance.slurm_job_id.clone(), self.provenance.slurm_array_task_id.clone()]);
        }
        record.extend(
            self.columns.toolchains.iter().map(|name| self.provenance.toolchain.get(name).cloned().unwrap_or_default()),
        );
        record.push(row.log_dir.display().to_string());
        self.write_record(&record)
    }

    fn write_record(&mut self, record: &[String]) -> Result<(), RecordError> {
        self.csv
            .write_record(record)
            .map_err(|error| RecordError::Io { path: self.path.clone(), source: error.into() })?;
        self.csv.flush().map_err(RecordError::io(&self.path))?;
        self.csv.get_ref().sync_data().map_err(RecordError::io(&self.path))
    }
}

fn describe_difference(found: &Columns, expected: &Columns) -> String {
    if found.params != expected.params {
        format!("params {:?} vs {:?}", found.params, expected.params)
    } else if found.metrics != expected.metrics {
        format!("metrics {:?} vs {:?}", found.metrics, expected.metrics)
    } else {
        format!("toolchains {:?} vs {:?}", found.toolchains, expected.toolchains)
    }
}
