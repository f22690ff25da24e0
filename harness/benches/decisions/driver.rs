//! Drives the real `sweep` binary on the decision fixture: builds the fixture, reads its truth, writes a
//! scenario's declaration, runs one seeded sweep or one `sweep compare --json`, and reads what they left.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::scenarios::{Fixture, Grid};
use crate::tally::{self, GroupTruth, RunId, SettingTruth};

/// A group is clear when its best beats every rival by more than this many times the per-run noise.
pub const CLEAR_MARGIN_IN_NOISE: f64 = 3.0;
const PRIMARY: &str = "prefill_tokens_per_s";

/// Where everything is, and the benchmark's settings from the environment.
pub struct Bench {
    sweep: PathBuf,
    fixture: PathBuf,
    decisions: PathBuf,
    pub work: tempfile::TempDir,
    /// Sweeps per scenario (`DECISIONS_SWEEPS`), independent pairs per compare scenario (`DECISIONS_TRIALS`);
    /// unset, each scenario's own default.
    pub sweeps: Option<usize>,
    pub trials: Option<usize>,
    /// The per-run noise the truth's clear margin is measured in (`FIXTURE_NOISE`).
    pub noise: f64,
    /// The first seed (`DECISIONS_SEED`): sweep i of a scenario runs with seed + i.
    pub seed: u64,
}

/// A grid's truth: its settings, and its groups.
pub struct Truth {
    pub settings: Vec<SettingTruth>,
    pub groups: Vec<GroupTruth>,
}

/// What one sweep's CSV holds: its engine runs, and the runs the fixture made outliers (stragglers, runs too
/// fast).
pub struct Runs {
    pub count: usize,
    pub stragglers: Vec<RunId>,
}

impl Bench {
    pub fn new() -> Result<Bench, String> {
        let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        Ok(Bench {
            sweep: std::env::var_os("DECISIONS_SWEEP_BIN")
                .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_sweep")), PathBuf::from),
            fixture: build_fixture(&manifest_dir)?,
            decisions: manifest_dir.join("../bench/decisions"),
            work: tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?,
            sweeps: env_optional("DECISIONS_SWEEPS")?,
            trials: env_optional("DECISIONS_TRIALS")?,
            noise: env_parsed("FIXTURE_NOISE", 0.01)?,
            seed: env_parsed("DECISIONS_SEED", 1000)?,
        })
    }

    /// The grid's truth under the fixture's knobs (`decision_fixture --truth [race|ties]`: the software
    /// regressions asked for are in it), cut down to the settings its declaration runs.
    pub fn truth(&self, grid: &Grid, fixture: &[Fixture]) -> Result<Truth, String> {
        let mut command = Command::new(&self.fixture);
        command.arg("--truth").args(grid.truth).envs(fixture.iter().flat_map(|part| part.iter().copied()));
        let table = checked_output(&mut command, "decision_fixture --truth")?;
        let table: Value = serde_json::from_slice(&table.stdout).map_err(|e| format!("fixture truth: {e}"))?;
        let table = tally::restrict_all(&table, &declared_params(&self.declaration(grid)?)?);
        let settings = tally::setting_truths(&table, grid.keys, PRIMARY)?;
        let groups = tally::truth_groups(&settings, grid.margin_in_noise * self.noise);
        Ok(Truth { settings, groups })
    }

    /// The grid's declaration with the fixture profile by absolute path and the grid's subset.
    fn declaration(&self, grid: &Grid) -> Result<toml::Table, String> {
        let source = self.decisions.join(grid.declaration);
        let text = std::fs::read_to_string(&source).map_err(|e| format!("{}: {e}", source.display()))?;
        let mut table: toml::Table = text.parse().map_err(|e| format!("{}: {e}", source.display()))?;
        let profile = self.decisions.join("engines/fixture.toml");
        set(&mut table, "engine", "profile", profile.display().to_string().into());
        for (param, values) in grid.subset {
            set(&mut table, "params", param, values.to_vec().into());
        }
        Ok(table)
    }

