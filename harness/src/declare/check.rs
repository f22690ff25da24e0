//! `Check`: a `[[checks]]` entry as loading makes it, one of its two forms with both sides compiled.

use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::CheckDecl;
use crate::expression::Expression;
use crate::template::Template;

/// A run fails unless the check holds: exactly, or within the relative tolerance `within`
/// (|actual − expected| ≤ within · |expected|).
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub test: CheckTest,
    pub within: Option<f64>,
}

/// What a check compares.
#[derive(Debug, Clone, PartialEq)]
pub enum CheckTest {
    /// A metric equals a template over the run's context, e.g. reported `rows` == `{{rows}}`.
    Metric { metric: String, equals: Template },
    /// An expression over metrics and params equals another, e.g.
    /// `prefill_tokens_per_s * prefill_seconds` == `rows`.
    Expression { expr: Expression, equals: Expression },
}

impl Check {
    /// Compiles the `equals` side of `checks[index]`, as written in `source`.
    pub fn of(source: &SourceFile, index: usize, decl: &CheckDecl) -> Result<Check, SpecError> {
        let key = |field: &str| format!("checks[{index}]{field}");
        let test = match (&decl.metric, &decl.expr) {
            (Some(metric), None) => {
                let equals = Template::parse(&decl.equals).map_err(|error| {
                    source.error_at(&key(".equals"), format!("bad template `{}`: {error}", decl.equals))
                })?;
                CheckTest::Metric { metric: metric.clone(), equals }
            }
            (None, Some(expr)) => {
                let equals =
                    Expression::parse(&decl.equals).map_err(|error| source.error_at(&key(".equals"), error))?;
                CheckTest::Expression { expr: expr.clone(), equals }
            }
            _ => {
                let message = "give either `metric` (with `equals` a template) or `expr` (with `equals` an expression)";
                return Err(source.error_at(&key(""), message));
            }
        };
        Ok(Check { test, within: decl.within })
    }

    /// How messages name the check: its metric, or its expression as written.
    pub fn name(&self) -> &str {
        match &self.test {
            CheckTest::Metric { metric, .. } => metric,
            CheckTest::Expression { expr, .. } => expr.text(),
        }
    }
}
