//! A result CSV whose last row has no line end: the sweep was killed while writing that row.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::record_error::RecordError;
use crate::confined_dir::ConfinedDir;
use crate::read_limit::ReadLimit;

/// A cut-off last row removed from a CSV before resuming it; its bytes are kept in `kept`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornRow {
    /// 1-based line of the torn row in the CSV.
    pub line: usize,
    pub kept: PathBuf,
}

/// The 1-based line of a torn last row, if `bytes` (a whole CSV) ends without a line end.
pub fn torn_line(bytes: &[u8]) -> Option<usize> {
    let last_end = bytes.iter().rposition(|&b| b == b'\n')?;
    (last_end + 1 < bytes.len()).then(|| bytes[..=last_end].iter().filter(|&&b| b == b'\n').count() + 1)
}

/// Cuts a torn last row off `csv` so a resume appends after whole rows only. The row was a run that did
/// not finish recording, so resuming runs it again; its bytes are appended to `<stem>.torn` first, then
/// the CSV is truncated and synced. A file with no line end at all (not even a header) is left alone.
/// Both files are opened from `folder`, the CSV's, never through a link: the keeper is appended to, and
/// sits in a results folder anyone may have written.
pub fn cut_torn_row(folder: &ConfinedDir, csv: &Path) -> Result<Option<TornRow>, RecordError> {
    let bytes = ReadLimit::CSV.read(csv).map_err(RecordError::io(csv))?;
    let Some(line) = torn_line(&bytes) else { return Ok(None) };
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |end| end + 1);
    let kept = csv.with_extension("torn");
    let mut copy = folder.open_append(&kept, true).map_err(RecordError::io(&kept))?;
    copy.write_all(&bytes[keep..]).and_then(|()| copy.write_all(b"\n")).map_err(RecordError::io(&kept))?;
    copy.sync_all().map_err(RecordError::io(&kept))?;
    let file = folder.open_read_write(csv, false).map_err(RecordError::io(csv))?;
    file.set_len(keep as u64).and_then(|()| file.sync_all()).map_err(RecordError::io(csv))?;
    Ok(Some(TornRow { line, kept }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_rows_are_not_torn() {
        assert_eq!(torn_line(b"a,b\n1,2\n"), None);
        assert_eq!(torn_line(b""), None);
        assert_eq!(torn_line(b"a,b"), None, "a file without any line end has no complete header to keep");
    }

    #[test]
    fn a_last_row_without_a_line_end_is_torn() {
        assert_eq!(torn_line(b"a,b\n1,2\n3,"), Some(3));
    }

    #[test]
    fn cutting_keeps_the_whole_rows_and_saves_the_torn_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("r.csv");
        std::fs::write(&csv, "a,b\n1,2\n3,").unwrap();
        let folder = ConfinedDir::open(dir.path()).unwrap();
        let torn = cut_torn_row(&folder, &csv).unwrap().unwrap();
        assert_eq!(torn, TornRow { line: 3, kept: dir.path().join("r.torn") });
        assert_eq!(std::fs::read_to_string(&csv).unwrap(), "a,b\n1,2\n");
        assert_eq!(std::fs::read_to_string(dir.path().join("r.torn")).unwrap(), "3,\n");
        assert_eq!(cut_torn_row(&folder, &csv).unwrap(), None, "a cut CSV is whole");
    }
}
