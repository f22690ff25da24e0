//! `RunTable`: a result CSV read once, streaming, into compact columns: what `report` and `compare` analyse.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::columns::Columns;
use super::observation::Observation;
use super::record_error::RecordError;
use super::recorded_run::RecordedRun;
use super::row_layout::RowLayout;
use super::setting_interner::SettingInterner;
use super::sidecar::Sidecar;
use super::table_run::TableRun;
use super::torn_row::torn_line;
use crate::launch::{RunStatus, UnknownRunStatus};
use crate::spec::{Param, ParamValue};

/// Setting labels: (column, typed value) pairs in declaration order, then `("variant", name)`.
type Labels = Vec<(String, ParamValue)>;

/// Every run of a result CSV, column by column: about 10 bytes per run plus 8 per metric, whatever the
/// number of settings, so a million-run CSV analyses in tens of megabytes. Runs keep their file order.
#[derive(Debug, Clone)]
pub struct RunTable {
    pub path: PathBuf,
    pub columns: Columns,
    /// The distinct settings, first-seen order; runs whose labels type alike share one.
    pub(super) settings: Vec<Labels>,
    /// Per run: its index into `settings`.
    pub(super) setting: Vec<u32>,
    pub(super) rep: Vec<u32>,
    pub(super) warmup: Vec<bool>,
    pub(super) status: Vec<RunStatus>,
    /// The runs that recorded an error, ascending by run, with it.
    pub(super) errors: Vec<(usize, String)>,
    /// Per metric (in `columns.metrics` order), per run; NaN where the run reported none (a recorded
    /// metric is always finite).
    pub(super) values: Vec<Vec<f64>>,
    /// Metric indices in ascending name order, one per name.
    pub(super) by_name: Vec<usize>,
}

/// Why a row was refused: the row as a whole, or one metric cell (by its index in `columns.metrics`).
enum RowError {
    Row(String),
    Metric { metric: usize, reason: String },
}

impl RunTable {
    /// Reads a CSV, its param columns typed by the params its sidecar declares (inferred without one).
    pub fn read(path: &Path) -> Result<RunTable, RecordError> {
        let declared = Sidecar::beside(path)?.map(|sidecar| sidecar.params).unwrap_or_default();
        RunTable::read_typed(path, &declared)
    }

    /// Reads a CSV to analyse: one without any run has nothing to report.
    pub fn read_runs(path: &Path) -> Result<RunTable, RecordError> {
        let table = RunTable::read(path)?;
        if table.is_empty() {
            return Err(RecordError::NoRuns { path: path.to_path_buf() });
        }
        Ok(table)
    }

    /// Reads a CSV whose param columns hold values of `declared` (a param not declared is inferred) in one
    /// pass over reused byte records; a torn last row, a non-finite metric or a malformed row is an error
    /// naming its line.
    pub fn read_typed(path: &Path, declared: &[Param]) -> Result<RunTable, RecordError> {
        let file = File::open(path).map_err(RecordError::io(path))?;
        refuse_torn(path, &file)?;
        let mut reader = csv::ReaderBuilder::new().flexible(false).buffer_capacity(1 << 16).from_reader(file);
        let header: Vec<String> =
            reader.headers().map_err(|error| csv_error(path, error))?.iter().map(str::to_string).collect();
        let header_bytes = reader.byte_headers().map_err(|error| csv_error(path, error))?.clone();
        let columns = Columns::from_header(&header)
            .map_err(|reason| RecordError::NotAResultCsv { path: path.to_path_buf(), reason })?;
        let layout = RowLayout::of(&header, &columns);
        let mut interned = SettingInterner::new(&columns.params, declared);
        let mut table = RunTable::empty(path, columns);
        let mut record = csv::ByteRecord::new();
        while reader.read_byte_record(&mut record).map_err(|error| csv_error(path, error))? {
            // Shards of one sweep merge by concatenation (`cat a.csv b.csv`): later headers are not runs.
            if record == header_bytes {
                continue;
            }
            table.push(&record, &layout, &mut interned).map_err(|error| {
                let line = record.position().map_or(0, |p| p.line());
                match error {
                    RowError::Row(reason) => RecordError::BadRow { path: path.to_path_buf(), line, reason },
                    RowError::Metric { metric, reason } => RecordError::BadValue {
                        path: path.to_path_buf(),
                        line,
                        column: layout.metric_columns[metric],
                        reason,
                    },
                }
            })?;
        }
        Ok(table)
    }

