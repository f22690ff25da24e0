//! The decisions benchmark (issues 7 and 19): drives the decision FIXTURE engine (`examples/decision_fixture.rs`,
//! whose truth is known) through the real `sweep run` many times with different seeds, under well-behaved and
//! misbehaving noise (drift, stragglers, unequal noise, a control the setting moves, a step, a 2 x 2 of 2 reps,
//! races), judges every group verdict of `<stamp>.analysis.json` against the truth, and judges
//! `sweep compare --json` on A/A pairs and on known regressions. It prints figures beside the issues'
//! targets; it asserts nothing (the fixture's numbers are not measurements).
//!
//! `cargo bench --bench decisions [-- SCENARIO...]` (scenarios a..z, aa..ad, default all; or
//! `bench/decisions.sh`). Env: DECISIONS_SWEEPS (sweeps per scenario; default each scenario's own: 40 for
//! a..s, 100 from t on), DECISIONS_TRIALS (independent A/B pairs per compare scenario; default 50 for g, n,
//! o, p, 100 from t on), DECISIONS_SEED (the first seed, default 1000: sweep i of every scenario
//! runs with seed + i, so scenarios differ only by their conditions), DECISIONS_KEEP=1 (keep the work folder
//! and print its path, to read the JSON behind a count), FIXTURE_NOISE (per-run sigma, default 0.01),
//! DECISIONS_SWEEP_BIN (the `sweep` binary to judge; default: the one this `cargo bench` built).

mod driver;
mod print;
mod scenarios;
// `tally`'s tests run in their own target (`cargo test --test decisions_tally`). Checked as a test, this
// harness-less bench compiles them without running them, so their helpers would read as dead code here.
#[cfg_attr(test, allow(dead_code))]
mod tally;

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;

use driver::{Bench, Truth};
use scenarios::{CompareScenario, Scenario, COMPARE_SCENARIOS, SCENARIOS};
use tally::{CompareClaims, Outcome};

/// What one sweep of a scenario said, judged.
pub struct SweepFacts {
    pub seed: u64,
    /// Per truth group, in truth order.
    pub outcomes: Vec<Outcome>,
    /// Per group, `paired` or `welch`.
    pub methods: Vec<String>,
    /// Engine runs (CSV rows).
    pub runs: usize,
    /// Stragglers (named, true, true ones named).
    pub stragglers: (usize, usize, usize),
    /// Whether the control adjusted the verdicts; `None` without a control.
    pub control_used: Option<bool>,
    /// Rivals tested, those whose interval is not honest, and those whose interval misses the true ratio.
    pub tested: usize,
    pub faults: Vec<String>,
    pub misses: Vec<String>,
    /// Rivals called beaten though truly at least as good as the named best.
    pub falsely_beaten: Vec<String>,
}

/// One `sweep compare` trial: the seeds of its two sweeps and what it claimed.
pub struct Trial {
    pub seeds: (u64, u64),
    pub claims: CompareClaims,
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
    let result = run_selected(&bench, &wanted);
    // Kept on a failure too: the failed sweep's logs are in it.
    if std::env::var_os("DECISIONS_KEEP").is_some() {
        let kept = bench.work.keep();
        println!("\nwork folder kept: {} (<scenario>-<seed>/x.analysis.json)", kept.display());
    }
    result
}

/// The scenarios `wanted` (by id) in id order, each printed as it ends.
fn run_selected(bench: &Bench, wanted: &dyn Fn(&str) -> bool) -> Result<(), String> {
    print::preamble(bench);
    let mut ids: Vec<&str> = SCENARIOS.iter().map(|s| s.id).chain(COMPARE_SCENARIOS.iter().map(|s| s.id)).collect();
    // Ids run a..z, then aa, ab, ...: by length first, as spreadsheet columns.
    ids.sort_unstable_by_key(|id| (id.len(), *id));
    let mut results: BTreeMap<&str, Vec<SweepFacts>> = BTreeMap::new();
    let mut truths_shown: Vec<String> = Vec::new();
    for id in ids.into_iter().filter(|id| wanted(id)) {
        if let Some(scenario) = SCENARIOS.iter().find(|s| s.id == id) {
            let truth = bench.truth(scenario.grid, scenario.fixture)?;
            print::truth_once(scenario.grid, &truth, &mut truths_shown);
            let facts = run_scenario(bench, scenario, &truth)?;
            print::scenario(scenario, &facts, &truth, &results);
            results.insert(scenario.id, facts);
        } else if let Some(scenario) = COMPARE_SCENARIOS.iter().find(|s| s.id == id) {
            let trials = run_compare(bench, scenario)?;
            print::compare(scenario, &trials);
        }
    }
    Ok(())
}

