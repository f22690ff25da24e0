//! The command-line definition (clap derive). It holds no logic: each command turns its arguments
//! into a checked configuration before any work starts.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "sweep",
    version,
    about = "Declared parameter sweeps and kernel ablations of tensor-parallel inference engines"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a declared sweep: interleaved reps, metrics to CSV, summary.
    Run(RunArgs),
    /// Render, build and run every variant of a kernel ablation; check additivity.
    Ablate(AblateArgs),
    /// Compare two result CSVs of the same sweep (e.g. two toolchain versions).
    Compare(CompareArgs),
    /// Write the summary of a finished result CSV again.
    Report(ReportArgs),
    /// Validate declarations and templates without running anything.
    Check(CheckArgs),
    /// Restore an engine tree left rendered by an interrupted in-place ablation.
    Restore(RestoreArgs),
    /// Write the ablation template of an engine source, its groups chosen by selectors.
    Template(TemplateArgs),
    /// Submit a sweep as a Slurm array job: task i runs shard i/N.
    Submit(SubmitArgs),
    /// Merge the shard CSVs of one sweep into one CSV with its sidecar.
    Merge(MergeArgs),
    /// Find the engine commit that made a setting slower: each probed commit built and run interleaved
    /// with both ends until a sequential test decides it.
    Bisect(BisectArgs),
    /// Results across versions: add result files to the store, show each setting's trend, find changes.
    History(HistoryArgs),
}

/// Options shared by `run` and `ablate`.
#[derive(Debug, Args)]
pub struct ExecutionArgs {
    /// Print the settings, the order and each rank's exact command, then exit.
    #[arg(long)]
    pub dry_run: bool,
    /// Override the declared number of reps.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(sweep::declare::MAX_REPS)))]
    pub reps: Option<u32>,
    /// Stop at the first failed run (or build).
    #[arg(long)]
    pub fail_fast: bool,
    /// Override the declared shuffle seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Where result folders go [default: results/ in the repository root, the nearest folder at or above
    /// this one holding sweeps/].
    #[arg(long)]
    pub results_dir: Option<PathBuf>,
    /// Write the CSV here instead of <results-dir>/<sweep>/<stamp>.csv.
    #[arg(long, value_name = "CSV")]
    pub out: Option<PathBuf>,
    /// Replace files already at the --out CSV's names (CSV, sidecar, summary, page, plot, analysis).
    #[arg(long)]
    pub force: bool,
    /// Stop the sweep once this many consecutive runs failed the same way (a broken engine or machine
    /// would fail every run left).
    #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_same_failures: u32,
    /// Run every planned run, however many fail the same way in a row.
    #[arg(long, conflicts_with = "fail_fast")]
    pub keep_going: bool,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The sweep declaration (TOML), or its name: `slices` is `sweeps/slices.toml` of the repository root.
    pub spec: String,
    #[command(flatten)]
    pub execution: ExecutionArgs,
    /// Complete a partial CSV of this sweep: runs already recorded are skipped, failed ones run again.
    #[arg(long, value_name = "CSV", conflicts_with = "out")]
    pub resume: Option<PathBuf>,
    /// With --resume: keep the failed runs the CSV records instead of running them again.
    #[arg(long, requires = "resume")]
    pub no_retry_failed: bool,
    /// With --resume: add rows to a CSV whose rows come from another engine (another program, arguments,
    /// environment, tree or commit); the change is recorded in its sidecar and shown in its summary.
    #[arg(long, requires = "resume")]
    pub accept_engine_change: bool,
    /// Only settings whose parameter KEY has VALUE, read as that parameter's type (`8` selects 8 and 8.0)
    /// (repeatable; all must match).
    #[arg(long = "filter", value_name = "KEY=VALUE")]
    pub filters: Vec<String>,
    /// Run only reps I, I+N, ... (1-based) so N machines share a sweep; `sweep merge` joins the shards.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Do not run the engine profile's build command first.
    #[arg(long)]
    pub no_build: bool,
    /// Race: after each round from the third on, stop running settings already beaten in their group
    /// (or shown to be negligibly different); end when every group is decided.
    #[arg(long)]
    pub until_decided: bool,
    /// The most rounds a race may run (default: the declaration's `[reps] max`, else `count`).
    #[arg(long, value_name = "N")]
    pub max_reps: Option<u32>,
    /// Search the declared settings spending at most N runs (`400`) or a duration (`6h`) instead of
    /// running them all (overrides `[search] budget`; a budget as large as the grid's runs runs the grid).
    #[arg(long, value_name = "N|DURATION")]
    pub budget: Option<sweep::declare::SearchBudget>,
    /// Do not add the results to the history store (`sweep history`; also `[history] add = false`).
    #[arg(long)]
    pub no_history: bool,
    /// Run only the runs this file lists, and write no summary: an array task of a search's round
    /// (`sweep submit` writes the file).
    #[arg(long, value_name = "JSON", hide = true, conflicts_with_all = ["resume", "shard", "until_decided"])]
    pub runs_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub command: HistoryCommand,
}

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Add result CSVs (each with its sidecar) to the store, one version each, in the order given.
    Add(HistoryAddArgs),
    /// Each setting's metric across the versions, with 95% intervals (--html: a chart per setting).
    Show(HistoryShowArgs),
    /// Where each setting's series changed (exit 1 on a software change to the worse side).
    Changes(HistoryChangesArgs),
}

