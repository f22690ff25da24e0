//! Property tests of the CSV and sidecar readers: seeded mutations of a valid result CSV, and of its
//! sidecar, never panic; every refusal names the file; what is accepted is what the file says
//! (each run as the `csv` crate reads its row) and fits its sidecar's grid; rows invalid by construction
//! (torn, non-finite, short) are refused. The `*_for_a_time` tests run the same campaigns for a time
//! (`bench/fuzz.sh`).

use std::collections::{BTreeMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::columns::{Columns, METRIC_PREFIX, PARAM_PREFIX};
use super::placement_columns::PlacementColumns;
use super::provenance::Provenance;
use super::record_error::RecordError;
use super::recorded_run::RecordedRun;
use super::result_paths::ResultPaths;
use super::result_writer::{ResultWriter, RunRow};
use super::run_table::RunTable;
use super::sidecar::Sidecar;
use super::test_sidecar::declaring;
use crate::declare::{Param, ParamValue};
use crate::ground::RunStatus;
use crate::test_fuzz_campaign::{FuzzCampaign, Outcome};
use crate::test_mutation::{assert_one_line_naming, Mutator};

/// A run of the valid CSV: its `rows`, rep, attempt, warmup, status and error.
type SampleRun = (i64, u32, u32, bool, RunStatus, &'static str);

/// Every setting twice, a warmup, and a failure (its error quoted for its quotes; the writer makes its line
/// end a space) run again: the quoting, attempt and warmup paths of the reader. No metric value appears in
/// another cell.
const RUNS: [SampleRun; 6] = [
    (512, 1, 1, true, RunStatus::Ok, ""),
    (512, 1, 1, false, RunStatus::Ok, ""),
    (256, 1, 1, false, RunStatus::Failed, "rank 1: \"oom\"\nsee its log"),
    (256, 1, 2, false, RunStatus::Ok, ""),
    (512, 2, 1, false, RunStatus::Ok, ""),
    (256, 2, 1, false, RunStatus::Ok, ""),
];

/// A folder with a valid CSV of `RUNS` and its sidecar, and the scratch files each case is written to
/// (`case.csv` and its sidecar `case.json`).
struct Folder {
    _dir: tempfile::TempDir,
    valid: Vec<u8>,
    sidecar: Sidecar,
    case: PathBuf,
    case_sidecar: PathBuf,
}

impl Folder {
    fn new() -> Folder {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        let columns = Columns {
            params: vec!["rows".into()],
            metrics: vec!["tps".into(), "wall".into()],
            toolchains: vec![],
            placement: PlacementColumns::Neutral,
            attempt: true,
        };
        let mut writer = ResultWriter::create(&path, columns.clone(), Provenance::default()).unwrap();
        for (order, &(rows, rep, attempt, warmup, status, error)) in RUNS.iter().enumerate() {
            let metrics: BTreeMap<String, f64> = match status {
                RunStatus::Ok => [("tps".to_string(), 431.5), ("wall".to_string(), 1.25)].into(),
                _ => BTreeMap::new(),
            };
            writer
                .write(&RunRow {
                    param_values: vec![rows.to_string()],
                    variant: "default",
                    rep,
                    attempt,
                    warmup,
                    order,
                    status,
                    error: error.to_string(),
                    started_at: "2026-11-30T00:00:00Z".into(),
                    duration_s: 1.5,
                    metrics: &metrics,
                    variant_hash: "abc",
                    log_dir: Path::new("runs/1"),
                    toolchain: None,
                })
                .unwrap();
        }
        let valid = std::fs::read(&path).unwrap();
        let case = dir.path().join("case.csv");
        let case_sidecar = ResultPaths::for_csv(&case).sidecar;
        let sidecar = sidecar(&columns);
        sidecar.write(&case_sidecar).unwrap();
        Folder { _dir: dir, valid, sidecar, case, case_sidecar }
    }

    /// Reads `bytes` as a result CSV beside the valid sidecar; a panic fails the test showing the input.
    fn read(&self, bytes: &[u8]) -> Result<RunTable, RecordError> {
        std::fs::write(&self.case, bytes).unwrap();
        catch_unwind(AssertUnwindSafe(|| RunTable::read(&self.case)))
            .unwrap_or_else(|_| panic!("RunTable::read panicked on:\n{}", String::from_utf8_lossy(bytes)))
    }

    /// Reads `bytes`, which must be refused with one line naming the file.
    fn assert_refused(&self, bytes: &[u8]) {
        let error = self.read(bytes).err().unwrap_or_else(|| panic!("accepted:\n{}", String::from_utf8_lossy(bytes)));
        assert_one_line_naming(&error, &self.case, bytes);
    }

    fn valid_text(&self) -> String {
        String::from_utf8(self.valid.clone()).unwrap()
    }

    /// What the CSV reader makes of `bytes` beside the valid sidecar.
    fn judge_csv(&self, bytes: &[u8]) -> Outcome {
        std::fs::write(&self.case, bytes).unwrap();
        judge_table(bytes, RunTable::read(&self.case), &self.case, &self.sidecar)
    }

    /// What the sidecar reader makes of `bytes`, and then the CSV reader of the valid CSV beside it.
    fn judge_sidecar(&self, bytes: &[u8]) -> Outcome {
        std::fs::write(&self.case, &self.valid).unwrap();
        std::fs::write(&self.case_sidecar, bytes).unwrap();
        let sidecar = match Sidecar::read(&self.case_sidecar) {
            Err(error) => return Outcome::refusal(&error, &self.case_sidecar),
            Ok(sidecar) => sidecar,
        };
        if let Some(why) = sidecar_inconsistency(&sidecar) {
            return Outcome::Inconsistent(why);
        }
        judge_table(&self.valid, RunTable::read(&self.case), &self.case, &sidecar)
    }

    /// The valid sidecar, mutated byte by byte or node by node.
    fn mutated_sidecar(&self, mutator: &mut Mutator) -> Vec<u8> {
        let valid = serde_json::to_value(&self.sidecar).unwrap();
        match mutator.position(1) {
            0 => mutator.mutate(valid.to_string().as_bytes()),
            _ => mutator.mutate_json(&valid).to_string().into_bytes(),
        }
    }
}

/// The sidecar of the valid CSV: its grid (`rows` 256 or 512, 2 reps, 1 warmup) and its fingerprint.
fn sidecar(columns: &Columns) -> Sidecar {
    let rows = Param { name: "rows".into(), values: vec![ParamValue::Int(256), ParamValue::Int(512)], is_list: true };
    let mut sidecar = declaring(&[rows]);
    sidecar.reps = 2;
    sidecar.sweep.reps.warmup = 1;
    sidecar.settings = vec!["rows=256".into(), "rows=512".into()];
    sidecar.fingerprint = Some(super::test_sidecar::fingerprint(columns));
    sidecar.fingerprint.as_mut().unwrap().params = sidecar.params.clone();
    sidecar
}

/// What a read of `bytes` (the CSV at `path`, beside `sidecar`) came to.
fn judge_table(bytes: &[u8], read: Result<RunTable, RecordError>, path: &Path, sidecar: &Sidecar) -> Outcome {
    match read {
        Err(error) => Outcome::refusal(&error, path),
        Ok(table) => match table_inconsistency(bytes, &table, sidecar) {
            Some(why) => Outcome::Inconsistent(why),
            None => Outcome::Accepted,
        },
    }
}

/// How the table read from `bytes` differs from what the file says, or does not fit `sidecar`'s grid: its
/// rows as the `csv` crate (the writer's own) reads them, header rows of concatenated shards left out,
/// each current run's fields from its row, no (setting, rep, attempt) twice.
fn table_inconsistency(bytes: &[u8], table: &RunTable, sidecar: &Sidecar) -> Option<String> {
    let mut reader = csv::Reader::from_reader(bytes);
    let header = match reader.headers() {
        Ok(header) => header.clone(),
        Err(error) => return Some(format!("the csv crate refuses its header: {error}")),
    };
    let rows: Result<Vec<csv::StringRecord>, csv::Error> = reader.records().collect();
    let rows: Vec<csv::StringRecord> = match rows {
        Ok(rows) => rows.into_iter().filter(|row| *row != header).collect(),
        Err(error) => return Some(format!("the csv crate refuses it: {error}")),
    };
    if rows.len() != table.len() {
        return Some(format!("{} runs read from {} rows", table.len(), rows.len()));
    }
    for (index, run) in table.current_runs().zip(table.runs()) {
        let row = Row { header: &header, cells: &rows[index] };
        if let Some(why) = run_inconsistency(&run, &row, &table.columns, sidecar) {
            return Some(format!("run {}: {why}", index + 1));
        }
    }
    let key_columns: Vec<String> = (table.columns.params.iter().map(|name| format!("{PARAM_PREFIX}{name}")))
        .chain(["variant", "rep", "warmup", "attempt"].map(String::from))
        .collect();
    let mut keys = HashSet::new();
    rows.iter()
        .map(|cells| {
            let row = Row { header: &header, cells };
            key_columns.iter().map(|name| row.cell(name)).collect::<Vec<_>>()
        })
        .find(|key| !keys.insert(key.clone()))
        .map(|key| format!("(setting, rep, warmup, attempt) {key:?} is accepted twice"))
}

/// A row as the `csv` crate read it, its cells by column name.
struct Row<'r> {
    header: &'r csv::StringRecord,
    cells: &'r csv::StringRecord,
}

impl<'r> Row<'r> {
    /// The cell of the last column named `name` (as the reader reads a repeated name), empty if none.
    fn cell(&self, name: &str) -> &'r str {
        let at = self.header.iter().enumerate().filter(|(_, column)| *column == name).last();
        at.and_then(|(at, _)| self.cells.get(at)).unwrap_or_default()
    }
}

