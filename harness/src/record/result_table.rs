//! Reads a result CSV back: as observations for analysis, and as the set of runs already done.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::columns::{Columns, METRIC_PREFIX, PARAM_PREFIX};
use super::record_error::RecordError;
use super::torn_row::torn_line;
use crate::analyse::Observation;

/// Identifies a run for `--resume`: its param values, variant, rep and whether it was a warmup.
pub type RunKey = (Vec<String>, String, u32, bool);

/// A whole result CSV.
#[derive(Debug, Clone)]
pub struct ResultTable {
    pub path: PathBuf,
    pub columns: Columns,
    pub observations: Vec<Observation>,
}

impl ResultTable {
    /// Reads every row; a torn last row, a non-finite metric or a malformed row is an error naming its line.
    pub fn read(path: &Path) -> Result<ResultTable, RecordError> {
        let bytes = std::fs::read(path).map_err(RecordError::io(path))?;
        if let Some(line) = torn_line(&bytes) {
            return Err(RecordError::TornRow { path: path.to_path_buf(), line });
        }
        let mut reader = csv::ReaderBuilder::new().flexible(false).from_reader(bytes.as_slice());
        let header: Vec<String> =
            reader.headers().map_err(|error| csv_error(path, error))?.iter().map(str::to_string).collect();
        let columns = Columns::from_header(&header)
            .map_err(|reason| RecordError::NotAResultCsv { path: path.to_path_buf(), reason })?;
        let mut observations = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|error| csv_error(path, error))?;
            // Shards of one sweep merge by concatenation (`cat a.csv b.csv`): later headers are not runs.
            if record.iter().eq(header.iter().map(String::as_str)) {
                continue;
            }
            let line = record.position().map_or(0, |p| p.line());
            let row: BTreeMap<&str, &str> = header.iter().map(String::as_str).zip(record.iter()).collect();
            observations.push(observation(&row, &columns).map_err(|error| match error {
                RowError::Row(reason) => RecordError::BadRow { path: path.to_path_buf(), line, reason },
                RowError::Metric { column, reason } => RecordError::BadValue {
                    path: path.to_path_buf(),
                    line,
                    column: header.iter().position(|name| *name == column).map_or(0, |index| index + 1),
                    reason,
                },
            })?);
        }
        Ok(ResultTable { path: path.to_path_buf(), columns, observations })
    }

    /// Reads a CSV to analyse: one without any run has nothing to report.
    pub fn read_runs(path: &Path) -> Result<ResultTable, RecordError> {
        let table = ResultTable::read(path)?;
        if table.observations.is_empty() {
            return Err(RecordError::NoRuns { path: path.to_path_buf() });
        }
        Ok(table)
    }

    /// Runs already recorded, whatever their status: resuming never repeats a (setting, rep) pair.
    pub fn recorded_runs(&self) -> BTreeSet<RunKey> {
        self.observations.iter().map(run_key).collect()
    }
}

/// The resume key of an observation read from a CSV.
fn run_key(observation: &Observation) -> RunKey {
    let params = observation.setting.iter().filter(|(name, _)| name != "variant").map(|(_, v)| v.clone()).collect();
    let variant = observation.setting_value("variant").unwrap_or_default().to_string();
    (params, variant, observation.rep, observation.warmup)
}

/// Why a row was refused: the row as a whole, or one metric cell (located by its column).
enum RowError {
    Row(String),
    Metric { column: String, reason: String },
}

