//! `ValueMap`: a param whose values stand for run arguments (`[params.tbo] off = { args = [] },
//! all = { args = ["--enable-tbo", "all"] }`): each value adds its own argv elements and env to the run,
//! so a flag absent for one value leaves no empty argv element.

use serde::Serialize;

use super::sweep_decl::RunDecl;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValueMap {
    pub param: String,
    /// Value (as written, a string) -> what it adds: argv elements after `[run] args`, env over `[run] env`.
    pub values: Vec<(String, RunDecl)>,
}

impl ValueMap {
    pub fn of(&self, value: &str) -> Option<&RunDecl> {
        self.values.iter().find(|(name, _)| name == value).map(|(_, args)| args)
    }
}
