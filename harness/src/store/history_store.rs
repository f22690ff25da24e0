//! `HistoryStore`: the SQLite file `sweep history` keeps results in; adding a result file is one
//! transaction, so a kill leaves all of the file or none of it.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};

use super::added::Added;
use super::ingested_file::IngestedFile;
use super::schema;
use super::store_error::StoreError;
use super::stored_history::StoredHistory;

/// The store's file name in a results folder (`results/history.sqlite`).
pub const STORE_FILE: &str = "history.sqlite";

/// How long an add waits for another one writing the same store before giving up.
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

pub struct HistoryStore {
    pub path: PathBuf,
    connection: Connection,
}

impl HistoryStore {
    /// Opens the store at `path`, creating it (and its folder) when absent; refuses a store of a newer
    /// schema or a database that is not a store.
    pub fn open(path: &Path) -> Result<HistoryStore, StoreError> {
        if let Some(folder) = path.parent().filter(|folder| !folder.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(StoreError::io(folder))?;
        }
        let mut connection = Connection::open(path).map_err(StoreError::sqlite(path))?;
        connection.busy_timeout(BUSY_WAIT).map_err(StoreError::sqlite(path))?;
        schema::prepare(&mut connection, path)?;
        Ok(HistoryStore { path: path.to_path_buf(), connection })
    }

    /// Opens the store at `path` to read it (`history show`, `history changes`): it must exist and be a
    /// store of a schema this version reads; nothing is written to it.
    pub fn open_to_read(path: &Path) -> Result<HistoryStore, StoreError> {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(path, flags).map_err(StoreError::sqlite(path))?;
        connection.busy_timeout(BUSY_WAIT).map_err(StoreError::sqlite(path))?;
        schema::check(&connection, path)?;
        Ok(HistoryStore { path: path.to_path_buf(), connection })
    }

    /// Adds the result file `csv` (with its sidecar) as a version labelled `label`, else by its sidecar's
    /// provenance, else by its file name. See `add_checked`.
    pub fn add(&mut self, csv: &Path, label: Option<&str>) -> Result<Added, StoreError> {
        self.add_checked(csv, label, &mut |_| Ok(()))
    }

    /// Adds `csv` in one transaction: the same file again changes nothing; a file that grew since it was
    /// added (same path and seed) replaces its version's runs; a file of a sweep the store holds with
    /// another grid, or an explicit label another file has, is refused with the store unchanged.
    /// `after_run(i)` is called after the i-th run is written (a failure rolls the whole file back).
    fn add_checked(
        &mut self,
        csv: &Path,
        label: Option<&str>,
        after_run: &mut dyn FnMut(usize) -> Result<(), StoreError>,
    ) -> Result<Added, StoreError> {
        let file = IngestedFile::read(csv)?;
        let path = self.path.clone();
        let transaction = (self.connection.transaction_with_behavior(TransactionBehavior::Immediate))
            .map_err(StoreError::sqlite(&path))?;
        let added = add_file(&transaction, &file, label, csv, after_run).map_err(|error| error.at(&path))?;
        transaction.commit().map_err(StoreError::sqlite(&path))?;
        Ok(added)
    }

    /// The names of the sweeps the store holds, sorted.
    pub fn sweeps(&self) -> Result<Vec<String>, StoreError> {
        let mut statement =
            self.connection.prepare("SELECT name FROM sweeps ORDER BY name").map_err(StoreError::sqlite(&self.path))?;
        let names = statement.query_map([], |row| row.get(0)).map_err(StoreError::sqlite(&self.path))?;
        names.collect::<Result<Vec<String>, _>>().map_err(StoreError::sqlite(&self.path))
    }

