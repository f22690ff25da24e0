//! `Expression`: an evalexpr expression over named numbers, compiled once when a declaration is read
//! (derived metrics, checks, derived params, `where` constraints, the equivalence key) and evaluated
//! against a small context of its own names, so a million-row report never tokenises it again.
//! A shared helper with no stage dependency: `declare` holds expressions, `plan`, `extract` and `analyse`
//! evaluate them.

use std::fmt;

use evalexpr::error::EvalexprResultValue;
use evalexpr::{Context, DefaultNumericTypes, EvalexprResult, Node, Value};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A compiled expression, kept with its text (which names it in messages and the sidecar).
#[derive(Debug, Clone, PartialEq)]
pub struct Expression {
    text: String,
    tree: Node<DefaultNumericTypes>,
    /// Every variable it reads, once each, in the order it first reads them.
    names: Vec<String>,
}

impl Expression {
    /// Compiles `text`; the error is evalexpr's reason, on one line.
    pub fn parse(text: &str) -> Result<Expression, String> {
        let tree = evalexpr::build_operator_tree::<DefaultNumericTypes>(text)
            .map_err(|error| format!("invalid expression `{text}`: {error}"))?;
        let mut seen = std::collections::HashSet::new();
        let names =
            tree.iter_read_variable_identifiers().filter(|name| seen.insert(*name)).map(str::to_string).collect();
        Ok(Expression { text: text.to_string(), tree, names })
    }

    /// The expression as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The names it reads.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// An empty set of values for its names, to fill with `Bindings::set` and evaluate with `number_of`.
    pub fn bindings(&self) -> Bindings<'_> {
        Bindings { names: &self.names, values: vec![None; self.names.len()], whole_as_int: false }
    }

    /// Its number with `values` bound by name (as floats, so `/` divides); a later value of a name wins.
    pub fn number<'a>(&self, values: impl IntoIterator<Item = (&'a str, f64)>) -> Result<f64, String> {
        let mut bindings = self.bindings();
        bindings.set_all(values);
        self.number_of(&bindings)
    }

    /// Its number over values bound beforehand (a setting's params once, then each run's metrics).
    pub fn number_of(&self, bindings: &Bindings<'_>) -> Result<f64, String> {
        self.tree.eval_number_with_context(bindings).map_err(|error| error.to_string())
    }

    /// A condition such as `K % 256 == 0` over numbers: whole numbers are bound as integers, because
    /// evalexpr's `==` never equates a float with an integer literal.
    pub fn condition<'a>(&self, values: impl IntoIterator<Item = (&'a str, f64)>) -> Result<bool, String> {
        let mut bindings = Bindings { whole_as_int: true, ..self.bindings() };
        bindings.set_all(values);
        self.tree.eval_boolean_with_context(&bindings).map_err(|error| error.to_string())
    }
}

impl fmt::Display for Expression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Expression {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Expression {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Expression, D::Error> {
        let text = String::deserialize(deserializer)?;
        Expression::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// The values of one expression's names: a slot per name, looked up by a scan of a few names instead
/// of a hash map filled per evaluation.
#[derive(Debug, Clone)]
pub struct Bindings<'e> {
    names: &'e [String],
    values: Vec<Option<Value<DefaultNumericTypes>>>,
    whole_as_int: bool,
}

impl Bindings<'_> {
    /// Binds `name` when the expression reads it (other names are ignored).
    pub fn set(&mut self, name: &str, value: f64) {
        if let Some(slot) = self.names.iter().position(|known| known == name) {
            self.set_at(slot, Some(value));
        }
    }

    /// Binds (or with `None` unbinds) the `slot`-th of the expression's `names`.
    pub fn set_at(&mut self, slot: usize, value: Option<f64>) {
        self.values[slot] = value.map(|value| self.bind(value));
    }

    pub fn set_all<'a>(&mut self, values: impl IntoIterator<Item = (&'a str, f64)>) {
        for (name, value) in values {
            self.set(name, value);
        }
    }

    fn bind(&self, value: f64) -> Value<DefaultNumericTypes> {
        if self.whole_as_int && value.fract() == 0.0 && value.abs() < 9.0e15 {
            Value::Int(value as i64)
        } else {
            Value::Float(value)
        }
    }
}

impl Context for Bindings<'_> {
    type NumericTypes = DefaultNumericTypes;

    fn get_value(&self, identifier: &str) -> Option<&Value<DefaultNumericTypes>> {
        let index = self.names.iter().position(|name| name == identifier)?;
        self.values[index].as_ref()
    }

    /// No functions of our own: evalexpr's builtins (`if`, `ceil`, `min`, ...) are all there is.
    fn call_function(
        &self,
        identifier: &str,
        _argument: &Value<DefaultNumericTypes>,
    ) -> EvalexprResultValue<DefaultNumericTypes> {
        Err(evalexpr::EvalexprError::FunctionIdentifierNotFound(identifier.to_string()))
    }

    fn are_builtin_functions_disabled(&self) -> bool {
        false
    }

    fn set_builtin_functions_disabled(&mut self, disabled: bool) -> EvalexprResult<(), DefaultNumericTypes> {
        match disabled {
            false => Ok(()),
            true => Err(evalexpr::EvalexprError::BuiltinFunctionsCannotBeDisabled),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expression(text: &str) -> Expression {
        Expression::parse(text).unwrap()
    }

    /// Bound as floats, `K % 256 == 0` was false for K = 512: evalexpr's `==` says 0.0 != 0.
    #[test]
    fn a_condition_compares_whole_numbers_with_integer_literals() {
        assert_eq!(expression("K % 256 == 0").condition([("K", 512.0)]), Ok(true));
        assert_eq!(expression("K % 256 == 0").condition([("K", 300.0)]), Ok(false));
        assert_eq!(expression("x > 0.25").condition([("x", 0.5)]), Ok(true));
    }

    #[test]
    fn a_number_divides_as_floats() {
        assert_eq!(expression("ceil(M / 128) * 128").number([("M", 5416.0)]), Ok(5504.0));
    }

    #[test]
    fn names_are_listed_once_and_a_later_value_wins() {
        let expression = expression("if(rows / slices < 96, 1, slices)");
        assert_eq!(expression.names(), ["rows", "slices"]);
        assert_eq!(expression.number([("rows", 512.0), ("slices", 2.0), ("slices", 8.0)]), Ok(1.0));
    }

    #[test]
    fn bindings_are_filled_once_and_evaluated_many_times() {
        let expression = expression("a * b");
        let mut bindings = expression.bindings();
        bindings.set("a", 3.0);
        for b in [1.0, 2.0] {
            bindings.set("b", b);
            assert_eq!(expression.number_of(&bindings), Ok(3.0 * b));
        }
    }

    #[test]
    fn an_unbound_name_is_an_error_naming_it() {
        let error = expression("missing * 2").number([("other", 1.0)]).unwrap_err();
        assert!(error.contains("missing"), "{error}");
    }

    #[test]
    fn it_reads_and_writes_as_its_text() {
        let parsed: Expression = serde_json::from_str(r#""ceil(M / 128) * 128""#).unwrap();
        assert_eq!(serde_json::to_string(&parsed).unwrap(), r#""ceil(M / 128) * 128""#);
        let error = serde_json::from_str::<Expression>(r#""(a""#).unwrap_err().to_string();
        assert!(error.starts_with("invalid expression `(a`"), "{error}");
    }
}
