//! Renders one run's processes from the engine profile and the sweep's `[run]` templates.

use std::path::Path;

use serde_json::{Map, Value};

use super::rank_command::RankCommand;
use super::unset_param::{drop_unset_args, mark_unset, unset_env};
use crate::spec::{Engine, LauncherKind, RunDecl, SourceFile, SpecError};
use crate::template::{self, Renderer, Template};

/// Where one run happens and which build of the engine it uses.
#[derive(Debug, Clone)]
pub struct RunSite<'a> {
    pub run_dir: &'a Path,
    /// The engine tree of this variant (the user's tree, or a variant's copy).
    pub tree: &'a Path,
    pub build_dir: &'a Path,
    pub rep: u32,
    pub variant: &'a str,
    /// Input name -> absolute path of its generated file.
    pub inputs: Map<String, Value>,
}

/// The template context of a run: params plus the names the harness provides.
///
/// `rank` is present only for the per-rank launcher: under mpirun or srun the harness does not
/// know a process's rank, and strict mode turns a `{{rank}}` there into a clear error.
pub fn run_context(params: Map<String, Value>, engine: &Engine, site: &RunSite<'_>, rank: Option<u32>) -> Value {
    let mut context = params;
    context.insert("rep".into(), site.rep.into());
    context.insert("ranks".into(), engine.ranks.into());
    context.insert("run_dir".into(), path_value(site.run_dir));
    context.insert("tree".into(), path_value(site.tree));
    context.insert("build_dir".into(), path_value(site.build_dir));
    context.insert("variant".into(), site.variant.into());
    context.insert("inputs".into(), Value::Object(site.inputs.clone()));
    if let Some(rank) = rank {
        context.insert("rank".into(), rank.into());
    }
    Value::Object(context)
}

/// The engine binary for a tree and build dir (`program` is a template over them).
pub fn program_path(engine: &Engine, tree: &Path, build_dir: &Path) -> Result<String, template::TemplateError> {
    engine.program_at(tree, build_dir)
}

/// Renders the processes of one run. Errors name the sweep key whose template failed.
pub fn run_commands(
    sweep: &SourceFile,
    engine: &Engine,
    run: &RunDecl,
    params: &Map<String, Value>,
    site: &RunSite<'_>,
) -> Result<Vec<RankCommand>, SpecError> {
    let program =
        program_path(engine, site.tree, site.build_dir).map_err(|error| profile_error(engine, "program", error))?;
    let params = &mark_unset(params, &run.unset);
    // The per-rank launcher starts each rank itself; any other starts one launcher process.
    let ranks: Vec<Option<u32>> = match engine.launcher {
        LauncherKind::PerRank => (0..engine.ranks).map(Some).collect(),
        _ => vec![None],
    };
    ranks
        .into_iter()
        .map(|rank| {
            let context = Renderer::of(run_context(params.clone(), engine, site, rank));
            let mut argv = if rank.is_some() { Vec::new() } else { launcher_prefix(engine, site, params)? };
            argv.push(program.clone());
            argv.extend(render_args(sweep, &run.args, &context)?);
            // Each rank logs to its own file; a launcher's log holds every rank's output.
            let log = rank.map_or_else(|| "output.log".to_string(), |rank| format!("rank{rank}.log"));
            Ok(RankCommand {
                rank,
                argv: drop_unset_args(argv),
                env: unset_env(render_env(sweep, engine, run, &context)?),
                log: site.run_dir.join(log),
            })
        })
        .collect()
}

/// The launcher and its flags, rendered with `{{tree}}` and the params (a node list such as
/// `--host {{hosts}}` may follow a param of the topology).
fn launcher_prefix(engine: &Engine, site: &RunSite<'_>, params: &Map<String, Value>) -> Result<Vec<String>, SpecError> {
    let mut context = params.clone();
    context.insert("tree".into(), path_value(site.tree));
    let mut argv = engine
        .launcher_command
        .iter()
        .map(|part| part.render(&context).map_err(|error| profile_error(engine, "launcher_command", error)))
        .collect::<Result<Vec<_>, _>>()?;
    if matches!(engine.launcher, LauncherKind::Mpirun | LauncherKind::Srun) {
        argv.extend(["-n".to_string(), engine.ranks.to_string()]);
    }
    if let (LauncherKind::Mpirun, Some(hostfile)) = (engine.launcher, &engine.hostfile) {
        argv.extend(["--hostfile".to_string(), hostfile.display().to_string()]);
    }
    Ok(argv)
}

fn render_args(sweep: &SourceFile, args: &[Template], context: &Renderer) -> Result<Vec<String>, SpecError> {
    args.iter()
        .enumerate()
        .map(|(index, arg)| {
            context.render(arg).map_err(|error| sweep.error_at(&format!("run.args[{index}]"), error.to_string()))
        })
        .collect()
}

/// Profile env first, then the sweep's `[run.env]` (which wins), all rendered.
fn render_env(
    sweep: &SourceFile,
    engine: &Engine,
    run: &RunDecl,
    context: &Renderer,
) -> Result<Vec<(String, String)>, SpecError> {
    let profile = engine.env.iter().map(|(name, value)| (name, value, &engine.profile, format!("env.{name}")));
    let declared = run.env.iter().map(|(name, value)| (name, value, sweep, format!("run.env.{name}")));
    let mut env: Vec<(String, String)> = Vec::new();
    for (name, value, file, key) in profile.chain(declared) {
        let value = context.render(value).map_err(|error| file.error_at(&key, error.to_string()))?;
        env.retain(|(existing, _)| existing != name);
        env.push((name.clone(), value));
    }
    Ok(env)
}

fn profile_error(engine: &Engine, key: &str, error: template::TemplateError) -> SpecError {
    engine.profile.error_at(key, error.to_string())
}

fn path_value(path: &Path) -> Value {
    Value::String(path.display().to_string())
}
