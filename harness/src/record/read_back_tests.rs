//! Tests: result CSVs written, resumed and read back as owned observations.

use super::columns::Columns;
use super::placement::Placement;
use super::placement_columns::PlacementColumns;
use super::provenance::Provenance;
use super::record_error::RecordError;
use super::recorded_run::RecordedRun;
use super::result_writer::{ResultWriter, RunRow};
use super::run_table::RunTable;
use super::sidecar::Sidecar;
use crate::declare::Param;
use crate::declare::ParamValue;
use crate::ground::RunStatus;
use crate::plan::Setting;
use std::collections::BTreeMap;
use std::path::Path;

fn columns() -> Columns {
    Columns {
        params: vec!["slices".into(), "rows".into()],
        metrics: vec!["tps".into(), "wall".into()],
        toolchains: vec!["cc".into()],
        placement: PlacementColumns::Neutral,
        attempt: true,
    }
}

fn row<'a>(metrics: &'a BTreeMap<String, f64>, rep: u32, status: RunStatus, error: &str) -> RunRow<'a> {
    RunRow {
        param_values: vec!["4".into(), "512".into()],
        variant: "default",
        rep,
        attempt: 1,
        warmup: false,
        order: rep as usize,
        status,
        error: error.into(),
        started_at: "2026-11-30T00:00:00Z".into(),
        duration_s: 1.5,
        metrics,
        variant_hash: "abc",
        log_dir: Path::new("runs/1"),
        toolchain: None,
    }
}

#[test]
fn csv_round_trips_rows_including_missing_metrics_and_commas_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    let mut writer = ResultWriter::create(&path, columns(), Provenance::default()).unwrap();
    let full: BTreeMap<String, f64> = [("tps".to_string(), 431.4), ("wall".to_string(), 1.25)].into();
    writer.write(&row(&full, 1, RunStatus::Ok, "")).unwrap();
    let empty = BTreeMap::new();
    writer.write(&row(&empty, 2, RunStatus::Failed, "rank 1 exited with code 3, see log\nline two")).unwrap();
    let table = RunTable::read(&path).unwrap();
    assert_eq!(table.columns, columns());
    assert_eq!(table.observations().len(), 2);
    let first = &table.observations()[0];
    assert_eq!(
        first.setting,
        Setting {
            values: vec![("slices".to_string(), ParamValue::Int(4)), ("rows".into(), ParamValue::Int(512))],
            variant: "default".into()
        }
    );
    assert_eq!(first.metrics, full);
    assert!(first.is_usable());
    let second = &table.observations()[1];
    assert_eq!(second.status, RunStatus::Failed);
    assert!(second.metrics.is_empty());
    assert_eq!(second.error, "rank 1 exited with code 3, see log line two");
    let planned = [crate::plan::Setting {
        values: vec![("slices".into(), ParamValue::Int(4)), ("rows".into(), ParamValue::Int(512))],
        variant: "default".into(),
    }];
    let attempts = RunTable::read(&path).unwrap().recorded_attempts(&planned);
    let key = |rep| crate::plan::PlannedRun { order: 1, setting: crate::plan::SettingId::new(0), rep, warmup: false };
    assert!(!attempts.needs_run(&key(1), true) && attempts.needs_run(&key(2), true));
    assert_eq!(attempts.next_attempt(&key(2)), 2);
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
            .write(&row(&metrics, rep, RunStatus::Ok, ""))
            .unwrap();
        shards.push_str(&std::fs::read_to_string(&path).unwrap());
    }
    let merged = dir.path().join("merged.csv");
    std::fs::write(&merged, shards).unwrap();
    let table = RunTable::read(&merged).unwrap();
    assert_eq!(table.observations().iter().map(|o| o.rep).collect::<Vec<_>>(), [1, 2]);
}

