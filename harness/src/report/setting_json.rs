//! JSON helpers shared by `analysis.json`'s parts: a setting's labels as a JSON object.

use serde_json::{Map, Value};

use crate::analyse::Labels;
use crate::plan::DEFAULT_VARIANT;

/// `{"rows": 512, "slices": 1}`: param -> typed value; the variant only when it is not the default.
pub fn setting_object(labels: &Labels) -> Value {
    let map: Map<String, Value> = labels
        .iter()
        .filter(|(name, value)| !(name == "variant" && value.as_text() == Some(DEFAULT_VARIANT)))
        .map(|(name, value)| (name.clone(), serde_json::to_value(value).unwrap_or(Value::Null)))
        .collect();
    Value::Object(map)
}
