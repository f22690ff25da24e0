//! `DerivedParam`: `[params.derived] hccl_buffsize = "ceil(M / 128) * 128"`, a value computed from the
//! numeric params of each setting, usable in templates and recorded as a CSV column.

use serde::Serialize;

use super::param_value::{Param, ParamValue};
use crate::expression::Expression;

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
