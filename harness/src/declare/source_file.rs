//! A declaration file's text, parsed with errors that point at the file, key path and line.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use toml::de::{DeArray, DeTable, DeValue};

use super::spec_error::{Location, SpecError};
use crate::read_limit::ReadLimit;

/// The text of one TOML declaration (a sweep or an engine profile) and where it came from.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
}

impl SourceFile {
    pub fn read(path: &Path) -> Result<Self, SpecError> {
        let text = ReadLimit::DECLARATION
            .read_to_string(path)
            .map_err(|source| SpecError::Unreadable { file: path.to_path_buf(), source })?;
        Ok(SourceFile { path: path.to_path_buf(), text })
    }

    /// Deserializes the whole file; a type or unknown-key error names the key path and its line, and so
    /// does a key or string holding a NUL byte.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, SpecError> {
        let deserializer =
            toml::Deserializer::parse(&self.text).map_err(|error| self.toml_error(String::new(), &error))?;
        self.refuse_nul()?;
        serde_path_to_error::deserialize(deserializer).map_err(|error| {
            // serde_path_to_error prints `.` for the root and `?` for untracked segments: noise here.
            let key = match error.path().to_string() {
                root if root == "." => String::new(),
                path => path.replace(".?", "").trim_start_matches('?').to_string(),
            };
            self.toml_error(key, error.inner())
        })
    }

    /// A TOML string may spell a NUL byte (`"\u0000"`), which no program argument, environment variable
    /// or path can hold: every run given it would fail to start, so the first one is refused here.
    fn refuse_nul(&self) -> Result<(), SpecError> {
        let Ok(document) = DeTable::parse(&self.text) else { return Ok(()) };
        match first_nul(document.get_ref(), "") {
            None => Ok(()),
            Some((key, offset)) => Err(SpecError::Invalid {
                location: self.location(&key.replace('\0', "\\u0000"), Some(line_of_offset(&self.text, offset))),
                message: "holds a NUL byte (\\u0000), which no program argument, environment variable or path \
                          can hold: every run would fail"
                    .to_string(),
            }),
        }
    }

    /// An error at `key` (dotted path, `[i]` for array elements), located on the key's line.
    pub fn error_at(&self, key: &str, message: impl Into<String>) -> SpecError {
        SpecError::Invalid { location: self.location(key, None), message: message.into() }
    }

    fn toml_error(&self, key: String, error: &toml::de::Error) -> SpecError {
        let line = error.span().map(|span| line_of_offset(&self.text, span.start));
        let (key, message) = plain_words(key, error.message().trim());
        SpecError::Invalid { location: self.location(&key, line), message }
    }

    pub fn location(&self, key: &str, line: Option<usize>) -> Location {
        let line = line.or_else(|| self.line_of_key(key));
        Location { file: self.path.clone(), line, key: key.to_string() }
    }

    /// The line where `key` (`metrics.regex.x`, `checks[1].metric`) is written, walking the document's
    /// spans segment by segment; a key that is not there is located at its deepest existing parent.
    fn line_of_key(&self, key: &str) -> Option<usize> {
        let document = DeTable::parse(&self.text).ok()?;
        let mut span = document.span();
        let (mut table, mut array) = (Some(document.get_ref()), None);
        for segment in key.split(['.', '[']).filter(|segment| !segment.is_empty()) {
            let found = match segment.strip_suffix(']').and_then(|index| index.parse::<usize>().ok()) {
                Some(index) => {
                    array.and_then(|array: &DeArray<'_>| array.get(index)).map(|found| (found.span(), found))
                }
                None => table
                    .and_then(|table| table.iter().find(|(name, _)| name.get_ref() == segment))
                    .map(|(name, found)| (name.span(), found)),
            };
            let Some((at, found)) = found else { break };
            span = at;
            (table, array) = (found.get_ref().as_table(), found.get_ref().as_array());
        }
        Some(line_of_offset(&self.text, span.start))
    }
}