/// How one run differs from its row's cells or falls outside `sidecar`'s grid.
fn run_inconsistency(run: &impl RecordedRun, row: &Row<'_>, columns: &Columns, sidecar: &Sidecar) -> Option<String> {
    let cell = |name: &str| row.cell(name);
    let label = run.setting().label();
    let last_rep = if run.warmup() { sidecar.sweep.reps.warmup } else { sidecar.reps };
    let param_outside = columns.params.iter().find(|name| {
        let declared = sidecar.params.iter().find(|param| param.name == **name);
        match (run.setting().value(name), declared) {
            (None, _) => true,
            (Some(value), Some(param)) => !param.values.contains(value),
            (Some(_), None) => false,
        }
    });
    let metric_differs = columns.metrics.iter().find(|name| {
        let text = cell(&format!("{METRIC_PREFIX}{name}"));
        let written = if text.is_empty() { None } else { text.parse::<f64>().ok() };
        run.metric(name) != written || written.is_some_and(|value| !value.is_finite())
    });
    let fields = [
        ("status", run.status().as_str().to_string()),
        ("warmup", run.warmup().to_string()),
        ("error", run.error().to_string()),
        ("variant", run.variant().to_string()),
    ];
    let field_differs = fields.iter().find(|(name, value)| cell(name) != value);
    if let Some(name) = param_outside {
        Some(format!("param `{name}` of `{label}` is not one its sidecar declares"))
    } else if !sidecar.settings.is_empty() && !sidecar.settings.contains(&label) {
        Some(format!("setting `{label}` is not in its sidecar's grid"))
    } else if run.rep() == 0 || run.rep() > last_rep {
        Some(format!("rep {} is outside the sidecar's {last_rep}", run.rep()))
    } else if cell("rep").parse::<u32>().ok() != Some(run.rep()) {
        Some(format!("rep {} is not its row's `{}`", run.rep(), cell("rep")))
    } else if let Some(name) = metric_differs {
        let text = cell(&format!("{METRIC_PREFIX}{name}"));
        Some(format!("metric `{name}` reads as {:?}, its cell is `{text}`", run.metric(name)))
    } else if let Some((name, value)) = field_differs {
        Some(format!("its {name} `{value}` is not its row's `{}`", cell(name)))
    } else {
        None
    }
}