#[test]
fn resuming_a_csv_written_before_the_slurm_and_attempt_columns_keeps_its_layout() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    let old = Columns { placement: PlacementColumns::None, attempt: false, ..columns() };
    let metrics: BTreeMap<String, f64> = [("tps".to_string(), 1.0)].into();
    ResultWriter::create(&path, old.clone(), Provenance::default())
        .unwrap()
        .write(&row(&metrics, 1, RunStatus::Ok, ""))
        .unwrap();
    let sweep = super::test_sidecar::write_sidecar(&path, &columns());
    let placement = Placement { scheduler: "slurm".into(), job: "40".into(), task: String::new() };
    let provenance = Provenance { placement, ..Provenance::default() };
    let (mut writer, existing) = ResultWriter::append(&path, columns(), provenance, &sweep).unwrap();
    assert!(existing.recorded_attempts(&[]).without_attempts, "failed runs of an old CSV cannot be run again");
    writer.write(&RunRow { attempt: 2, ..row(&metrics, 2, RunStatus::Ok, "") }).unwrap();
    let table = RunTable::read(&path).unwrap();
    assert_eq!(table.columns, old);
    assert_eq!(table.observations().len(), 2);
}

#[test]
fn appending_refuses_a_csv_of_another_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    ResultWriter::create(&path, columns(), Provenance::default()).unwrap();
    let sweep = super::test_sidecar::write_sidecar(&path, &columns());
    let mut other = columns();
    other.params.pop();
    let other_sweep = super::test_sidecar::fingerprint(&other);
    let refused = ResultWriter::append(&path, other, Provenance::default(), &other_sweep).err().unwrap();
    assert!(matches!(refused, RecordError::ResumeMismatch { .. }), "{refused}");
    assert!(
        refused.to_string().contains("its sidecar records param columns [slices, rows], this sweep has [slices]"),
        "{refused}"
    );
    assert!(ResultWriter::append(&path, columns(), Provenance::default(), &sweep).is_ok());
}

#[test]
fn create_never_overwrites_an_existing_result() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    std::fs::write(&path, "precious").unwrap();
    assert!(ResultWriter::create(&path, columns(), Provenance::default()).is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious");
}

/// Three settings whose `mode` prints `1` each time: an int, a float and a text.
fn write_lookalike_settings(path: &Path) {
    let columns = Columns {
        params: vec!["mode".into()],
        metrics: vec![],
        toolchains: vec![],
        placement: PlacementColumns::Neutral,
        attempt: true,
    };
    let mut writer = ResultWriter::create(path, columns, Provenance::default()).unwrap();
    let none = BTreeMap::new();
    for (rep, variant) in [(1, "a"), (2, "b"), (3, "c")] {
        writer
            .write(&RunRow { param_values: vec!["1".into()], variant, ..row(&none, rep, RunStatus::Ok, "") })
            .unwrap();
    }
}

#[test]
fn param_columns_read_back_typed_by_the_declaration_and_compare_by_type() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    write_lookalike_settings(&path);
    let lookalikes = [ParamValue::Int(1), ParamValue::Float(1.0), ParamValue::Text("1".into())];
    let mut observations = Vec::new();
    for value in &lookalikes {
        let declared = [Param { name: "mode".into(), values: vec![value.clone()], is_list: false }];
        let mut read = RunTable::read_typed(&path, &declared).unwrap().observations().remove(0);
        assert_eq!(&read.setting.values[0].1, value);
        read.setting.values.truncate(1);
        observations.push(read);
    }
    let settings: Vec<_> = observations.iter().map(|o| &o.setting).collect();
    assert!(settings[0] != settings[1] && settings[1] != settings[2] && settings[0] != settings[2]);
    assert!(settings.iter().all(|s| s.values[0].1.to_string() == "1"), "labels print as written");
}

#[test]
fn without_a_sidecar_param_columns_are_inferred_and_a_sidecar_types_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    write_lookalike_settings(&path);
    assert_eq!(RunTable::read(&path).unwrap().observations()[0].setting.values[0].1, ParamValue::Int(1));
    let mut sidecar: Sidecar = serde_json::from_value(serde_json::json!({
        "sweep": { "analysis": { "primary": "tps" } }, "declaration_file": "s.toml", "engine": {},
        "command_line": [], "seed": 1, "reps": 3, "settings": [], "base_environment": "inherited",
        "provenance": { "host": "", "engine_commit": "", "engine_dirty": false, "toolchain": {} },
        "sweep_version": "0"
    }))
    .unwrap();
    sidecar.params = vec![Param { name: "mode".into(), values: vec![ParamValue::Float(1.0)], is_list: false }];
    sidecar.write(&dir.path().join("r.json")).unwrap();
    assert_eq!(RunTable::read(&path).unwrap().observations()[0].setting.values[0].1, ParamValue::Float(1.0));
}

