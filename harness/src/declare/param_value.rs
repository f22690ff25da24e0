//! One value of a swept parameter, and a parameter with all its values.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A scalar from the `[params]` table. Settings compare by typed value: `1`, `1.0` and `"1"` differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl ParamValue {
    /// Converts a TOML scalar; `None` for arrays, tables and datetimes.
    pub fn from_toml(value: &toml::Value) -> Option<Self> {
        match value {
            toml::Value::Integer(i) => Some(ParamValue::Int(*i)),
            toml::Value::Float(f) => Some(ParamValue::Float(*f)),
            toml::Value::Boolean(b) => Some(ParamValue::Bool(*b)),
            toml::Value::String(s) => Some(ParamValue::Text(s.clone())),
            _ => None,
        }
    }

    /// `text` read as a value of the same type as `self` (`8` and `8.0` both read as the float 8 when
    /// `self` is a float); `None` when it is not one. Used to type CSV cells and `--filter` values.
    pub fn parse_like(&self, text: &str) -> Option<ParamValue> {
        match self {
            ParamValue::Int(_) => text.parse().ok().map(ParamValue::Int),
            ParamValue::Float(_) => text.parse().ok().map(ParamValue::Float),
            ParamValue::Bool(_) => text.parse().ok().map(ParamValue::Bool),
            ParamValue::Text(_) => Some(ParamValue::Text(text.to_string())),
        }
    }

    /// `text` typed without a declaration: an integer, else a float, else text.
    pub fn infer(text: &str) -> ParamValue {
        let number = text.parse().map(ParamValue::Int).or_else(|_| text.parse().map(ParamValue::Float));
        number.unwrap_or_else(|_| ParamValue::Text(text.to_string()))
    }

    /// `text` typed by the values a parameter declares: the declared value it spells, else a value of
    /// the first declared value's type, else inferred.
    pub fn typed_by(declared: &[ParamValue], text: &str) -> ParamValue {
        declared
            .iter()
            .find_map(|value| value.parse_like(text).filter(|typed| typed == value))
            .or_else(|| declared.first().and_then(|value| value.parse_like(text)))
            .unwrap_or_else(|| ParamValue::infer(text))
    }

    /// The value as a declaration writes it, so values that print alike are told apart: text quoted,
    /// a float with its point (`"1"`, `1.0`, `1`).
    pub fn written(&self) -> String {
        match self {
            ParamValue::Float(x) => format!("{x:?}"),
            ParamValue::Text(text) => format!("{text:?}"),
            other => other.to_string(),
        }
    }

    /// The value as a number, for fits and plots; `None` for text and booleans.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Int(i) => Some(*i as f64),
            ParamValue::Float(x) => Some(*x),
            ParamValue::Bool(_) | ParamValue::Text(_) => None,
        }
    }

    /// Whether `text` names this value as a formula writes it: its printed text, or the same number
    /// (`4` is `4.0`).
    pub fn is_written(&self, text: &str) -> bool {
        self.to_string() == text || self.as_f64().zip(text.parse::<f64>().ok()).is_some_and(|(a, b)| a == b)
    }

    /// The text of a text value (a variant name); `None` for numbers and booleans.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ParamValue::Text(text) => Some(text),
            _ => None,
        }
    }
}

/// Non-finite floats are refused at load, so equality is reflexive for every value a sweep holds.
impl Eq for ParamValue {}

/// Consistent with `==`: a float hashes by its bits, with −0.0 as 0.0 (they compare equal).
impl std::hash::Hash for ParamValue {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            ParamValue::Int(i) => i.hash(state),
            ParamValue::Float(x) => (if *x == 0.0 { 0.0f64 } else { *x }).to_bits().hash(state),
            ParamValue::Bool(b) => b.hash(state),
            ParamValue::Text(t) => t.hash(state),
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Text(s) => f.write_str(s),
        }
    }
}

/// A parameter and the values the sweep gives it (one value for a scalar).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub values: Vec<ParamValue>,
    /// Written as a list (a scalar cannot join a zip group).
    pub is_list: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_back_as_the_declared_type() {
        let declared = [ParamValue::Float(1.0), ParamValue::Float(2.5)];
        assert_eq!(ParamValue::typed_by(&declared, "1"), ParamValue::Float(1.0));
        assert_eq!(ParamValue::typed_by(&[ParamValue::Text("1".into())], "1"), ParamValue::Text("1".into()));
        assert_eq!(ParamValue::typed_by(&[ParamValue::Int(1)], "1"), ParamValue::Int(1));
        let mixed = [ParamValue::Int(4), ParamValue::Text("auto".into())];
        assert_eq!(ParamValue::typed_by(&mixed, "auto"), ParamValue::Text("auto".into()));
        assert_eq!(ParamValue::typed_by(&mixed, "4"), ParamValue::Int(4));
    }

    #[test]
    fn without_a_declaration_cells_are_inferred() {
        assert_eq!(ParamValue::typed_by(&[], "8"), ParamValue::Int(8));
        assert_eq!(ParamValue::typed_by(&[], "0.5"), ParamValue::Float(0.5));
        assert_eq!(ParamValue::typed_by(&[], "fast"), ParamValue::Text("fast".into()));
    }

    #[test]
    fn one_int_float_and_text_are_three_values_that_print_alike() {
        let values = [ParamValue::Int(1), ParamValue::Float(1.0), ParamValue::Text("1".into())];
        assert!(values.iter().all(|v| v.to_string() == "1"));
        assert!(values[0] != values[1] && values[1] != values[2] && values[0] != values[2]);
    }

    #[test]
    fn json_round_trip_keeps_the_type() {
        let values =
            vec![ParamValue::Int(1), ParamValue::Float(1.0), ParamValue::Bool(true), ParamValue::Text("1".into())];
        let json = serde_json::to_string(&values).unwrap();
        assert_eq!(json, r#"[1,1.0,true,"1"]"#);
        assert_eq!(serde_json::from_str::<Vec<ParamValue>>(&json).unwrap(), values);
    }
}
