//! `RunTable`: a result CSV read once, streaming, into compact columns: what `report` and `compare` analyse;
//! `TableRun` and `MetricColumn`: one of its runs, and one of its metrics, read in place.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use simd_csv::ZeroCopyByteRecord;

use super::attempt_index::{AttemptIndex, Duplicate, RunColumns};
use super::columns::{Columns, ATTEMPT_COLUMN, METRIC_PREFIX, PARAM_PREFIX};
use super::file_range::{line_aligned_splits, line_at, rows_estimate, FileRange};
use super::record_error::RecordError;
use super::recorded_attempts::RecordedAttempts;
use super::recorded_grid::RecordedGrid;
use super::recorded_run::RecordedRun;
use super::result_paths::ResultPaths;
use super::row_quoting::quoting_refusal;
use super::setting_interner::{intern_setting, place_setting, SettingInterner};
use super::sidecar::Sidecar;
use super::torn_row::torn_line;
use crate::ground::{RunStatus, UnknownRunStatus};
use crate::plan::{Setting, SettingId};
use crate::read_limit::ReadLimit;

/// Every run of a result CSV, column by column: about 14 bytes per run plus 8 per metric, whatever the
/// number of settings, so a million-run CSV analyses in tens of megabytes. Runs keep their file order.
#[derive(Debug, Clone)]
pub struct RunTable {
    pub path: PathBuf,
    pub columns: Columns,
    /// The metric columns' names, in CSV order.
    metrics: Vec<String>,
    /// The settings by `SettingId`: the sidecar's order, else first-seen; runs whose cells type alike
    /// share one. A planned setting no row records is `Setting::default()`.
    settings: Vec<Setting>,
    /// Per run: its setting.
    setting: Vec<SettingId>,
    rep: Vec<u32>,
    warmup: Vec<bool>,
    status: Vec<RunStatus>,
    /// Per run: its `duration_s` (a search's budget of time is spent by it); 0 where the cell is no number.
    duration: Vec<f32>,
    /// The runs that recorded an error, ascending by run, with it.
    errors: Vec<(usize, String)>,
    /// Per metric (in `metrics` order), per run; NaN where the run reported none (a recorded metric is
    /// always finite).
    values: Vec<Vec<f64>>,
    /// Metric indices in ascending name order, one per name.
    by_name: Vec<usize>,
    /// The runs recorded as an attempt other than the first, ascending by run, with their attempt.
    retries: Vec<(usize, u32)>,
    /// Which runs the analysis reads, when a (setting, rep) was run more than once.
    attempts: AttemptIndex,
    /// The sidecar's grid the rows were read by: `push_written` types and places a new row by it too.
    grid: Option<RecordedGrid>,
}

/// The attempt run `run` recorded, of the `retries` (runs recorded as an attempt other than the first,
/// ascending by run): 1 unless listed.
fn attempt_in(retries: &[(usize, u32)], run: usize) -> u32 {
    retries.binary_search_by_key(&run, |(retried, _)| *retried).map_or(1, |at| retries[at].1)
}

/// Why a row was refused: the row as a whole, or one metric cell (by its index in `columns.metrics`).
enum RowError {
    Row(String),
    Metric { metric: usize, reason: String },
}

impl RunTable {
    /// Reads a CSV, its param columns typed by the params its sidecar declares (inferred without one).
    /// With a sidecar the rows must fit it: its columns, the settings and reps it plans, each
    /// (setting, rep, attempt) once; a row that does not is refused naming its line.
    pub fn read(path: &Path) -> Result<RunTable, RecordError> {
        RunTable::read_beside(path, Sidecar::beside(path)?.as_ref(), ReadEnd::Refused)
    }

    /// Reads a CSV being resumed against its sidecar: as `read`, but a last row cut off without a line
    /// end is left out rather than refused (resuming cuts it off and runs it again).
    pub fn read_resumable(path: &Path, sidecar: &Sidecar) -> Result<RunTable, RecordError> {
        RunTable::read_beside(path, Some(sidecar), ReadEnd::WholeRows)
    }

    fn read_beside(path: &Path, sidecar: Option<&Sidecar>, end: ReadEnd) -> Result<RunTable, RecordError> {
        let grid = sidecar.map(|sidecar| RecordedGrid::of(sidecar, &ResultPaths::for_csv(path).sidecar));
        RunTable::read_in_parts(path, grid, end, parallel_parts)
    }

    /// Reads a CSV to analyse: one without any run has nothing to report.
    pub fn read_runs(path: &Path) -> Result<RunTable, RecordError> {
        let table = RunTable::read(path)?;
        if table.is_empty() {
            return Err(RecordError::NoRuns { path: path.to_path_buf() });
        }
        Ok(table)
    }

