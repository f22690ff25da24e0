//! `TreeEntry`: the engine tree as the copy and the fingerprint both see it (no `.git`, no excluded dirs).

use std::fs;
use std::path::{Path, PathBuf};

use super::error::VariantError;

/// Never part of a variant: version-control metadata and sweep's own in-place state.
const ALWAYS_SKIPPED: [&str; 2] = [".git", ".sweep-inplace"];

/// One entry of the engine tree, path relative to the tree root, in a stable (sorted) walk order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    pub relative: PathBuf,
    pub kind: EntryKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Dir,
    File,
    Symlink,
}

/// Lists `tree` depth-first in sorted order, skipping `.git` anywhere and top-level names in `exclude`;
/// `skip` (e.g. the copy's own destination) is never entered. Symlinks are listed, not followed.
pub fn walk_tree(tree: &Path, exclude: &[String], skip: Option<&Path>) -> Result<Vec<TreeEntry>, VariantError> {
    let mut entries = Vec::new();
    walk_dir(tree, Path::new(""), exclude, skip, &mut entries)?;
    Ok(entries)
}

fn walk_dir(
    root: &Path,
    relative: &Path,
    exclude: &[String],
    skip: Option<&Path>,
    entries: &mut Vec<TreeEntry>,
) -> Result<(), VariantError> {
    let dir = root.join(relative);
    let mut names: Vec<_> = fs::read_dir(&dir)
        .map_err(VariantError::io("list", &dir))?
        .map(|entry| entry.map(|e| e.file_name()))
        .collect::<Result<_, _>>()
        .map_err(VariantError::io("list", &dir))?;
    names.sort();
    for name in names {
        let name_str = name.to_string_lossy();
        let top_level_excluded = relative.as_os_str().is_empty() && exclude.iter().any(|e| *e == name_str);
        if ALWAYS_SKIPPED.contains(&name_str.as_ref()) || top_level_excluded {
            continue;
        }
        let path = dir.join(&name);
        if skip == Some(path.as_path()) {
            continue;
        }
        let child = relative.join(&name);
        let file_type = fs::symlink_metadata(&path).map_err(VariantError::io("stat", &path))?.file_type();
        let kind = match file_type {
            _ if file_type.is_symlink() => EntryKind::Symlink,
            _ if file_type.is_dir() => EntryKind::Dir,
            _ if file_type.is_file() => EntryKind::File,
            // Sockets, fifos and devices are not sources; a build never needs them copied.
            _ => continue,
        };
        entries.push(TreeEntry { relative: child.clone(), kind });
        if kind == EntryKind::Dir {
            walk_dir(root, &child, exclude, skip, entries)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_git_and_top_level_excludes_but_not_nested_namesakes() {
        let dir = tempfile::tempdir().unwrap();
        for sub in [".git/objects", "build", "src/build", "src/.git"] {
            fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        fs::write(dir.path().join("src/build/x.cpp"), "x").unwrap();
        fs::write(dir.path().join("build/tp-engine"), "x").unwrap();
        let entries = walk_tree(dir.path(), &["build".to_string()], None).unwrap();
        let paths: Vec<_> = entries.iter().map(|e| e.relative.to_string_lossy().into_owned()).collect();
        assert_eq!(paths, ["src", "src/build", "src/build/x.cpp"]);
    }
}
