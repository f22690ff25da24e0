//! `SelectorText`: a selector as a declaration writes it, a string or a `{ begin, end }` table.

use serde::{Deserialize, Serialize};

/// The written form `Selector` is deserialized from (and serialized back to, e.g. in a sidecar).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(
    untagged,
    expecting = "expected a selector: FIRST-LAST, a regex, BEGIN..END, or { begin = '...', end = '...' }"
)]
pub enum SelectorText {
    /// `FIRST-LAST`, `BEGIN..END` or a regex, as on the command line.
    Written(String),
    /// Begin and end regexes, for markers whose text contains `..`.
    Markers { begin: String, end: String },
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::spec::Selector;

    #[test]
    fn both_written_forms_parse_and_serialize_back_as_written() {
        let text = r#"
            range = "120-128"
            calls = '^\s*broadcast_rows\('
            loop = { begin = 'for \(', end = '^\s*\}' }
        "#;
        let groups: BTreeMap<String, Selector> = toml::from_str(text).unwrap();
        assert!(matches!(groups["range"], Selector::Lines { first: 120, last: 128 }));
        assert!(matches!(groups["calls"], Selector::Matching(_)));
        assert_eq!(groups["loop"].to_string(), r"for \(..^\s*\}");
        let back: BTreeMap<String, Selector> = toml::from_str(&toml::to_string(&groups).unwrap()).unwrap();
        let shown = |map: &BTreeMap<String, Selector>| map.values().map(Selector::to_string).collect::<Vec<_>>();
        assert_eq!(shown(&back), shown(&groups));
    }

    #[test]
    fn a_bad_regex_or_shape_is_a_deserialization_error_naming_it() {
        let error = toml::from_str::<BTreeMap<String, Selector>>("g = 'call('").unwrap_err().to_string();
        assert!(error.contains("selector `call(`: invalid regex"), "{error}");
        let error = toml::from_str::<BTreeMap<String, Selector>>("g = 5").unwrap_err().to_string();
        assert!(error.contains("expected a selector"), "{error}");
    }
}
