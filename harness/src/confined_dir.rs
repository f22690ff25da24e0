//! `ConfinedDir`: a folder sweep writes under, held open; every folder and file below it is reached from
//! that handle one name at a time without following a link (`openat` with `O_NOFOLLOW`), so nothing
//! planted in a results or engine tree (a linked run folder, log or sidecar) can send a write elsewhere.

use std::ffi::{CString, OsStr};
use std::fs::{File, Permissions};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use nix::dir::Dir;
use nix::errno::Errno;
use nix::fcntl::{openat, renameat, OFlag, AT_FDCWD};
use nix::sys::stat::{fstatat, mkdirat, Mode, SFlag};
use nix::unistd::{fsync, symlinkat, unlinkat, UnlinkatFlags};

/// A folder opened once; paths given to its methods are below it (relative, or absolute under `path`).
#[derive(Debug)]
pub struct ConfinedDir {
    fd: OwnedFd,
    path: PathBuf,
}

/// Files are created readable and writable by all the umask allows, folders searchable too (as `std` does).
const FILE_MODE: Mode = Mode::from_bits_truncate(0o666);
const DIR_MODE: Mode = Mode::from_bits_truncate(0o777);

impl ConfinedDir {
    /// The folder at `path` as the user named it: links on the way to it are followed (the user chose that
    /// path), nothing below it ever is.
    pub fn open(path: &Path) -> io::Result<ConfinedDir> {
        let fd = openat(AT_FDCWD, path, directory_flags() - OFlag::O_NOFOLLOW, Mode::empty())?;
        Ok(ConfinedDir { fd, path: path.to_path_buf() })
    }