/// Says serde's "field", "variant" and Rust type names in the words of a declaration; a missing key
/// joins the key path instead of hiding in the message.
fn plain_words(key: String, message: &str) -> (String, String) {
    if let Some(field) = message.strip_prefix("missing field `").and_then(|rest| rest.strip_suffix('`')) {
        let key = if key.is_empty() { field.to_string() } else { format!("{key}.{field}") };
        return (key, "missing required key".to_string());
    }
    if let Some(message) = near_unknown(message) {
        return (key, message);
    }
    let mut message =
        message.replace("unknown field `", "unknown key `").replace("unknown variant `", "unknown value `");
    for (rust, plain) in [
        ("expected u32", "expected a whole number"),
        ("expected u64", "expected a whole number"),
        ("expected usize", "expected a whole number"),
        ("expected i64", "expected an integer"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected a list"),
        ("expected a map", "expected a table"),
    ] {
        if let Some(prefix) = message.strip_suffix(rust) {
            message = format!("{prefix}{plain}");
        }
    }
    if let Some(start) = message.find("expected struct ") {
        message = format!("{}expected a table", &message[..start]);
    }
    (key, message)
}

/// serde's "unknown field `grup_by`, expected one of `primary`, `group_by`" as "unknown key `grup_by`;
/// did you mean `group_by`?" when one expected name is near (values alike); `None` when none is.
fn near_unknown(message: &str) -> Option<String> {
    let prefixes = [("key", "unknown field `"), ("value", "unknown variant `")];
    let (kind, rest) = prefixes.into_iter().find_map(|(kind, prefix)| Some((kind, message.strip_prefix(prefix)?)))?;
    let (name, expected) = rest.split_once('`')?;
    let candidates = expected.split('`').skip(1).step_by(2);
    let near = super::near_name::near_name(name, candidates)?;
    Some(format!("unknown {kind} `{name}`; did you mean `{near}`?"))
}

/// The key path and byte offset of the first key or string value under `table` (at `prefix`) that holds
/// a NUL byte.
fn first_nul(table: &DeTable<'_>, prefix: &str) -> Option<(String, usize)> {
    table.iter().find_map(|(name, value)| {
        let key = if prefix.is_empty() { name.get_ref().to_string() } else { format!("{prefix}.{}", name.get_ref()) };
        if name.get_ref().contains('\0') {
            return Some((key, name.span().start));
        }
        first_nul_in(value.get_ref(), key, value.span().start)
    })
}

/// `first_nul` of one value at `key`, which starts at `offset`.
fn first_nul_in(value: &DeValue<'_>, key: String, offset: usize) -> Option<(String, usize)> {
    match value {
        DeValue::String(text) if text.contains('\0') => Some((key, offset)),
        DeValue::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(index, item)| first_nul_in(item.get_ref(), format!("{key}[{index}]"), item.span().start)),
        DeValue::Table(table) => first_nul(table, &key),
        _ => None,
    }
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> SourceFile {
        SourceFile { path: PathBuf::from("sweeps/x.toml"), text: text.to_string() }
    }

    #[test]
    fn finds_the_line_of_nested_keys_and_array_elements() {
        let file =
            source("name = \"x\"\n\n[reps]\ncount = 3\n\n[[checks]]\nmetric = \"a\"\n\n[[checks]]\nmetric = \"b\"\n");
        assert_eq!(file.line_of_key("reps.count"), Some(4));
        assert_eq!(file.line_of_key("checks[1].metric"), Some(10));
        assert_eq!(file.line_of_key("name"), Some(1));
    }

    #[test]
    fn an_unknown_key_near_an_expected_one_is_suggested() {
        let message = "unknown field `grup_by`, expected one of `primary`, `group_by`, `control`";
        assert_eq!(plain_words("analysis".into(), message).1, "unknown key `grup_by`; did you mean `group_by`?");
        let far = "unknown field `colour`, expected `primary`";
        assert_eq!(plain_words(String::new(), far).1, "unknown key `colour`, expected `primary`");
        let variant = "unknown variant `interleave`, expected `interleaved` or `blocked`";
        assert_eq!(plain_words(String::new(), variant).1, "unknown value `interleave`; did you mean `interleaved`?");
    }

    #[test]
    fn check_refuses_a_nul_byte_in_a_param_or_env_value_naming_its_key_and_line() {
        for (text, shown) in [
            ("name = \"x\"\n[params]\na = [\"1\", \"2\\u0000\"]\n", "sweeps/x.toml:3: `params.a[1]`"),
            ("[run.env]\nOK = \"1\"\nMODE = \"fast\\u0000\"\n", "sweeps/x.toml:3: `run.env.MODE`"),
            ("[run.env]\n\"M\\u0000\" = \"1\"\n", "sweeps/x.toml:2: `run.env.M\\u0000`"),
        ] {
            let error = source(text).parse::<toml::Table>().unwrap_err().to_string();
            assert!(error.starts_with(shown) && error.contains("holds a NUL byte"), "{error}");
        }
        assert!(source("[run.env]\nMODE = \"fast\"\n").parse::<toml::Table>().is_ok());
    }

    #[test]
    fn a_missing_key_falls_back_to_its_deepest_existing_parent() {
        let file = source("[reps]\ncount = 3\n");
        assert_eq!(file.line_of_key("reps.order"), Some(1));
    }
}
