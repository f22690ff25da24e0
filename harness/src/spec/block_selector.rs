//! `BlockSelector`: how a profile-metric declaration picks one phase-profile block out of a log.

use serde::{Deserialize, Serialize};

/// How a metric declaration picks one block out of a log.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "select", rename_all = "kebab-case", deny_unknown_fields)]
pub enum BlockSelector {
    /// The `index`-th block (default: the last) of `rank` carrying `tag`.
    ByTag { tag: String, rank: u32, index: Option<usize> },
    /// The block of `rank` (and `tag`, if given) whose `phase` seconds is closest to the run's `result_key`
    /// value, and within `within` of it (relative: 0.05 is 5%).
    Matching { rank: u32, phase: String, result_key: String, within: f64, tag: Option<String> },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selector_deserialises_and_rejects_unknown_fields() {
        let parsed: BlockSelector = serde_json::from_str(
            r#"{"select":"matching","rank":0,"phase":"STACK.r","result_key":"prefill_seconds","within":0.05}"#,
        )
        .unwrap();
        let expected = BlockSelector::Matching {
            rank: 0,
            phase: "STACK.r".to_string(),
            result_key: "prefill_seconds".to_string(),
            within: 0.05,
            tag: None,
        };
        assert_eq!(parsed, expected);
        let by_tag: BlockSelector = serde_json::from_str(r#"{"select":"by-tag","tag":"prefill","rank":0}"#).unwrap();
        assert_eq!(by_tag, BlockSelector::ByTag { tag: "prefill".to_string(), rank: 0, index: None });
        assert!(serde_json::from_str::<BlockSelector>(r#"{"select":"by-tag","tag":"p","rank":0,"idx":1}"#).is_err());
    }
}
