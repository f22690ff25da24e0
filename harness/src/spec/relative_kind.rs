//! How a metric is compared with its baseline partner: as a ratio or as a difference.

use serde::{Deserialize, Serialize};

/// The form a baseline-relative effect is reported in (`[analysis] relative = { m = "ratio" }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RelativeKind {
    /// setting / baseline (e.g. a throughput impact of 1.12, "12% faster").
    Ratio,
    /// setting − baseline on the metric's own scale (e.g. milliseconds saved per round).
    Difference,
}

impl std::fmt::Display for RelativeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RelativeKind::Ratio => "ratio",
            RelativeKind::Difference => "difference",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_and_print_lowercase() {
        let kind: RelativeKind = serde_json::from_str(r#""difference""#).unwrap();
        assert_eq!((kind, kind.to_string()), (RelativeKind::Difference, "difference".to_string()));
        assert!(serde_json::from_str::<RelativeKind>(r#""percent""#).is_err());
    }
}