    /// Reads a CSV by `grid` (its sidecar's, which types the param columns, else none) over reused byte records, its rows split into `parts(bytes of rows)`
    /// line-aligned ranges read in parallel; a torn last row (unless `end` leaves it out), a non-finite
    /// metric or a malformed row is an error naming its line (the first in the file).
    fn read_in_parts(
        path: &Path,
        owned_grid: Option<RecordedGrid>,
        end: ReadEnd,
        parts: impl Fn(u64) -> u64,
    ) -> Result<RunTable, RecordError> {
        let grid = owned_grid.as_ref();
        let file = open_regular(path)?;
        let (length, torn) = whole_rows(path, &file)?;
        if let (ReadEnd::Refused, Some(line)) = (end, torn) {
            return Err(RecordError::TornRow { path: path.to_path_buf(), line });
        }
        let (header, rows_start) = read_header(path, &file, length)?;
        let names: Vec<String> = header.iter().map(|cell| String::from_utf8_lossy(cell).into_owned()).collect();
        let columns = Columns::from_header(&names)
            .map_err(|reason| RecordError::NotAResultCsv { path: path.to_path_buf(), reason })?;
        if let Some(reason) = grid.and_then(|grid| grid.columns_refusal(&columns)) {
            return Err(RecordError::BadRow { path: path.to_path_buf(), line: 1, reason });
        }
        let layout = RowLayout::of(&names, &columns);
        let rows = RowReader { path, file: &file, header: &header, layout: &layout, columns: &columns, grid };
        let splits = line_aligned_splits(&file, rows_start, length, parts(length - rows_start))
            .map_err(RecordError::io(path))?;
        // The first range makes room for every row: the others are appended to it.
        let room = |range: &[u64]| if range[0] == rows_start { length } else { range[1] };
        let reads: Vec<_> = splits.par_windows(2).map(|range| rows.read(range[0], range[1], room(range))).collect();
        let mut table = RunTable::empty(path, columns.clone(), 0);
        for ((mut read, quoted), range) in reads.into_iter().zip(splits.windows(2)) {
            // A quote may open a field that holds a line end, so the next split may have cut a row: the
            // rest of the file is read again in one piece from this range's start, known to start a row.
            let rest_reread = quoted && range[1] < length;
            if rest_reread {
                read = rows.read(range[0], length, length).0;
            }
            table.append(read?, grid.is_some_and(RecordedGrid::lists_settings));
            if rest_reread {
                break;
            }
        }
        table.index_attempts(&rows, length)?;
        table.grid = owned_grid;
        Ok(table)
    }

    /// Appends the run of `row`: one record as `ResultWriter` wrote it to this table's CSV, line end
    /// included, read as `read` reads the file's rows (typed and placed by the same sidecar's grid). A
    /// table grown so row by row equals the CSV read afresh, without reading the file again. A row the
    /// table refuses (none the writer writes for a run of its grid) is left to a read of the CSV, which
    /// names its line as reading the whole file did, or else becomes the table.
    pub fn push_written(&mut self, row: &[u8]) -> Result<(), RecordError> {
        if self.try_push_written(row).is_none() {
            *self = RunTable::read(&self.path)?;
        }
        Ok(())
    }

    /// `push_written`'s append, `None` when the row is refused (the table may then be half-appended).
    fn try_push_written(&mut self, row: &[u8]) -> Option<()> {
        let header = self.columns.header();
        let layout = RowLayout::of(&header, &self.columns);
        // Taken out while the row is pushed, which borrows the table mutably.
        let (grid, params) = (self.grid.take(), self.columns.params.clone());
        let mut interned = SettingInterner::new(&params, grid.as_ref());
        let mut reader = simd_csv::ZeroCopyReaderBuilder::new().has_headers(false).flexible(true).from_reader(row);
        let pushed = match reader.read_byte_record() {
            Ok(Some(record)) => self.push(&record, header.len(), &layout, &mut interned, grid.as_ref()).ok(),
            _ => None,
        };
        self.grid = grid;
        pushed?;
        let RunTable { setting, rep, warmup, status, retries, attempts, .. } = self;
        let runs = RunColumns { setting, rep, warmup, status, attempt: |run| attempt_in(retries, run) };
        attempts.push(&runs).ok()
    }

    /// Refuses a (setting, rep, attempt) recorded twice, naming both lines, and picks the attempt of each
    /// (setting, rep) the analysis reads.
    fn index_attempts(&mut self, rows: &RowReader<'_>, length: u64) -> Result<(), RecordError> {
        self.reindex_attempts().map_err(|Duplicate { run, earlier }| {
            let lines = match rows.lines_of_runs(&[earlier, run], length) {
                Ok(lines) => lines,
                Err(error) => return error,
            };
            let setting = self.settings[self.setting[run].index()].label();
            let (rep, attempt) = (self.rep[run], self.attempt(run));
            let reason = format!(
                "`{setting}` rep {rep} attempt {attempt} is already recorded at line {}: a run is counted once",
                lines[0]
            );
            RecordError::BadRow { path: rows.path.to_path_buf(), line: lines[1], reason }
        })
    }

    /// Picks the attempt of each (setting, rep) the analysis reads, over every run; the duplicate, if a
    /// (setting, rep, attempt) is recorded twice.
    fn reindex_attempts(&mut self) -> Result<(), Duplicate> {
        let RunTable { setting, rep, warmup, status, retries, attempts, .. } = self;
        let runs = RunColumns { setting, rep, warmup, status, attempt: |run| attempt_in(retries, run) };
        *attempts = AttemptIndex::of(&runs)?;
        Ok(())
    }

    /// The attempt run `run` recorded (1 unless the CSV says otherwise).
    fn attempt(&self, run: usize) -> u32 {
        attempt_in(&self.retries, run)
    }

    /// How many (setting, rep) the CSV records more than once (failed runs run again by `--resume`); the
    /// analysis reads the last successful attempt of each.
    pub fn retried(&self) -> usize {
        self.attempts.retried
    }

