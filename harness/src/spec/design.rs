//! `Design`: which subsets of the ablation groups an `[ablation]` declares as variants.

use serde::{Deserialize, Serialize};

/// How the ablation groups expand into variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Design {
    /// Every subset of the groups (2^k variants): needed to measure interactions.
    #[default]
    Factorial,
    /// The baseline, each group alone, and all groups together (k + 2 variants).
    OneAtATime,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_deserialises_kebab_case() {
        #[derive(Deserialize)]
        struct Holder {
            design: Design,
        }
        let parsed: Holder = serde_json::from_str(r#"{"design":"one-at-a-time"}"#).unwrap();
        assert_eq!(parsed.design, Design::OneAtATime);
        let parsed: Holder = serde_json::from_str(r#"{"design":"factorial"}"#).unwrap();
        assert_eq!(parsed.design, Design::Factorial);
    }
}