/// How an accepted sidecar does not hold together, if it does not: it is not what it writes back, it lists
/// a setting twice, or the grid that types its CSV is not the one its fingerprint (which `--resume`
/// checks) records.
fn sidecar_inconsistency(sidecar: &Sidecar) -> Option<String> {
    let written = serde_json::to_value(sidecar).unwrap();
    let read_back = serde_json::from_str::<Value>(&written.to_string())
        .ok()
        .and_then(|value| serde_json::from_value::<Sidecar>(value).ok());
    let mut labels = HashSet::new();
    let fingerprint_params = sidecar.fingerprint.as_ref().map(|fingerprint| &fingerprint.params);
    if read_back.and_then(|read| serde_json::to_value(read).ok()).as_ref() != Some(&written) {
        Some("it does not read back as it writes".to_string())
    } else if let Some(label) = sidecar.settings.iter().find(|label| !labels.insert(*label)) {
        Some(format!("it lists setting `{label}` twice"))
    } else if fingerprint_params.is_some_and(|params| *params != sidecar.params) {
        Some("its params are not its fingerprint's".to_string())
    } else {
        None
    }
}

#[test]
fn mutated_csvs_never_panic_and_what_is_accepted_is_what_the_file_says() {
    let folder = Folder::new();
    assert_eq!(folder.read(&folder.valid).unwrap().len(), RUNS.len());
    assert!(matches!(folder.judge_csv(&folder.valid), Outcome::Accepted));
    let campaign = FuzzCampaign::run(
        "csv reader",
        0xc5f_fa22,
        2000,
        |mutator| mutator.mutate(&folder.valid),
        |bytes| folder.judge_csv(bytes),
    );
    campaign.assert_sound();
    campaign.assert_refuses_at_least(0.5);
}

