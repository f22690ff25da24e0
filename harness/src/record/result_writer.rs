//! Appends one CSV row per run and makes it durable (fsync) before the next run starts, so a
//! crash loses at most the run in flight.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::columns::Columns;
use super::provenance::Provenance;
use super::record_error::RecordError;
use super::run_table::RunTable;
use super::sidecar::Sidecar;
use super::sweep_fingerprint::SweepFingerprint;
use super::torn_row::TornRow;
use crate::confined_dir::ConfinedDir;
use crate::file_lock::{FileLock, LockMode};
use crate::ground::RunStatus;

/// Everything one row says about one run.
#[derive(Debug, Clone)]
pub struct RunRow<'a> {
    pub param_values: Vec<String>,
    pub variant: &'a str,
    pub rep: u32,
    /// 1 for a run's first row; a failed run run again by `--resume` records the next attempt.
    pub attempt: u32,
    pub warmup: bool,
    pub order: usize,
    pub status: RunStatus,
    pub error: String,
    pub started_at: String,
    pub duration_s: f64,
    pub metrics: &'a BTreeMap<String, f64>,
    pub variant_hash: &'a str,
    pub log_dir: &'a Path,
    /// This run's toolchain versions when they differ from the writer's (a setup script chosen by a
    /// parameter, e.g. one CANN version per setting); None for the writer's own.
    pub toolchain: Option<&'a BTreeMap<String, String>>,
}

pub struct ResultWriter {
    path: PathBuf,
    columns: Columns,
    provenance: Provenance,
    file: File,
    /// One row encoded, so that it reaches the file in one write.
    row: Vec<u8>,
    /// A torn last row cut away when this writer opened a resumed CSV.
    torn: Option<TornRow>,
    /// The CSV's length after its last whole row: a row whose write fails is cut back to it.
    whole: u64,
    /// Held while this writer lives: a second sweep resuming the same CSV is refused.
    _lock: FileLock,
}