/// Which store the history subcommands use.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// The store [default: history.sqlite in the results folder: results/ of the repository root].
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct HistoryAddArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The version's name (e.g. "CANN 8.1.RC1"); default: the sidecar's toolchain versions and engine commit.
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    /// Result CSVs written by `sweep run`, each with its JSON sidecar beside it.
    #[arg(required = true)]
    pub csvs: Vec<PathBuf>,
}

/// What `show` and `changes` read: which sweep and metric.
#[derive(Debug, Args)]
pub struct HistoryReadArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The sweep (needed only when the store holds more than one).
    #[arg(long, value_name = "NAME")]
    pub sweep: Option<String>,
    /// The metric; default: the sweep's primary metric.
    #[arg(long)]
    pub metric: Option<String>,
    /// Which way is better; default: the sweep's declared direction for its primary metric.
    #[arg(long, value_enum)]
    pub direction: Option<DirectionArg>,
    /// The false discovery rate changes are read at (Benjamini-Hochberg across the settings' series).
    #[arg(long, default_value_t = 0.05)]
    pub level: f64,
    /// Print JSON instead of markdown.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct HistoryShowArgs {
    #[command(flatten)]
    pub read: HistoryReadArgs,
    /// Also write a self-contained page: one small chart per setting, its latest change marked.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Replace a file already at --html's path.
    #[arg(long, requires = "html")]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct HistoryChangesArgs {
    #[command(flatten)]
    pub read: HistoryReadArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IsolationArg {
    Copy,
    InPlace,
}

