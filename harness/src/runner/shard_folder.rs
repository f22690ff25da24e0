//! The results folder of a sharded sweep, `<results_dir>/<sweep>/<stamp>/`, holding one CSV per shard.

use std::path::{Path, PathBuf};

/// `<results_dir>/<sweep>/<stamp>` for now, unclaimed (what `--dry-run` shows).
pub fn shard_folder(results_dir: &Path, sweep: &str) -> PathBuf {
    results_dir.join(sweep).join(super::utc_stamp())
}

/// Claims a new `<results_dir>/<sweep>/<stamp>/` by creating it: `create_dir` fails when the folder
/// exists (also on a shared file system, from another host), so two submissions in the same second get
/// `<stamp>` and `<stamp>-2`. A folder beside a `<stamp>.csv` of `sweep run` is skipped: it is its logs.
pub fn claim_shard_folder(results_dir: &Path, sweep: &str) -> std::io::Result<PathBuf> {
    let first = shard_folder(results_dir, sweep);
    std::fs::create_dir_all(first.parent().unwrap_or(results_dir))?;
    for n in 1.. {
        let folder = if n == 1 { first.clone() } else { PathBuf::from(format!("{}-{n}", first.display())) };
        if folder.with_extension("csv").exists() {
            continue;
        }
        match std::fs::create_dir(&folder) {
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            claimed => return claimed.map(|()| folder),
        }
    }
    unreachable!("the suffixes are unbounded")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_claims_in_one_second_get_different_folders() {
        let dir = tempfile::tempdir().unwrap();
        let first = claim_shard_folder(dir.path(), "s").unwrap();
        let second = claim_shard_folder(dir.path(), "s").unwrap();
        assert_ne!(first, second);
        assert!(first.is_dir() && second.is_dir());
    }
}