    /// The history of sweep `name`, or of the only sweep the store holds when `name` is None.
    pub fn history(&self, name: Option<&str>) -> Result<StoredHistory, StoreError> {
        let names = self.sweeps()?;
        let path = self.path.clone();
        let sweep = match (name, names.as_slice()) {
            (_, []) => return Err(StoreError::Empty { path }),
            (Some(name), _) if names.iter().any(|known| known == name) => name.to_string(),
            (Some(name), _) => return Err(StoreError::UnknownSweep { path, name: name.to_string(), names }),
            (None, [only]) => only.clone(),
            (None, _) => return Err(StoreError::ManySweeps { path, names }),
        };
        StoredHistory::read(&self.connection, &sweep).map_err(StoreError::sqlite(&self.path))
    }
}

/// `HistoryStore::add_checked`'s writes, inside its transaction.
fn add_file(
    transaction: &Transaction<'_>,
    file: &IngestedFile,
    label: Option<&str>,
    csv: &Path,
    after_run: &mut dyn FnMut(usize) -> Result<(), StoreError>,
) -> Result<Added, Refusal> {
    check_grid(transaction, file, csv)?;
    if let Some(label) = same_file(transaction, file)? {
        return Ok(Added::Unchanged { label });
    }
    if let Some((version, label)) = grown_version(transaction, file)? {
        transaction.execute("DELETE FROM runs WHERE version = ?1", [version])?;
        let updated = "UPDATE versions SET csv_sha256 = ?2, fingerprint = ?3, analysis = ?4, provenance = ?5, \
                       added_at = ?6 WHERE id = ?1";
        transaction
            .execute(updated, params![version, file.sha256, file.fingerprint, file.analysis, file.provenance, now()])?;
        insert_runs(transaction, version, file, after_run)?;
        return Ok(Added::Replaced { label, runs: file.runs.len() });
    }
    let label = version_label(transaction, file, label, csv)?;
    let inserted =
        "INSERT INTO versions (sweep, label, csv_path, csv_sha256, seed, fingerprint, analysis, provenance, \
                    added_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
    let (csv_path, seed) = (file.csv.display().to_string(), file.seed.to_string());
    let recorded = (&file.fingerprint, &file.analysis, &file.provenance);
    transaction.execute(
        inserted,
        params![file.sweep, label, csv_path, file.sha256, seed, recorded.0, recorded.1, recorded.2, now()],
    )?;
    insert_runs(transaction, transaction.last_insert_rowid(), file, after_run)?;
    Ok(Added::New { label, runs: file.runs.len() })
}

/// What went wrong inside a transaction: the store itself (SQLite), or the file or its label.
enum Refusal {
    Sqlite(rusqlite::Error),
    Store(StoreError),
}

impl From<rusqlite::Error> for Refusal {
    fn from(error: rusqlite::Error) -> Refusal {
        Refusal::Sqlite(error)
    }
}

impl From<StoreError> for Refusal {
    fn from(error: StoreError) -> Refusal {
        Refusal::Store(error)
    }
}

impl Refusal {
    /// The error, a SQLite one named by the store at `path`.
    fn at(self, path: &Path) -> StoreError {
        match self {
            Refusal::Sqlite(error) => StoreError::Sqlite { path: path.to_path_buf(), error },
            Refusal::Store(error) => error,
        }
    }
}

/// Records the sweep when new; refuses a file whose grid is not the one the store holds for its sweep.
fn check_grid(transaction: &Transaction<'_>, file: &IngestedFile, csv: &Path) -> Result<(), Refusal> {
    let stored: Option<String> =
        transaction.query_row("SELECT grid FROM sweeps WHERE name = ?1", [&file.sweep], |row| row.get(0)).optional()?;
    match stored {
        None => {
            let params = serde_json::to_string(&file.params).expect("params serialize");
            transaction.execute(
                "INSERT INTO sweeps (name, grid, params) VALUES (?1, ?2, ?3)",
                params![file.sweep, file.grid, params],
            )?;
            Ok(())
        }
        Some(grid) if grid == file.grid => Ok(()),
        Some(_) => {
            let stored: String =
                transaction.query_row("SELECT params FROM sweeps WHERE name = ?1", [&file.sweep], |row| row.get(0))?;
            let reason = grid_difference(&stored, &file.params);
            Err(StoreError::OtherGrid { csv: csv.to_path_buf(), sweep: file.sweep.clone(), reason }.into())
        }
    }
}

