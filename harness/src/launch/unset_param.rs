//! `[run] unset = { slices = "rule" }`: a param value that leaves its variable or argument out of the
//! run, so the engine's own rule decides. The value renders as a marker; an env entry holding the
//! marker is removed from the run's environment (inherited or not), an argv element holding it is
//! dropped together with the flag right before it (`--slices {{slices}}`).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// What an unset param renders as: no real value holds these bytes.
pub const UNSET_MARKER: &str = "\u{1}unset\u{1}";

/// `params` with every param at its unset value replaced by the marker.
pub fn mark_unset(params: &Map<String, Value>, unset: &BTreeMap<String, String>) -> Map<String, Value> {
    let mut marked = params.clone();
    for (name, value) in unset {
        let at_unset = match params.get(name) {
            Some(Value::String(text)) => text == value,
            Some(Value::Number(number)) => number.to_string() == *value,
            _ => false,
        };
        if at_unset {
            marked.insert(name.clone(), Value::String(UNSET_MARKER.into()));
        }
    }
    marked
}

/// argv without the elements holding the marker, each with the flag before it when it is one.
pub fn drop_unset_args(argv: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::with_capacity(argv.len());
    for arg in argv {
        if !arg.contains(UNSET_MARKER) {
            kept.push(arg);
            continue;
        }
        if !arg.starts_with('-') && kept.last().is_some_and(|flag| flag.starts_with('-') && flag.len() > 1) {
            kept.pop();
        }
    }
    kept
}

/// Env entries holding the marker become removals: `(name, UNSET_MARKER)`, which the executor removes
/// from the child's environment.
pub fn unset_env(env: Vec<(String, String)>) -> Vec<(String, String)> {
    env.into_iter()
        .map(
            |(name, value)| if value.contains(UNSET_MARKER) { (name, UNSET_MARKER.to_string()) } else { (name, value) },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_value_drops_its_flag_and_its_variable() {
        let params: Map<String, Value> = serde_json::from_str(r#"{"slices": "rule", "rows": 512}"#).unwrap();
        let unset = BTreeMap::from([("slices".to_string(), "rule".to_string())]);
        let marked = mark_unset(&params, &unset);
        assert_eq!(marked["slices"], Value::String(UNSET_MARKER.into()));
        assert_eq!(marked["rows"], 512);
        let argv = ["engine", "--rows", "512", "--slices", UNSET_MARKER, "-v"].map(String::from).to_vec();
        assert_eq!(drop_unset_args(argv), ["engine", "--rows", "512", "-v"]);
        let glued = ["engine", &format!("--slices={UNSET_MARKER}")].map(String::from).to_vec();
        assert_eq!(drop_unset_args(glued), ["engine"]);
        let env = vec![("TPE_OVERLAP_SLICES".to_string(), UNSET_MARKER.to_string()), ("A".into(), "1".into())];
        assert_eq!(unset_env(env)[0].1, UNSET_MARKER);
    }

    #[test]
    fn a_forced_value_is_left_alone() {
        let params: Map<String, Value> = serde_json::from_str(r#"{"slices": 4}"#).unwrap();
        let unset = BTreeMap::from([("slices".to_string(), "rule".to_string())]);
        assert_eq!(mark_unset(&params, &unset), params);
    }
}
