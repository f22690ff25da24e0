//! JSON helpers shared by `analysis.json`'s parts: a setting, or a group's labels, as a JSON object.

use serde_json::Value;

use crate::declare::ParamValue;
use crate::plan::{Setting, DEFAULT_VARIANT};

/// `{"rows": 512, "slices": 1}`: param -> typed value; the variant only when it is not the default.
pub fn setting_object(setting: &Setting) -> Value {
    let mut map = setting.context();
    if setting.variant != DEFAULT_VARIANT {
        map.insert("variant".into(), setting.variant.clone().into());
    }
    Value::Object(map)
}

/// `{"rows": 512}`: a group's labels, param -> typed value.
pub fn labels_object(labels: &[(String, ParamValue)]) -> Value {
    Value::Object(crate::plan::labels_object(labels))
}