    /// The folder holding `path` (`.` for a bare name), opened as `open` does.
    pub fn holding(path: &Path) -> io::Result<ConfinedDir> {
        match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => ConfinedDir::open(parent),
            _ => ConfinedDir::open(Path::new(".")),
        }
    }

    /// `open`, making the folder (and its parents) first when it is missing.
    pub fn create(path: &Path) -> io::Result<ConfinedDir> {
        std::fs::create_dir_all(path)?;
        ConfinedDir::open(path)
    }

    /// Where this folder is, for messages and for what is handed to children.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder at `path` below this one, each part of the way a real folder (a link is refused).
    pub fn dir(&self, path: &Path) -> io::Result<ConfinedDir> {
        self.walk(path, false)
    }

    /// `dir`, making the parts of the way that are missing.
    pub fn create_dir_all(&self, path: &Path) -> io::Result<ConfinedDir> {
        self.walk(path, true)
    }

    /// A new, empty folder at `path`, replacing whatever is there: a link is removed (never followed), a
    /// folder with everything in it.
    pub fn fresh_dir(&self, path: &Path) -> io::Result<ConfinedDir> {
        self.remove_all(path)?;
        self.create_dir_all(path)
    }

    /// A file that must not exist yet, opened for writing (a link at `path` is an existing file).
    pub fn create_new(&self, path: &Path) -> io::Result<File> {
        self.open_file(path, OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL)
    }

    /// A file opened for writing from its start, created when missing, emptied when not (a log).
    pub fn create_truncated(&self, path: &Path) -> io::Result<File> {
        self.open_file(path, OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_TRUNC)
    }

    /// An existing file opened to append to; `create` makes it when it is missing.
    pub fn open_append(&self, path: &Path, create: bool) -> io::Result<File> {
        let create = if create { OFlag::O_CREAT } else { OFlag::empty() };
        self.open_file(path, OFlag::O_WRONLY | OFlag::O_APPEND | create)
    }

    /// A file opened for reading and writing without emptying it, created when missing (a lock file).
    pub fn open_read_write(&self, path: &Path, create: bool) -> io::Result<File> {
        let create = if create { OFlag::O_CREAT } else { OFlag::empty() };
        self.open_file(path, OFlag::O_RDWR | create)
    }

    /// The permissions of the regular file at `path`, if one is there (a link or folder has none to keep).
    pub fn file_permissions(&self, path: &Path) -> Option<Permissions> {
        let stat = self.at(path, |dir, name| fstatat(dir, name, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW)).ok()?;
        (SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG)
            .then(|| Permissions::from_mode(stat.st_mode & 0o7777))
    }

    /// Renames `from` to `to`, both below this folder; whatever is at `to` (a link too) is replaced.
    pub fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let to_dir = self.walk(self.relative(to)?.parent().unwrap_or(Path::new("")), false)?;
        let to_name = name_of(to)?;
        self.at(from, |dir, name| renameat(dir, name, to_dir.fd.as_fd(), to_name))
    }

    /// Removes the file or link at `path` (a link itself, never its target).
    pub fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.at(path, |dir, name| unlinkat(dir, name, UnlinkatFlags::NoRemoveDir))
    }

    /// Removes whatever is at `path`, if anything: a file or link, or a folder and everything in it, no
    /// link inside followed.
    pub fn remove_all(&self, path: &Path) -> io::Result<()> {
        match self.at(path, remove_entry) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            removed => removed,
        }
    }

    /// A symbolic link at `path` to `target` (sweep's own: a run's link to the service log it shared).
    pub fn symlink(&self, target: &Path, path: &Path) -> io::Result<()> {
        self.at(path, |dir, name| symlinkat(target, dir, name))
    }

    /// Makes the entries created, renamed or removed in this folder durable.
    pub fn sync(&self) -> io::Result<()> {
        Ok(fsync(&self.fd)?)
    }

    fn open_file(&self, path: &Path, flags: OFlag) -> io::Result<File> {
        let flags = flags | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        self.at(path, |dir, name| openat(dir, name, flags, FILE_MODE)).map(File::from)
    }

    /// Runs `act` on the folder holding `path` (reached without following a link) and `path`'s name, and
    /// says which link was in the way when `act` met one.
    fn at<T>(&self, path: &Path, act: impl FnOnce(BorrowedFd<'_>, &OsStr) -> nix::Result<T>) -> io::Result<T> {
        let relative = self.relative(path)?;
        let name = name_of(relative)?;
        let parent = relative.parent().filter(|parent| !parent.as_os_str().is_empty());
        let below = parent.map(|parent| self.walk_towards(parent, false, relative)).transpose()?;
        let dir = below.as_ref().map_or(self.fd.as_fd(), |below| below.fd.as_fd());
        act(dir, name).map_err(|errno| self.refusal(errno, relative, relative))
    }

    /// Walks `path` one folder at a time from this one, making missing folders when `create`.
    fn walk(&self, path: &Path, create: bool) -> io::Result<ConfinedDir> {
        let relative = self.relative(path)?;
        self.walk_towards(relative, create, relative)
    }

    /// `walk` of `relative` on the way to `whole` (what a refusal is about).
    fn walk_towards(&self, relative: &Path, create: bool, whole: &Path) -> io::Result<ConfinedDir> {
        let mut fd = self.fd.try_clone()?;
        let mut reached = PathBuf::new();
        for part in relative.components() {
            reached.push(part);
            if create {
                match mkdirat(&fd, part.as_os_str(), DIR_MODE) {
                    Ok(()) | Err(Errno::EEXIST) => {}
                    Err(errno) => return Err(self.refusal(errno, &reached, whole)),
                }
            }
            fd = openat(&fd, part.as_os_str(), directory_flags(), Mode::empty())
                .map_err(|errno| self.refusal(errno, &reached, whole))?;
        }
        Ok(ConfinedDir { fd, path: self.path.join(relative) })
    }

    /// `path` relative to this folder: plain names only, so nothing leaves it by `..` or a root.
    fn relative<'p>(&self, path: &'p Path) -> io::Result<&'p Path> {
        let relative = path.strip_prefix(&self.path).unwrap_or(path);
        if relative.components().all(|part| matches!(part, Component::Normal(_))) {
            return Ok(relative);
        }
        Err(io::Error::new(io::ErrorKind::InvalidInput, format!("not a path below {}", self.path.display())))
    }

    /// The error of an operation that met `errno` at `reached` on its way to `whole`: a link met is named
    /// as such (by its path when it is not `whole` itself, which the caller names).
    /// (`O_NOFOLLOW` fails with ELOOP on a link to a file, ENOTDIR on one to a folder.)
    fn refusal(&self, errno: Errno, reached: &Path, whole: &Path) -> io::Error {
        let path = self.path.join(reached);
        let linked = matches!(errno, Errno::ELOOP | Errno::ENOTDIR)
            && std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.file_type().is_symlink());
        match linked {
            false => errno.into(),
            true if reached == whole => io::Error::other("a symbolic link, which sweep never writes through"),
            true => io::Error::other(format!(
                "{} is a symbolic link, which sweep never writes through",
                crate::os_error::shown(&path).display()
            )),
        }
    }
}

/// A folder opened to hold it (never a link, never inherited by a child).
fn directory_flags() -> OFlag {
    OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC
}

fn name_of(path: &Path) -> io::Result<&OsStr> {
    path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))
}

