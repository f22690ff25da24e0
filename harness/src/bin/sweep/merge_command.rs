//! `sweep merge`: the shard CSVs of one sweep (a `sweep submit` results folder, or CSVs named on the
//! command line) checked and joined into one result CSV with its sidecar, which `sweep report` reads.

use std::path::{Path, PathBuf};

use sweep::console::Console;
use sweep::exit_code;
use sweep::plural::counted;
use sweep::record::MergedShards;

use crate::args::MergeArgs;
use crate::exit_status::CommandError;

/// The merged CSV `sweep merge DIR` writes when no `--out` is given.
pub const MERGED_CSV: &str = "merged.csv";

pub fn merge(args: MergeArgs) -> Result<u8, CommandError> {
    let (shards, out) = match (args.paths.as_slice(), args.out) {
        ([dir], out) if dir.is_dir() => (shards_in(dir)?, out.unwrap_or_else(|| dir.join(MERGED_CSV))),
        (_, Some(out)) => (args.paths.clone(), out),
        (_, None) => {
            return Err(CommandError::BadInput(
                "merging CSVs named one by one needs --out (only a folder has a default, <folder>/merged.csv)".into(),
            ))
        }
    };
    let complete = merge_into(&shards, &out, args.force)?;
    Ok((if complete { exit_code::SUCCESS } else { exit_code::CHECK_FAILED }) as u8)
}

/// Merges the shards in `dir` into `<dir>/merged.csv` (for `sweep report DIR`) and returns its path.
pub fn merge_dir(dir: &Path, force: bool) -> Result<PathBuf, CommandError> {
    let out = dir.join(MERGED_CSV);
    merge_into(&shards_in(dir)?, &out, force)?;
    Ok(out)
}

/// Writes the merge and says what it holds; false when a planned run is in no shard. Files at `out` are
/// replaced only when they are an earlier merge of the same shards' sweep, or with `force`.
fn merge_into(shards: &[PathBuf], out: &Path, force: bool) -> Result<bool, CommandError> {
    if let Some(shard) = shards.iter().find(|shard| same_file(shard, out)) {
        return Err(CommandError::BadInput(format!(
            "--out {} would overwrite the shard {}",
            out.display(),
            shard.display()
        )));
    }
    let merged = MergedShards::read(shards)?;
    if let Some(reason) = merged.replace_refusal(out).filter(|_| !force) {
        return Err(CommandError::BadInput(format!(
            "--out {}: {reason}; sweep does not overwrite it (--force replaces it)",
            out.display()
        )));
    }
    merged.write(out, std::env::args().collect())?;
    let (shards, rows) = (counted(shards.len(), "shard"), counted(merged.rows.len(), "row"));
    Console::Stderr.line(format_args!("merged {shards}, {rows}: {}", out.display()));
    for (setting, rep) in &merged.missing {
        Console::Stderr.line(format_args!("  missing: {setting} rep {rep}"));
    }
    if !merged.missing.is_empty() {
        Console::Stderr.line(format_args!("{} planned runs are in no shard", merged.missing.len()));
    }
    Ok(merged.missing.is_empty())
}

/// `shard-<i>.csv` in `dir`, by shard number.
fn shards_in(dir: &Path) -> Result<Vec<PathBuf>, CommandError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|error| CommandError::BadInput(format!("{}: cannot list: {error}", dir.display())))?;
    let paths = entries.filter_map(|entry| entry.ok().map(|entry| entry.path()));
    let mut shards: Vec<(u32, PathBuf)> = paths.filter_map(|path| Some((shard_number(&path)?, path))).collect();
    shards.sort();
    if shards.is_empty() {
        return Err(CommandError::BadInput(format!("{}: no shard-<i>.csv files to merge", dir.display())));
    }
    Ok(shards.into_iter().map(|(_, path)| path).collect())
}

fn shard_number(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("shard-")?.strip_suffix(".csv")?.parse().ok()
}

fn same_file(a: &Path, b: &Path) -> bool {
    std::path::absolute(a).ok() == std::path::absolute(b).ok()
}