#[test]
fn mutated_sidecars_never_panic_and_what_is_accepted_holds_together() {
    let folder = Folder::new();
    let valid = serde_json::to_vec(&folder.sidecar).unwrap();
    assert!(matches!(folder.judge_sidecar(&valid), Outcome::Accepted));
    let campaign = FuzzCampaign::run(
        "sidecar reader",
        0x51de_ca55,
        1000,
        |mutator| folder.mutated_sidecar(mutator),
        |bytes| folder.judge_sidecar(bytes),
    );
    campaign.assert_sound();
    campaign.assert_refuses_at_least(0.3);
}

#[test]
#[ignore = "a timed campaign: bench/fuzz.sh runs it for SWEEP_FUZZ_SECONDS"]
fn csv_reader_for_a_time() {
    let folder = Folder::new();
    FuzzCampaign::run_for_a_time(
        "csv reader",
        |mutator| mutator.mutate(&folder.valid),
        |bytes| folder.judge_csv(bytes),
    );
}

#[test]
#[ignore = "a timed campaign: bench/fuzz.sh runs it for SWEEP_FUZZ_SECONDS"]
fn sidecar_reader_for_a_time() {
    let folder = Folder::new();
    FuzzCampaign::run_for_a_time(
        "sidecar reader",
        |mutator| folder.mutated_sidecar(mutator),
        |bytes| folder.judge_sidecar(bytes),
    );
}

#[test]
fn a_cut_anywhere_but_a_line_end_is_refused_as_torn() {
    let folder = Folder::new();
    let header_end = folder.valid.iter().position(|&b| b == b'\n').unwrap() + 1;
    for end in header_end..folder.valid.len() {
        if folder.valid[end - 1] != b'\n' {
            folder.assert_refused(&folder.valid[..end]);
        }
    }
}

#[test]
fn a_non_number_or_non_finite_metric_in_any_row_is_refused() {
    let folder = Folder::new();
    let mut mutator = Mutator::new(0x0bad_f10a);
    for _ in 0..200 {
        let metric: &str = mutator.pick(&["431.5", "1.25"]);
        let bad: &str = mutator.pick(&["NaN", "nan", "inf", "-inf", "1e999", "x", "1.2.3", "0x10"]);
        let text = folder.valid_text();
        let occurrences: Vec<usize> = text.match_indices(metric).map(|(at, _)| at).collect();
        let at = occurrences[mutator.position(occurrences.len() - 1)];
        let input = format!("{}{bad}{}", &text[..at], &text[at + metric.len()..]);
        folder.assert_refused(input.as_bytes());
    }
}

