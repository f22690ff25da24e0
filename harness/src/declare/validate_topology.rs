//! Checks a templated topology at load: `[engine] ranks` and `hostfile` name only params, and the rank
//! count renders to a valid count for every value of the params it names.

use serde_json::{Map, Value};

use super::engine::Engine;
use super::launchers::LauncherKind;
use super::param_value::Param;
use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::validate::plain_variables;
use super::MAX_RANKS;
use crate::plural::counted;
use crate::template::Template;

pub fn topology(source: &SourceFile, engine: &Engine, params: &[Param]) -> Result<(), SpecError> {
    let topology = &engine.topology;
    for (key, text) in [("engine.ranks", &topology.ranks), ("engine.hostfile", &topology.hostfile)] {
        let Some(text) = text else { continue };
        if let Some(name) =
            plain_variables(text.text()).into_iter().find(|name| !params.iter().any(|p| p.name == *name))
        {
            return Err(source.error_at(key, format!("unknown template variable `{name}` (not a parameter)")));
        }
    }
    if topology.hostfile.is_some() && !engine.launcher.takes_hostfile() {
        let takers = LauncherKind::names_where(|launcher| launcher.takes_hostfile());
        let message = format!("a hostfile is passed to {takers} only; the launcher is not {takers}");
        return Err(source.error_at("engine.hostfile", message));
    }
    hostfiles_exist(source, engine, params)?;
    let Some(text) = &topology.ranks else { return Ok(()) };
    for point in points(text, params) {
        let Some(ranks) = topology.ranks_for(&point, MAX_RANKS) else { break };
        let ranks = ranks.map_err(|m| source.error_at("engine.ranks", m))?;
        if engine.launcher.one_process() && ranks != 1 {
            let launcher = engine.launcher.name();
            let message = format!("`{text}` gives {ranks} ranks but the {launcher} launcher starts one process");
            return Err(source.error_at("engine.ranks", message));
        }
        if engine.result.rank >= ranks {
            let ranks = counted(ranks as usize, "rank");
            let message = format!("`{text}` gives {ranks}, so result rank {} does not exist", engine.result.rank);
            return Err(source.error_at("engine.ranks", message));
        }
    }
    Ok(())
}

/// mpirun fails every run given a hostfile that is not there: the profile's, and the sweep's rendered for
/// every value of the params it names.
fn hostfiles_exist(source: &SourceFile, engine: &Engine, params: &[Param]) -> Result<(), SpecError> {
    let missing =
        |file: &std::path::Path| format!("hostfile {} does not exist: mpirun would fail every run", file.display());
    if let Some(file) = engine.hostfile.as_ref().filter(|file| !file.is_file()) {
        return Err(engine.profile.error_at("hostfile", missing(file)));
    }
    let Some(text) = &engine.topology.hostfile else { return Ok(()) };
    for point in points(text, params) {
        let Some(file) = engine.topology.hostfile_for(&point) else { break };
        match file {
            Ok(file) if !file.is_file() => return Err(source.error_at("engine.hostfile", missing(&file))),
            Ok(_) => {}
            Err(message) => return Err(source.error_at("engine.hostfile", message)),
        }
    }
    Ok(())
}

/// Every combination of the values of the params `template` names, as template contexts.
fn points(template: &Template, params: &[Param]) -> Vec<Map<String, Value>> {
    let named = plain_variables(template.text());
    params.iter().filter(|param| named.contains(&param.name.as_str())).fold(vec![Map::new()], |points, param| {
        points
            .iter()
            .flat_map(|point| {
                param.values.iter().map(move |value| {
                    let mut next = point.clone();
                    next.insert(param.name.clone(), serde_json::to_value(value).unwrap_or(Value::Null));
                    next
                })
            })
            .collect()
    })
}