    fn empty(path: &Path, columns: Columns) -> RunTable {
        let mut by_name: Vec<usize> = (0..columns.metrics.len()).collect();
        by_name.sort_by(|a, b| columns.metrics[*a].cmp(&columns.metrics[*b]).then(b.cmp(a)));
        by_name.dedup_by(|a, b| columns.metrics[*a] == columns.metrics[*b]);
        RunTable {
            path: path.to_path_buf(),
            values: vec![Vec::new(); columns.metrics.len()],
            columns,
            settings: Vec::new(),
            setting: Vec::new(),
            rep: Vec::new(),
            warmup: Vec::new(),
            status: Vec::new(),
            errors: Vec::new(),
            by_name,
        }
    }

    /// Appends one row's run (a refused row ends the read, so it may leave the table half-appended).
    /// Cells are checked in the order the header-keyed reader checked them (metrics, rep, status), so a
    /// row's error is the same.
    fn push(
        &mut self,
        record: &csv::ByteRecord,
        layout: &RowLayout,
        interned: &mut SettingInterner,
    ) -> Result<(), RowError> {
        if std::str::from_utf8(record.as_slice()).is_err() {
            return Err(RowError::Row("the row is not valid UTF-8".to_string()));
        }
        for (metric, &column) in layout.metrics.iter().enumerate() {
            let value = self.metric_value(metric, text(&record[column])?)?;
            self.values[metric].push(value);
        }
        let rep = text(&record[layout.rep])?;
        let rep = rep.parse().map_err(|_| RowError::Row(format!("rep `{rep}` is not a number")))?;
        let status =
            text(&record[layout.status])?.parse().map_err(|e: UnknownRunStatus| RowError::Row(e.to_string()))?;
        let cells = layout.setting.iter().map(|&column| &record[column]);
        let setting = interned
            .index(cells, &mut self.settings)
            .map_err(|_| RowError::Row("a setting cell is not valid UTF-8".to_string()))?;
        let error = text(&record[layout.error])?;
        if !error.is_empty() {
            self.errors.push((self.rep.len(), error.to_string()));
        }
        self.setting.push(setting);
        self.rep.push(rep);
        self.warmup.push(&record[layout.warmup] == b"true");
        self.status.push(status);
        Ok(())
    }

    /// A metric cell's value: NaN when empty (not reported), else a finite number.
    fn metric_value(&self, metric: usize, text: &str) -> Result<f64, RowError> {
        if text.is_empty() {
            return Ok(f64::NAN);
        }
        // A NaN or infinite metric would win or poison every comparison it enters: refuse it.
        text.parse::<f64>().ok().filter(|value| value.is_finite()).ok_or_else(|| RowError::Metric {
            metric,
            reason: format!("metric `{}` is `{text}`, not a finite number", self.columns.metrics[metric]),
        })
    }

    /// How many runs the CSV recorded, warmups and failures included.
    pub fn len(&self) -> usize {
        self.rep.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rep.is_empty()
    }

    /// Every run, in file order, as the analysis reads it.
    pub fn runs(&self) -> Vec<TableRun<'_>> {
        (0..self.len()).map(|run| TableRun::new(self, run)).collect()
    }

    /// Run `run` (0-based, file order) as an owned observation.
    pub fn observation(&self, run: usize) -> Observation {
        let view = TableRun::new(self, run);
        Observation {
            setting: self.settings[self.setting[run] as usize].clone(),
            rep: self.rep[run],
            warmup: self.warmup[run],
            status: self.status[run],
            error: view.error().to_string(),
            metrics: view.metrics().map(|(name, value)| (name.to_string(), value)).collect::<BTreeMap<_, _>>(),
        }
    }
}

/// Refuses a CSV whose last row has no line end (the sweep was killed writing it), naming that row's
/// line. Only the last byte is read unless it is not a line end.
fn refuse_torn(path: &Path, file: &File) -> Result<(), RecordError> {
    let length = file.metadata().map_err(RecordError::io(path))?.len();
    let mut last = [b'\n'];
    if length > 0 {
        file.read_exact_at(&mut last, length - 1).map_err(RecordError::io(path))?;
    }
    if last[0] == b'\n' {
        return Ok(());
    }
    let bytes = std::fs::read(path).map_err(RecordError::io(path))?;
    match torn_line(&bytes) {
        Some(line) => Err(RecordError::TornRow { path: path.to_path_buf(), line }),
        None => Ok(()),
    }
}

