//! Everything one run needs, rendered before anything starts: a template error is found for every
//! setting before the first run, and `--dry-run` prints exactly what would execute.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::declare::{Engine, SpecError, Sweep, MAX_RANKS};
use crate::launch::{self, RankCommand, RunSite, ServiceCommand};
use crate::plan::Setting;
use crate::rebuild::VariantSite;
use crate::template::Template;

/// A run, fully rendered.
#[derive(Debug, Clone)]
pub struct PreparedRun {
    pub run_dir: PathBuf,
    /// Generated input files and their contents.
    pub inputs: Vec<(PathBuf, String)>,
    pub pre_run: Vec<RankCommand>,
    /// Started and ready before `commands`, stopped after them.
    pub services: Vec<ServiceCommand>,
    pub commands: Vec<RankCommand>,
    /// The run's template context (for checks).
    pub context: Value,
}

/// Renders one run in `run_dir`; `instance_port`: the run goes beside a service instance that is already
/// up, and `{{port}}` is its port.
pub fn prepare_run(
    sweep: &Sweep,
    setting: &Setting,
    rep: u32,
    variant: &VariantSite,
    run_dir: &Path,
    instance_port: Option<&Value>,
) -> Result<PreparedRun, SpecError> {
    let mut params = setting.context();
    match instance_port {
        Some(port) => drop(params.insert(crate::declare::PORT_NAME.into(), port.clone())),
        None => launch::bind_auto_port(&sweep.source, &sweep.run.service, &mut params)?,
    }
    let mut site = RunSite {
        run_dir,
        tree: &variant.tree,
        build_dir: &variant.build_dir,
        rep,
        variant: &variant.name,
        inputs: Map::new(),
    };
    let engine = setting_engine(sweep, &params)?;
    let inputs = render_inputs(sweep, &launch::run_context(params.clone(), &engine, &site, None), run_dir)?;
    // The context the rest renders in names the inputs' files.
    site.inputs =
        inputs.iter().map(|(name, path, _)| (name.clone(), Value::String(path.display().to_string()))).collect();
    let context = launch::run_context(params.clone(), &engine, &site, None);
    let mut commands = launch::run_commands(&sweep.source, &engine, &sweep.run, &params, &site)?;
    apply_value_maps(sweep, setting, &context, &mut commands)?;
    Ok(PreparedRun {
        run_dir: run_dir.to_path_buf(),
        pre_run: render_pre_run(sweep, &context, run_dir)?,
        services: launch::service_commands(&sweep.source, &sweep.run.service, &context, run_dir)?,
        commands,
        inputs: inputs.into_iter().map(|(_, path, text)| (path, text)).collect(),
        context,
    })
}

/// Most values a generated input may hold (16 Mi): more is a typo that would exhaust memory at preflight.
const MAX_INPUT_VALUES: usize = 1 << 24;

/// `(name, path, contents)` of each generated input.
fn render_inputs(sweep: &Sweep, context: &Value, run_dir: &Path) -> Result<Vec<(String, PathBuf, String)>, SpecError> {
    sweep
        .inputs
        .iter()
        .enumerate()
        .map(|(index, input)| {
            let key = format!("inputs[{index}].count");
            let text = input.count.render(context).map_err(|error| sweep.source.error_at(&key, error.to_string()))?;
            let count: usize =
                text.trim().parse().ok().filter(|&count| count <= MAX_INPUT_VALUES).ok_or_else(|| {
                    sweep.source.error_at(
                        &key,
                        format!("`{}` rendered to `{text}`, not a whole number up to {MAX_INPUT_VALUES}", input.count),
                    )
                })?;
            let values: Vec<String> = input.pattern.iter().cycle().take(count).map(i64::to_string).collect();
            Ok((input.name.clone(), run_dir.join(&input.file), values.join(&input.separator)))
        })
        .collect()
}

fn render_pre_run(sweep: &Sweep, context: &Value, run_dir: &Path) -> Result<Vec<RankCommand>, SpecError> {
    sweep
        .engine
        .pre_run
        .iter()
        .enumerate()
        .map(|(index, argv)| {
            let argv = argv
                .iter()
                .map(|part| part.render(context))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|error| sweep.engine.profile.error_at(&format!("pre_run[{index}]"), error.to_string()))?;
            Ok(RankCommand { rank: None, argv, env: Vec::new(), log: run_dir.join(format!("pre_run{index}.log")) })
        })
        .collect()
}

/// The engine one setting runs: the sweep's engine with its templated topology (rank count, hostfile)
/// rendered over the setting's params; borrowed unchanged unless the sweep templates the topology.
fn setting_engine<'a>(sweep: &'a Sweep, params: &Map<String, Value>) -> Result<Cow<'a, Engine>, SpecError> {
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

/// Adds what a value-mapped param's value stands for (`[params.tbo] all = { args = [...], env = {...} }`)
/// to every process of a run: its argv elements after `[run] args`, its env over `[run] env`.
fn apply_value_maps(
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
        let Some((_, adds)) = map.values.iter().find(|(name, _)| name == value) else { continue };
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