    /// The runs the analysis reads (0-based, file order): every run but attempts another one supersedes.
    pub fn current_runs(&self) -> Box<dyn Iterator<Item = usize> + '_> {
        match &self.attempts.current {
            Some(current) => Box::new(current.iter().map(|&run| run as usize)),
            None => Box::new(0..self.len()),
        }
    }

    /// What the CSV holds of every (setting, rep) of the plan whose settings are `planned`: its last attempt
    /// and whether one succeeded, superseded attempts included (for `--resume`). Runs of settings the plan
    /// does not hold are left out.
    pub fn recorded_attempts(&self, planned: &[Setting]) -> RecordedAttempts {
        let plan_ids = self.plan_ids(planned);
        let mut attempts = RecordedAttempts::default();
        attempts.without_attempts = !self.columns.attempt;
        for run in 0..self.len() {
            let Some(setting) = plan_ids[self.setting[run].index()] else { continue };
            let key = (setting, self.rep[run], self.warmup[run]);
            attempts.record(key, self.attempt(run), self.status[run] == RunStatus::Ok);
        }
        attempts
    }

    /// For each of this table's settings (by its `SettingId`), the id of the same setting among `planned`
    /// (a plan's settings, which a resume or `--filter` may order or cut differently from the sidecar's):
    /// matched once per setting by its label.
    pub fn plan_ids(&self, planned: &[Setting]) -> Vec<Option<SettingId>> {
        let by_label: FxHashMap<String, SettingId> =
            planned.iter().enumerate().map(|(id, setting)| (setting.label(), SettingId::new(id))).collect();
        self.settings.iter().map(|setting| by_label.get(&setting.label()).copied()).collect()
    }

    /// Appends `other`'s runs after this table's, its settings merged into this table's: at their ids when
    /// `planned` (the sidecar's, the same in every part), else by their values.
    fn append(&mut self, other: RunTable, planned: bool) {
        if self.is_empty() && self.settings.is_empty() {
            *self = other;
            return;
        }
        let settings = &mut self.settings;
        let merged: Vec<SettingId> = (other.settings.into_iter().enumerate())
            .map(|(id, setting)| match planned {
                true if setting == Setting::default() => SettingId::new(id),
                true => place_setting(settings, SettingId::new(id), setting),
                false => intern_setting(settings, setting),
            })
            .collect();
        let offset = self.len();
        self.setting.extend(other.setting.iter().map(|&setting| merged[setting.index()]));
        self.rep.extend(other.rep);
        self.warmup.extend(other.warmup);
        self.status.extend(other.status);
        self.duration.extend(other.duration);
        self.errors.extend(other.errors.into_iter().map(|(run, error)| (run + offset, error)));
        self.retries.extend(other.retries.into_iter().map(|(run, attempt)| (run + offset, attempt)));
        // A column per core: a million-run CSV's second half is fifty megabytes to move.
        self.values.par_iter_mut().zip(other.values).for_each(|(values, more)| values.extend(more));
    }

    /// A table without runs, with room for `rows`.
    fn empty(path: &Path, columns: Columns, rows: usize) -> RunTable {
        RunTable {
            path: path.to_path_buf(),
            metrics: columns.metrics.clone(),
            values: (0..columns.metrics.len()).map(|_| Vec::with_capacity(rows)).collect(),
            settings: Vec::new(),
            setting: Vec::with_capacity(rows),
            rep: Vec::with_capacity(rows),
            warmup: Vec::with_capacity(rows),
            status: Vec::with_capacity(rows),
            duration: Vec::with_capacity(rows),
            errors: Vec::new(),
            by_name: by_name(&columns.metrics),
            columns,
            retries: Vec::new(),
            attempts: AttemptIndex::default(),
            grid: None,
        }
    }

    /// Appends one row's run (a refused row ends the read, so it may leave the table half-appended).
    /// Cells are checked in the order the header-keyed reader checked them (metrics, rep, status), so a
    /// row's error is the same.
    fn push(
        &mut self,
        record: &ZeroCopyByteRecord,
        fields: usize,
        layout: &RowLayout,
        interned: &mut SettingInterner,
        grid: Option<&RecordedGrid>,
    ) -> Result<(), RowError> {
        if record.len() != fields {
            return Err(RowError::Row(format!("found a row of {} fields, but the header has {fields}", record.len())));
        }
        if simdutf8::basic::from_utf8(record.as_slice()).is_err() {
            return Err(RowError::Row("the row is not valid UTF-8".to_string()));
        }
        if let Some(reason) = quoting_refusal(record.as_slice()) {
            return Err(RowError::Row(reason.to_string()));
        }
        let cell = |column: usize| record.unescape(column).expect("the row has every column");
        for (metric, &column) in layout.metrics.iter().enumerate() {
            let value = self.metric_value(metric, &cell(column))?;
            self.values[metric].push(value);
        }
        let rep = cell(layout.rep);
        let rep = text(&rep)?;
        let rep = rep.parse().map_err(|_| RowError::Row(format!("rep `{rep}` is not a number")))?;
        let status = text(&cell(layout.status))?.parse().map_err(|e: UnknownRunStatus| RowError::Row(e.to_string()))?;
        let warmup = match &*cell(layout.warmup) {
            b"true" => true,
            b"false" => false,
            other => {
                return Err(RowError::Row(format!("warmup `{}` is not true or false", String::from_utf8_lossy(other))))
            }
        };
        let attempt = match layout.attempt {
            Some(column) => attempt_value(text(&cell(column))?)?,
            None => 1,
        };
        let raw = layout.setting.iter().map(|&column| record.get(column).expect("the row has every column"));
        let cells = || layout.setting.iter().map(|&column| cell(column)).collect();
        let setting = interned.id(raw, cells, &mut self.settings).map_err(RowError::Row)?;
        if let Some(reason) = grid.and_then(|grid| grid.rep_refusal(rep, warmup)) {
            return Err(RowError::Row(reason));
        }
        let error = cell(layout.error);
        let error = text(&error)?;
        let duration: f32 =
            fast_float2::parse(&*cell(layout.duration)).ok().filter(|d: &f32| d.is_finite()).unwrap_or(0.0);
        let run = self.rep.len();
        if !error.is_empty() {
            self.errors.push((run, error.to_string()));
        }
        if attempt != 1 {
            self.retries.push((run, attempt));
        }
        self.setting.push(setting);
        self.rep.push(rep);
        self.warmup.push(warmup);
        self.status.push(status);
        self.duration.push(duration);
        Ok(())
    }

    /// A metric cell's value: NaN when empty (not reported), else a finite number.
    fn metric_value(&self, metric: usize, cell: &[u8]) -> Result<f64, RowError> {
        if cell.is_empty() {
            return Ok(f64::NAN);
        }
        // Parsed from the bytes (the row is valid UTF-8), as `str::parse` would: a tenth of a report's time
        // went to checking each cell's UTF-8 again and parsing it.
        let value: Option<f64> = fast_float2::parse(cell).ok();
        // A NaN or infinite metric would win or poison every comparison it enters: refuse it.
        value.filter(|value| value.is_finite()).ok_or_else(|| RowError::Metric {
            metric,
            reason: format!(
                "metric `{}` is `{}`, not a finite number",
                self.columns.metrics[metric],
                String::from_utf8_lossy(cell)
            ),
        })
    }

    /// Frees every metric column but those named in `keep` (once what needs them is done with them): its
    /// runs then report only these.
    pub fn retain_metrics(&mut self, keep: &[&str]) {
        let columns = std::mem::take(&mut self.metrics).into_iter().zip(std::mem::take(&mut self.values));
        (self.metrics, self.values) = columns.filter(|(name, _)| keep.contains(&name.as_str())).unzip();
        self.by_name = by_name(&self.metrics);
    }

    /// How many runs the CSV recorded, warmups and failures included.
    pub fn len(&self) -> usize {
        self.rep.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rep.is_empty()
    }

    /// Every run the analysis reads, in file order: of several attempts at one (setting, rep), only the
    /// last that succeeded (see `current_runs`).
    pub fn runs(&self) -> Vec<TableRun<'_>> {
        self.current_runs().map(|run| TableRun { table: self, run }).collect()
    }

    /// Every run the CSV recorded, in file order, attempts another one supersedes included (what a store
    /// keeps, so that any analysis can be redone).
    pub fn every_run(&self) -> Vec<TableRun<'_>> {
        (0..self.len()).map(|run| TableRun { table: self, run }).collect()
    }

    /// Each metric over the runs `runs` returns, one column per name (its last, as a run reads it), in
    /// ascending name order: for reading a metric of a million runs in one sequential pass.
    pub fn metric_columns(&self) -> Vec<MetricColumn<'_>> {
        let column = |&metric: &usize| MetricColumn {
            name: self.metrics[metric].as_str(),
            values: &self.values[metric],
            current: self.attempts.current.as_deref(),
        };
        self.by_name.iter().map(column).collect()
    }
}

