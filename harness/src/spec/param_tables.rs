//! `ParamTables`: `[params]` split by kind: plain values (a list or a scalar), the `[params.derived]`
//! expressions, and value maps (`[params.tbo]`, whose keys are the values).

use super::derived_param::DerivedParam;
use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::RunDecl;
use super::value_map::ValueMap;
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
                    let values = map
                        .iter()
                        .map(|(value, args)| {
                            let key = format!("params.{name}.{value}");
                            let args: RunDecl = args.clone().try_into().map_err(|error: toml::de::Error| {
                                source.error_at(
                                    &key,
                                    format!("{} (expected {{ args = [...], env = {{...}} }})", error.message()),
                                )
                            })?;
                            Ok((value.clone(), args))
                        })
                        .collect::<Result<Vec<_>, SpecError>>()?;
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
