//! `FileRange`: one byte range of a file, read by positioned reads so that threads read their ranges at once.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

/// Reads bytes `offset..end` of a file, noting the line ends and whether a `"` went by: a range split at
/// a line end starts a CSV record only when no quoted field can span the split.
pub(super) struct FileRange<'f> {
    file: &'f File,
    offset: u64,
    end: u64,
    /// `\n` bytes read so far.
    pub newlines: u64,
    /// Whether any `"` was read.
    pub quoted: bool,
}

impl<'f> FileRange<'f> {
    pub fn new(file: &'f File, offset: u64, end: u64) -> FileRange<'f> {
        FileRange { file, offset, end, newlines: 0, quoted: false }
    }
}

impl Read for FileRange<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let wanted = buf.len().min(usize::try_from(self.end - self.offset).unwrap_or(usize::MAX));
        let read = self.file.read_at(&mut buf[..wanted], self.offset)?;
        let bytes = &buf[..read];
        self.offset += read as u64;
        self.newlines += memchr::memchr_iter(b'\n', bytes).count() as u64;
        self.quoted |= memchr::memchr(b'"', bytes).is_some();
        Ok(read)
    }
}

/// How many line ends bytes `start..end` of `file` hold.
pub(super) fn newlines_between(file: &File, start: u64, end: u64) -> io::Result<u64> {
    let mut range = FileRange::new(file, start, end);
    io::copy(&mut range, &mut io::sink())?;
    Ok(range.newlines)
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
    let mut window = vec![0u8; 1 << 16];
    let mut offset = from.saturating_sub(1);
    while offset < end {
        let wanted = window.len().min(usize::try_from(end - offset).unwrap_or(usize::MAX));
        let read = file.read_at(&mut window[..wanted], offset)?;
        if read == 0 {
            break;
        }
        if let Some(at) = memchr::memchr(b'\n', &window[..read]) {
            return Ok(offset + at as u64 + 1);
        }
        offset += read as u64;
    }
    Ok(end)
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
    fn a_range_counts_its_line_ends_and_notices_quotes() {
        let file = file_of("a,b\n\"c\",d\ne,f\n");
        let mut range = FileRange::new(&file, 0, 4);
        let mut text = String::new();
        range.read_to_string(&mut text).unwrap();
        assert_eq!((text.as_str(), range.newlines, range.quoted), ("a,b\n", 1, false));
        let mut rest = FileRange::new(&file, 4, 14);
        std::io::copy(&mut rest, &mut std::io::sink()).unwrap();
        assert_eq!((rest.newlines, rest.quoted), (2, true));
    }
}
