//! The store's schema, versioned by SQLite's `PRAGMA user_version` (docs/history.md, "The store").

use rusqlite::Connection;

use super::store_error::StoreError;

/// The schema this version writes and reads; a store of a newer one is refused.
pub const STORE_SCHEMA_VERSION: i64 = 1;

/// Schema 1: sweeps by name with their grid; versions in the order they were added; every run of each.
const SCHEMA_1: &str = "
CREATE TABLE sweeps (
    name TEXT PRIMARY KEY,
    grid TEXT NOT NULL,
    params TEXT NOT NULL
);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sweep TEXT NOT NULL REFERENCES sweeps(name),
    label TEXT NOT NULL,
    csv_path TEXT NOT NULL,
    csv_sha256 TEXT NOT NULL,
    seed TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    analysis TEXT NOT NULL,
    provenance TEXT NOT NULL,
    added_at TEXT NOT NULL,
    UNIQUE (sweep, label)
);
CREATE TABLE runs (
    version INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    setting TEXT NOT NULL,
    setting_label TEXT NOT NULL,
    rep INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    warmup INTEGER NOT NULL,
    status TEXT NOT NULL,
    error TEXT NOT NULL,
    current INTEGER NOT NULL,
    metrics TEXT NOT NULL
);
CREATE INDEX runs_of_version ON runs (version);
";

/// Checks that `connection` (the store at `path`, opened to read) is a store this version reads.
pub fn check(connection: &Connection, path: &std::path::Path) -> Result<(), StoreError> {
    let version: i64 =
        connection.query_row("PRAGMA user_version", [], |row| row.get(0)).map_err(StoreError::sqlite(path))?;
    match version {
        0 => Err(StoreError::NotAStore { path: path.to_path_buf() }),
        STORE_SCHEMA_VERSION => Ok(()),
        found => Err(StoreError::NewerSchema { path: path.to_path_buf(), found, known: STORE_SCHEMA_VERSION }),
    }
}

/// Makes `connection` (the store at `path`) a store of this schema: creates it in an empty file, accepts
/// one of this version, refuses a newer one or a database that is not a store.
pub fn prepare(connection: &mut Connection, path: &std::path::Path) -> Result<(), StoreError> {
    let sqlite = StoreError::sqlite;
    connection.execute_batch("PRAGMA foreign_keys = ON;").map_err(sqlite(path))?;
    let transaction =
        connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(sqlite(path))?;
    let version: i64 = transaction.query_row("PRAGMA user_version", [], |row| row.get(0)).map_err(sqlite(path))?;
    if version > STORE_SCHEMA_VERSION {
        return Err(StoreError::NewerSchema { path: path.to_path_buf(), found: version, known: STORE_SCHEMA_VERSION });
    }
    if version == 0 {
        let tables: i64 =
            transaction.query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0)).map_err(sqlite(path))?;
        if tables > 0 {
            return Err(StoreError::NotAStore { path: path.to_path_buf() });
        }
        transaction.execute_batch(SCHEMA_1).map_err(sqlite(path))?;
        transaction.pragma_update(None, "user_version", STORE_SCHEMA_VERSION).map_err(sqlite(path))?;
    }
    transaction.commit().map_err(sqlite(path))
}