/// Metric indices in ascending name order, one per name: its last column, as a header-keyed row reads it.
fn by_name(metrics: &[String]) -> Vec<usize> {
    let mut by_name: Vec<usize> = (0..metrics.len()).collect();
    by_name.sort_by(|a, b| metrics[*a].cmp(&metrics[*b]).then(b.cmp(a)));
    by_name.dedup_by(|a, b| metrics[*a] == metrics[*b]);
    by_name
}

/// A run of a `RunTable` by its index: what analysis reads of it, without copying it out.
#[derive(Debug, Clone, Copy)]
pub struct TableRun<'a> {
    table: &'a RunTable,
    run: usize,
}

impl TableRun<'_> {
    /// Which attempt at its (setting, rep) the run is (1 unless the CSV says otherwise).
    pub fn attempt(&self) -> u32 {
        self.table.attempt(self.run)
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
    fn duration_s(&self) -> f64 {
        f64::from(self.table.duration[self.run])
    }
    fn metrics(&self) -> impl Iterator<Item = (&str, f64)> {
        self.table.by_name.iter().filter_map(|&metric| Some((self.table.metrics[metric].as_str(), self.value(metric)?)))
    }
}

/// A metric's values for the runs `RunTable::runs` returns, in that order; NaN where a run reported none.
#[derive(Debug, Clone, Copy)]
pub struct MetricColumn<'a> {
    pub name: &'a str,
    values: &'a [f64],
    /// The table's current runs when attempts superseded some (`RunTable::current_runs`), else every run.
    current: Option<&'a [u32]>,
}

impl MetricColumn<'_> {
    /// The values, one per current run, in file order: a sequential read of the column.
    pub fn values(&self) -> Box<dyn Iterator<Item = f64> + '_> {
        match self.current {
            Some(current) => Box::new(current.iter().map(|&run| self.values[run as usize])),
            None => Box::new(self.values.iter().copied()),
        }
    }
}

/// Below this many bytes of rows a CSV is read in one piece: splitting it would cost more than it saves.
const PARALLEL_FROM: u64 = 1 << 20;

/// How many ranges `rows_bytes` of rows are read in: one per core for a large CSV.
fn parallel_parts(rows_bytes: u64) -> u64 {
    if rows_bytes >= PARALLEL_FROM {
        rayon::current_num_threads() as u64
    } else {
        1
    }
}

/// What a read does with a last row cut off without a line end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReadEnd {
    /// Refuses the CSV, naming the row (report, compare).
    Refused,
    /// Reads the whole rows before it (resume, which cuts it off afterwards).
    WholeRows,
}

/// An `attempt` cell: a whole number from 1.
fn attempt_value(text: &str) -> Result<u32, RowError> {
    text.parse()
        .ok()
        .filter(|&attempt| attempt >= 1)
        .ok_or_else(|| RowError::Row(format!("attempt `{text}` is not a whole number from 1")))
}

/// Opens a result CSV for reading, refusing anything but a regular file (a FIFO would block the read, a
/// directory or device is no CSV).
fn open_regular(path: &Path) -> Result<File, RecordError> {
    ReadLimit::CSV.open(path).map_err(RecordError::io(path))
}

/// The header record and the offset of the first row.
fn read_header(path: &Path, file: &File, length: u64) -> Result<(csv::ByteRecord, u64), RecordError> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(FileRange::new(file, 0, length));
    let mut header = csv::ByteRecord::new();
    reader.read_byte_record(&mut header).map_err(|error| csv_error(path, error))?;
    if std::str::from_utf8(header.as_slice()).is_err() {
        let reason = "the header is not valid UTF-8".to_string();
        return Err(RecordError::NotAResultCsv { path: path.to_path_buf(), reason });
    }
    Ok((header, reader.position().byte()))
}

