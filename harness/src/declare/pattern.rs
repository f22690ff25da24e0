//! `Pattern`: a declared regex (a metric's `pattern`, a service's `ready.log`), compiled when the
//! declaration is read and kept compiled, written back as its text.

use std::fmt;
use std::ops::Deref;

use regex::Regex;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A compiled regex that reads and writes as the text it was compiled from.
#[derive(Debug, Clone)]
pub struct Pattern(Regex);

impl Pattern {
    /// Compiles `text`; the `regex` crate's several-line message is joined into one.
    pub fn parse(text: &str) -> Result<Pattern, String> {
        Regex::new(text).map(Pattern).map_err(|error| {
            let message = error.to_string();
            format!("invalid regex: {}", message.split_whitespace().collect::<Vec<_>>().join(" "))
        })
    }
}

impl Deref for Pattern {
    type Target = Regex;

    fn deref(&self) -> &Regex {
        &self.0
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.as_str())
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Pattern, D::Error> {
        let text = String::deserialize(deserializer)?;
        Pattern::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_reads_and_writes_as_its_text() {
        let pattern: Pattern = serde_json::from_str(r#""tps=(\\S+)""#).unwrap();
        assert!(pattern.is_match("tps=5"));
        assert_eq!(serde_json::to_string(&pattern).unwrap(), r#""tps=(\\S+)""#);
    }

    #[test]
    fn an_invalid_regex_is_one_line() {
        let error = Pattern::parse("tps=([0-9").unwrap_err();
        assert_eq!(error, "invalid regex: regex parse error: tps=([0-9 ^ error: unclosed character class");
    }
}
