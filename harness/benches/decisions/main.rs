//! The decisions benchmark (issue 7, "How it is checked"): drives the decision FIXTURE engine
//! (`examples/decision_fixture.rs`, whose truth is known) through `sweep run` many times with different seeds,
//! judges every group verdict against the truth, and measures the A/A false-alarm rate of `sweep compare`.
//! It prints figures beside the targets; it asserts nothing (the fixture's numbers are not measurements).
//!
//! `cargo bench --bench decisions [-- SCENARIO...]` (scenarios a..g, default all; or `bench/decisions.sh`).
//! Env: DECISIONS_SWEEPS (sweeps per scenario, default 20), FIXTURE_NOISE (per-run sigma, default 0.01),
//! DECISIONS_SWEEP_BIN (the `sweep` binary to judge; default: the one this `cargo bench` built).

// `tally`'s tests run in their own target (`cargo test --test decisions_tally`). Checked as a test, this
// harness-less bench compiles them without running them, so their helpers would read as dead code here.
#[cfg_attr(test, allow(dead_code))]
mod tally;

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tally::{GroupTruth, Outcome};

const GROUP_KEY: &str = "rows";
const PARAM: &str = "slices";
const PRIMARY: &str = "prefill_tokens_per_s";
const DEFAULT_SWEEPS: usize = 20;
const DEFAULT_NOISE: f64 = 0.01;
/// A group is clear when its best beats every rival by more than this many times the per-run noise.
const CLEAR_MARGIN_IN_NOISE: f64 = 3.0;
/// A race gets the budget of the fixed design it is measured against, (d): 5 rounds at most.
const RACING_MAX_REPS: &str = "5";

/// One way of running the slices grid.
struct Scenario {
    id: &'static str,
    title: &'static str,
    drift: &'static str,
    order: &'static str,
    reps: u32,
    racing: bool,
    negligible: Option<f64>,
    /// Smallest share of clear groups that must be resolved, if the issue sets one for this scenario.
    resolved_target: Option<f64>,
}

const SCENARIOS: [Scenario; 6] = [
    Scenario {
        id: "a",
        title: "1% noise, 3 reps, interleaved",
        drift: "none",
        order: "interleaved",
        reps: 3,
        racing: false,
        negligible: None,
        resolved_target: Some(0.95),
    },
    Scenario {
        id: "b",
        title: "(a) + shared sine drift +-15%",
        drift: "sine",
        order: "interleaved",
        reps: 3,
        racing: false,
        negligible: None,
        resolved_target: Some(0.90),
    },
    Scenario {
        id: "c",
        title: "(b) with order = \"shuffled\" (no rounds to pair: Welch)",
        drift: "sine",
        order: "shuffled",
        reps: 3,
        racing: false,
        negligible: None,
        resolved_target: None,
    },
    Scenario {
        id: "d",
        title: "1% noise, fixed 5 reps, interleaved",
        drift: "none",
        order: "interleaved",
        reps: 5,
        racing: false,
        negligible: None,
        resolved_target: Some(0.95),
    },
    Scenario {
        id: "e",
        title: "racing: --until-decided --max-reps 5 (min 3), the budget of (d)",
        drift: "none",
        order: "interleaved",
        reps: 3,
        racing: true,
        negligible: None,
        resolved_target: Some(0.95),
    },
    Scenario {
        id: "f",
        title: "racing with [analysis] negligible = 0.03 (3x the per-run noise)",
        drift: "none",
        order: "interleaved",
        reps: 3,
        racing: true,
        negligible: Some(0.03),
        resolved_target: Some(0.95),
    },
];

/// (g): the A/A grid, run twice per trial (different seeds) and compared.
const AA: Scenario = Scenario {
    id: "g",
    title: "sweep compare, A/A on the 50-setting grid (1% noise, 3 reps interleaved per sweep)",
    drift: "none",
    order: "interleaved",
    reps: 3,
    racing: false,
    negligible: None,
    resolved_target: None,
};