impl ResultWriter {
    /// Starts a new CSV (refusing to overwrite one) and writes the header durably.
    pub fn create(path: &Path, columns: Columns, provenance: Provenance) -> Result<ResultWriter, RecordError> {
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(RecordError::io(parent))?;
        }
        let folder = ConfinedDir::holding(path).map_err(RecordError::io(path))?;
        let file = folder.create_new(path).map_err(RecordError::io(path))?;
        let _lock = lock_for_writing(&folder, path)?;
        let mut writer = ResultWriter {
            path: path.to_path_buf(),
            file,
            row: Vec::new(),
            columns,
            provenance,
            torn: None,
            whole: 0,
            _lock,
        };
        let header = writer.columns.header();
        writer.write_record(&header)?;
        Ok(writer)
    }

    /// Opens a recorded CSV to append to (`--resume`), under its writer's lock, and returns it with the
    /// rows it holds. Everything is checked before a byte changes (`check_resumable`); then a last row cut
    /// off by a crash (no line end) is cut away, its bytes kept in `<stem>.torn` (see `torn`).
    /// The CSV keeps its own layout: one written before the Slurm columns gets rows without them.
    pub fn append(
        path: &Path,
        columns: Columns,
        provenance: Provenance,
        expected: &SweepFingerprint,
    ) -> Result<(ResultWriter, RunTable), RecordError> {
        ResultWriter::check_resumable(path, &columns, expected)?;
        // Every file is opened from the CSV's folder, none through a link (the CSV, its torn row's keeper).
        let folder = ConfinedDir::holding(path).map_err(RecordError::io(path))?;
        let _lock = lock_for_writing(&folder, path)?;
        // Again under the lock: another sweep may have appended since.
        let (columns, existing) = ResultWriter::check_resumable(path, &columns, expected)?;
        let torn = super::torn_row::cut_torn_row(&folder, path)?;
        let file = folder.open_append(path, false).map_err(RecordError::io(path))?;
        let whole = file.metadata().map_err(RecordError::io(path))?.len();
        let writer =
            ResultWriter { path: path.to_path_buf(), file, row: Vec::new(), columns, provenance, torn, whole, _lock };
        Ok((writer, existing))
    }

    /// Whether `path` can be resumed as a CSV of the sweep `expected` fingerprints with `columns`, reading
    /// only: its sidecar must be there and name this sweep (name, grid, columns, declaration), and its
    /// rows must read (a torn last row aside). Returns the layout rows will be appended in (the CSV's own
    /// Slurm and attempt columns) and the rows.
    pub fn check_resumable(
        path: &Path,
        columns: &Columns,
        expected: &SweepFingerprint,
    ) -> Result<(Columns, RunTable), RecordError> {
        let mismatch = |reason: String| RecordError::ResumeMismatch { path: path.to_path_buf(), reason };
        if !std::fs::metadata(path).map_err(RecordError::io(path))?.is_file() {
            return Err(RecordError::NotAResultCsv { path: path.to_path_buf(), reason: "not a regular file".into() });
        }
        let sidecar = super::result_paths::ResultPaths::for_csv(path).sidecar;
        let recorded = Sidecar::beside(path)?.ok_or_else(|| {
            mismatch(format!("no sidecar {} beside it says which sweep it records", sidecar.display()))
        })?;
        if let Some(reason) = recorded.fingerprint().difference(expected) {
            return Err(mismatch(reason));
        }
        let existing = RunTable::read_resumable(path, &recorded)?;
        let layout =
            Columns { placement: existing.columns.placement, attempt: existing.columns.attempt, ..columns.clone() };
        if existing.columns != layout {
            return Err(mismatch(describe_difference(&existing.columns, &layout)));
        }
        Ok((layout, existing))
    }

    /// The CSV being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The record `write` last wrote, as the file holds it (line end included): what a table of the rows
    /// written so far appends (`RunTable::push_written`).
    pub fn last_row(&self) -> &[u8] {
        &self.row
    }

    /// The torn last row `append` cut away, if there was one.
    pub fn torn(&self) -> Option<&TornRow> {
        self.torn.as_ref()
    }

    pub fn write(&mut self, row: &RunRow<'_>) -> Result<(), RecordError> {
        let mut record: Vec<String> = row.param_values.clone();
        record.extend([row.variant.to_string(), row.rep.to_string()]);
        if self.columns.attempt {
            record.push(row.attempt.to_string());
        }
        record.extend([
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
        record.extend(self.columns.placement.cells(&self.provenance.placement));
        record.extend(
            self.columns
                .toolchains
                .iter()
                .map(|name| row.toolchain.unwrap_or(&self.provenance.toolchain).get(name).cloned().unwrap_or_default()),
        );
        record.push(row.log_dir.display().to_string());
        self.write_record(&record)
    }

    /// Writes a row another writer wrote (an array task's, keyed by its header), in this CSV's columns:
    /// each cell taken by its column's name (empty when the other CSV lacks it), the attempt this CSV
    /// counts; the other row's host, placement and logs stay, so it still says where it ran.
    pub fn write_copied(&mut self, cells: &BTreeMap<String, String>, attempt: u32) -> Result<(), RecordError> {
        let record: Vec<String> = self
            .columns
            .header()
            .iter()
            .map(|column| match column.as_str() {
                super::columns::ATTEMPT_COLUMN => attempt.to_string(),
                column => cells.get(column).cloned().unwrap_or_default(),
            })
            .collect();
        self.write_record(&record)
    }

    /// Writes one record durably (one write, then fdatasync); a record that cannot be written whole (a
    /// full disk) is cut off again, so the CSV still ends after its last whole row.
    fn write_record(&mut self, record: &[String]) -> Result<(), RecordError> {
        self.row.clear();
        let written = encode(record, &mut self.row).and_then(|()| {
            (&self.file).write_all(&self.row)?;
            self.file.sync_data()?;
            Ok(self.row.len() as u64)
        });
        match written {
            Ok(length) => {
                self.whole += length;
                Ok(())
            }
            Err(error) => {
                let _ = self.file.set_len(self.whole);
                Err(RecordError::io(&self.path)(error))
            }
        }
    }
}

/// `record` as one CSV line at the end of `row` (the header is a record like the others).
fn encode(record: &[String], row: &mut Vec<u8>) -> std::io::Result<()> {
    let mut encoder = csv::WriterBuilder::new().has_headers(false).from_writer(row);
    encoder.write_record(record).map_err(std::io::Error::from)?;
    encoder.flush()
}

/// An exclusive flock on the CSV, taken before it is read for resuming. (Opened for writing: NFS
/// emulates flock with record locks, which need it for an exclusive lock.)
fn lock_for_writing(folder: &ConfinedDir, path: &Path) -> Result<FileLock, RecordError> {
    let file = folder.open_read_write(path, false).map_err(RecordError::io(path))?;
    FileLock::try_lock(file, LockMode::Exclusive)
        .map_err(RecordError::io(path))?
        .map_err(|holder| RecordError::Locked { path: path.to_path_buf(), holder })
}

fn describe_difference(found: &Columns, expected: &Columns) -> String {
    if found.params != expected.params {
        format!("its param columns are {:?}, not {:?}", found.params, expected.params)
    } else if found.metrics != expected.metrics {
        format!("its metric columns are {:?}, not {:?}", found.metrics, expected.metrics)
    } else {
        format!("its toolchain columns are {:?}, not {:?}", found.toolchains, expected.toolchains)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::PlacementColumns;

    fn columns() -> Columns {
        Columns {
            params: vec!["rows".to_string()],
            metrics: vec!["wall".to_string()],
            toolchains: Vec::new(),
            placement: PlacementColumns::Neutral,
            attempt: true,
        }
    }

    #[test]
    fn a_csv_being_written_cannot_be_resumed_by_another_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sweep.csv");
        let writer = ResultWriter::create(&path, columns(), Provenance::default()).unwrap();
        let sweep = super::super::test_sidecar::write_sidecar(&path, &columns());
        let refused = ResultWriter::append(&path, columns(), Provenance::default(), &sweep).err().unwrap();
        assert!(refused.to_string().contains(&format!("sweep pid {} is writing this CSV", std::process::id())));
        drop(writer);
        let resumed = ResultWriter::append(&path, columns(), Provenance::default(), &sweep).unwrap();
        assert!(ResultWriter::append(&path, columns(), Provenance::default(), &sweep).is_err());
        drop(resumed);
    }

    #[test]
    fn a_copied_row_keeps_its_cells_by_column_name_and_takes_this_csvs_attempt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sweep.csv");
        let mut writer = ResultWriter::create(&path, columns(), Provenance::default()).unwrap();
        let cells: BTreeMap<String, String> =
            [("param.rows", "512"), ("rep", "3"), ("attempt", "1"), ("status", "ok"), ("host", "node7"), ("task", "2")]
                .map(|(column, cell)| (column.to_string(), cell.to_string()))
                .into();
        writer.write_copied(&cells, 2).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_string).collect();
        let row: Vec<String> = reader.records().next().unwrap().unwrap().iter().map(str::to_string).collect();
        let cell = |name: &str| row[header.iter().position(|column| column == name).unwrap()].as_str();
        assert_eq!([cell("param.rows"), cell("rep"), cell("attempt"), cell("status")], ["512", "3", "2", "ok"]);
        assert_eq!([cell("host"), cell("task"), cell("metric.wall")], ["node7", "2", ""]);
        assert_eq!(writer.last_row(), text.lines().nth(1).map(|line| format!("{line}\n")).unwrap().as_bytes());
    }
}
