//! `BuildCommand`: a sweep's `[build]`, checked against the profile's build command it is appended to.

use std::collections::BTreeMap;

use super::engine::Engine;
use super::param_value::Param;
use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::RunDecl;
use super::validate::plain_variables;
use crate::template::Template;

/// Names a build template may use besides params.
const BUILD_NAMES: &[&str] = &["tree", "build_dir"];

/// What `[build]` appends to the profile's build command: its args and env, templates over params only
/// (those params become build-time).
#[derive(Debug, Clone, Default)]
pub struct BuildCommand {
    pub args: Vec<Template>,
    pub env: BTreeMap<String, Template>,
}

impl BuildCommand {
    /// The build command templates: the profile's `build` argv and the sweep's `[build]` may name only
    /// `tree`, `build_dir` and params (those params become build-time), without blocks, so which params a
    /// build depends on is known at load.
    pub fn check(source: &SourceFile, build: &RunDecl, engine: &Engine, params: &[Param]) -> Result<Self, SpecError> {
        if !build.is_empty() && engine.build.is_empty() {
            let message =
                format!("the engine profile {} has no build command to append to", engine.profile.path.display());
            return Err(source.error_at("build", message));
        }
        let profile = engine.build.iter().enumerate().map(|(i, text)| (&engine.profile, format!("build[{i}]"), text));
        let args = build.args.iter().enumerate().map(|(i, text)| (source, format!("build.args[{i}]"), text));
        let env = build.env.iter().map(|(name, text)| (source, format!("build.env.{name}"), text));
        for (file, key, template) in profile.chain(args).chain(env) {
            let text = template.text();
            if text.contains("{{#") || text.contains("{{~#") {
                return Err(file.error_at(&key, "blocks are not allowed in a build template: name params plainly"));
            }
            let known = |name: &&str| BUILD_NAMES.contains(name) || params.iter().any(|param| param.name == *name);
            if let Some(name) = plain_variables(text).into_iter().find(|name| !known(name)) {
                let message = format!(
                    "unknown build template variable `{name}` (a build sees only params, `tree` and `build_dir`)"
                );
                return Err(file.error_at(&key, message));
            }
        }
        Ok(BuildCommand { args: build.args.clone(), env: build.env.clone() })
    }
}
