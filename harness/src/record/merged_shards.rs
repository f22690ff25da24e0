//! `MergedShards`: the shard CSVs of one sweep (`--shard i/n`, e.g. the tasks of a `sweep submit`
//! array job) checked against each other and joined into one result CSV with one sidecar.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::columns::{Columns, PARAM_PREFIX, PROVENANCE_COLUMNS};
use super::placement_columns::PlacementColumns;
use super::record_error::RecordError;
use super::sidecar::Sidecar;

/// Every row of every shard, once, and the sidecar the merged CSV gets.
#[derive(Debug, Clone)]
pub struct MergedShards {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// The first shard's sidecar: the same declaration as every other shard's.
    pub sidecar: Sidecar,
    /// `(setting label, rep)` the declaration plans and no shard recorded, in plan order.
    pub missing: Vec<(String, u32)>,
}

/// One attempt at a (setting, rep) as a row says it: param texts, variant, rep, warmup, attempt.
type RowKey = (Vec<String>, String, u32, bool, u32);
/// A data row and the line it is on.
type NumberedRow = (u64, Vec<String>);

impl MergedShards {
    /// Reads `shards` (each with its sidecar beside it). Refuses shards of different declarations
    /// or layouts and a (setting, rep) recorded twice; warmup rows (every shard runs its own) are kept.
    pub fn read(shards: &[PathBuf]) -> Result<MergedShards, RecordError> {
        let first = shards.first().ok_or_else(|| RecordError::ShardMismatch {
            path: PathBuf::from("."),
            reason: "no shard CSVs to merge".to_string(),
        })?;
        let sidecar = shard_sidecar(first)?;
        let fingerprint = declaration_fingerprint(&sidecar);
        // Its rows are read again in the loop: a shard is small next to the runs that made it.
        let (header, _) = read_rows(first)?;
        let mut rows = Vec::new();
        let mut seen: BTreeMap<RowKey, PathBuf> = BTreeMap::new();
        for path in shards {
            if declaration_fingerprint(&shard_sidecar(path)?) != fingerprint {
                return Err(mismatch(path, format!("its sidecar declares another sweep than {}'s", first.display())));
            }
            let (shard_header, shard_rows) = read_rows(path)?;
            if shard_header != header {
                return Err(mismatch(path, format!("its columns differ from {}'s", first.display())));
            }
            for (line, row) in shard_rows {
                let key = row_key(&header, &row);
                let (_, _, rep, warmup, attempt) = key;
                let earlier = if warmup { None } else { seen.insert(key.clone(), path.clone()) };
                if let Some(earlier) = earlier {
                    let attempt = if attempt == 1 { String::new() } else { format!(" attempt {attempt}") };
                    let reason =
                        format!("{} rep {rep}{attempt} is also recorded in {}", label(&key), earlier.display());
                    return Err(RecordError::BadRow { path: path.clone(), line, reason });
                }
                rows.push(row);
            }
        }
        let missing = missing_runs(&sidecar, &seen);
        Ok(MergedShards { header, rows, sidecar, missing })
    }

    /// Why writing the merge to `csv` (and its sidecar beside it) would replace files that are not an earlier
    /// merge of these same shards, if it would: sweep replaces only its own merge, never a user's file, a
    /// shard or another sweep's result.
    pub fn replace_refusal(&self, csv: &Path) -> Option<String> {
        let sidecar = csv.with_extension("json");
        let existing: Vec<&Path> =
            [csv, sidecar.as_path()].into_iter().filter(|p| p.symlink_metadata().is_ok()).collect();
        if existing.is_empty() {
            return None;
        }
        if let Some(path) = existing.iter().find(|path| !path.symlink_metadata().is_ok_and(|meta| meta.is_file())) {
            return Some(format!("{} exists and is not a regular file", path.display()));
        }
        let earlier = Sidecar::read(&sidecar).ok().filter(|earlier| {
            let merged = matches!(earlier.command_line.get(1).map(String::as_str), Some("merge" | "report"));
            merged && declaration_fingerprint(earlier) == declaration_fingerprint(&self.sidecar)
        });
        match earlier {
            Some(_) => None,
            None => Some(format!("{} exists and is not an earlier merge of these shards", existing[0].display())),
        }
    }

