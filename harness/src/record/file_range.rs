//! `FileRange`: one byte range of a file, read by positioned reads so that threads read their ranges at once.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

/// Reads bytes `offset..end` of a file, noting whether a `"` went by: a range split at a line end starts
/// a CSV record only when no quoted field can span the split.
pub(super) struct FileRange<'f> {
    file: &'f File,
    offset: u64,
    end: u64,
    /// Whether any `"` was read.
    pub quoted: bool,
}

impl<'f> FileRange<'f> {
    pub fn new(file: &'f File, offset: u64, end: u64) -> FileRange<'f> {
        FileRange { file, offset, end, quoted: false }
    }
}

impl Read for FileRange<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let wanted = buf.len().min(usize::try_from(self.end - self.offset).unwrap_or(usize::MAX));
        let read = self.file.read_at(&mut buf[..wanted], self.offset)?;
        let bytes = &buf[..read];
        self.offset += read as u64;
        self.quoted |= memchr::memchr(b'"', bytes).is_some();
        Ok(read)
    }
}

/// The 1-based line of `file` that byte `offset` is on: one more than the line ends before it. Only a
/// refused row asks, so the rows are not counted as they are read.
pub(super) fn line_at(file: &File, offset: u64) -> io::Result<u64> {
    let mut newlines = 0;
    windows(file, 0, offset, |bytes| {
        newlines += memchr::memchr_iter(b'\n', bytes).count() as u64;
        None::<()>
    })?;
    Ok(newlines + 1)
}

/// About how many rows bytes `start..end` of `file` hold, from the lines of their first 64 KiB, with an
/// eighth to spare: room reserved for the rows once rather than grown (and copied) as they are read.
pub(super) fn rows_estimate(file: &File, start: u64, end: u64) -> io::Result<usize> {
    let first = windows(file, start, end, |window| Some((memchr::memchr_iter(b'\n', window).count(), window.len())))?;
    let rows = first.map_or(0, |(lines, bytes)| lines as u64 * (end - start) / bytes as u64);
    Ok(usize::try_from(rows + rows / 8).unwrap_or(usize::MAX))
}

/// Splits `start..end` of `file` into at most `parts` ranges of about equal size, each but the first
/// beginning just after a line end: `parts + 1` ascending offsets from `start` to `end` (fewer when the
/// file has fewer lines).
pub(super) fn line_aligned_splits(file: &File, start: u64, end: u64, parts: u64) -> io::Result<Vec<u64>> {
    let mut splits = vec![start];
    for part in 1..parts.max(1) {
        let guess = start + (end - start) * part / parts;
        let after_line_end = next_line_start(file, guess.max(*splits.last().expect("starts with start")), end)?;
        if after_line_end < end && after_line_end > *splits.last().expect("starts with start") {
            splits.push(after_line_end);
        }
    }
    splits.push(end);
    Ok(splits)
}

/// The offset just after the first `\n` at or after `from - 1` (so `from` itself when a line ends just
/// before it), or `end` when none does.
fn next_line_start(file: &File, from: u64, end: u64) -> io::Result<u64> {
    let start = from.saturating_sub(1);
    let mut offset = start;
    let found = windows(file, start, end, |bytes| {
        let at = memchr::memchr(b'\n', bytes).map(|at| offset + at as u64 + 1);
        offset += bytes.len() as u64;
        at
    })?;
    Ok(found.unwrap_or(end))
}

/// Reads bytes `start..end` of `file` in 64 KiB windows, handing each to `look` until it returns a value.
fn windows<T>(file: &File, start: u64, end: u64, mut look: impl FnMut(&[u8]) -> Option<T>) -> io::Result<Option<T>> {
    let mut window = vec![0u8; 1 << 16];
    let mut offset = start;
    while offset < end {
        let wanted = window.len().min(usize::try_from(end - offset).unwrap_or(usize::MAX));
        let read = file.read_at(&mut window[..wanted], offset)?;
        if read == 0 {
            break;
        }
        if let Some(found) = look(&window[..read]) {
            return Ok(Some(found));
        }
        offset += read as u64;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(text: &str) -> File {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        file
    }

    #[test]
    fn splits_fall_just_after_line_ends() {
        // The header `h` ends at 2; the middle guess (12) lands just after `bbbb\n`, 17 inside `cccc`.
        let file = file_of("h\naaaa\nbbbb\ncccc\ndddd\n");
        assert_eq!(line_aligned_splits(&file, 2, 22, 2).unwrap(), [2, 12, 22]);
        assert_eq!(line_aligned_splits(&file, 2, 22, 3).unwrap(), [2, 12, 17, 22]);
    }

    #[test]
    fn a_range_without_a_later_line_end_is_not_split() {
        let file = file_of("h\none long line without end");
        assert_eq!(line_aligned_splits(&file, 2, 27, 4).unwrap(), [2, 27]);
    }

    #[test]
    fn a_range_notices_quotes_and_a_byte_knows_its_line() {
        let file = file_of("a,b\n\"c\",d\ne,f\n");
        let mut range = FileRange::new(&file, 0, 4);
        let mut text = String::new();
        range.read_to_string(&mut text).unwrap();
        assert_eq!((text.as_str(), range.quoted), ("a,b\n", false));
        let mut rest = FileRange::new(&file, 4, 14);
        std::io::copy(&mut rest, &mut std::io::sink()).unwrap();
        assert!(rest.quoted);
        assert_eq!([0, 3, 4, 10].map(|offset| line_at(&file, offset).unwrap()), [1, 1, 2, 3]);
    }
}