#[test]
fn an_unknown_status_is_a_bad_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    write_lookalike_settings(&path);
    let text = std::fs::read_to_string(&path).unwrap().replace(",ok,", ",fine,");
    std::fs::write(&path, text).unwrap();
    let error = RunTable::read(&path).unwrap_err().to_string();
    assert!(error.ends_with(":2: status `fine` is not one of ok, failed, timeout, interrupted"), "{error}");
}

#[test]
fn non_finite_metrics_are_refused_naming_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    let mut writer = ResultWriter::create(&path, columns(), Provenance::default()).unwrap();
    let ok: BTreeMap<String, f64> = [("tps".to_string(), 1.0), ("wall".to_string(), 2.0)].into();
    writer.write(&row(&ok, 1, RunStatus::Ok, "")).unwrap();
    for bad in [f64::NAN, f64::INFINITY] {
        let metrics: BTreeMap<String, f64> = [("tps".to_string(), 1.0), ("wall".to_string(), bad)].into();
        writer.write(&row(&metrics, 2, RunStatus::Ok, "")).unwrap();
        let error = RunTable::read(&path).unwrap_err();
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
    assert!(RunTable::read(&path).unwrap().observations().is_empty());
    let error = RunTable::read_runs(&path).unwrap_err();
    assert_eq!(error.to_string(), format!("{}: no runs recorded (the CSV holds only its header)", path.display()));
    assert!(error.is_bad_input());
}

#[test]
fn a_csv_without_the_run_columns_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    std::fs::write(&path, "a,b\n1,2\n").unwrap();
    let error = RunTable::read(&path).unwrap_err().to_string();
    assert!(error.ends_with("not a sweep result CSV: no `variant` column"), "{error}");
}

/// A CSV as written before its placement columns named no scheduler (`slurm_job_id`,
/// `slurm_array_task_id`), written by hand.
const SLURM_COLUMNS_FIXTURE: &str = include_str!("../../tests/fixtures/slurm_columns_fixture.csv");

#[test]
fn a_csv_written_with_the_slurm_columns_reads_and_resumes_in_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    std::fs::write(&path, SLURM_COLUMNS_FIXTURE).unwrap();
    let table = RunTable::read(&path).unwrap();
    assert_eq!(table.columns.placement, PlacementColumns::Slurm);
    assert_eq!(table.observations().iter().map(|o| o.metrics["tps"]).collect::<Vec<_>>(), [10.0, 12.0]);
    let columns =
        Columns { params: vec!["slices".into()], metrics: vec!["tps".into()], toolchains: vec![], ..columns() };
    let sweep = super::test_sidecar::write_sidecar(&path, &columns);
    let placement = Placement { scheduler: "slurm".into(), job: "41".into(), task: "2".into() };
    let (mut writer, _) =
        ResultWriter::append(&path, columns, Provenance { placement, ..Provenance::default() }, &sweep).unwrap();
    let metrics: BTreeMap<String, f64> = [("tps".to_string(), 11.0)].into();
    writer.write(&RunRow { param_values: vec!["1".into()], ..row(&metrics, 2, RunStatus::Ok, "") }).unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.lines().last().unwrap().contains(",abc,41,2,runs/1"), "{written}");
    assert_eq!(RunTable::read(&path).unwrap().observations().len(), 3);
}

#[test]
fn a_csv_written_now_names_its_scheduler_job_and_task_after_the_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    let placement = Placement { scheduler: "slurm".into(), job: "40".into(), task: "2".into() };
    let mut writer = ResultWriter::create(&path, columns(), Provenance { placement, ..Provenance::default() }).unwrap();
    let metrics: BTreeMap<String, f64> = [("tps".to_string(), 1.0)].into();
    writer.write(&row(&metrics, 1, RunStatus::Ok, "")).unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert!(lines[0].ends_with(",variant_hash,scheduler,job,task,toolchain.cc,log_dir"), "{}", lines[0]);
    assert!(lines[1].contains(",abc,slurm,40,2,,runs/1"), "{}", lines[1]);
    assert_eq!(RunTable::read(&path).unwrap().columns, columns());
}
