//! Property tests of the CSV reader: seeded mutations of a valid result CSV never panic, every refusal is
//! one line naming the file, and rows that are invalid by construction (torn, non-finite, short) are refused.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use super::columns::Columns;
use super::provenance::Provenance;
use super::record_error::RecordError;
use super::result_writer::{ResultWriter, RunRow};
use super::run_table::RunTable;
use crate::mutation::{assert_one_line_naming, Mutator};

/// A folder with a valid three-row CSV (`r.csv`) and a scratch file each case is written to.
struct Folder {
    _dir: tempfile::TempDir,
    valid: Vec<u8>,
    case: PathBuf,
}

impl Folder {
    fn new() -> Folder {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        let columns = Columns {
            params: vec!["rows".into()],
            metrics: vec!["tps".into(), "wall".into()],
            toolchains: vec![],
            slurm: true,
            attempt: true,
        };
        let mut writer = ResultWriter::create(&path, columns, Provenance::default()).unwrap();
        for rep in 1..=3u32 {
            let metrics: BTreeMap<String, f64> = [("tps".to_string(), 431.5), ("wall".to_string(), 1.25)].into();
            writer
                .write(&RunRow {
                    param_values: vec!["512".into()],
                    variant: "default",
                    rep,
                    attempt: 1,
                    warmup: false,
                    order: rep as usize,
                    status: crate::launch::RunStatus::Ok,
                    error: String::new(),
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
        Folder { _dir: dir, valid, case }
    }

    /// Reads `bytes` as a result CSV; a panic fails the test showing the input.
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
}

#[test]
fn mutated_csvs_never_panic_and_every_refusal_is_one_line_naming_the_file() {
    let folder = Folder::new();
    assert_eq!(folder.read(&folder.valid).unwrap().observations().len(), 3);
    let mut mutator = Mutator::new(0xc5f_fa22);
    let mut refused = 0;
    for _ in 0..2000 {
        let input = mutator.mutate(&folder.valid);
        match folder.read(&input) {
            Err(error) => {
                assert_one_line_naming(&error, &folder.case, &input);
                refused += 1;
            }
            Ok(table) => assert!(
                table.observations().iter().flat_map(|o| o.metrics.values()).all(|v| v.is_finite()),
                "a non-finite metric was accepted from:\n{}",
                String::from_utf8_lossy(&input)
            ),
        }
    }
    assert!(refused > 1000, "only {refused} of 2000 mutations were refused: the mutations are too mild");
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
