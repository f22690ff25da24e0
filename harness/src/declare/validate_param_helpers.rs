//! Checks the param helpers at load: derived params and `where` constraints are expressions over
//! numeric params (a text or boolean param is refused here, never found at run time).

use super::param_tables::DerivedParam;
use super::param_value::Param;
use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::RESERVED_NAMES;
use crate::expression::Expression;

pub fn derived(source: &SourceFile, derived: &[DerivedParam], params: &[Param]) -> Result<(), SpecError> {
    for (index, param) in derived.iter().enumerate() {
        let key = format!("params.derived.{}", param.name);
        if RESERVED_NAMES.contains(&param.name.as_str()) || params.iter().any(|p| p.name == param.name) {
            return Err(source.error_at(&key, format!("`{}` is already a parameter or a harness name", param.name)));
        }
        let earlier: Vec<&str> = derived[..index].iter().map(|d| d.name.as_str()).collect();
        numeric_expression(source, &key, &param.expression, params, &earlier)?;
    }
    Ok(())
}

/// Each `where` constraint is a numeric expression over params and derived params.
pub fn constraints(
    source: &SourceFile,
    constraints: &[Expression],
    params: &[Param],
    derived: &[DerivedParam],
) -> Result<(), SpecError> {
    let derived: Vec<&str> = derived.iter().map(|d| d.name.as_str()).collect();
    for (index, expression) in constraints.iter().enumerate() {
        numeric_expression(source, &format!("where[{index}]"), expression, params, &derived)?;
    }
    Ok(())
}

fn numeric_expression(
    source: &SourceFile,
    key: &str,
    expression: &Expression,
    params: &[Param],
    derived: &[&str],
) -> Result<(), SpecError> {
    for name in expression.names() {
        match params.iter().find(|param| param.name == *name) {
            Some(param) if !param.values.iter().all(|value| value.as_f64().is_some()) => {
                let message =
                    format!("`{name}` is not numeric: expressions are over numbers (compare it in a value map)");
                return Err(source.error_at(key, message));
            }
            Some(_) => {}
            None if derived.contains(&name.as_str()) => {}
            None => return Err(source.error_at(key, format!("unknown parameter `{name}` in `{expression}`"))),
        }
    }
    Ok(())
}