/// Every sweep of one scenario, each judged group by group.
fn run_scenario(bench: &Bench, scenario: &Scenario, truth: &Truth) -> Result<Vec<SweepFacts>, String> {
    let mut edits: Vec<(&str, &str, toml::Value)> =
        vec![("reps", "order", scenario.order.into()), ("reps", "count", i64::from(scenario.reps).into())];
    if let Some(negligible) = scenario.negligible {
        edits.push(("analysis", "negligible", negligible.into()));
    }
    let declaration = bench.write_declaration(scenario.grid, scenario.id, &edits)?;
    let max_reps = scenario.race_to.map(|max| max.to_string());
    let extra: Vec<&str> = max_reps.as_deref().map_or_else(Vec::new, |max| vec!["--until-decided", "--max-reps", max]);
    let mut sweeps = Vec::new();
    let count = bench.sweeps.unwrap_or(scenario.sweeps);
    for index in 0..count {
        progress(&format!("({}) sweep {}/{count}", scenario.id, index + 1));
        let seed = bench.seed + index as u64;
        let csv = sweep_csv(bench, scenario.id, seed);
        bench.sweep(&declaration, &csv, seed, scenario.fixture, &extra)?;
        sweeps.push(judge_sweep(&csv, seed, scenario, truth)?);
    }
    progress("");
    Ok(sweeps)
}

fn sweep_csv(bench: &Bench, id: &str, seed: u64) -> PathBuf {
    bench.work.path().join(format!("{id}-{seed}/x.csv"))
}

/// One sweep's `analysis.json` and CSV against the truth.
fn judge_sweep(csv: &std::path::Path, seed: u64, scenario: &Scenario, truth: &Truth) -> Result<SweepFacts, String> {
    let grid = scenario.grid;
    let path = csv.with_extension("analysis.json");
    let analysis = driver::read_json(&path)?;
    let in_file = |e: String| format!("{}: {e}", path.display());
    let verdicts = tally::group_verdicts(&analysis, grid.keys).map_err(in_file)?;
    let (mut outcomes, mut methods) = (Vec::new(), Vec::new());
    for group in &truth.groups {
        let verdict = verdicts
            .iter()
            .find(|verdict| verdict.group == group.group)
            .ok_or_else(|| format!("{}: no group {:?}={}", path.display(), grid.keys.group, group.group))?;
        outcomes.push(tally::classify(group, verdict).map_err(in_file)?);
        methods.push(verdict.method.clone());
    }
    let runs = driver::read_runs(csv, grid.params)?;
    let named = tally::named_stragglers(&analysis, grid.params).map_err(in_file)?;
    let (tested, faults) = tally::interval_faults(&analysis, grid.keys.param);
    let rivals = tally::rival_truths(&analysis, grid.keys, &truth.settings).map_err(in_file)?;
    Ok(SweepFacts {
        seed,
        outcomes,
        methods,
        runs: runs.count,
        stragglers: tally::straggler_hits(&named, &runs.stragglers),
        control_used: tally::control_used(&analysis),
        tested,
        faults,
        misses: tally::interval_misses(&rivals),
        falsely_beaten: tally::falsely_beaten(&rivals),
    })
}

/// The trials of one compare scenario: N independent pairs (side B its own seed and what it adds). Not every
/// pair of N sweeps: one sweep's extreme draw then sits in N - 1 trials, and the rate of a few sweeps decides
/// the figure (docs/decisions.md, diagnosis 5).
fn run_compare(bench: &Bench, scenario: &CompareScenario) -> Result<Vec<Trial>, String> {
    let declaration = bench.write_declaration(scenario.grid, scenario.id, &[])?;
    let sweep = |seed: u64, side_b: bool| -> Result<PathBuf, String> {
        let csv = sweep_csv(bench, scenario.id, seed);
        let fixture = if side_b { vec![scenario.a, scenario.b_adds] } else { vec![scenario.a] };
        bench.sweep(&declaration, &csv, seed, &fixture, &[])?;
        Ok(csv)
    };
    let mut pairs = Vec::new();
    let count = bench.trials.unwrap_or(scenario.trials);
    for index in 0..count {
        progress(&format!("({}) trial {}/{count}", scenario.id, index + 1));
        let seed = bench.seed + 2 * index as u64;
        pairs.push(((seed, sweep(seed, false)?), (seed + 1, sweep(seed + 1, true)?)));
    }
    progress("");
    let trial = |((seed_a, a), (seed_b, b)): ((u64, PathBuf), (u64, PathBuf))| -> Result<Trial, String> {
        let comparison = bench.compare_json(&a, &b)?;
        let claims = tally::compare_claims(&comparison, scenario.grid.params)
            .map_err(|e| format!("sweep compare --json: {e}"))?;
        Ok(Trial { seeds: (seed_a, seed_b), claims })
    };
    pairs.into_iter().map(trial).collect()
}

/// Overwrites one status line on a terminal; nothing when stderr is a file or a pipe.
fn progress(text: &str) {
    if std::io::stderr().is_terminal() {
        eprint!("\r{text:<40}\r{text}");
    }
}
