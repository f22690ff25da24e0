//! The engine's program on disk: it exists, or its build makes it. A typo in `program` would otherwise
//! fail every run (or every run after a full build) with "no such file".

use std::path::Path;

use super::engine::Engine;
use super::near_name::near_name;
use super::spec_error::SpecError;

/// A program path (with a `/`) exists; a missing one the build will make is accepted unless a file of
/// a near name sits where it should be (`tp-engin` beside `tp-engine`). A bare name is looked up on
/// `PATH`, unless a setup script (which may extend `PATH`) runs first.
pub fn program(engine: &Engine) -> Result<(), SpecError> {
    let at = |message: String| engine.profile.error_at("program", message);
    let program = engine.program_at(&engine.tree, &engine.build_dir).map_err(|error| at(error.to_string()))?;
    let path = Path::new(&program);
    if !program.contains('/') {
        let on_path = std::env::var_os("PATH")
            .is_some_and(|dirs| std::env::split_paths(&dirs).any(|dir| dir.join(&program).is_file()));
        if on_path || engine.setup.is_some() {
            return Ok(());
        }
        return Err(at(format!("program `{program}` is not on PATH: every run would fail to start")));
    }
    if path.exists() || path.is_relative() {
        return Ok(());
    }
    let near = near_file(path);
    let built = !engine.build.is_empty() && path.starts_with(&engine.tree);
    match (near, built) {
        (None, true) => Ok(()),
        (Some(near), _) => Err(at(format!("program {program} does not exist; did you mean {near}?"))),
        (None, false) => Err(at(format!("program {program} does not exist: every run would fail to start"))),
    }
}

/// A file beside `path` whose name is near `path`'s, as a full path.
fn near_file(path: &Path) -> Option<String> {
    let (dir, name) = (path.parent()?, path.file_name()?.to_str()?);
    let names: Vec<String> =
        std::fs::read_dir(dir).ok()?.filter_map(|entry| entry.ok()?.file_name().into_string().ok()).collect();
    near_name(name, names.iter().map(String::as_str)).map(|near| dir.join(near).display().to_string())
}