    /// Writes the merged CSV and its sidecar (`command_line` saying how it was merged), each atomically.
    pub fn write(&self, csv: &Path, command_line: Vec<String>) -> Result<(), RecordError> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        for record in std::iter::once(&self.header).chain(&self.rows) {
            writer
                .write_record(record)
                .map_err(|error| RecordError::Io { path: csv.to_path_buf(), error: error.into() })?;
        }
        let bytes = writer
            .into_inner()
            .map_err(|error| RecordError::Io { path: csv.to_path_buf(), error: error.into_error() })?;
        crate::atomic_file::write_atomic(csv, &bytes, None).map_err(RecordError::io(csv))?;
        let sidecar = Sidecar { command_line, ..self.sidecar.clone() };
        sidecar.write(&csv.with_extension("json"))
    }
}

fn mismatch(path: &Path, reason: String) -> RecordError {
    RecordError::ShardMismatch { path: path.to_path_buf(), reason }
}

fn shard_sidecar(csv: &Path) -> Result<Sidecar, RecordError> {
    Sidecar::beside(csv)?
        .ok_or_else(|| mismatch(csv, "no sidecar beside it to tell which sweep it is a shard of".into()))
}

/// What makes two shards parts of one sweep: the declaration as written, the engine as resolved (minus
/// the paths, which differ between checkouts on different hosts), the planned settings and reps.
fn declaration_fingerprint(sidecar: &Sidecar) -> String {
    let mut engine = sidecar.engine.clone();
    if let Value::Object(fields) = &mut engine {
        for path_field in ["profile_file", "tree", "build_dir", "setup"] {
            fields.remove(path_field);
        }
    }
    let identity = serde_json::json!({
        "sweep": sidecar.sweep,
        "engine": engine,
        "settings": sidecar.settings,
        "reps": sidecar.reps,
        "params": sidecar.params,
    });
    crate::ground::sha256_hex(identity.to_string().as_bytes())
}

/// The header and the data rows (with their line numbers) of one CSV, repeated headers skipped, its
/// placement in the columns written now: shards written before them merge with shards written after.
fn read_rows(path: &Path) -> Result<(Vec<String>, Vec<NumberedRow>), RecordError> {
    let bad = |error: csv::Error| RecordError::NotAResultCsv { path: path.to_path_buf(), reason: error.to_string() };
    let mut reader = csv::ReaderBuilder::new().flexible(false).from_path(path).map_err(bad)?;
    let header: Vec<String> = reader.headers().map_err(bad)?.iter().map(str::to_string).collect();
    let columns = Columns::from_header(&header)
        .map_err(|reason| RecordError::NotAResultCsv { path: path.to_path_buf(), reason })?;
    let placed = placement_at(&header, columns.placement);
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(bad)?;
        if record.iter().eq(header.iter().map(String::as_str)) {
            continue;
        }
        let cells: Vec<String> = record.iter().map(str::to_string).collect();
        let own: Vec<&str> = placed.0.iter().map(|&at| cells[at].as_str()).collect();
        let placement = PlacementColumns::Neutral.cells(&columns.placement.placement(&own));
        let row = relaid(cells, &placed, placement);
        rows.push((record.position().map_or(0, |p| p.line()), row));
    }
    let neutral_names = PlacementColumns::Neutral.names().iter().map(|name| name.to_string()).collect();
    Ok((relaid(header, &placed, neutral_names), rows))
}

/// Where `header`'s own placement columns are, and where the neutral ones go in their stead: where
/// they were, or after the provenance columns when it has none.
fn placement_at(header: &[String], layout: PlacementColumns) -> (Vec<usize>, usize) {
    let position = |name: &&str| header.iter().position(|column| column == name);
    let own: Vec<usize> = layout.names().iter().filter_map(position).collect();
    let after_provenance = PROVENANCE_COLUMNS.iter().filter_map(position).max().map_or(header.len(), |at| at + 1);
    let at = own.iter().min().copied().unwrap_or(after_provenance);
    (own, at)
}

/// `row` with `neutral` at `at` in place of its cells at `own`.
fn relaid(row: Vec<String>, (own, at): &(Vec<usize>, usize), neutral: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> =
        row.into_iter().enumerate().filter(|(index, _)| !own.contains(index)).map(|(_, cell)| cell).collect();
    kept.splice(*at..*at, neutral);
    kept
}

