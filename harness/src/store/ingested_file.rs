//! `IngestedFile`: a result CSV and its sidecar read whole and checked before the store is touched, so
//! that a refused file leaves the store as it was and an accepted one goes in in one transaction.

use std::path::{Path, PathBuf};

use super::store_error::StoreError;
use super::stored_run::StoredRun;
use crate::declare::Param;
use crate::record::{Provenance, ResultPaths, RunTable, Sidecar};

#[derive(Debug)]
pub struct IngestedFile {
    /// The CSV, absolute and with links resolved: with the sidecar's seed, what identifies a file that
    /// grows (`--resume`) rather than a new one.
    pub csv: PathBuf,
    pub sha256: String,
    pub sweep: String,
    pub params: Vec<Param>,
    /// sha256 of the grid (the params with their typed values), which every version of a sweep shares.
    pub grid: String,
    pub seed: u64,
    /// `SweepFingerprint::digest` of the whole fingerprint (declaration included), for people.
    pub fingerprint: String,
    /// The sweep's `[analysis]` as the sidecar records it (JSON): primary metric, direction, control.
    pub analysis: String,
    pub provenance: String,
    /// The label the sidecar's provenance gives (toolchain versions, engine commit), else the file stem.
    pub derived_label: String,
    pub runs: Vec<StoredRun>,
}

impl IngestedFile {
    /// Reads `csv` and its sidecar: refuses a CSV without one, one whose rows do not fit it, and one without
    /// a run.
    pub fn read(csv: &Path) -> Result<IngestedFile, StoreError> {
        if !csv.is_file() {
            return Err(StoreError::NoCsv { csv: csv.to_path_buf() });
        }
        let sidecar_path = ResultPaths::for_csv(csv).sidecar;
        let Some(sidecar) = Sidecar::beside(csv)? else {
            return Err(StoreError::NoSidecar { csv: csv.to_path_buf(), sidecar: sidecar_path });
        };
        let table = RunTable::read_runs(csv)?;
        let current: std::collections::HashSet<usize> = table.current_runs().collect();
        let every_run = table.every_run();
        let runs = every_run.iter().enumerate().map(|(index, run)| StoredRun::of(run, current.contains(&index)));
        let fingerprint = sidecar.fingerprint();
        Ok(IngestedFile {
            csv: std::fs::canonicalize(csv).map_err(StoreError::io(csv))?,
            sha256: file_sha256(csv).map_err(StoreError::io(csv))?,
            sweep: fingerprint.name.clone(),
            grid: grid_digest(&fingerprint.params),
            params: fingerprint.params.clone(),
            seed: sidecar.seed,
            fingerprint: fingerprint.digest(),
            analysis: json_text(&sidecar.sweep.analysis),
            provenance: json_text(&sidecar.provenance),
            derived_label: provenance_label(&sidecar.provenance).unwrap_or_else(|| stem(csv)),
            runs: runs.collect(),
        })
    }
}

/// The SHA-256 of the file at `path` in lower-case hex, read in pieces (a CSV may hold a million runs).
fn file_sha256(path: &Path) -> std::io::Result<String> {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut std::fs::File::open(path)?, &mut hasher)?;
    Ok(format!("{:x}", hasher.finalize()))
}

fn json_text(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("recorded values serialize")
}

/// sha256 of the params' JSON (names and typed values, in declared order).
pub fn grid_digest(params: &[Param]) -> String {
    crate::ground::sha256_hex(serde_json::to_string(params).expect("params serialize").as_bytes())
}

/// `mpicxx: g++ 12.2.0, commit 0123456789ab`: the versions the sweep ran with, when it recorded any.
fn provenance_label(provenance: &Provenance) -> Option<String> {
    let tools = provenance.toolchain.iter().filter(|(_, version)| *version != "unavailable");
    let mut parts: Vec<String> = tools.map(|(name, version)| format!("{name}: {version}")).collect();
    if provenance.engine_commit != "unknown" && !provenance.engine_commit.is_empty() {
        let commit: String = provenance.engine_commit.chars().take(12).collect();
        parts.push(format!("commit {commit}{}", if provenance.engine_dirty { "+dirty" } else { "" }));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn stem(csv: &Path) -> String {
    csv.file_stem().map_or_else(|| csv.display().to_string(), |stem| stem.to_string_lossy().into_owned())
}
