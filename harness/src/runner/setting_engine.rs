//! The engine one setting runs: the sweep's engine with its templated topology (rank count, hostfile)
//! rendered over the setting's params.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::spec::{Engine, SpecError, Sweep, MAX_RANKS};

/// Borrowed unchanged unless the sweep templates the topology.
pub fn setting_engine<'a>(sweep: &'a Sweep, params: &Map<String, Value>) -> Result<Cow<'a, Engine>, SpecError> {
    let topology = &sweep.engine.topology;
    if !topology.is_templated() {
        return Ok(Cow::Borrowed(&sweep.engine));
    }
    let mut engine = sweep.engine.clone();
    if let Some(ranks) = topology.ranks_for(params, MAX_RANKS) {
        engine.ranks = ranks.map_err(|message| sweep.source.error_at("engine.ranks", message))?;
    }
    if let Some(hostfile) = topology.hostfile_for(params) {
        engine.hostfile = Some(hostfile.map_err(|message| sweep.source.error_at("engine.hostfile", message))?);
    }
    Ok(Cow::Owned(engine))
}
