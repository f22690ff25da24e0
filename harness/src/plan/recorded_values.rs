//! Values a setting records beside its declared params: the effective rank count when the sweep
//! templates `[engine] ranks` over params.

use serde_json::{Map, Value};

use crate::spec::{ParamValue, Sweep, MAX_RANKS};

/// `values` followed by the recorded extras, in `Sweep::recorded_params` order.
pub fn with_recorded(sweep: &Sweep, mut values: Vec<(String, ParamValue)>) -> Vec<(String, ParamValue)> {
    let context: Map<String, Value> =
        values.iter().map(|(name, value)| (name.clone(), serde_json::to_value(value).unwrap_or(Value::Null))).collect();
    // Every value was rendered when the sweep was loaded, so the count is known to be valid.
    if let Some(Ok(ranks)) = sweep.engine.topology.ranks_for(&context, MAX_RANKS) {
        values.push(("ranks".to_string(), ParamValue::Int(i64::from(ranks))));
    }
    values
}
