//! `ParamTables`: `[params]` split by kind: plain values (a list or a scalar), the `[params.derived]`
//! expressions, and value maps (`[params.tbo]`, whose keys are the values).

use serde::Serialize;

use super::param_value::{Param, ParamValue};
use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::RunDecl;
use crate::expression::Expression;

/// The key of `[params]` holding derived params.
const DERIVED: &str = "derived";

#[derive(Debug, Clone, Default)]
pub struct ParamTables {
    /// Every swept param, a value map as the list of its keys.
    pub values: toml::Table,
    pub derived: Vec<DerivedParam>,
    pub maps: Vec<ValueMap>,
}

impl ParamTables {
    pub fn split(source: &SourceFile, table: &toml::Table) -> Result<ParamTables, SpecError> {
        let mut tables = ParamTables::default();
        for (name, value) in table {
            match value {
                toml::Value::Table(derived) if name == DERIVED => {
                    for (derived_name, expression) in derived {
                        let key = format!("params.derived.{derived_name}");
                        let expression = expression.as_str().ok_or_else(|| {
                            source.error_at(&key, "an expression in a string, e.g. \"ceil(M / 128) * 128\"")
                        })?;
                        let expression = Expression::parse(expression).map_err(|error| source.error_at(&key, error))?;
                        tables.derived.push(DerivedParam { name: derived_name.clone(), expression });
                    }
                }
                toml::Value::Table(map) => {
                    if map.values().any(|entry| !entry.is_table()) {
                        let message = "values must be numbers, strings or booleans, not a table (a value map gives \
                                       each value a table: `on = { args = [...], env = {...} }`)";
                        return Err(source.error_at(&format!("params.{name}"), message));
                    }
                    let mut values = Vec::new();
                    for (value, args) in map {
                        let args: RunDecl = args.clone().try_into().map_err(|error: toml::de::Error| {
                            let message = format!("{} (expected {{ args = [...], env = {{...}} }})", error.message());
                            source.error_at(&format!("params.{name}.{value}"), message)
                        })?;
                        values.push((value.clone(), args));
                    }
                    let keys = values.iter().map(|(value, _)| toml::Value::String(value.clone())).collect();
                    tables.values.insert(name.clone(), toml::Value::Array(keys));
                    tables.maps.push(ValueMap { param: name.clone(), values });
                }
                other => {
                    tables.values.insert(name.clone(), other.clone());
                }
            }
        }
        Ok(tables)
    }
}

/// `[params.derived] hccl_buffsize = "ceil(M / 128) * 128"`: a value computed from the numeric params
/// of each setting, usable in templates and recorded as a CSV column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DerivedParam {
    pub name: String,
    /// Over numeric params and earlier derived params.
    pub expression: Expression,
}

impl DerivedParam {
    /// A stand-in param of this name, for checks that only need names (template variables).
    pub fn as_named(&self) -> Param {
        Param { name: self.name.clone(), values: vec![ParamValue::Int(0)], is_list: false }
    }
}

/// A param whose values stand for run arguments (`[params.tbo] off = { args = [] },
/// all = { args = ["--enable-tbo", "all"] }`): each value adds its own argv elements and env to the run,
/// so a flag absent for one value leaves no empty argv element.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValueMap {
    pub param: String,
    /// Value (as written, a string) -> what it adds: argv elements after `[run] args`, env over `[run] env`.
    pub values: Vec<(String, RunDecl)>,
}