/// Column positions (0-based) of the cells a run is read from. A name the header repeats reads from its
/// last column, as the header-keyed reader did.
#[derive(Debug, Clone)]
struct RowLayout {
    /// The params in `Columns::params` order, then `variant`: the cells that name a setting.
    setting: Vec<usize>,
    rep: usize,
    /// `None` in a CSV written before attempts were recorded: every row is attempt 1.
    attempt: Option<usize>,
    warmup: usize,
    status: usize,
    error: usize,
    duration: usize,
    /// The metrics in `Columns::metrics` order.
    metrics: Vec<usize>,
    /// 1-based column of each metric as an error names it: its first occurrence in the header.
    metric_columns: Vec<usize>,
}

impl RowLayout {
    /// The layout of `header`, which `Columns::from_header` accepted as `columns`.
    fn of(header: &[String], columns: &Columns) -> RowLayout {
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
            duration: last("duration_s"),
            metrics: metric_names.iter().map(|name| last(name)).collect(),
            metric_columns: metric_names
                .iter()
                .map(|name| header.iter().position(|column| column == name).map_or(0, |index| index + 1))
                .collect(),
        }
    }
}

/// Reads ranges of one CSV's rows, each into a table of its own.
struct RowReader<'a> {
    path: &'a Path,
    file: &'a File,
    header: &'a csv::ByteRecord,
    layout: &'a RowLayout,
    columns: &'a Columns,
    /// The sidecar's grid the rows must fit, if there is one.
    grid: Option<&'a RecordedGrid>,
}

impl RowReader<'_> {
    /// The rows in bytes `start..end`, which start a row (read by `simd-csv`: a result CSV's rows are
    /// rarely quoted, where it parses about twice as fast as the `csv` crate), with room for the rows up to
    /// byte `room_until` (an unreadable sample reserves none: the read reports the error). Returns their runs
    /// (or the first row refused) and whether a quote went by (`FileRange`).
    fn read(&self, start: u64, end: u64, room_until: u64) -> (Result<RunTable, RecordError>, bool) {
        let mut range = FileRange::new(self.file, start, end);
        let mut reader = simd_csv::ZeroCopyReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .buffer_capacity(1 << 16)
            .from_reader(&mut range);
        let mut interned = SettingInterner::new(&self.columns.params, self.grid);
        // A row is at least a separator per field (its commas and line end), however short the sampled ones.
        let most = usize::try_from((room_until - start) / self.header.len() as u64).unwrap_or(usize::MAX);
        let rows = rows_estimate(self.file, start, room_until).unwrap_or(0).min(most);
        let mut table = RunTable::empty(self.path, self.columns.clone(), rows);
        let table = loop {
            let row_start = start + reader.position();
            match reader.read_byte_record() {
                Err(error) => break Err(self.refused(row_start, RowError::Row(error.to_string()))),
                Ok(None) => break Ok(table),
                // Shards of one sweep merge by concatenation (`cat a.csv b.csv`): later headers are not runs.
                Ok(Some(record)) if self.is_header(&record) => continue,
                Ok(Some(record)) => {
                    if let Err(error) = table.push(&record, self.header.len(), self.layout, &mut interned, self.grid) {
                        break Err(self.refused(row_start, error));
                    }
                }
            }
        };
        (table, range.quoted)
    }

    /// The 1-based lines of data rows `runs` (0-based, ascending, in file order), found by reading the rows
    /// again as `read` does: only a refused CSV asks.
    fn lines_of_runs(&self, runs: &[usize], end: u64) -> Result<Vec<u64>, RecordError> {
        let (_, rows_start) = read_header(self.path, self.file, end)?;
        let mut range = FileRange::new(self.file, rows_start, end);
        let mut reader =
            simd_csv::ZeroCopyReaderBuilder::new().has_headers(false).flexible(true).from_reader(&mut range);
        let mut lines = Vec::with_capacity(runs.len());
        let mut run = 0;
        while lines.len() < runs.len() {
            let row_start = rows_start + reader.position();
            match reader.read_byte_record() {
                Ok(Some(record)) if self.is_header(&record) => continue,
                Ok(Some(_)) => {
                    if runs[lines.len()] == run {
                        lines.push(line_at(self.file, row_start).map_err(RecordError::io(self.path))?);
                    }
                    run += 1;
                }
                _ => break,
            }
        }
        lines.resize(runs.len(), 0);
        Ok(lines)
    }

    /// Whether `record` repeats the header.
    fn is_header(&self, record: &ZeroCopyByteRecord) -> bool {
        record.len() == self.header.len()
            && self.header.iter().enumerate().all(|(column, name)| record.unescape(column).as_deref() == Some(name))
    }

    /// The error of a row refused, the row starting at byte `row_start` of the file.
    fn refused(&self, row_start: u64, error: RowError) -> RecordError {
        let path = self.path.to_path_buf();
        let line = match line_at(self.file, row_start) {
            Ok(line) => line,
            Err(error) => return RecordError::Io { path, error },
        };
        match error {
            RowError::Row(reason) => RecordError::BadRow { path, line, reason },
            RowError::Metric { metric, reason } => {
                RecordError::BadValue { path, line, column: self.layout.metric_columns[metric], reason }
            }
        }
    }
}