fn observation(row: &BTreeMap<&str, &str>, columns: &Columns) -> Result<Observation, RowError> {
    let mut setting: Vec<(String, String)> = columns
        .params
        .iter()
        .map(|name| (name.clone(), row[format!("{PARAM_PREFIX}{name}").as_str()].to_string()))
        .collect();
    setting.push(("variant".to_string(), row["variant"].to_string()));
    let mut metrics = BTreeMap::new();
    for name in &columns.metrics {
        let column = format!("{METRIC_PREFIX}{name}");
        let text = row[column.as_str()];
        if !text.is_empty() {
            // A NaN or infinite metric would win or poison every comparison it enters: refuse it.
            let value = text.parse::<f64>().ok().filter(|value| value.is_finite()).ok_or_else(|| RowError::Metric {
                reason: format!("metric `{name}` is `{text}`, not a finite number"),
                column: column.clone(),
            })?;
            metrics.insert(name.clone(), value);
        }
    }
    Ok(Observation {
        setting,
        rep: row["rep"].parse().map_err(|_| RowError::Row(format!("rep `{}` is not a number", row["rep"])))?,
        warmup: row["warmup"] == "true",
        status: row["status"].to_string(),
        error: row["error"].to_string(),
        metrics,
    })
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

    fn columns() -> Columns {
        Columns {
            params: vec!["slices".into(), "rows".into()],
            metrics: vec!["tps".into(), "wall".into()],
            toolchains: vec!["cc".into()],
        }
    }

    fn row<'a>(metrics: &'a BTreeMap<String, f64>, rep: u32, status: &'a str, error: &str) -> RunRow<'a> {
        RunRow {
            param_values: vec!["4".into(), "512".into()],
            variant: "default",
            rep,
            warmup: false,
            order: rep as usize,
            status,
            error: error.into(),
            started_at: "2026-11-30T00:00:00Z".into(),
            duration_s: 1.5,
            metrics,
            variant_hash: "abc",
            log_dir: Path::new("runs/1"),
        }
    }

    #[test]
    fn csv_round_trips_rows_including_missing_metrics_and_commas_in_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        let mut writer = ResultWriter::create(&path, columns(), Provenance::default()).unwrap();
        let full: BTreeMap<String, f64> = [("tps".to_string(), 431.4), ("wall".to_string(), 1.25)].into();
        writer.write(&row(&full, 1, "ok", "")).unwrap();
        let empty = BTreeMap::new();
        writer.write(&row(&empty, 2, "failed", "rank 1 exited with code 3, see log\nline two")).unwrap();
        let table = ResultTable::read(&path).unwrap();
        assert_eq!(table.columns, columns());
        assert_eq!(table.observations.len(), 2);
        let first = &table.observations[0];
        assert_eq!(
            first.setting,
            [
                ("slices".to_string(), "4".to_string()),
                ("rows".into(), "512".into()),
                ("variant".into(), "default".into())
            ]
        );
        assert_eq!(first.metrics, full);
        assert!(first.is_usable());
        let second = &table.observations[1];
        assert!(second.metrics.is_empty());
        assert_eq!(second.error, "rank 1 exited with code 3, see log line two");
        assert_eq!(table.recorded_runs().len(), 2);
    }

    #[test]
    fn shards_concatenated_with_their_headers_read_as_one_sweep() {
        let dir = tempfile::tempdir().unwrap();
        let metrics: BTreeMap<String, f64> = [("tps".to_string(), 1.0), ("wall".to_string(), 2.0)].into();
        let mut shards = String::new();
        for (shard, rep) in [(1, 1), (2, 2)] {
            let path = dir.path().join(format!("shard{shard}.csv"));
            ResultWriter::create(&path, columns(), Provenance::default())
                .unwrap()
                .write(&row(&metrics, rep, "ok", ""))
                .unwrap();
            shards.push_str(&std::fs::read_to_string(&path).unwrap());
        }
        let merged = dir.path().join("merged.csv");
        std::fs::write(&merged, shards).unwrap();
        let table = ResultTable::read(&merged).unwrap();
        assert_eq!(table.observations.iter().map(|o| o.rep).collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn appending_refuses_a_csv_of_another_sweep() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        ResultWriter::create(&path, columns(), Provenance::default()).unwrap();
        let mut other = columns();
        other.params.pop();
        assert!(matches!(
            ResultWriter::append(&path, other, Provenance::default()),
            Err(RecordError::ResumeMismatch { .. })
        ));
        assert!(ResultWriter::append(&path, columns(), Provenance::default()).is_ok());
    }

    #[test]
    fn create_never_overwrites_an_existing_result() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        std::fs::write(&path, "precious").unwrap();
        assert!(ResultWriter::create(&path, columns(), Provenance::default()).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious");
    }

    #[test]
    fn non_finite_metrics_are_refused_naming_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        let mut writer = ResultWriter::create(&path, columns(), Provenance::default()).unwrap();
        let ok: BTreeMap<String, f64> = [("tps".to_string(), 1.0), ("wall".to_string(), 2.0)].into();
        writer.write(&row(&ok, 1, "ok", "")).unwrap();
        for bad in [f64::NAN, f64::INFINITY] {
            let metrics: BTreeMap<String, f64> = [("tps".to_string(), 1.0), ("wall".to_string(), bad)].into();
            writer.write(&row(&metrics, 2, "ok", "")).unwrap();
            let error = ResultTable::read(&path).unwrap_err();
            let column = columns().header().iter().position(|name| name == "metric.wall").unwrap() + 1;
            assert_eq!(
                error.to_string(),
                format!("{}:3:{column}: metric `wall` is `{bad}`, not a finite number", path.display())
            );
            assert!(error.is_bad_input());
            let text = std::fs::read_to_string(&path).unwrap();
            let whole_rows: Vec<&str> = text.lines().take(2).collect();
            std::fs::write(&path, whole_rows.join("\n") + "\n").unwrap();
        }
    }

    #[test]
    fn a_header_only_csv_has_no_runs_to_report_but_can_be_resumed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        ResultWriter::create(&path, columns(), Provenance::default()).unwrap();
        assert!(ResultTable::read(&path).unwrap().observations.is_empty());
        let error = ResultTable::read_runs(&path).unwrap_err();
        assert_eq!(error.to_string(), format!("{}: no runs recorded (the CSV holds only its header)", path.display()));
        assert!(error.is_bad_input());
    }

    #[test]
    fn a_csv_without_the_run_columns_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.csv");
        std::fs::write(&path, "a,b\n1,2\n").unwrap();
        let error = ResultTable::read(&path).unwrap_err().to_string();
        assert!(error.ends_with("not a sweep result CSV: no `variant` column"), "{error}");
    }
}
