//! Checks the names of environment variables a declaration sets: a name that is empty or holds `=` (or a
//! NUL byte) cannot be set on a process, so every run (or build) given it would fail.

use std::collections::BTreeMap;

use super::source_file::SourceFile;
use super::spec_error::SpecError;

/// Every name of `env`, declared under `table` (`run.env`, `engine.env`, ...), is a settable variable name.
pub fn env_names<V>(source: &SourceFile, table: &str, env: &BTreeMap<String, V>) -> Result<(), SpecError> {
    for name in env.keys() {
        let reason = if name.is_empty() {
            "an empty variable name cannot be set"
        } else if name.contains('=') {
            "a variable name cannot hold `=` (it would end the name)"
        } else if name.contains('\0') {
            "a variable name cannot hold a NUL byte"
        } else {
            continue;
        };
        return Err(source.error_at(&format!("{table}.{name}"), format!("`{name}`: {reason}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_names_and_names_with_equals_are_refused_naming_the_key() {
        let source = SourceFile { path: "s.toml".into(), text: "[run.env]\n\"A=B\" = \"1\"\n".into() };
        let env = |name: &str| BTreeMap::from([(name.to_string(), "1".to_string())]);
        assert!(env_names(&source, "run.env", &env("CUDA_VISIBLE_DEVICES")).is_ok());
        let error = env_names(&source, "run.env", &env("A=B")).unwrap_err().to_string();
        assert!(error.starts_with("s.toml:2: `run.env.A=B`: `A=B`: a variable name cannot hold `=`"), "{error}");
        assert!(env_names(&source, "run.env", &env("")).unwrap_err().to_string().contains("empty variable name"));
    }
}