/// Racing must save at least this share of fixed 5 reps' runs (without, with a negligible margin).
const RACING_SAVING_TARGET: f64 = 0.30;
const NEGLIGIBLE_SAVING_TARGET: f64 = 0.40;

/// Where everything is, and what the fixture's truth says.
struct Bench {
    sweep: PathBuf,
    decisions: PathBuf,
    work: tempfile::TempDir,
    sweeps: usize,
    noise: f64,
    truth: Vec<GroupTruth>,
}

/// What the sweeps of one scenario said.
struct ScenarioResult {
    /// Per sweep, per truth group (in truth order).
    outcomes: Vec<Vec<Outcome>>,
    runs: Vec<usize>,
    methods: BTreeMap<String, usize>,
}

fn main() {
    if let Err(message) = run() {
        eprintln!("decisions benchmark: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let selected: Vec<String> = std::env::args().skip(1).filter(|arg| !arg.starts_with("--")).collect();
    let wanted = |id: &str| selected.is_empty() || selected.iter().any(|arg| arg == id);
    let bench = Bench::new()?;
    println!(
        "Decisions benchmark on the decision FIXTURE (known truth; its numbers are not measurements): {} sweeps per scenario.",
        bench.sweeps
    );
    print_truth(&bench.truth);
    println!(
        "Clear: the best beats every rival by more than {CLEAR_MARGIN_IN_NOISE}x the per-run noise ({:.1}%). Right: a clear group \
         resolved with its true best, or a true tie reported tied with every true best in its tied set. Wrong: no true \
         best among the named best and the rivals tied with it. wash-where-clear: a clear group not resolved. \
         clear-where-wash: a truly tied setting called beaten.",
        CLEAR_MARGIN_IN_NOISE * bench.noise * 100.0
    );
    let mut results: BTreeMap<&str, ScenarioResult> = BTreeMap::new();
    for scenario in SCENARIOS.iter().filter(|scenario| wanted(scenario.id)) {
        let result = bench.run_scenario(scenario)?;
        print_scenario(scenario, &result, &bench.truth, results.get("d"));
        results.insert(scenario.id, result);
    }
    if wanted(AA.id) {
        bench.run_aa()?;
    }
    Ok(())
}

impl Bench {
    fn new() -> Result<Bench, String> {
        let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let sweeps = match std::env::var("DECISIONS_SWEEPS") {
            Ok(text) => text.parse::<usize>().ok().filter(|n| *n > 0).ok_or(format!("DECISIONS_SWEEPS={text}"))?,
            Err(_) => DEFAULT_SWEEPS,
        };
        let noise = match std::env::var("FIXTURE_NOISE") {
            Ok(text) => text.parse::<f64>().map_err(|_| format!("FIXTURE_NOISE={text}: not a number"))?,
            Err(_) => DEFAULT_NOISE,
        };
        let fixture = build_fixture(&manifest_dir)?;
        let table = checked_output(Command::new(&fixture).arg("--truth"), "decision_fixture --truth")?;
        let table: Value = serde_json::from_slice(&table.stdout).map_err(|e| format!("fixture truth: {e}"))?;
        let truth = tally::truth_groups(&table, GROUP_KEY, PARAM, PRIMARY, CLEAR_MARGIN_IN_NOISE * noise)?;
        let work = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
        Ok(Bench {
            sweep: std::env::var_os("DECISIONS_SWEEP_BIN")
                .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_sweep")), PathBuf::from),
            decisions: manifest_dir.join("../bench/decisions"),
            work,
            sweeps,
            noise,
            truth,
        })
    }

    fn run_scenario(&self, scenario: &Scenario) -> Result<ScenarioResult, String> {
        let declaration = self.write_declaration("slices.toml", scenario)?;
        let mut result = ScenarioResult { outcomes: Vec::new(), runs: Vec::new(), methods: BTreeMap::new() };
        for index in 0..self.sweeps {
            progress(&format!("({}) sweep {}/{}", scenario.id, index + 1, self.sweeps));
            let csv = self.work.path().join(format!("{}-{index}/x.csv", scenario.id));
            let mut extra: Vec<&str> = Vec::new();
            if scenario.racing {
                extra.extend(["--until-decided", "--max-reps", RACING_MAX_REPS]);
            }
            self.sweep_run(&declaration, &csv, index, scenario.drift, &extra)?;
            let analysis = read_json(&csv.with_extension("analysis.json"))?;
            let verdicts = tally::group_verdicts(&analysis, GROUP_KEY, PARAM)
                .map_err(|e| format!("{}: {e}", csv.with_extension("analysis.json").display()))?;
            let mut outcomes = Vec::new();
            for truth in &self.truth {
                let verdict = verdicts
                    .iter()
                    .find(|verdict| verdict.group == truth.group)
                    .ok_or_else(|| format!("{}: no group {GROUP_KEY}={}", csv.display(), truth.group))?;
                *result.methods.entry(verdict.method.clone()).or_default() += 1;
                outcomes.push(tally::classify(truth, verdict)?);
            }
            result.outcomes.push(outcomes);
            result.runs.push(count_runs(&csv)?);
        }
        progress("");
        Ok(result)
    }

    /// (g): independent sweeps of the same 50-setting fixture, and every pair of them compared. Pairs that
    /// share a sweep are not independent, but each is a valid A/A trial, so the rate is unbiased and far less
    /// coarse than one trial per two sweeps.
    fn run_aa(&self) -> Result<(), String> {
        println!("\n({}) {}", AA.id, AA.title);
        if self.sweeps < 2 {
            println!("  needs DECISIONS_SWEEPS >= 2");
            return Ok(());
        }
        let declaration = self.write_declaration("aa.toml", &AA)?;
        let mut csvs = Vec::new();
        for index in 0..self.sweeps {
            progress(&format!("({}) sweep {}/{}", AA.id, index + 1, self.sweeps));
            let csv = self.work.path().join(format!("{}-{index}/x.csv", AA.id));
            self.sweep_run(&declaration, &csv, index, AA.drift, &[])?;
            csvs.push(csv);
        }
        progress("");
        let (mut trials, mut trials_flagged, mut settings_flagged, mut settings_total, mut alpha) = (0, 0, 0, 0, None);
        for (index, a) in csvs.iter().enumerate() {
            for b in &csvs[index + 1..] {
                let comparison = self.compare_json(a, b)?;
                let flagged = tally::flagged_settings(&comparison).map_err(|e| format!("sweep compare --json: {e}"))?;
                trials += 1;
                trials_flagged += usize::from(flagged > 0);
                settings_flagged += flagged;
                settings_total += comparison["settings"].as_array().map_or(0, Vec::len);
                alpha = alpha.or(comparison["alpha"].as_f64());
            }
        }
        let alpha = alpha.unwrap_or(0.05);
        let rate = trials_flagged as f64 / trials as f64;
        println!(
            "  A/A trials (every pair of {} sweeps) with any setting flagged improved/regressed: {trials_flagged} of {trials}",
            self.sweeps
        );
        println!("  settings flagged: {settings_flagged} of {settings_total} compared");
        println!(
            "  target: family-wise false-alarm rate {:.1}% <= alpha {alpha}: {}",
            rate * 100.0,
            mark(rate <= alpha)
        );
        Ok(())
    }

    /// `sweep compare A B --json`, parsed; exit 1 (a regression found) still prints the comparison.
    fn compare_json(&self, a: &Path, b: &Path) -> Result<Value, String> {
        let output = self.sweep_command().arg("compare").arg(a).arg(b).arg("--json").output();
        let output = output.map_err(|e| format!("sweep compare: {e}"))?;
        if !matches!(output.status.code(), Some(0 | 1)) {
            return Err(failure("sweep compare --json", &output));
        }
        serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("sweep compare --json printed no JSON ({e}); is it implemented?"))
    }

    /// The declaration with this scenario's order, reps and margin, and the fixture profile by absolute path.
    fn write_declaration(&self, file: &str, scenario: &Scenario) -> Result<PathBuf, String> {
        let source = self.decisions.join(file);
        let text = std::fs::read_to_string(&source).map_err(|e| format!("{}: {e}", source.display()))?;
        let mut table: toml::Table = text.parse().map_err(|e| format!("{}: {e}", source.display()))?;
        let profile = self.decisions.join("engines/fixture.toml");
        set(&mut table, "engine", "profile", profile.display().to_string().into());
        set(&mut table, "reps", "order", scenario.order.into());
        set(&mut table, "reps", "count", i64::from(scenario.reps).into());
        if let Some(negligible) = scenario.negligible {
            set(&mut table, "analysis", "negligible", negligible.into());
        }
        let path = self.work.path().join(format!("{}-{file}", scenario.id));
        std::fs::write(&path, table.to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }

    /// One seeded sweep; its fixture gets its own run counter, seed and drift.
    fn sweep_run(
        &self,
        declaration: &Path,
        csv: &Path,
        index: usize,
        drift: &str,
        extra: &[&str],
    ) -> Result<(), String> {
        let state = csv.with_extension("state");
        let output = self
            .sweep_command()
            .arg("run")
            .arg(declaration)
            .arg("--out")
            .arg(csv)
            .args(["--no-build", "--seed", &(index + 1).to_string()])
            .args(extra)
            .env("FIXTURE_SEED", (1000 + index).to_string())
            .env("FIXTURE_STATE", &state)
            .env("FIXTURE_DRIFT", drift)
            .output()
            .map_err(|e| format!("sweep run: {e}"))?;
        if !output.status.success() {
            return Err(failure(&format!("sweep run {}", declaration.display()), &output));
        }
        Ok(())
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

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: {e} (sweep run must write <stem>.analysis.json beside the CSV)", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Engine runs a sweep made: the CSV's rows (one per run).
fn count_runs(csv: &Path) -> Result<usize, String> {
    let mut reader = csv::Reader::from_path(csv).map_err(|e| format!("{}: {e}", csv.display()))?;
    Ok(reader.records().count())
}

fn set(table: &mut toml::Table, section: &str, key: &str, value: toml::Value) {
    let section = table.entry(section).or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if let Some(section) = section.as_table_mut() {
        section.insert(key.to_string(), value);
    }
}

fn print_truth(truth: &[GroupTruth]) {
    let describe = |group: &GroupTruth| {
        let best: Vec<String> = group.best.iter().map(u64::to_string).collect();
        let kind = if group.clear { "clear" } else { "true tie" };
        format!("{GROUP_KEY}={} {kind} ({PARAM} {})", group.group, best.join(" = "))
    };
    println!("Truth: {}.", truth.iter().map(describe).collect::<Vec<_>>().join("; "));
}

fn print_scenario(scenario: &Scenario, result: &ScenarioResult, truth: &[GroupTruth], fixed5: Option<&ScenarioResult>) {
    println!("\n({}) {}", scenario.id, scenario.title);
    println!(
        "  {:<24} {:>6} {:>6} {:>17} {:>17} {:>10}",
        "group", "right", "wrong", "wash-where-clear", "clear-where-wash", "undecided"
    );
    let mut totals = [0; 5];
    for (index, group) in truth.iter().enumerate() {
        let counts = count_outcomes(result.outcomes.iter().map(|outcomes| outcomes[index]));
        let kind = if group.clear { "clear" } else { "true tie" };
        print_counts(&format!("{GROUP_KEY}={} ({kind})", group.group), &counts);
        totals.iter_mut().zip(counts).for_each(|(total, count)| *total += count);
    }
    print_counts("all groups", &totals);
    let methods: Vec<String> = result.methods.iter().map(|(method, count)| format!("{method} {count}")).collect();
    let runs_median = tally::median(&result.runs);
    let (low, high) = (result.runs.iter().min().unwrap_or(&0), result.runs.iter().max().unwrap_or(&0));
    println!(
        "  engine runs per sweep: median {runs_median} (min {low}, max {high}); group methods: {}",
        methods.join(", ")
    );
    print_targets(scenario, result, truth, totals, fixed5);
}

/// Counts indexed by `Outcome as usize`, i.e. in its declaration order: right, wrong, wash-where-clear,
/// clear-where-wash, undecided (the table's columns).
fn count_outcomes(outcomes: impl Iterator<Item = Outcome>) -> [usize; 5] {
    let mut counts = [0; 5];
    for outcome in outcomes {
        counts[outcome as usize] += 1;
    }
    counts
}

fn print_counts(label: &str, counts: &[usize; 5]) {
    println!("  {label:<24} {:>6} {:>6} {:>17} {:>17} {:>10}", counts[0], counts[1], counts[2], counts[3], counts[4]);
}

fn print_targets(
    scenario: &Scenario,
    result: &ScenarioResult,
    truth: &[GroupTruth],
    totals: [usize; 5],
    fixed5: Option<&ScenarioResult>,
) {
    let wrong = totals[Outcome::Wrong as usize];
    println!("  target: 0 wrong: {wrong} {}", mark(wrong == 0));
    let clear_groups = truth.iter().filter(|group| group.clear).count() * result.outcomes.len();
    let clear_resolved = truth
        .iter()
        .enumerate()
        .filter(|(_, group)| group.clear)
        .map(|(index, _)| result.outcomes.iter().filter(|outcomes| outcomes[index] == Outcome::Right).count())
        .sum::<usize>();
    let share = clear_resolved as f64 / clear_groups.max(1) as f64;
    match scenario.resolved_target {
        Some(target) => println!(
            "  target: clear groups resolved {clear_resolved}/{clear_groups} = {:.1}% >= {:.0}%: {}",
            share * 100.0,
            target * 100.0,
            mark(share >= target)
        ),
        None => println!("  clear groups resolved {clear_resolved}/{clear_groups} = {:.1}% (no target)", share * 100.0),
    }
    if scenario.racing {
        print_racing_targets(scenario, result, fixed5);
    }
}

/// Racing against fixed 5 reps (d), sweep by sweep on the same noise draws (the fixture keys its noise by
/// setting and rep): the outcome per group, and the runs saved. "The same verdicts" is met when racing is
/// right in no fewer groups than (d) and never wrong.
fn print_racing_targets(scenario: &Scenario, result: &ScenarioResult, fixed5: Option<&ScenarioResult>) {
    let Some(fixed5) = fixed5 else {
        println!("  racing targets need scenario (d) in the same run");
        return;
    };
    let pairs: Vec<(Outcome, Outcome)> =
        result.outcomes.iter().flatten().copied().zip(fixed5.outcomes.iter().flatten().copied()).collect();
    let count = |keep: fn(&(Outcome, Outcome)) -> bool| pairs.iter().filter(|pair| keep(pair)).count();
    let agree = count(|(racing, fixed)| racing == fixed);
    let gained = count(|(racing, fixed)| *racing == Outcome::Right && *fixed != Outcome::Right);
    let lost = count(|(racing, fixed)| *racing != Outcome::Right && *fixed == Outcome::Right);
    let wrong = count(|(racing, _)| *racing == Outcome::Wrong);
    println!(
        "  vs fixed 5 reps (d) on the same noise draws: {agree}/{} group outcomes agree; right only when racing {gained}, only in (d) {lost}",
        pairs.len()
    );
    println!(
        "  target: verdicts as good as fixed 5 reps (right in no fewer groups, 0 wrong): {}",
        mark(gained >= lost && wrong == 0)
    );
    let saving = 1.0 - tally::median(&result.runs) / tally::median(&fixed5.runs);
    let target = if scenario.negligible.is_some() { NEGLIGIBLE_SAVING_TARGET } else { RACING_SAVING_TARGET };
    println!(
        "  target: median runs {:.1}% fewer than fixed 5 reps (d) >= {:.0}%: {}",
        saving * 100.0,
        target * 100.0,
        mark(saving >= target)
    );
}

/// Overwrites one status line on a terminal; nothing when stderr is a file or a pipe.
fn progress(text: &str) {
    if std::io::stderr().is_terminal() {
        eprint!("\r{text:<40}\r{text}");
    }
}

fn mark(met: bool) -> &'static str {
    if met {
        "MET"
    } else {
        "MISSED"
    }
}
