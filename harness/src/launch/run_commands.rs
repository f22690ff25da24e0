//! Renders one run's processes (`RankCommand`s: argv, extra environment, log file) from the engine profile
//! and the sweep's `[run]` templates, leaving out what a param at its `[run] unset` value unsets.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::declare::{Engine, RunDecl, SourceFile, SpecError};
use crate::shell_line::{shell_line, shell_quote};
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
    let ranks: Vec<Option<u32>> = match engine.launcher.starts_each_rank() {
        true => (0..engine.ranks).map(Some).collect(),
        false => vec![None],
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
    argv.extend(engine.launcher.rank_flags(engine.ranks, engine.hostfile.as_deref()));
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

/// What an unset param renders as: no real value holds these bytes. `[run] unset = { slices = "rule" }`
/// is a param value that leaves its variable or argument out of the run, so the engine's own rule
/// decides: an env entry holding the marker is removed from the run's environment (inherited or not),
/// an argv element holding it is dropped together with the flag right before it (`--slices {{slices}}`).
pub const UNSET_MARKER: &str = "\u{1}unset\u{1}";

/// `params` with every param at its unset value replaced by the marker.
pub fn mark_unset(params: &Map<String, Value>, unset: &BTreeMap<String, String>) -> Map<String, Value> {
    let mut marked = params.clone();
    for (name, value) in unset {
        let at_unset = match params.get(name) {
            Some(Value::String(text)) => text == value,
            Some(Value::Number(number)) => number.to_string() == *value,
            _ => false,
        };
        if at_unset {
            marked.insert(name.clone(), Value::String(UNSET_MARKER.into()));
        }
    }
    marked
}

/// argv without the elements holding the marker, each with the flag before it when it is one.
pub fn drop_unset_args(argv: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::with_capacity(argv.len());
    for arg in argv {
        if !arg.contains(UNSET_MARKER) {
            kept.push(arg);
            continue;
        }
        if !arg.starts_with('-') && kept.last().is_some_and(|flag| flag.starts_with('-') && flag.len() > 1) {
            kept.pop();
        }
    }
    kept
}

/// Env entries holding the marker become removals: `(name, UNSET_MARKER)`, which the executor removes
/// from the child's environment.
pub fn unset_env(env: Vec<(String, String)>) -> Vec<(String, String)> {
    env.into_iter()
        .map(
            |(name, value)| if value.contains(UNSET_MARKER) { (name, UNSET_MARKER.to_string()) } else { (name, value) },
        )
        .collect()
}

/// A fully rendered process: nothing in it is interpreted by a shell.
#[derive(Debug, Clone, PartialEq)]
pub struct RankCommand {
    /// `Some(i)` when the harness starts each rank itself; `None` for one launcher process.
    pub rank: Option<u32>,
    pub argv: Vec<String>,
    /// Set on top of the base environment.
    pub env: Vec<(String, String)>,
    /// stdout and stderr both go here.
    pub log: PathBuf,
}

impl RankCommand {
    /// A shell-quoted form for `--dry-run` that a POSIX shell runs as pasted: `NAME=value program args`, led
    /// by `env` when a variable is unset (`env -u NAME`, which a shell's own assignments cannot say) or a
    /// name is not one a shell assigns (`env` takes any `NAME=value` word).
    pub fn display(&self) -> String {
        let unset = |(_, value): &&(String, String)| value == super::UNSET_MARKER;
        let with_env = self.env.iter().any(|entry| unset(&entry) || !is_shell_name(&entry.0));
        let unsets = self.env.iter().filter(unset).map(|(name, _)| format!("-u {}", shell_quote(name)));
        let sets = self.env.iter().filter(|entry| !unset(entry)).map(|(name, value)| match with_env {
            true => shell_quote(&format!("{name}={value}")),
            false => format!("{name}={}", shell_quote(value)),
        });
        let words = with_env.then(|| "env".to_string()).into_iter().chain(unsets).chain(sets);
        words.chain(std::iter::once(shell_line(&self.argv))).collect::<Vec<_>>().join(" ")
    }
}

/// A name a shell takes as an assignment before a command (`[A-Za-z_][A-Za-z0-9_]*`).
fn is_shell_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_value_drops_its_flag_and_its_variable() {
        let params: Map<String, Value> = serde_json::from_str(r#"{"slices": "rule", "rows": 512}"#).unwrap();
        let unset = BTreeMap::from([("slices".to_string(), "rule".to_string())]);
        let marked = mark_unset(&params, &unset);
        assert_eq!(marked["slices"], Value::String(UNSET_MARKER.into()));
        assert_eq!(marked["rows"], 512);
        let argv = ["engine", "--rows", "512", "--slices", UNSET_MARKER, "-v"].map(String::from).to_vec();
        assert_eq!(drop_unset_args(argv), ["engine", "--rows", "512", "-v"]);
        let glued = ["engine", &format!("--slices={UNSET_MARKER}")].map(String::from).to_vec();
        assert_eq!(drop_unset_args(glued), ["engine"]);
        let env = vec![("TPE_OVERLAP_SLICES".to_string(), UNSET_MARKER.to_string()), ("A".into(), "1".into())];
        assert_eq!(unset_env(env)[0].1, UNSET_MARKER);
    }

    #[test]
    fn a_forced_value_is_left_alone() {
        let params: Map<String, Value> = serde_json::from_str(r#"{"slices": 4}"#).unwrap();
        let unset = BTreeMap::from([("slices".to_string(), "rule".to_string())]);
        assert_eq!(mark_unset(&params, &unset), params);
    }

    #[test]
    fn display_quotes_what_a_shell_would_split() {
        let command = RankCommand {
            rank: None,
            argv: vec!["engine".into(), "--prompt".into(), "it's two words".into()],
            env: vec![("TPE_OVERLAP_SLICES".into(), "4".into())],
            log: PathBuf::from("x.log"),
        };
        assert_eq!(command.display(), r"TPE_OVERLAP_SLICES=4 engine --prompt 'it'\''s two words'");
    }

    /// The dry run printed `TPE_MIN_ROWS_PER_SLICE=2048 -u TPE_OVERLAP_SLICES mpirun ...`, which a shell
    /// runs as the command `-u`.
    #[test]
    fn a_dry_run_line_with_an_unset_variable_runs_in_a_shell_as_pasted() {
        let env = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let command = |env| RankCommand {
            rank: None,
            argv: vec!["sh".into(), "-c".into(), "echo \"[${A-unset}] [${B-unset}] [${C-unset}]\"".into()],
            env,
            log: PathBuf::from("x.log"),
        };
        let unset = command(env(&[("A", "2048"), ("B", UNSET_MARKER), ("C", "two words")]));
        assert_eq!(
            unset.display(),
            r#"env -u B A=2048 'C=two words' sh -c 'echo "[${A-unset}] [${B-unset}] [${C-unset}]"'"#
        );
        let shell = |line: &str| {
            let output = std::process::Command::new("sh").args(["-c", line]).env("B", "inherited").output().unwrap();
            String::from_utf8(output.stdout).unwrap()
        };
        assert_eq!(shell(&unset.display()), "[2048] [unset] [two words]\n");
        let odd_name = command(env(&[("A.B", "1")]));
        assert_eq!(odd_name.display(), r#"env A.B=1 sh -c 'echo "[${A-unset}] [${B-unset}] [${C-unset}]"'"#);
        assert_eq!(shell(&command(env(&[("A", "x y")])).display()), "[x y] [inherited] [unset]\n");
    }
}