#[test]
fn a_row_missing_or_gaining_a_field_is_refused() {
    let folder = Folder::new();
    let text = folder.valid_text();
    let mut mutator = Mutator::new(0x5107_0f1e);
    for _ in 0..200 {
        let rows: Vec<&str> = text.lines().collect();
        let row = 1 + mutator.position(rows.len() - 2);
        let commas: Vec<usize> = rows[row].match_indices(',').map(|(at, _)| at).collect();
        let at = commas[mutator.position(commas.len() - 1)];
        let edited = if mutator.position(1) == 0 {
            format!("{}{}", &rows[row][..at], &rows[row][at + 1..])
        } else {
            format!("{},{}", &rows[row][..at], &rows[row][at..])
        };
        let mut lines: Vec<String> = rows.iter().map(|line| line.to_string()).collect();
        lines[row] = edited;
        folder.assert_refused((lines.join("\n") + "\n").as_bytes());
    }
}

// What the campaigns above found, pinned.

#[test]
fn a_carriage_return_outside_quotes_is_refused_not_read_into_a_cell() {
    let folder = Folder::new();
    let text = folder.valid_text();
    for (from, to) in [(",1.500000,", ",1.500\r000,"), (",false,abc,", ",false,\rabc,")] {
        let input = text.replacen(from, to, 1);
        assert_ne!(input, text, "`{from}` is in the valid CSV");
        let error = folder.read(input.as_bytes()).unwrap_err().to_string();
        assert!(error.contains("a carriage return outside quotes"), "{error}");
    }
    let crlf = text.replace('\n', "\r\n");
    assert_eq!(folder.read(crlf.as_bytes()).unwrap().len(), RUNS.len(), "`\\r\\n` line ends still read");
}

#[test]
fn a_stray_quote_is_refused_not_read_as_the_rest_of_the_file() {
    let folder = Folder::new();
    let text = folder.valid_text();
    // The quote opened a quoted cell that took the four rows after it: two runs were read from six rows.
    let input = text.replacen(",,,runs/1\n256,default,1,1,", ",,,r\"uns/1\n256,default,1,1,", 1);
    assert_ne!(input, text);
    let error = folder.read(input.as_bytes()).unwrap_err().to_string();
    assert!(error.contains("case.csv:3: a quote inside a cell that does not start with one"), "{error}");
    let closed_early = text.replacen("\"rank 1: \"\"oom\"\" see", "\"rank 1: \"oom\" see", 1);
    let error = folder.read(closed_early.as_bytes()).unwrap_err().to_string();
    assert!(error.contains("case.csv:4: text after a cell's closing quote"), "{error}");
}

#[test]
fn a_sidecar_whose_params_are_not_its_fingerprints_is_refused() {
    let folder = Folder::new();
    let mut value = serde_json::to_value(&folder.sidecar).unwrap();
    value["params"][0]["values"][0] = Value::from(999);
    std::fs::write(&folder.case_sidecar, value.to_string()).unwrap();
    let error = Sidecar::read(&folder.case_sidecar).unwrap_err().to_string();
    assert!(error.contains("its `params` are not the ones its `fingerprint` records"), "{error}");
}

#[test]
fn a_sidecar_listing_a_setting_twice_is_refused() {
    let folder = Folder::new();
    let mut value = serde_json::to_value(&folder.sidecar).unwrap();
    value["settings"] = serde_json::json!(["rows=256", "rows=512", "rows=256"]);
    std::fs::write(&folder.case_sidecar, value.to_string()).unwrap();
    let error = Sidecar::read(&folder.case_sidecar).unwrap_err().to_string();
    assert!(error.contains("it lists setting `rows=256` twice"), "{error}");
}
