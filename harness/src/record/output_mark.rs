//! `OutputMark`: the mark sweep writes into every summary, page, plot and analysis of a result, naming the
//! sweep it belongs to (a digest of its fingerprint). A file at one of those paths is replaced only when it
//! carries the same sweep's mark: never a user's file, never another sweep's.

use std::fs;
use std::path::Path;

use super::sweep_fingerprint::SweepFingerprint;

/// What marks a result's derived files as written for one sweep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputMark {
    digest: String,
}

/// The key of the mark in a JSON file (`analysis.json`).
const JSON_KEY: &str = "sweep_result";

impl OutputMark {
    pub fn of(fingerprint: &SweepFingerprint) -> OutputMark {
        OutputMark { digest: fingerprint.digest() }
    }

    /// `text` with the mark added in the syntax of `path`'s kind: a top-level key of a JSON object, else
    /// a trailing comment (markdown, HTML and SVG all read `<!-- ... -->` as one).
    pub fn marked(&self, path: &Path, text: &str) -> String {
        if path.extension().is_some_and(|extension| extension == "json") {
            if let Ok(serde_json::Value::Object(mut object)) = serde_json::from_str(text) {
                object.insert(JSON_KEY.to_string(), self.digest.clone().into());
                return serde_json::to_string_pretty(&object).expect("a JSON object serialises");
            }
        }
        let separator = if text.ends_with('\n') { "" } else { "\n" };
        format!("{text}{separator}{}\n", self.comment())
    }

    /// Why the file at `path` may not be replaced by this sweep's, if it may not: it exists and is not a
    /// regular file carrying this mark.
    pub fn replace_refusal(&self, path: &Path) -> Option<String> {
        let meta = fs::symlink_metadata(path).ok()?;
        if !meta.is_file() {
            return Some(format!("{} exists and is not a regular file", path.display()));
        }
        let text = crate::read_limit::ReadLimit::OUTPUT.read_to_string(path).unwrap_or_default();
        let json_mark = format!("\"{JSON_KEY}\": \"{}\"", self.digest);
        if text.contains(&self.comment()) || text.contains(&json_mark) {
            return None;
        }
        let whose = if text.contains("sweep-result: ") || text.contains(&format!("\"{JSON_KEY}\"")) {
            "another sweep's"
        } else {
            "not one sweep wrote for this result"
        };
        Some(format!("{} exists and is {whose}", path.display()))
    }

    fn comment(&self) -> String {
        format!("<!-- sweep-result: {} -->", self.digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(name: &str) -> OutputMark {
        let fingerprint = SweepFingerprint {
            name: name.into(),
            params: vec![],
            param_columns: vec![],
            metrics: vec!["t".into()],
            declaration: "d".into(),
        };
        OutputMark::of(&fingerprint)
    }

    #[test]
    fn a_marked_file_is_replaced_only_by_the_same_sweep() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["s.summary.md", "s.html", "s.svg", "s.analysis.json"] {
            let path = dir.path().join(name);
            assert_eq!(mark("a").replace_refusal(&path), None, "an absent file is written");
            fs::write(&path, mark("a").marked(&path, "{\n  \"alpha\": 0.05\n}")).unwrap();
            assert_eq!(mark("a").replace_refusal(&path), None, "{name}");
            assert!(mark("b").replace_refusal(&path).unwrap().contains("another sweep's"), "{name}");
            fs::write(&path, "precious").unwrap();
            assert!(mark("a").replace_refusal(&path).unwrap().contains("not one sweep wrote"), "{name}");
        }
        let json: serde_json::Value =
            serde_json::from_str(&mark("a").marked(Path::new("x.json"), "{\"alpha\": 0.05}")).unwrap();
        assert_eq!(json["alpha"], 0.05);
    }
}
