//! The unified diff of a variant's rendered sources against the shipped ones: what an ablation removes.

use std::fs;
use std::path::Path;

use similar::TextDiff;

use super::error::VariantError;
use super::template_target::{resolve_target, RenderedFile};

/// Lines of unchanged context around each change, as `diff -u` shows.
const CONTEXT_LINES: usize = 3;

/// One unified diff per rendered file that differs from the shipped file in `tree`; empty when none does.
pub fn source_diff(tree: &Path, files: &[RenderedFile], variant: &str) -> Result<String, VariantError> {
    let mut diffs = String::new();
    for file in files {
        let shipped_path = resolve_target(tree, &file.target)?;
        let shipped = fs::read_to_string(&shipped_path).map_err(VariantError::io("read", &shipped_path))?;
        if shipped == file.text {
            continue;
        }
        let target = file.target.display();
        let diff = TextDiff::from_lines(&shipped, &file.text);
        let unified = diff
            .unified_diff()
            .context_radius(CONTEXT_LINES)
            .header(&format!("a/{target} (shipped)"), &format!("b/{target} ({variant})"))
            .to_string();
        diffs.push_str(&unified);
    }
    Ok(diffs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn only_changed_files_are_shown_with_the_removed_lines() {
        let tree = tempfile::tempdir().unwrap();
        fs::write(tree.path().join("a.cpp"), "one\ntwo\nthree\n").unwrap();
        fs::write(tree.path().join("b.cpp"), "same\n").unwrap();
        let files = [
            RenderedFile { target: PathBuf::from("a.cpp"), text: "one\nthree\n".to_string() },
            RenderedFile { target: PathBuf::from("b.cpp"), text: "same\n".to_string() },
        ];
        let diff = source_diff(tree.path(), &files, "rank1_update").unwrap();
        assert_eq!(diff, "--- a/a.cpp (shipped)\n+++ b/a.cpp (rank1_update)\n@@ -1,3 +1,2 @@\n one\n-two\n three\n");
        assert_eq!(source_diff(tree.path(), &files[1..], "baseline").unwrap(), "");
    }
}
