//! One value of a swept parameter, and a parameter with all its values.

use std::fmt;

use serde::Serialize;

/// A scalar from the `[params]` table.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Param {
    pub name: String,
    pub values: Vec<ParamValue>,
    /// Written as a list (a scalar cannot join a zip group).
    pub is_list: bool,
}
