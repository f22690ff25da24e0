//! Adds what a value-mapped param's value stands for (`[params.tbo] all = { args = [...], env = {...} }`)
//! to every process of a run: its argv elements after `[run] args`, its env over `[run] env`.

use serde_json::Value;

use crate::launch::RankCommand;
use crate::plan::Setting;
use crate::spec::{SpecError, Sweep};
use crate::template::Template;

pub fn apply_value_maps(
    sweep: &Sweep,
    setting: &Setting,
    context: &Value,
    commands: &mut [RankCommand],
) -> Result<(), SpecError> {
    for map in &sweep.value_maps {
        let Some(value) = setting.values.iter().find(|(name, _)| *name == map.param).and_then(|(_, v)| v.as_text())
        else {
            continue;
        };
        let Some(adds) = map.of(value) else { continue };
        let key = format!("params.{}.{value}", map.param);
        let render = |template: &Template| {
            template.render(context).map_err(|error| sweep.source.error_at(&key, error.to_string()))
        };
        let args = adds.args.iter().map(render).collect::<Result<Vec<_>, _>>()?;
        let env =
            adds.env.iter().map(|(name, text)| Ok((name.clone(), render(text)?))).collect::<Result<Vec<_>, _>>()?;
        for command in commands.iter_mut() {
            command.argv.extend(args.iter().cloned());
            command.env.extend(env.iter().cloned());
        }
    }
    Ok(())
}