fn row_key(header: &[String], row: &[String]) -> RowKey {
    let cell = |name: &str| header.iter().position(|column| column == name).map_or("", |index| &row[index]);
    let params = header
        .iter()
        .zip(row)
        .filter_map(|(column, value)| column.strip_prefix(PARAM_PREFIX).map(|name| format!("{name}={value}")))
        .collect();
    let attempt = cell(super::columns::ATTEMPT_COLUMN).parse().unwrap_or(1);
    (params, cell("variant").to_string(), cell("rep").parse().unwrap_or(0), cell("warmup") == "true", attempt)
}

/// The setting label a row's key has: what `Setting::label` printed into the sidecar.
fn label(key: &RowKey) -> String {
    let mut parts = key.0.clone();
    if key.1 != crate::plan::DEFAULT_VARIANT {
        parts.push(format!("variant={}", key.1));
    }
    parts.join(" ")
}

fn missing_runs(sidecar: &Sidecar, seen: &BTreeMap<RowKey, PathBuf>) -> Vec<(String, u32)> {
    let recorded: std::collections::BTreeSet<(String, u32)> = seen.keys().map(|key| (label(key), key.2)).collect();
    sidecar
        .settings
        .iter()
        .flat_map(|setting| (1..=sidecar.reps).map(move |rep| (setting.clone(), rep)))
        .filter(|run| !recorded.contains(run))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::placement_columns::PlacementColumns;
    use super::super::provenance::Provenance;
    use super::super::result_writer::{ResultWriter, RunRow};
    use super::*;
    use crate::ground::RunStatus;

    const SIDECAR: &str = r#"{
      "schema_version": 1,
      "sweep": { "name": "s", "analysis": { "primary": "tps" } },
      "declaration_file": "/s/s.toml",
      "engine": { "tree": "/host-a/engine", "ranks": 2 },
      "command_line": ["sweep", "run", "s.toml"],
      "seed": 1,
      "reps": 2,
      "settings": ["slices=1", "slices=2"],
      "base_environment": "inherited",
      "provenance": { "host": "a", "engine_commit": "abc", "engine_dirty": false, "toolchain": {} },
      "sweep_version": "0.1.0"
    }"#;

    /// Writes a shard CSV holding `runs` (slices, rep) and a sidecar edited by `edit`.
    fn shard(dir: &Path, name: &str, runs: &[(u32, u32)], edit: impl Fn(&mut Value)) -> PathBuf {
        let path = dir.join(format!("{name}.csv"));
        let columns = Columns {
            params: vec!["slices".into()],
            metrics: vec!["tps".into()],
            toolchains: vec![],
            placement: PlacementColumns::Neutral,
            attempt: true,
        };
        let mut writer = ResultWriter::create(&path, columns, Provenance::default()).unwrap();
        let metrics: BTreeMap<String, f64> = [("tps".to_string(), 1.0)].into();
        for &(slices, rep) in runs {
            writer
                .write(&RunRow {
                    param_values: vec![slices.to_string()],
                    variant: "default",
                    rep,
                    attempt: 1,
                    warmup: false,
                    order: 0,
                    status: RunStatus::Ok,
                    error: String::new(),
                    started_at: String::new(),
                    duration_s: 1.0,
                    metrics: &metrics,
                    variant_hash: "",
                    log_dir: Path::new("runs"),
                    toolchain: None,
                })
                .unwrap();
        }
        let mut sidecar: Value = serde_json::from_str(SIDECAR).unwrap();
        edit(&mut sidecar);
        std::fs::write(path.with_extension("json"), sidecar.to_string()).unwrap();
        path
    }

    #[test]
    fn shards_of_one_sweep_merge_into_a_csv_that_reads_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let one = shard(dir.path(), "shard-1", &[(1, 1), (2, 1)], |_| {});
        let two = shard(dir.path(), "shard-2", &[(2, 2), (1, 2)], |s| s["engine"]["tree"] = "/host-b/engine".into());
        let merged = MergedShards::read(&[one, two]).unwrap();
        assert!(merged.missing.is_empty(), "{:?}", merged.missing);
        let out = dir.path().join("merged.csv");
        merged.write(&out, vec!["sweep".into(), "merge".into()]).unwrap();
        assert_eq!(super::super::RunTable::read(&out).unwrap().observations().len(), 4);
        assert_eq!(Sidecar::read(&out.with_extension("json")).unwrap().command_line, ["sweep", "merge"]);
    }

    /// A shard as written before its placement columns named no scheduler, written by hand.
    const SLURM_COLUMNS_FIXTURE: &str = include_str!("../../tests/fixtures/slurm_columns_fixture.csv");

    #[test]
    fn a_shard_written_with_the_slurm_columns_merges_with_one_written_now_in_the_neutral_columns() {
        let dir = tempfile::tempdir().unwrap();
        let old = shard(dir.path(), "shard-1", &[], |_| {});
        std::fs::write(&old, SLURM_COLUMNS_FIXTURE).unwrap();
        let new = shard(dir.path(), "shard-2", &[(1, 2), (2, 2)], |_| {});
        let merged = MergedShards::read(&[old, new]).unwrap();
        let at = |name: &str| merged.header.iter().position(|column| column == name).unwrap();
        assert_eq!(
            [at("variant_hash") + 1, at("job"), at("task")],
            [at("scheduler"), at("scheduler") + 1, at("scheduler") + 2]
        );
        assert!(!merged.header.iter().any(|column| column.starts_with("slurm_")), "{:?}", merged.header);
        let placements: Vec<[&str; 3]> = merged
            .rows
            .iter()
            .map(|row| [&row[at("scheduler")], &row[at("job")], &row[at("task")]].map(String::as_str))
            .collect();
        assert_eq!(placements, [["slurm", "40", "1"], ["slurm", "40", "1"], ["", "", ""], ["", "", ""]]);
        let out = dir.path().join("merged.csv");
        merged.write(&out, vec!["sweep".into(), "merge".into()]).unwrap();
        assert_eq!(super::super::RunTable::read(&out).unwrap().observations().len(), 4);
    }

    #[test]
    fn a_run_missing_from_every_shard_is_reported_by_setting_and_rep() {
        let dir = tempfile::tempdir().unwrap();
        let one = shard(dir.path(), "shard-1", &[(1, 1), (2, 1)], |_| {});
        let two = shard(dir.path(), "shard-2", &[(2, 2)], |_| {});
        assert_eq!(MergedShards::read(&[one, two]).unwrap().missing, [("slices=1".to_string(), 2)]);
    }

    #[test]
    fn a_setting_and_rep_recorded_by_two_shards_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let one = shard(dir.path(), "shard-1", &[(1, 1)], |_| {});
        let two = shard(dir.path(), "shard-2", &[(2, 2), (1, 1)], |_| {});
        let error = MergedShards::read(&[one, two]).unwrap_err().to_string();
        assert!(error.contains("shard-2.csv:3: slices=1 rep 1 is also recorded in"), "{error}");
    }

    /// A shard resumed after a failure holds two attempts at one (setting, rep): not a run recorded twice.
    #[test]
    fn a_run_retried_within_a_shard_merges_and_one_recorded_by_two_shards_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let one = shard(dir.path(), "shard-1", &[(1, 1), (2, 1)], |_| {});
        let text = std::fs::read_to_string(&one).unwrap();
        let retried = text.lines().nth(1).unwrap().replacen("1,default,1,1,", "1,default,1,2,", 1);
        std::fs::write(&one, format!("{text}{retried}\n")).unwrap();
        let two = shard(dir.path(), "shard-2", &[(2, 2), (1, 2)], |_| {});
        assert_eq!(MergedShards::read(&[one.clone(), two]).unwrap().rows.len(), 5);
        let three = shard(dir.path(), "shard-3", &[(1, 2)], |_| {});
        std::fs::write(
            &three,
            std::fs::read_to_string(&three).unwrap().replacen("1,default,2,1,", "1,default,1,2,", 1),
        )
        .unwrap();
        let error = MergedShards::read(&[one, three]).unwrap_err().to_string();
        assert!(error.contains("shard-3.csv:2: slices=1 rep 1 attempt 2 is also recorded in"), "{error}");
    }

    #[test]
    fn a_shard_of_another_declaration_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let one = shard(dir.path(), "shard-1", &[(1, 1)], |_| {});
        let two = shard(dir.path(), "shard-2", &[(1, 2)], |s| s["engine"]["ranks"] = 4.into());
        let error = MergedShards::read(&[one, two]).unwrap_err();
        assert!(error.is_bad_input());
        assert!(error.to_string().contains("shard-2.csv: not a shard of the same sweep"), "{error}");
    }
}
