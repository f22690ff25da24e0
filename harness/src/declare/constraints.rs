//! `Constraints`: the `where` constraints of a sweep, checked to read only numeric params.

use super::param_tables::DerivedParam;
use super::param_value::Param;
use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::validate::numeric_expression;
use crate::expression::Expression;

/// The grid's constraints: a setting is planned only when every expression holds (`K % 256 == 0`).
#[derive(Debug, Clone, Default)]
pub struct Constraints {
    expressions: Vec<Expression>,
}

impl Constraints {
    /// Each `where` constraint is a numeric expression over params and derived params.
    pub fn check(
        source: &SourceFile,
        constraints: &[Expression],
        params: &[Param],
        derived: &[DerivedParam],
    ) -> Result<Self, SpecError> {
        let derived: Vec<&str> = derived.iter().map(|d| d.name.as_str()).collect();
        for (index, expression) in constraints.iter().enumerate() {
            numeric_expression(source, &Self::key(index), expression, params, &derived)?;
        }
        Ok(Constraints { expressions: constraints.to_vec() })
    }

    /// The constraints with the key each is declared at (`where[0]`), in declaration order.
    pub fn keyed(&self) -> impl Iterator<Item = (String, &Expression)> {
        self.expressions.iter().enumerate().map(|(index, expression)| (Self::key(index), expression))
    }

    fn key(index: usize) -> String {
        format!("where[{index}]")
    }
}