/// A cell as text.
fn text(cell: &[u8]) -> Result<&str, RowError> {
    std::str::from_utf8(cell).map_err(|_| RowError::Row("a cell is not valid UTF-8".to_string()))
}

fn csv_error(path: &Path, error: csv::Error) -> RecordError {
    match error.position() {
        Some(position) => {
            RecordError::BadRow { path: path.to_path_buf(), line: position.line(), reason: error.to_string() }
        }
        None => RecordError::NotAResultCsv { path: path.to_path_buf(), reason: error.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::super::provenance::Provenance;
    use super::super::result_writer::{ResultWriter, RunRow};
    use super::*;
    use crate::analyse::fixtures::{fixture_slice_config, fixture_slice_sweep, fixture_slice_sweep_b};
    use crate::analyse::{analyse_sweep, analyse_sweep_runs};
    use crate::compare::{compare, CompareConfig};
    use std::collections::BTreeSet;

    /// Writes `runs` as `sweep run` would (params `rows`, `slices`) and reads them back compactly.
    fn written(dir: &Path, name: &str, runs: &[Observation]) -> RunTable {
        let metrics: BTreeSet<&String> = runs.iter().flat_map(|run| run.metrics.keys()).collect();
        let columns = Columns {
            params: vec!["rows".into(), "slices".into()],
            metrics: metrics.into_iter().cloned().collect(),
            toolchains: vec![],
            slurm: true,
        };
        let path = dir.join(name);
        let mut writer = ResultWriter::create(&path, columns, Provenance::default()).unwrap();
        for (order, run) in runs.iter().enumerate() {
            let variant = run.variant().unwrap();
            writer
                .write(&RunRow {
                    param_values: run.setting[..2].iter().map(|(_, value)| value.to_string()).collect(),
                    variant,
                    rep: run.rep,
                    warmup: run.warmup,
                    order,
                    status: run.status,
                    error: run.error.clone(),
                    started_at: String::new(),
                    duration_s: 1.0,
                    metrics: &run.metrics,
                    variant_hash: "h",
                    log_dir: Path::new("runs"),
                    toolchain: None,
                })
                .unwrap();
        }
        RunTable::read(&path).unwrap()
    }

    #[test]
    fn a_table_reads_back_every_run_as_written_sharing_one_label_vector_per_setting() {
        let dir = tempfile::tempdir().unwrap();
        let runs = fixture_slice_sweep();
        let table = written(dir.path(), "a.csv", &runs);
        assert_eq!((0..table.len()).map(|run| table.observation(run)).collect::<Vec<_>>(), runs);
        let distinct: BTreeSet<String> = runs.iter().map(|run| format!("{:?}", run.setting)).collect();
        assert_eq!(table.settings.len(), distinct.len());
    }

    #[test]
    fn analysis_and_comparison_of_a_table_equal_those_of_its_observations() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (fixture_slice_sweep(), fixture_slice_sweep_b());
        let (table_a, table_b) = (written(dir.path(), "a.csv", &a), written(dir.path(), "b.csv", &b));
        let config = fixture_slice_config();
        assert_eq!(analyse_sweep_runs(&table_a.runs(), &config, true, &[]), analyse_sweep(&a, &config, true, &[]));
        let compared = CompareConfig {
            metric: config.primary.clone(),
            direction: config.direction,
            threshold: 0.02,
            alpha: 0.05,
            control: config.control.clone(),
        };
        assert_eq!(compare(&table_a.runs(), &table_b.runs(), &compared), compare(&a, &b, &compared));
    }

    #[test]
    fn float_cells_written_differently_are_one_setting() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        let columns = Columns { params: vec!["scale".into()], metrics: vec![], toolchains: vec![], slurm: true };
        std::fs::write(&path, columns.header().join(",") + "\n").unwrap();
        let row = |scale: &str, rep: u32| format!("{scale},default,{rep},false,{rep},ok,,,1,,,,,,,runs\n");
        let text = std::fs::read_to_string(&path).unwrap() + &row("1.0", 1) + &row("1.00", 2);
        std::fs::write(&path, text).unwrap();
        let declared = [Param { name: "scale".into(), values: vec![ParamValue::Float(1.0)], is_list: false }];
        let table = RunTable::read_typed(&path, &declared).unwrap();
        assert_eq!(table.len(), 2);
        assert_eq!(
            table.settings,
            [vec![
                ("scale".to_string(), ParamValue::Float(1.0)),
                ("variant".into(), ParamValue::Text("default".into()))
            ]]
        );
    }
}