#[derive(Debug, Args)]
pub struct AblateArgs {
    /// A name (sweeps/<name>.toml of the repository root) or a path to the ablation declaration.
    pub ablation: String,
    #[command(flatten)]
    pub execution: ExecutionArgs,
    /// Override the declared isolation.
    #[arg(long, value_enum)]
    pub isolation: Option<IsolationArg>,
    /// Parallel variant builds (copy isolation); default: the number of cores.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print the unified diff of VARIANT's sources against the shipped ones and exit without building:
    /// a variant name, groups joined by `+` in any order, or `all` (`both` with two groups).
    #[arg(long, value_name = "VARIANT", conflicts_with = "dry_run")]
    pub show: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DirectionArg {
    Higher,
    Lower,
}

/// How the metric follows the control between two sweeps (the declaration's `control_scaling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ControlScalingArg {
    /// The slope learnt from the control's variation inside the sweeps.
    Estimated,
    /// Assumed: the metric scales with the control (compare metric / control).
    Proportional,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The reference results (e.g. CANN 8).
    #[arg(required_unless_present = "within")]
    pub a: Option<PathBuf>,
    /// The candidate results (e.g. CANN 9).
    #[arg(required_unless_present = "within")]
    pub b: Option<PathBuf>,
    /// Compare two values of a parameter inside one interleaved sweep (paired by round) instead of two CSVs.
    #[arg(long, value_name = "CSV", conflicts_with_all = ["a", "b"], requires = "by")]
    pub within: Option<PathBuf>,
    /// With --within: the parameter whose two values are A and B (e.g. `cann`), in declared order.
    #[arg(long, value_name = "PARAM", requires = "within")]
    pub by: Option<String>,
    /// The metric to compare; default: the primary metric in A's sidecar.
    #[arg(long)]
    pub metric: Option<String>,
    /// Which way is better; default: from A's sidecar.
    #[arg(long, value_enum)]
    pub direction: Option<DirectionArg>,
    /// A metric neither side should change, used to remove machine drift; default: the sweep's control.
    #[arg(long)]
    pub control: Option<String>,
    /// Smallest relative change that counts as a regression, as a fraction (0.02) or a percentage (2%).
    #[arg(long, default_value = "0.02", value_parser = parse_share)]
    pub threshold: f64,
    /// Family-wise error rate over all settings (Holm-corrected).
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// A control that moved by more than this between the sides means the machine changed: cannot tell.
    #[arg(long, default_value = "25%", value_parser = parse_share)]
    pub control_threshold: f64,
    /// How the metric follows the control between two sweeps; default: A's `[analysis] control_scaling`.
    #[arg(long, value_enum)]
    pub control_scaling: Option<ControlScalingArg>,
    /// Column labels `A,B` (default: the toolchain version that differs between the two, else file names).
    #[arg(long, value_name = "A,B")]
    pub labels: Option<String>,
    /// Print the comparison as JSON instead of markdown.
    #[arg(long)]
    pub json: bool,
    /// Also write the comparison as a self-contained HTML page (a forest plot of B/A and the table).
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Replace a file already at --html's path.
    #[arg(long, requires = "html")]
    pub force: bool,
}

