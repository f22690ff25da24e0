//! `BuildKey`: the content hash that decides whether a variant's build can be reused.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::variants::RenderedFile;

/// sha256 over the rendered sources, the build argv, the toolchain id and the engine source id; equal keys
/// mean an identical build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BuildKey([u8; 32]);

/// Hex characters shown and used as the cache directory name: 64 bits, ample for a handful of variants.
const SHOWN_HEX: usize = 16;

impl BuildKey {
    /// `source_id` identifies the rest of the engine tree (e.g. `variants::tree_fingerprint`), so editing an
    /// untemplated source also rebuilds. Files are hashed in target order, so their order does not matter.
    pub fn new(files: &[RenderedFile], argv: &[String], toolchain_id: &str, source_id: &str) -> Self {
        let mut sorted: Vec<&RenderedFile> = files.iter().collect();
        sorted.sort_by(|a, b| a.target.cmp(&b.target));
        let mut hasher = Sha256::new();
        // Every field is length-prefixed so ("ab", "c") and ("a", "bc") hash differently.
        let mut field = |bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        field(&(sorted.len() as u64).to_le_bytes());
        for file in sorted {
            field(file.target.as_os_str().as_encoded_bytes());
            field(file.text.as_bytes());
        }
        field(&(argv.len() as u64).to_le_bytes());
        for arg in argv {
            field(arg.as_bytes());
        }
        field(toolchain_id.as_bytes());
        field(source_id.as_bytes());
        BuildKey(hasher.finalize().into())
    }
}

impl fmt::Display for BuildKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex: String = self.0.iter().map(|byte| format!("{byte:02x}")).collect();
        f.write_str(&hex[..SHOWN_HEX])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn file(target: &str, text: &str) -> RenderedFile {
        RenderedFile { target: PathBuf::from(target), text: text.to_string() }
    }

    fn argv() -> Vec<String> {
        vec!["make".to_string(), "BUILD_DIR=b".to_string()]
    }

    #[test]
    fn key_changes_with_text_argv_toolchain_and_source() {
        let base = BuildKey::new(&[file("a.cpp", "x")], &argv(), "gcc 13", "tree1");
        assert_eq!(base, BuildKey::new(&[file("a.cpp", "x")], &argv(), "gcc 13", "tree1"));
        assert_ne!(base, BuildKey::new(&[file("a.cpp", "y")], &argv(), "gcc 13", "tree1"));
        assert_ne!(base, BuildKey::new(&[file("b.cpp", "x")], &argv(), "gcc 13", "tree1"));
        assert_ne!(base, BuildKey::new(&[file("a.cpp", "x")], &argv()[..1], "gcc 13", "tree1"));
        assert_ne!(base, BuildKey::new(&[file("a.cpp", "x")], &argv(), "gcc 14", "tree1"));
        assert_ne!(base, BuildKey::new(&[file("a.cpp", "x")], &argv(), "gcc 13", "tree2"));
    }

    #[test]
    fn field_boundaries_matter_and_file_order_does_not() {
        let split = |a: &str, b: &str| BuildKey::new(&[], &[a.to_string(), b.to_string()], "", "");
        assert_ne!(split("ab", "c"), split("a", "bc"));
        let ab = BuildKey::new(&[file("a", "1"), file("b", "2")], &[], "", "");
        let ba = BuildKey::new(&[file("b", "2"), file("a", "1")], &[], "", "");
        assert_eq!(ab, ba);
    }

    #[test]
    fn display_is_sixteen_hex_chars() {
        let shown = BuildKey::new(&[], &[], "", "").to_string();
        assert_eq!(shown.len(), 16);
        assert!(shown.chars().all(|c| c.is_ascii_hexdigit()), "{shown}");
    }
}
