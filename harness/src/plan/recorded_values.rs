//! Values a setting records beside its declared params (its derived params, and the effective rank
//! count when the sweep templates `[engine] ranks`), and the `where` constraints that admit it.

use super::plan_error::PlanError;
use super::setting::{labels_joined, labels_object};
use crate::declare::{ParamValue, Sweep, MAX_RANKS};
use crate::expression::Expression;

/// `values` followed by the derived params and the rank count, in `Sweep::recorded_params` order.
pub fn with_recorded(
    sweep: &Sweep,
    mut values: Vec<(String, ParamValue)>,
) -> Result<Vec<(String, ParamValue)>, PlanError> {
    for derived in &sweep.derived {
        let number = evaluate(sweep, &format!("params.derived.{}", derived.name), &derived.expression, &values)?;
        values.push((derived.name.clone(), as_param_value(number)));
    }
    // Every value was rendered when the sweep was loaded, so the count is known to be valid.
    if let Some(Ok(ranks)) = sweep.engine.topology.ranks_for(&labels_object(&values), MAX_RANKS) {
        values.push(("ranks".to_string(), ParamValue::Int(i64::from(ranks))));
    }
    Ok(values)
}

/// Whether every `where` constraint holds for `values`.
pub fn admitted(sweep: &Sweep, values: &[(String, ParamValue)]) -> Result<bool, PlanError> {
    for (key, constraint) in sweep.constraints.keyed() {
        if !constraint.condition(numbers(values)).map_err(|message| expression_at(sweep, &key, values, message))? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A derived param's value at one setting: a finite number (an infinite or NaN value would be passed to
/// every run of the setting as `inf` or `NaN`).
fn evaluate(
    sweep: &Sweep,
    key: &str,
    expression: &Expression,
    values: &[(String, ParamValue)],
) -> Result<f64, PlanError> {
    let number = expression.number(numbers(values)).map_err(|message| expression_at(sweep, key, values, message))?;
    if !number.is_finite() {
        let message = format!("`{expression}` is {number}, not a finite number");
        return Err(expression_at(sweep, key, values, message));
    }
    Ok(number)
}

/// The values that are numbers, by name: what expressions read.
fn numbers(values: &[(String, ParamValue)]) -> impl Iterator<Item = (&str, f64)> {
    values.iter().filter_map(|(name, value)| value.as_f64().map(|number| (name.as_str(), number)))
}

fn expression_at(sweep: &Sweep, key: &str, values: &[(String, ParamValue)], message: String) -> PlanError {
    PlanError::Expression { location: sweep.source.location(key, None), setting: labels_joined(values, " "), message }
}

/// A whole number is recorded as an integer (`4096`, not `4096.0`), so templates render it as a count.
fn as_param_value(number: f64) -> ParamValue {
    if number.fract() == 0.0 && number.abs() < 9.0e15 {
        ParamValue::Int(number as i64)
    } else {
        ParamValue::Float(number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_are_recorded_as_integers() {
        assert_eq!(as_param_value(4096.0), ParamValue::Int(4096));
        assert_eq!(as_param_value(0.5), ParamValue::Float(0.5));
    }
}
