//! `copy` isolation: each variant gets its own copy of the engine tree; the user's tree is only read. The
//! tree as the copy and the fingerprint both see it is a `TreeEntry` walk (no `.git`, no excluded dirs).

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::error::VariantError;
use super::template_target::{resolve_target, RenderedFile};

/// Copies `tree` into `dest` (without `.git` and the top-level `exclude` entries, modes preserved, symlinks
/// recreated as symlinks), then writes each rendered file over its target in the copy.
pub fn materialize_copy(
    tree: &Path,
    dest: &Path,
    files: &[RenderedFile],
    exclude: &[String],
) -> Result<(), VariantError> {
    let root = tree.canonicalize().map_err(VariantError::io("resolve", tree))?;
    fs::create_dir_all(dest).map_err(VariantError::io("create", dest))?;
    let dest = dest.canonicalize().map_err(VariantError::io("resolve", dest))?;
    for entry in walk_tree(&root, exclude, Some(&dest))? {
        copy_entry(&root.join(&entry.relative), &dest.join(&entry.relative), entry.kind)?;
    }
    for file in files {
        // Resolved against the copy, so a symlink in the copy can never route the write into the user's tree.
        let path = resolve_target(&dest, &file.target)?;
        fs::write(&path, &file.text).map_err(VariantError::io("write", &path))?;
    }
    Ok(())
}

fn copy_entry(from: &Path, to: &Path, kind: EntryKind) -> Result<(), VariantError> {
    match kind {
        EntryKind::Dir => {
            let permissions = fs::metadata(from).map_err(VariantError::io("stat", from))?.permissions();
            fs::create_dir_all(to).map_err(VariantError::io("create", to))?;
            fs::set_permissions(to, permissions).map_err(VariantError::io("set the mode of", to))
        }
        // fs::copy carries the permission bits, so executable scripts stay executable.
        EntryKind::File => fs::copy(from, to).map(|_| ()).map_err(VariantError::io("copy", from)),
        EntryKind::Symlink => {
            let link = fs::read_link(from).map_err(VariantError::io("read the link", from))?;
            symlink(link, to).map_err(VariantError::io("create the link", to))
        }
    }
}

/// A sha256 over every path, mode and content the copy would take: part of the build key, so an edit to any
/// engine source (not only the templated ones) rebuilds.
pub fn tree_fingerprint(tree: &Path, exclude: &[String]) -> Result<String, VariantError> {
    use std::os::unix::fs::PermissionsExt;
    let mut hasher = Sha256::new();
    for entry in walk_tree(tree, exclude, None)? {
        let path = tree.join(&entry.relative);
        let bytes = match entry.kind {
            EntryKind::Dir => Vec::new(),
            EntryKind::File => fs::read(&path).map_err(VariantError::io("read", &path))?,
            EntryKind::Symlink => fs::read_link(&path)
                .map_err(VariantError::io("read the link", &path))?
                .into_os_string()
                .into_encoded_bytes(),
        };
        let mode = fs::symlink_metadata(&path).map_err(VariantError::io("stat", &path))?.permissions().mode();
        for field in [entry.relative.as_os_str().as_encoded_bytes(), &mode.to_le_bytes(), &bytes] {
            hasher.update((field.len() as u64).to_le_bytes());
            hasher.update(field);
        }
    }
    Ok(format!("{:x}", hasher.finalize()))
}

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
    use std::os::unix::fs::PermissionsExt;
    use std::path::PathBuf;

    /// A small engine tree: a kernel, an executable script, a symlink, a `.git` and a `build` dir.
    fn engine_tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for sub in ["kernels", ".git", "build", "scripts"] {
            fs::create_dir_all(root.join(sub)).unwrap();
        }
        fs::write(root.join("kernels/gd.cpp"), "original\n").unwrap();
        fs::write(root.join(".git/HEAD"), "ref").unwrap();
        fs::write(root.join("build/tp-engine"), "binary").unwrap();
        fs::write(root.join("scripts/env.sh"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(root.join("scripts/env.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        symlink("kernels/gd.cpp", root.join("link.cpp")).unwrap();
        dir
    }

    fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut all = Vec::new();
        for entry in walk_tree(root, &[], None).unwrap() {
            let path = root.join(&entry.relative);
            let bytes = if entry.kind == EntryKind::File { fs::read(&path).unwrap() } else { Vec::new() };
            all.push((entry.relative, bytes));
        }
        all
    }

    #[test]
    fn copy_renders_into_the_copy_and_leaves_the_source_tree_byte_identical() {
        let tree = engine_tree();
        let before = snapshot(tree.path());
        let fingerprint = tree_fingerprint(tree.path(), &[]).unwrap();
        let out = tempfile::tempdir().unwrap();
        let dest = out.path().join("variant");
        let files = [RenderedFile { target: PathBuf::from("kernels/gd.cpp"), text: "ablated\n".to_string() }];
        materialize_copy(tree.path(), &dest, &files, &["build".to_string()]).unwrap();

        assert_eq!(fs::read_to_string(dest.join("kernels/gd.cpp")).unwrap(), "ablated\n");
        assert!(!dest.join(".git").exists());
        assert!(!dest.join("build").exists());
        assert_eq!(fs::metadata(dest.join("scripts/env.sh")).unwrap().permissions().mode() & 0o777, 0o755);
        assert_eq!(fs::read_link(dest.join("link.cpp")).unwrap(), PathBuf::from("kernels/gd.cpp"));
        assert_eq!(snapshot(tree.path()), before);
        assert_eq!(tree_fingerprint(tree.path(), &[]).unwrap(), fingerprint);
    }

    #[test]
    fn copy_into_a_directory_inside_the_tree_does_not_recurse_into_itself() {
        let tree = engine_tree();
        let dest = tree.path().join("variants/baseline");
        materialize_copy(tree.path(), &dest, &[], &[]).unwrap();
        assert!(dest.join("kernels/gd.cpp").exists());
        assert!(!dest.join("variants/baseline").exists());
    }

    #[test]
    fn absolute_symlink_in_the_copy_cannot_route_a_write_into_the_user_tree() {
        let tree = engine_tree();
        symlink(tree.path().join("kernels/gd.cpp"), tree.path().join("abs.cpp")).unwrap();
        let out = tempfile::tempdir().unwrap();
        let files = [RenderedFile { target: PathBuf::from("abs.cpp"), text: "ablated\n".to_string() }];
        let error = materialize_copy(tree.path(), &out.path().join("v"), &files, &[]).unwrap_err();
        assert!(matches!(error, VariantError::OutsideTree { .. }), "{error}");
        assert_eq!(fs::read_to_string(tree.path().join("kernels/gd.cpp")).unwrap(), "original\n");
    }

    #[test]
    fn fingerprint_changes_when_an_untemplated_source_changes() {
        let tree = engine_tree();
        let before = tree_fingerprint(tree.path(), &["build".to_string()]).unwrap();
        fs::write(tree.path().join("build/tp-engine"), "rebuilt").unwrap();
        assert_eq!(tree_fingerprint(tree.path(), &["build".to_string()]).unwrap(), before);
        fs::write(tree.path().join("scripts/env.sh"), "#!/bin/sh\necho\n").unwrap();
        assert_ne!(tree_fingerprint(tree.path(), &["build".to_string()]).unwrap(), before);
    }

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
