//! `ReadLimit`: how a file sweep reads back as data (a sidecar, a journal, a declaration, a CSV) is opened
//! and bounded: only a regular file, opened without blocking (a FIFO cannot stall the open), checked on
//! the opened handle (not on a name that may change), and no larger than the limit its kind names.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What kind of file is read, and the most of it that is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimit {
    /// The kind of file, as the refusal names it: `a sidecar`.
    pub what: &'static str,
    /// The largest file read; `None`: any size (a CSV is streamed, a million rows are ~200 MB).
    pub bytes: Option<u64>,
}

const MIB: u64 = 1 << 20;

impl ReadLimit {
    pub const SIDECAR: ReadLimit = ReadLimit { what: "a sidecar", bytes: Some(64 * MIB) };
    pub const JOURNAL: ReadLimit = ReadLimit { what: "a journal", bytes: Some(64 * MIB) };
    pub const DECLARATION: ReadLimit = ReadLimit { what: "a declaration", bytes: Some(64 * MIB) };
    /// A summary, page or analysis sweep wrote, read back for its mark.
    pub const OUTPUT: ReadLimit = ReadLimit { what: "a result file", bytes: Some(256 * MIB) };
    pub const CSV: ReadLimit = ReadLimit { what: "a result CSV", bytes: None };

    /// Opens `path` for reading if it is a regular file within the limit (a link to one is followed).
    pub fn open(&self, path: &Path) -> io::Result<File> {
        // Non-blocking: opening a FIFO no one writes to returns at once, and is then refused below.
        let file = OpenOptions::new().read(true).custom_flags(nix::libc::O_NONBLOCK).open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(refusal(format!("{}, not a regular file", kind_of(&meta.file_type()))));
        }
        self.check_size(meta.len())?;
        Ok(file)
    }

    /// The bytes of `path` (see `open`); a file that grows past the limit while read is refused too.
    pub fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let file = self.open(path)?;
        let mut bytes = Vec::new();
        file.take(self.bytes.map_or(u64::MAX, |limit| limit + 1)).read_to_end(&mut bytes)?;
        self.check_size(bytes.len() as u64)?;
        Ok(bytes)
    }

    /// The text of `path` (see `read`), which must be UTF-8.
    pub fn read_to_string(&self, path: &Path) -> io::Result<String> {
        String::from_utf8(self.read(path)?).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
    }

    fn check_size(&self, length: u64) -> io::Result<()> {
        match self.bytes {
            Some(limit) if length > limit => {
                Err(refusal(format!("larger than {} MiB, the most {} may be", limit / MIB, self.what)))
            }
            _ => Ok(()),
        }
    }
}

fn refusal(reason: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, reason)
}

/// What a file that is not a regular one is, in a few words.
fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() || file_type.is_block_device() {
        "a device"
    } else if file_type.is_dir() {
        "a folder"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "something else"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_or_a_fifo_is_refused_at_once_and_a_regular_file_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("x.json");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let refused = ReadLimit::SIDECAR.read(&fifo).unwrap_err().to_string();
        assert_eq!(refused, "a FIFO, not a regular file");
        let zero = dir.path().join("zero.json");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(ReadLimit::SIDECAR.read(&zero).unwrap_err().to_string().contains("a device, not a regular file"));
        let file = dir.path().join("r.json");
        std::fs::write(&file, "{}").unwrap();
        assert_eq!(ReadLimit::SIDECAR.read_to_string(&file).unwrap(), "{}");
    }

    #[test]
    fn a_file_over_the_limit_is_refused_naming_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big.json");
        std::fs::write(&file, vec![b' '; 2 * MIB as usize + 1]).unwrap();
        let limit = ReadLimit { what: "a sidecar", bytes: Some(2 * MIB) };
        let refused = limit.read(&file).unwrap_err().to_string();
        assert!(refused.contains("larger than 2 MiB, the most a sidecar may be"), "{refused}");
        assert!(ReadLimit::CSV.open(&file).is_ok(), "a CSV has no size limit");
    }
}