/// How the file's params differ from the stored ones (JSON), in words.
fn grid_difference(stored: &str, params: &[crate::declare::Param]) -> String {
    let stored: Vec<crate::declare::Param> = serde_json::from_str(stored).unwrap_or_default();
    let names = |params: &[crate::declare::Param]| params.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(", ");
    match stored.iter().zip(params).find(|(a, b)| a != b) {
        Some((a, b)) if a.name == b.name => format!("the values of `{}` differ", a.name),
        _ => format!("its parameters are [{}], the store's [{}]", names(params), names(&stored)),
    }
}

/// The label of the version that already holds this very file (same sha256), if one does.
fn same_file(transaction: &Transaction<'_>, file: &IngestedFile) -> Result<Option<String>, rusqlite::Error> {
    transaction
        .query_row(
            "SELECT label FROM versions WHERE sweep = ?1 AND csv_sha256 = ?2",
            params![file.sweep, file.sha256],
            |row| row.get(0),
        )
        .optional()
}

/// The version (id and label) added from this file when it held fewer rows: same path, same seed.
fn grown_version(transaction: &Transaction<'_>, file: &IngestedFile) -> Result<Option<(i64, String)>, rusqlite::Error> {
    transaction
        .query_row(
            "SELECT id, label FROM versions WHERE sweep = ?1 AND csv_path = ?2 AND seed = ?3",
            params![file.sweep, file.csv.display().to_string(), file.seed.to_string()],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()
}

/// The new version's label: `label` when given (refused when another file has it), else the derived
/// one, made unique by the file's name when another version has it (two runs of one toolchain).
fn version_label(
    transaction: &Transaction<'_>,
    file: &IngestedFile,
    label: Option<&str>,
    csv: &Path,
) -> Result<String, Refusal> {
    let holder = |label: &str| -> Result<Option<String>, rusqlite::Error> {
        transaction
            .query_row(
                "SELECT csv_path FROM versions WHERE sweep = ?1 AND label = ?2",
                params![file.sweep, label],
                |row| row.get(0),
            )
            .optional()
    };
    if let Some(label) = label {
        return match holder(label)? {
            Some(other) => Err(StoreError::LabelTaken {
                csv: csv.to_path_buf(),
                sweep: file.sweep.clone(),
                label: label.to_string(),
                other: PathBuf::from(other),
            }
            .into()),
            None => Ok(label.to_string()),
        };
    }
    let stem = file.csv.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    let derived = &file.derived_label;
    let suffixed =
        (1..).map(|n| if n == 1 { format!("{derived} ({stem})") } else { format!("{derived} ({stem}-{n})") });
    for candidate in std::iter::once(derived.clone()).chain(suffixed) {
        if holder(&candidate)?.is_none() {
            return Ok(candidate);
        }
    }
    unreachable!("the candidates are unbounded")
}

/// Writes every run of `file` as version `version`, calling `after_run` after each.
fn insert_runs(
    transaction: &Transaction<'_>,
    version: i64,
    file: &IngestedFile,
    after_run: &mut dyn FnMut(usize) -> Result<(), StoreError>,
) -> Result<(), Refusal> {
    let mut insert = transaction.prepare(
        "INSERT INTO runs (version, setting, setting_label, rep, attempt, warmup, status, error, current, metrics) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for (index, run) in file.runs.iter().enumerate() {
        insert.execute(params![
            version,
            run.setting,
            run.setting_label,
            run.rep,
            run.attempt,
            run.warmup,
            run.status,
            run.error,
            run.current,
            run.metrics
        ])?;
        after_run(index)?;
    }
    Ok(())
}

/// Now, in UTC, to the second (RFC 3339).
fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::super::schema::STORE_SCHEMA_VERSION;
    use super::super::test_fixture_results::{fixture_results, fixture_rows};
    use super::*;

    const KS: [i64; 3] = [1, 2, 3];

    fn runs_in(store: &HistoryStore) -> i64 {
        store.connection.query_row("SELECT count(*) FROM runs", [], |row| row.get(0)).unwrap()
    }

    fn flat(k: i64, rep: u32) -> f64 {
        100.0 * k as f64 + f64::from(rep)
    }

    #[test]
    fn a_file_is_added_once_with_every_run_and_its_label() {
        let dir = tempfile::tempdir().unwrap();
        let csv = fixture_results(dir.path(), "a", &KS, "fixture 1.0", &fixture_rows(&KS, 2, flat));
        let mut store = HistoryStore::open(&dir.path().join("h/history.sqlite")).unwrap();
        let label = "fixture: fixture 1.0".to_string();
        assert_eq!(store.add(&csv, None).unwrap(), Added::New { label: label.clone(), runs: 6 });
        assert_eq!(store.add(&csv, None).unwrap(), Added::Unchanged { label: label.clone() });
        assert_eq!(runs_in(&store), 6, "adding the same file twice changes nothing");
        let history = store.history(None).unwrap();
        assert_eq!(history.versions, vec![label]);
        assert_eq!(history.analysis.as_ref().unwrap().primary, "tps");
        let series = history.series("tps");
        assert_eq!(series.settings.len(), 3);
        assert_eq!(series.settings[1].label, "k=2");
        assert_eq!(series.settings[1].setting, serde_json::json!({ "k": 2 }));
        assert_eq!(series.settings[1].runs, vec![vec![201.0, 202.0]]);
    }

    #[test]
    fn a_derived_label_taken_gets_the_files_name_and_an_explicit_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = fixture_results(dir.path(), "a", &KS, "fixture 1.0", &fixture_rows(&KS, 1, flat));
        let b = fixture_results(dir.path(), "b", &KS, "fixture 1.0", &fixture_rows(&KS, 2, flat));
        let mut store = HistoryStore::open(&dir.path().join("history.sqlite")).unwrap();
        store.add(&a, Some("v1")).unwrap();
        let error = store.add(&b, Some("v1")).unwrap_err().to_string();
        assert!(error.contains("b.csv: not added: version `v1` of sweep `s` is already"), "{error}");
        assert_eq!(runs_in(&store), 3, "a refused file writes nothing");
        store.add(&a.with_file_name("a.csv"), None).unwrap();
        assert_eq!(store.add(&b, None).unwrap(), Added::New { label: "fixture: fixture 1.0".into(), runs: 6 });
        let c = fixture_results(dir.path(), "c", &KS, "fixture 1.0", &fixture_rows(&KS, 3, flat));
        assert_eq!(store.add(&c, None).unwrap(), Added::New { label: "fixture: fixture 1.0 (c)".into(), runs: 9 });
        assert_eq!(
            store.history(None).unwrap().versions,
            vec!["v1", "fixture: fixture 1.0", "fixture: fixture 1.0 (c)"]
        );
    }

    #[test]
    fn another_grid_of_the_same_sweep_and_a_csv_without_its_sidecar_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = HistoryStore::open(&dir.path().join("history.sqlite")).unwrap();
        let a = fixture_results(dir.path(), "a", &KS, "fixture 1.0", &fixture_rows(&KS, 1, flat));
        store.add(&a, None).unwrap();
        let other = fixture_results(dir.path(), "b", &[1, 2], "fixture 2.0", &fixture_rows(&[1, 2], 1, flat));
        let error = store.add(&other, None).unwrap_err().to_string();
        assert!(
            error.contains("b.csv: not added: the store holds sweep `s` with another grid (the values of `k` differ)"),
            "{error}"
        );
        let error = store.add(&dir.path().join("absent.csv"), None).unwrap_err().to_string();
        assert!(error.ends_with("absent.csv: no such result CSV"), "{error}");
        std::fs::remove_file(other.with_extension("json")).unwrap();
        let error = store.add(&other, None).unwrap_err().to_string();
        assert!(error.contains("b.csv: no sidecar beside it"), "{error}");
        assert_eq!(runs_in(&store), 3);
        assert_eq!(store.history(None).unwrap().versions.len(), 1);
    }

    #[test]
    fn a_file_that_grew_replaces_its_versions_runs() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = HistoryStore::open(&dir.path().join("history.sqlite")).unwrap();
        let csv = fixture_results(dir.path(), "a", &KS, "fixture 1.0", &fixture_rows(&KS, 1, flat));
        store.add(&csv, Some("v1")).unwrap();
        fixture_results(dir.path(), "a", &KS, "fixture 1.0", &fixture_rows(&KS, 3, flat));
        assert_eq!(store.add(&csv, None).unwrap(), Added::Replaced { label: "v1".into(), runs: 9 });
        assert_eq!(runs_in(&store), 9);
        assert_eq!(store.history(None).unwrap().versions, vec!["v1"]);
    }

    /// An ingest that fails halfway (after its second run is written) leaves the store byte for byte as
    /// it was: the file is one transaction.
    #[test]
    fn a_failure_halfway_through_a_file_leaves_the_store_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.sqlite");
        let mut store = HistoryStore::open(&path).unwrap();
        let a = fixture_results(dir.path(), "a", &KS, "fixture 1.0", &fixture_rows(&KS, 1, flat));
        store.add(&a, None).unwrap();
        let before = std::fs::read(&path).unwrap();
        let b = fixture_results(dir.path(), "b", &KS, "fixture 2.0", &fixture_rows(&KS, 4, flat));
        let mut fail_at_second = |run: usize| match run {
            1 => Err(StoreError::Empty { path: path.clone() }),
            _ => Ok(()),
        };
        assert!(store.add_checked(&b, None, &mut fail_at_second).is_err());
        assert_eq!(runs_in(&store), 3);
        drop(store);
        assert_eq!(std::fs::read(&path).unwrap(), before, "the store changed");
        assert!(!dir.path().join("history.sqlite-journal").exists(), "a journal was left behind");
    }

    #[test]
    fn a_store_of_a_newer_schema_or_another_database_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.sqlite");
        HistoryStore::open(&path).unwrap();
        Connection::open(&path).unwrap().pragma_update(None, "user_version", STORE_SCHEMA_VERSION + 1).unwrap();
        let error = HistoryStore::open(&path).err().unwrap().to_string();
        assert!(error.contains("store schema version 2 is newer than this sweep reads (up to 1)"), "{error}");
        let error = HistoryStore::open_to_read(&path).err().unwrap().to_string();
        assert!(error.contains("store schema version 2 is newer"), "{error}");
        let other = dir.path().join("other.sqlite");
        Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x);").unwrap();
        let error = HistoryStore::open(&other).err().unwrap().to_string();
        assert!(error.contains("not a sweep history store"), "{error}");
        let error = HistoryStore::open_to_read(&other).err().unwrap().to_string();
        assert!(error.contains("not a sweep history store"), "{error}");
    }

    #[test]
    fn show_and_changes_need_the_sweep_named_when_the_store_holds_several() {
        let dir = tempfile::tempdir().unwrap();
        let store = HistoryStore::open(&dir.path().join("history.sqlite")).unwrap();
        assert!(matches!(store.history(None), Err(StoreError::Empty { .. })));
        let insert = "INSERT INTO sweeps (name, grid, params) VALUES (?1, 'g', '[]')";
        for name in ["a", "b"] {
            store.connection.execute(insert, [name]).unwrap();
        }
        let error = store.history(None).err().unwrap().to_string();
        assert!(error.ends_with("the store holds 2 sweeps: pass --sweep NAME (one of: a, b)"), "{error}");
        assert_eq!(store.history(Some("b")).unwrap().sweep, "b");
        assert!(matches!(store.history(Some("c")), Err(StoreError::UnknownSweep { .. })));
    }
}
