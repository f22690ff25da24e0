//! Expressions over named numbers (evalexpr), the one evaluator for derived metrics, checks, derived
//! params and grid constraints: a shared helper with no stage dependency, so `plan` and `extract` both use it.

/// The number an evalexpr expression gives with `values` bound by name (as floats, so `/` divides).
pub fn evaluate_number<'a>(expression: &str, values: impl IntoIterator<Item = (&'a str, f64)>) -> Result<f64, String> {
    let context = expression_context(values, evalexpr::Value::Float)?;
    evalexpr::eval_number_with_context(expression, &context).map_err(|error| error.to_string())
}

/// A condition such as `K % 256 == 0` over numbers: whole numbers are bound as integers, because
/// evalexpr's `==` never equates a float with an integer literal.
pub fn evaluate_condition<'a>(
    expression: &str,
    values: impl IntoIterator<Item = (&'a str, f64)>,
) -> Result<bool, String> {
    let context = expression_context(values, |value| match value.fract() == 0.0 && value.abs() < 9.0e15 {
        true => evalexpr::Value::Int(value as i64),
        false => evalexpr::Value::Float(value),
    })?;
    evalexpr::eval_boolean_with_context(expression, &context).map_err(|error| error.to_string())
}

fn expression_context<'a>(
    values: impl IntoIterator<Item = (&'a str, f64)>,
    bind: impl Fn(f64) -> evalexpr::Value,
) -> Result<evalexpr::HashMapContext, String> {
    use evalexpr::ContextWithMutableVariables;
    let mut context = evalexpr::HashMapContext::<evalexpr::DefaultNumericTypes>::new();
    for (name, value) in values {
        context.set_value(name.to_string(), bind(value)).map_err(|error| error.to_string())?;
    }
    Ok(context)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bound as floats, `K % 256 == 0` was false for K = 512: evalexpr's `==` says 0.0 != 0.
    #[test]
    fn a_condition_compares_whole_numbers_with_integer_literals() {
        assert_eq!(evaluate_condition("K % 256 == 0", [("K", 512.0)]), Ok(true));
        assert_eq!(evaluate_condition("K % 256 == 0", [("K", 300.0)]), Ok(false));
        assert_eq!(evaluate_condition("x > 0.25", [("x", 0.5)]), Ok(true));
    }

    #[test]
    fn a_number_divides_as_floats() {
        assert_eq!(evaluate_number("ceil(M / 128) * 128", [("M", 5416.0)]), Ok(5504.0));
    }
}