/// Removes `name` in `dir`: a file or link by unlinking it, a folder by emptying it first (each entry
/// reached from the folder's own handle, no link followed).
fn remove_entry(dir: BorrowedFd<'_>, name: &OsStr) -> nix::Result<()> {
    match unlinkat(dir, name, UnlinkatFlags::NoRemoveDir) {
        Err(Errno::EISDIR | Errno::EPERM) => {}
        unlinked => return unlinked,
    }
    let mut folder = Dir::openat(dir, name, directory_flags(), Mode::empty())?;
    let entries: Vec<CString> = folder
        .iter()
        .filter_map(|entry| entry.ok().map(|entry| entry.file_name().to_owned()))
        .filter(|entry| !matches!(entry.to_bytes(), b"." | b".."))
        .collect();
    for entry in entries {
        use std::os::unix::ffi::OsStrExt;
        remove_entry(folder.as_fd(), OsStr::from_bytes(entry.to_bytes()))?;
    }
    drop(folder);
    unlinkat(dir, name, UnlinkatFlags::RemoveDir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Write;
    use std::os::unix::fs::symlink;

    fn outside(dir: &Path) -> PathBuf {
        let victim = dir.join("victim.txt");
        fs::write(&victim, "precious\n").unwrap();
        victim
    }

    #[test]
    fn a_linked_file_is_refused_by_name_and_its_target_kept() {
        let dir = tempfile::tempdir().unwrap();
        let victim = outside(dir.path());
        fs::create_dir(dir.path().join("run")).unwrap();
        symlink(&victim, dir.path().join("run/output.log")).unwrap();
        let root = ConfinedDir::open(dir.path()).unwrap();
        for opened in
            [root.create_truncated(Path::new("run/output.log")), root.open_append(Path::new("run/output.log"), true)]
        {
            let error = opened.unwrap_err().to_string();
            assert_eq!(error, "a symbolic link, which sweep never writes through");
        }
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    }

    #[test]
    fn a_linked_folder_on_the_way_is_refused_and_nothing_is_made_through_it() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir_all(dir.path().join("results")).unwrap();
        fs::create_dir(&elsewhere).unwrap();
        symlink(&elsewhere, dir.path().join("results/runs")).unwrap();
        let root = ConfinedDir::open(&dir.path().join("results")).unwrap();
        let error = root.create_dir_all(Path::new("runs/0001-rep1")).unwrap_err().to_string();
        assert!(error.contains("runs is a symbolic link"), "{error}");
        assert!(root.create_new(&dir.path().join("results/runs/x.log")).is_err());
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn a_fresh_folder_replaces_a_link_or_a_folder_holding_links_without_following_them() {
        let dir = tempfile::tempdir().unwrap();
        let victim = outside(dir.path());
        let keep = dir.path().join("keep");
        fs::create_dir(&keep).unwrap();
        fs::write(keep.join("data"), "mine").unwrap();
        let runs = dir.path().join("runs");
        fs::create_dir_all(runs.join("b/deeper")).unwrap();
        symlink(&keep, runs.join("a")).unwrap();
        symlink(&victim, runs.join("b/output.log")).unwrap();
        symlink(&keep, runs.join("b/deeper/folder")).unwrap();
        let root = ConfinedDir::open(&runs).unwrap();
        for name in ["a", "b"] {
            let fresh = root.fresh_dir(Path::new(name)).unwrap();
            fresh.create_new(Path::new("output.log")).unwrap().write_all(b"run").unwrap();
            assert!(fs::symlink_metadata(runs.join(name)).unwrap().is_dir());
        }
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
        assert_eq!(fs::read_to_string(keep.join("data")).unwrap(), "mine");
        assert_eq!(fs::read_to_string(runs.join("b/output.log")).unwrap(), "run");
    }

    #[test]
    fn paths_leaving_the_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("inner")).unwrap();
        let inner = ConfinedDir::open(&dir.path().join("inner")).unwrap();
        for path in ["../x", "/etc/passwd", "a/../../x"] {
            assert_eq!(inner.create_new(Path::new(path)).unwrap_err().kind(), io::ErrorKind::InvalidInput, "{path}");
        }
        assert!(inner.create_new(&dir.path().join("inner/x")).is_ok(), "an absolute path below it is taken");
    }

    #[test]
    fn a_rename_replaces_a_link_at_its_target_and_keeps_what_it_pointed_to() {
        let dir = tempfile::tempdir().unwrap();
        let victim = outside(dir.path());
        symlink(&victim, dir.path().join("r.json")).unwrap();
        let root = ConfinedDir::open(dir.path()).unwrap();
        root.create_new(Path::new(".r.json.tmp")).unwrap().write_all(b"{}").unwrap();
        assert_eq!(root.file_permissions(Path::new("r.json")), None, "a link has no permissions to keep");
        root.rename(Path::new(".r.json.tmp"), Path::new("r.json")).unwrap();
        assert_eq!(fs::read_to_string(dir.path().join("r.json")).unwrap(), "{}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    }
}