/// `0.02` or `2%`; a bare number above 1 is refused as ambiguous (`5` could mean 5% or 500%).
fn parse_share(text: &str) -> Result<f64, String> {
    let (number, scale) = match text.strip_suffix('%') {
        Some(percent) => (percent, 0.01),
        None => (text, 1.0),
    };
    let value: f64 = number.trim().parse().map_err(|_| format!("`{text}` is not a number"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("`{text}` must be a finite share >= 0"));
    }
    if scale == 1.0 && value > 1.0 {
        return Err(format!("`{text}` is ambiguous: write a fraction (0.05) or a percentage (5%)"));
    }
    Ok(value * scale)
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A result CSV written by `sweep run` or `sweep ablate` (its JSON sidecar must sit beside it), or a
    /// folder of shards (`sweep submit`), merged first into <folder>/merged.csv.
    pub csv: PathBuf,
    /// Print the machine-readable analysis (`<stem>.analysis.json`) instead of the markdown summary.
    #[arg(long)]
    pub json: bool,
    /// Print the path of the HTML page (`<stem>.html`, written beside every summary) instead of the summary.
    #[arg(long, conflicts_with = "json")]
    pub html: bool,
    /// Replace a summary, page, plot or analysis (or a folder's merged.csv) that is not this sweep's own.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The sweep declaration (TOML).
    pub spec: PathBuf,
    /// Array tasks: task i runs `sweep run SPEC --shard i/N`. A search (`[search]`): the most tasks each
    /// round's array job has, its runs dealt among them.
    #[arg(long, value_name = "N")]
    pub shards: u32,
    /// One more sbatch argument for the script, e.g. `--sbatch-arg=--partition=gpu` (repeatable, in order).
    #[arg(long = "sbatch-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub sbatch_args: Vec<String>,
    /// Print the script instead of submitting it.
    #[arg(long)]
    pub dry_run: bool,
    /// Override the declared number of reps.
    #[arg(long)]
    pub reps: Option<u32>,
    /// Override the declared shuffle seed (else the declared one, else one drawn now for every shard).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Where result folders go: shards write <results-dir>/<sweep>/<stamp>/shard-<i>.csv [default: results/
    /// in the repository root, the nearest folder at or above this one holding sweeps/].
    #[arg(long)]
    pub results_dir: Option<PathBuf>,
    /// A search: spend at most N runs (overrides `[search] budget`, or searches a declaration without it).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=sweep::declare::MAX_RUNS))]
    pub budget: Option<u64>,
    /// A search: carry on the partial CSV an earlier search of this declaration left, its rounds on Slurm.
    #[arg(long, value_name = "CSV")]
    pub resume: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// A folder of `shard-<i>.csv` files (as `sweep submit` leaves), or the shard CSVs themselves.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The merged CSV (default for a folder: <folder>/merged.csv); its sidecar goes beside it.
    #[arg(long, value_name = "CSV")]
    pub out: Option<PathBuf>,
    /// Replace a file at --out (or its sidecar's name) that is not an earlier merge of the same sweep.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Sweep declarations to validate.
    #[arg(required = true)]
    pub specs: Vec<PathBuf>,
    /// Notes are errors: a parameter nothing uses, a profile whose tree is not here (exit 2).
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The engine tree to restore.
    pub tree: PathBuf,
}

#[derive(Debug, Args)]
pub struct TemplateArgs {
    /// The engine source (e.g. a kernel) to derive the template from.
    pub source: PathBuf,
    /// A group and its blocks (repeatable): NAME=FIRST-LAST (1-based lines), NAME=REGEX (every matching
    /// line is a block) or NAME=BEGIN..END (from a line matching BEGIN to the next matching END, included).
    #[arg(long = "group", value_name = "NAME=SELECTOR", required = true)]
    pub groups: Vec<String>,
    /// Write the template here instead of printing it.
    #[arg(short = 'o', long = "out", value_name = "FILE.hbs")]
    pub out: Option<PathBuf>,
    /// Replace a file already at -o's path.
    #[arg(long, requires = "out")]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct BisectArgs {
    /// The sweep declaration (TOML), or its name; after --filter it must leave exactly one setting.
    #[arg(value_name = "DECL")]
    pub spec: String,
    /// A commit (any git revision) of the engine tree's repository that measures good.
    #[arg(long, value_name = "REV")]
    pub good: String,
    /// A later commit, on GOOD's first-parent line, that measures bad.
    #[arg(long, value_name = "REV")]
    pub bad: String,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// The most often the bisection may name a wrong commit (while every probe is decided).
    #[arg(long, default_value_t = 0.05, value_parser = parse_error_rate)]
    pub error_rate: f64,
    /// Only settings whose parameter KEY has VALUE (repeatable; all must match), as `sweep run --filter`.
    #[arg(long = "filter", value_name = "KEY=VALUE")]
    pub filters: Vec<String>,
    /// The metric bisected; default: the declaration's primary.
    #[arg(long, value_name = "NAME")]
    pub metric: Option<String>,
    /// Where result folders go: runs under <DIR>/<sweep>/bisect/, builds in the sweep's
    /// build-cache/ beside it [default: results/ in the repository root].
    #[arg(long, value_name = "DIR")]
    pub results_dir: Option<PathBuf>,
}

/// A probability strictly between 0 and 1.
fn parse_error_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(rate) if rate > 0.0 && rate < 1.0 => Ok(rate),
        _ => Err(format!("`{text}` is not a probability between 0 and 1 (e.g. 0.05)")),
    }
}