/// The length of a CSV's whole rows (up to its last line end) and, when its last row has no line end (the
/// sweep was killed writing it), that row's line. Only the last byte is read unless it is not a line end.
fn whole_rows(path: &Path, file: &File) -> Result<(u64, Option<usize>), RecordError> {
    let length = file.metadata().map_err(RecordError::io(path))?.len();
    let mut last = [b'\n'];
    if length > 0 {
        file.read_exact_at(&mut last, length - 1).map_err(RecordError::io(path))?;
    }
    if last[0] == b'\n' {
        return Ok((length, None));
    }
    let bytes = ReadLimit::CSV.read(path).map_err(RecordError::io(path))?;
    let torn = torn_line(&bytes);
    let whole = bytes.iter().rposition(|&byte| byte == b'\n').map_or(0, |end| end as u64 + 1);
    Ok((if torn.is_some() { whole } else { length }, torn))
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
use {super::fixtures::Observation, crate::declare::Param};

#[cfg(test)]
impl RunTable {
    /// Reads a CSV whose param columns hold values of `declared` (a param not declared is inferred) over
    /// reused byte records, its rows split into line-aligned ranges read in parallel; a torn last row, a
    /// non-finite metric or a malformed row is an error naming its line (the first in the file).
    pub(super) fn read_typed(path: &Path, declared: &[Param]) -> Result<RunTable, RecordError> {
        let grid = RecordedGrid::of(&super::test_sidecar::declaring(declared), path);
        RunTable::read_in_parts(path, Some(grid), ReadEnd::Refused, parallel_parts)
    }

    /// Every run the analysis reads (superseded attempts left out) as an owned observation.
    pub(super) fn observations(&self) -> Vec<Observation> {
        self.current_runs().map(|run| self.observation(run)).collect()
    }

    /// Run `run` (0-based, file order) as an owned observation.
    pub(super) fn observation(&self, run: usize) -> Observation {
        let view = TableRun { table: self, run };
        Observation {
            setting: view.setting().clone(),
            setting_id: view.setting_id(),
            rep: self.rep[run],
            warmup: self.warmup[run],
            status: self.status[run],
            error: view.error().to_string(),
            metrics: view
                .metrics()
                .map(|(name, value)| (name.to_string(), value))
                .collect::<std::collections::BTreeMap<_, _>>(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::placement_columns::PlacementColumns;
    use super::super::provenance::Provenance;
    use super::super::result_writer::{ResultWriter, RunRow};
    use super::*;
    use crate::analyse::fixtures::{
        fixture_setting_id, fixture_slice_config, fixture_slice_sweep, fixture_slice_sweep_b,
    };
    use crate::analyse::{analyse_summarised, analyse_sweep, metrics_read_per_run, AnalysisConfig, SettingSummary};
    use crate::compare::{compare, CompareConfig};
    use crate::declare::ParamValue;
    use std::collections::BTreeSet;

    /// Rows read as they are, without a sidecar's grid.
    const NO_RULES: Option<RecordedGrid> = None;

    /// A run read back, its setting id the fixtures' (a table numbers its settings itself).
    fn with_fixture_id(run: Observation) -> Observation {
        Observation { setting_id: fixture_setting_id(&run.setting), ..run }
    }

    /// The columns `sweep run` writes `runs` in (params `rows`, `slices`).
    fn columns_of(runs: &[Observation]) -> Columns {
        let metrics: BTreeSet<&String> = runs.iter().flat_map(|run| run.metrics.keys()).collect();
        Columns {
            params: vec!["rows".into(), "slices".into()],
            metrics: metrics.into_iter().cloned().collect(),
            toolchains: vec![],
            placement: PlacementColumns::Neutral,
            attempt: true,
        }
    }

    /// Writes `runs` as `sweep run` would (params `rows`, `slices`) and reads them back compactly.
    fn written(dir: &Path, name: &str, runs: &[Observation]) -> RunTable {
        let path = dir.join(name);
        let mut writer = ResultWriter::create(&path, columns_of(runs), Provenance::default()).unwrap();
        write_runs(&mut writer, runs, |_| {});
        RunTable::read(&path).unwrap()
    }

    /// Writes `runs` with `writer` as `sweep run` would, calling `after` once each row is written.
    fn write_runs(writer: &mut ResultWriter, runs: &[Observation], mut after: impl FnMut(&ResultWriter)) {
        for (order, run) in runs.iter().enumerate() {
            let variant = run.variant();
            let same = |earlier: &&Observation| {
                (&earlier.setting, earlier.rep, earlier.warmup) == (&run.setting, run.rep, run.warmup)
            };
            let attempt = 1 + runs[..order].iter().filter(same).count() as u32;
            writer
                .write(&RunRow {
                    param_values: run.setting.values[..2].iter().map(|(_, value)| value.to_string()).collect(),
                    variant,
                    rep: run.rep,
                    attempt,
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
            after(writer);
        }
    }

    /// A race's table grows by each row as it is written, from the CSV read when the race starts (the
    /// header alone, or a resumed CSV's rows): it equals the CSV read afresh after every row, whether
    /// the sidecar numbers the settings or rows do, a retried run superseding its failed attempt.
    #[test]
    fn a_table_grown_by_each_row_written_equals_the_csv_read_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = fixture_slice_sweep();
        let retried = runs.iter().position(Observation::is_usable).unwrap();
        let failed = Observation { status: RunStatus::Failed, error: "rank 1 exited".into(), ..runs[retried].clone() };
        runs.insert(retried, Observation { metrics: Default::default(), ..failed });
        // Warmup rounds count from 1 in a sidecar's grid.
        runs.iter_mut().filter(|run| run.warmup).for_each(|run| run.rep = 1);
        let read_back = written(dir.path(), "plain.csv", &runs);
        let labels: BTreeSet<String> = read_back.observations().iter().map(|run| run.setting.label()).collect();
        for (case, (planned, resumed_at)) in [(false, 0), (true, 0), (true, runs.len() / 2)].into_iter().enumerate() {
            let path = dir.path().join(format!("{case}.csv"));
            let columns = columns_of(&runs);
            let mut writer = ResultWriter::create(&path, columns.clone(), Provenance::default()).unwrap();
            if planned {
                super::super::test_sidecar::write_sidecar(&path, &columns);
                let sidecar_path = ResultPaths::for_csv(&path).sidecar;
                let mut sidecar = Sidecar::read(&sidecar_path).unwrap();
                // Not the order rows first record them in: ids are the sidecar's.
                sidecar.settings = labels.iter().rev().cloned().collect();
                sidecar.sweep.reps.warmup = 1;
                sidecar.write(&sidecar_path).unwrap();
            }
            write_runs(&mut writer, &runs[..resumed_at], |_| {});
            let mut grown = RunTable::read(&path).unwrap();
            write_runs(&mut writer, &runs[resumed_at..], |writer| {
                // Appended in memory, not read again by `push_written`'s fallback.
                assert!(grown.try_push_written(writer.last_row()).is_some(), "case {case}");
                assert_eq!(format!("{grown:?}"), format!("{:?}", RunTable::read(&path).unwrap()), "case {case}");
            });
            assert_eq!(grown.len(), runs.len());
            assert_eq!(grown.runs().len(), runs.len() - 1, "the failed first attempt is superseded");
            assert_eq!(grown.grid.is_some(), planned);
        }
    }

    /// Summarising column by column reads the runs `runs()` reads: a superseded attempt is left out, a run
    /// without a metric adds nothing to it.
    #[test]
    fn a_table_summarised_by_column_equals_its_runs_summarised_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = fixture_slice_sweep();
        let retried = runs.iter().position(Observation::is_usable).unwrap();
        let failed = Observation { status: RunStatus::Failed, metrics: Default::default(), ..runs[retried].clone() };
        runs.insert(retried, failed);
        runs.last_mut().unwrap().metrics.remove("decode_tokens_per_s");
        let table = written(dir.path(), "a.csv", &runs);
        assert_eq!(table.runs().len(), runs.len() - 1, "the failed first attempt is superseded");
        let by_column = SettingSummary::summarise_table(&table);
        assert_eq!(by_column, SettingSummary::summarise(&table.runs()));
    }

    #[test]
    fn a_table_reads_back_every_run_as_written_one_id_per_setting() {
        let dir = tempfile::tempdir().unwrap();
        let runs = fixture_slice_sweep();
        let table = written(dir.path(), "a.csv", &runs);
        let read: Vec<Observation> = (0..table.len()).map(|run| table.observation(run)).collect();
        let ids = |runs: &[Observation]| runs.iter().map(|run| run.setting_id.index()).collect::<Vec<_>>();
        assert_eq!(ids(&read), [0, 0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, 6, 6]);
        assert_eq!(read.into_iter().map(with_fixture_id).collect::<Vec<_>>(), runs);
        let distinct: BTreeSet<String> = runs.iter().map(|run| format!("{:?}", run.setting)).collect();
        assert_eq!(table.settings.len(), distinct.len());
    }

    #[test]
    fn analysis_and_comparison_of_a_table_equal_those_of_its_observations() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (fixture_slice_sweep(), fixture_slice_sweep_b());
        let (table_a, table_b) = (written(dir.path(), "a.csv", &a), written(dir.path(), "b.csv", &b));
        let config = fixture_slice_config();
        let mut analysed = analyse_sweep(&table_a.runs(), &config, true, &[]);
        analysed.settings.iter_mut().for_each(|s| s.id = fixture_setting_id(&s.setting));
        assert_eq!(analysed, analyse_sweep(&a, &config, true, &[]));
        let compared = CompareConfig {
            metric: config.primary.clone(),
            direction: config.direction,
            threshold: 0.02,
            alpha: 0.05,
            control: config.control.clone(),
            control_threshold: crate::compare::DEFAULT_CONTROL_THRESHOLD,
            control_scaling: config.control_scaling,
        };
        assert_eq!(compare(&table_a.runs(), &table_b.runs(), &compared), compare(&a, &b, &compared));
    }

    #[test]
    fn a_table_analysed_with_only_the_metrics_read_per_run_analyses_alike() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = fixture_slice_sweep();
        for run in &mut runs {
            let wall = run.metrics.get("prefill_tokens_per_s").map(|tps| 1e3 / tps);
            run.metrics.extend(wall.map(|wall| ("wall".to_string(), wall)));
        }
        let mut table = written(dir.path(), "a.csv", &runs);
        let config = AnalysisConfig {
            baseline: [("slices".to_string(), ParamValue::Int(1))].into(),
            relative: [("prefill_tokens_per_s".to_string(), crate::declare::RelativeKind::Ratio)].into(),
            ..fixture_slice_config()
        };
        let whole = analyse_sweep(&table.runs(), &config, true, &[]);
        let settings = SettingSummary::summarise_table(&table);
        assert_eq!(settings, SettingSummary::summarise(&table.runs()));
        table.retain_metrics(&metrics_read_per_run(&config));
        assert_eq!(table.metrics, ["decode_tokens_per_s", "overlap_slices", "prefill_tokens_per_s"]);
        let analysis = analyse_summarised(&table.runs(), settings, &config, true, &[]);
        assert!(!analysis.relative.is_empty() && analysis.settings.iter().all(|s| s.metric("wall").is_some()));
        assert_eq!(analysis, whole);
    }

    /// The layout of the hand-written CSVs below: one param, one metric, no `attempt` column, Slurm's
    /// placement columns.
    fn rows_and_t() -> Columns {
        Columns {
            params: vec!["rows".into()],
            metrics: vec!["t".into()],
            toolchains: vec![],
            placement: PlacementColumns::Slurm,
            attempt: false,
        }
    }

    /// A result CSV of `rows` runs over four settings (one, then another, seen first only late), the
    /// `error` cell of every 7th run quoted across two lines.
    fn split_fixture(dir: &Path, rows: usize) -> PathBuf {
        let path = dir.join("split.csv");
        let columns = rows_and_t();
        let mut text = columns.header().join(",") + "\n";
        for run in 0..rows {
            let setting = if run > rows * 3 / 4 { 4096 } else { [512, 1024, 2048][run % 3] };
            let error = if run % 7 == 0 { "\"first line,\nsecond \"\"line\"\"\"" } else { "" };
            text += &format!("{setting},default,{},false,{run},ok,{error},,1,{run}.5,,,,,,,runs\n", run + 1);
        }
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_table_read_in_parts_equals_one_read_in_one_piece() {
        let dir = tempfile::tempdir().unwrap();
        let path = split_fixture(dir.path(), 400);
        let whole = RunTable::read_in_parts(&path, NO_RULES, ReadEnd::Refused, |_| 1).unwrap();
        assert_eq!(whole.len(), 400);
        assert_eq!(whole.errors.len(), 58, "every 7th run's two-line error");
        for parts in [2, 3, 7] {
            let split = RunTable::read_in_parts(&path, NO_RULES, ReadEnd::Refused, |_| parts).unwrap();
            assert_eq!(
                (split.settings.clone(), split.setting.clone()),
                (whole.settings.clone(), whole.setting.clone())
            );
            assert_eq!((split.rep.clone(), split.values.clone()), (whole.rep.clone(), whole.values.clone()));
            assert_eq!(split.errors, whole.errors);
        }
    }

    #[test]
    fn a_table_without_quotes_read_in_parts_equals_one_read_in_one_piece() {
        let dir = tempfile::tempdir().unwrap();
        let path = split_fixture(dir.path(), 400);
        let unquoted = std::fs::read_to_string(&path).unwrap().replace("\"first line,\nsecond \"\"line\"\"\"", "e");
        std::fs::write(&path, unquoted).unwrap();
        let whole = RunTable::read_in_parts(&path, NO_RULES, ReadEnd::Refused, |_| 1).unwrap();
        let split = RunTable::read_in_parts(&path, NO_RULES, ReadEnd::Refused, |_| 5).unwrap();
        assert_eq!(whole.len(), 400);
        assert_eq!((split.settings, split.setting, split.errors), (whole.settings, whole.setting, whole.errors));
    }

    #[test]
    fn rows_take_the_ids_their_sidecar_plans_whatever_their_order_and_parts() {
        let dir = tempfile::tempdir().unwrap();
        let path = split_fixture(dir.path(), 400);
        super::super::test_sidecar::write_sidecar(&path, &rows_and_t());
        let sidecar_path = super::super::result_paths::ResultPaths::for_csv(&path).sidecar;
        let mut sidecar = Sidecar::read(&sidecar_path).unwrap();
        sidecar.settings = ["4096", "2048", "1024", "512"].map(|rows| format!("rows={rows}")).to_vec();
        sidecar.write(&sidecar_path).unwrap();
        let grid = RecordedGrid::of(&sidecar, &sidecar_path);
        for parts in [1, 3] {
            let table = RunTable::read_in_parts(&path, Some(grid.clone()), ReadEnd::Refused, |_| parts).unwrap();
            let id_and_rows =
                |run: usize| (table.setting[run].index(), table.observation(run).setting.values[0].1.clone());
            let expected = [(3, 512), (2, 1024), (1, 2048), (0, 4096)].map(|(id, rows)| (id, ParamValue::Int(rows)));
            assert_eq!([0, 1, 2, 399].map(id_and_rows), expected, "{parts} parts");
        }
    }

    /// A bad row in a later part must name its line in the file, not in its part.
    #[test]
    fn a_bad_row_in_a_later_part_names_its_line_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.csv");
        let columns = rows_and_t();
        let mut text = columns.header().join(",") + "\n";
        for run in 0..300 {
            let value = if run == 250 { "fast".to_string() } else { format!("{run}.5") };
            text += &format!("512,default,{run},false,{run},ok,,,1,{value},,,,,,,runs\n");
        }
        std::fs::write(&path, text).unwrap();
        for parts in [1, 4] {
            match RunTable::read_in_parts(&path, NO_RULES, ReadEnd::Refused, |_| parts) {
                Err(RecordError::BadValue { line, .. }) => assert_eq!(line, 252, "{parts} parts"),
                other => panic!("{other:?}"),
            }
        }
    }

    /// Rows of a hand-edited CSV: `\r\n` line ends, a blank line, and a variant quoted (with an escaped
    /// quote, and once quoted where it need not be) read as the plain rows do.
    #[test]
    fn crlf_blank_lines_and_quoted_cells_read_as_plain_rows() {
        let dir = tempfile::tempdir().unwrap();
        let columns = rows_and_t();
        let row = |variant: &str, rep: u32, end: &str| {
            format!("512,{variant},{rep},false,{rep},ok,,,1,{rep}.5,,,,,,,runs{end}")
        };
        let plain = columns.header().join(",") + "\n" + &row("a", 1, "\n") + &row("b", 2, "\n") + &row("a", 3, "\n");
        let edited = columns.header().join(",")
            + "\r\n"
            + &row("a", 1, "\r\n")
            + "\r\n"
            + &row("\"b\"", 2, "\r\n")
            + &row("a", 3, "\r\n");
        let read = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let table = RunTable::read(&path).unwrap();
            (table.settings, table.setting, table.rep, table.values)
        };
        assert_eq!(read("edited.csv", &edited), read("plain.csv", &plain));
        let quoted = columns.header().join(",") + "\n" + &row("\"say \"\"hi\"\"\"", 1, "\n");
        let (settings, ..) = read("quoted.csv", &quoted);
        assert_eq!(settings[0].variant, "say \"hi\"");
    }

    #[test]
    fn float_cells_written_differently_are_one_setting() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        let columns = Columns {
            params: vec!["scale".into()],
            metrics: vec![],
            toolchains: vec![],
            placement: PlacementColumns::Slurm,
            attempt: false,
        };
        std::fs::write(&path, columns.header().join(",") + "\n").unwrap();
        let row = |scale: &str, rep: u32| format!("{scale},default,{rep},false,{rep},ok,,,1,,,,,,,runs\n");
        let text = std::fs::read_to_string(&path).unwrap() + &row("1.0", 1) + &row("1.00", 2);
        std::fs::write(&path, text).unwrap();
        let declared = [Param { name: "scale".into(), values: vec![ParamValue::Float(1.0)], is_list: false }];
        let table = RunTable::read_typed(&path, &declared).unwrap();
        assert_eq!(table.len(), 2);
        assert_eq!(
            table.settings,
            [Setting { values: vec![("scale".to_string(), ParamValue::Float(1.0))], variant: "default".into() }]
        );
    }
}