    /// The grid's declaration (`declaration`) with `edits` (section, key, value), written as `<name>.toml` in
    /// the work folder.
    pub fn write_declaration(
        &self,
        grid: &Grid,
        name: &str,
        edits: &[(&str, &str, toml::Value)],
    ) -> Result<PathBuf, String> {
        let mut table = self.declaration(grid)?;
        for (section, key, value) in edits {
            set(&mut table, section, key, value.clone());
        }
        let path = self.work.path().join(format!("{name}.toml"));
        std::fs::write(&path, table.to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }

    /// One seeded sweep (`seed` orders its runs and seeds its fixture); its fixture gets its own run
    /// counter and the `FIXTURE_*` variables of every part of `fixture`.
    pub fn sweep(
        &self,
        declaration: &Path,
        csv: &Path,
        seed: u64,
        fixture: &[Fixture],
        extra: &[&str],
    ) -> Result<(), String> {
        let output = self
            .sweep_command()
            .arg("run")
            .arg(declaration)
            .arg("--out")
            .arg(csv)
            .args(["--no-build", "--seed", &seed.to_string()])
            .args(extra)
            .env("FIXTURE_SEED", seed.to_string())
            .env("FIXTURE_STATE", csv.with_extension("state"))
            .envs(fixture.iter().flat_map(|part| part.iter().copied()))
            .output()
            .map_err(|e| format!("sweep run: {e}"))?;
        if !output.status.success() {
            return Err(failure(&format!("sweep run {} (seed {seed})", declaration.display()), &output));
        }
        Ok(())
    }

    /// `sweep compare A B --json`, parsed; exit 1 (a regression found) and 3 (cannot tell: the machine changed)
    /// still print the comparison.
    pub fn compare_json(&self, a: &Path, b: &Path) -> Result<Value, String> {
        let output = self.sweep_command().arg("compare").arg(a).arg(b).arg("--json").output();
        let output = output.map_err(|e| format!("sweep compare: {e}"))?;
        if !matches!(output.status.code(), Some(0 | 1 | 3)) {
            return Err(failure("sweep compare --json", &output));
        }
        serde_json::from_slice(&output.stdout).map_err(|e| format!("sweep compare --json printed no JSON ({e})"))
    }

    fn sweep_command(&self) -> Command {
        let mut command = Command::new(&self.sweep);
        command.current_dir(self.work.path());
        command
    }
}

/// Builds the fixture in release mode (the profile's `program` path) and returns its path.
fn build_fixture(manifest_dir: &Path) -> Result<PathBuf, String> {
    let manifest = manifest_dir.join("Cargo.toml");
    let mut build = Command::new(env!("CARGO"));
    build.args(["build", "--quiet", "--release", "--example", "decision_fixture", "--manifest-path"]).arg(&manifest);
    checked_output(&mut build, "cargo build --release --example decision_fixture")?;
    Ok(manifest_dir.join("../target/release/examples/decision_fixture"))
}

fn env_parsed<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
    Ok(env_optional(name)?.unwrap_or(default))
}

fn env_optional<T: std::str::FromStr>(name: &str) -> Result<Option<T>, String> {
    match std::env::var(name) {
        Ok(text) => text.parse::<T>().map(Some).map_err(|_| format!("{name}={text}: not a number of the right kind")),
        Err(_) => Ok(None),
    }
}

/// A declaration's `[params]` as (param, its whole-number values), for cutting the truth to its grid.
fn declared_params(declaration: &toml::Table) -> Result<Vec<(String, Vec<u64>)>, String> {
    let params = declaration.get("params").and_then(toml::Value::as_table).ok_or("a declaration without [params]")?;
    let values = |(param, values): (&String, &toml::Value)| -> Result<(String, Vec<u64>), String> {
        let whole = |value: &toml::Value| value.as_integer().and_then(|number| u64::try_from(number).ok());
        let values: Option<Vec<u64>> = values.as_array().and_then(|values| values.iter().map(whole).collect());
        Ok((param.clone(), values.ok_or_else(|| format!("[params] {param}: not a list of whole numbers"))?))
    };
    params.iter().map(values).collect()
}

fn checked_output(command: &mut Command, what: &str) -> Result<Output, String> {
    let output = command.output().map_err(|e| format!("{what}: {e}"))?;
    if output.status.success() {
        Ok(output)
    } else {
        Err(failure(what, &output))
    }
}

fn failure(what: &str, output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
    format!("{what} failed ({}): {}", output.status, tail.into_iter().rev().collect::<Vec<_>>().join(" | "))
}

pub fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: {e} (sweep run must write <stem>.analysis.json beside the CSV)", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The CSV's rows (one per engine run) and the runs whose `metric.slowdown` is not 1: the fixture's
/// stragglers (above 1) and runs too fast (below 1), by the grid's `params` and the rep.
pub fn read_runs(csv: &Path, params: &[&str]) -> Result<Runs, String> {
    let error = |e: csv::Error| format!("{}: {e}", csv.display());
    let mut reader = csv::Reader::from_path(csv).map_err(error)?;
    let headers = reader.headers().map_err(error)?.clone();
    let column = |name: &str| {
        headers.iter().position(|header| header == name).ok_or_else(|| format!("{}: no column {name}", csv.display()))
    };
    let param_columns: Vec<usize> =
        params.iter().map(|param| column(&format!("param.{param}"))).collect::<Result<_, _>>()?;
    let (rep, slowdown) = (column("rep")?, column("metric.slowdown")?);
    let mut runs = Runs { count: 0, stragglers: Vec::new() };
    for record in reader.records() {
        let record = record.map_err(error)?;
        runs.count += 1;
        let number = |index: usize| record.get(index).and_then(|text| text.parse::<f64>().ok());
        if number(slowdown).is_some_and(|factor| factor != 1.0) {
            let whole = |index: usize| number(index).map(|value| value as u64);
            let setting: Option<Vec<u64>> = param_columns.iter().map(|&index| whole(index)).collect();
            let run = setting.zip(whole(rep)).map(|(setting, rep)| RunId { setting, rep });
            runs.stragglers.push(run.ok_or_else(|| format!("{}: a straggler row without its setting", csv.display()))?);
        }
    }
    Ok(runs)
}

fn set(table: &mut toml::Table, section: &str, key: &str, value: toml::Value) {
    let section = table.entry(section).or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if let Some(section) = section.as_table_mut() {
        section.insert(key.to_string(), value);
    }
}
