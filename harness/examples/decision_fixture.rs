//! FIXTURE ENGINE for the decisions benchmark (`cargo bench --bench decisions`): not an engine, and its
//! numbers are not measurements. It prints throughput drawn from a cost model whose truth is known, so the
//! benchmark can count how often `sweep`'s verdicts name the true best setting.
//!
//! Usage: `decision_fixture --rows R --slices S [--rep N]` (the slices grid), `decision_fixture --setting K
//! [--rep N]` (the A/A grid, K in 1..=50), `decision_fixture --rival K [--rep N]` (the race grid, K in
//! 0..=9) or `decision_fixture --batch B --setting K [--rep N]` (the ties grid, B in 1..=3, K in 1..=14). It
//! prints one line and exits 0: `fixture_result prefill_tokens_per_s=.. decode_tokens_per_s=.. slowdown=..
//! rows=.. slices=..` (or `setting=..`, `rival=..`, `batch=.. setting=..`); `slowdown` is the factor this
//! run's primary was given on purpose (1 for most runs; above 1 a straggler, below 1 a run too fast), the
//! truth a benchmark checks the named stragglers against.
//! `decision_fixture --truth` prints the slices grid's truth table as JSON, `--truth race` the race grid's,
//! `--truth ties` the ties grid's, for the benchmark to judge by; the truth has the software regressions
//! asked for (`FIXTURE_REGRESSION*`), and nothing the machine does (it divides out of every ratio).
//!
//! Truth model, one run (k = the run's index in its sweep):
//!
//! ```text
//! prefill = truth(rows, slices) x regression x machine(k) / slowdown x primary_only x exp(sigma(slices) z1)
//! decode  = decode_base(rows) x moved(slices) x machine(k) / slowdown x exp(sigma z2)
//! machine(k) = drift(k) x (1 - FIXTURE_MACHINE) x exp(x_k)      (x_k: the AR(1) noise, 0 unless asked)
//! ```
//!
//! with z1, z2 independent standard normals (multiplicative lognormal noise, median = truth).
//!
//! `truth` is `PREFILL_TRUTH` below, shaped like the overlap study's section 3 (serial best at short prompts,
//! 2 slices at 2048 rows, 4 at 4096). Each row count is either a CLEAR group (its best beats every rival by
//! 3.5% or more, more than 3x the default noise) or a TRUE TIE (two settings exactly equal, every other one
//! clearly worse):
//!
//! ```text
//! rows  group     best        rivals
//! 512   TRUE TIE  slices 1=8  2 -20%, 4 -51%   (8 falls back to the serial path, as in the study)
//! 1024  TRUE TIE  slices 1=2  4 -24%, 8 -47%   (the study's wash)
//! 2048  CLEAR     slices 2    1 -3.5%, 4 -4.3%, 8 -12.8%
//! 4096  CLEAR     slices 4    2 -3.7%, 8 -4.0%, 1 -4.7%
//! 8192  CLEAR     slices 8    4 -3.8%, 2 -7.5%, 1 -8.9%
//! ```
//!
//! The A/A grid's truth is `1000 + 5 K` for setting K; it only has to be the same on both sides. The ties
//! grid's is 1000 for every setting of every batch (within a batch, every setting is a true best). The race
//! grid's is `1000 (1 - gap(K))`: rival 0 is the best, rivals 1..=9 trail it by 3% to 10% in equal steps
//! (3-10x the default noise: a sequential design should drop them early).
//!
//! `decode_base(rows)` is the control metric: it does not depend on slices (or on K), but it does depend
//! on rows, as decode TPS did in the study (`DECODE_BASE` below, 12 .. 6 tokens/s).
//!
//! `drift(k)` is a machine-speed factor shared by every run at the same moment. k counts the runs of a
//! sweep (0, 1, ...) in the file `run_counter` of the directory `FIXTURE_STATE` (default: the parent of the
//! working directory, i.e. the sweep's `runs/` folder), created when absent; runs of one sweep are
//! sequential. `FIXTURE_DRIFT` selects it (P = `FIXTURE_DRIFT_PERIOD`, default 200 runs;
//! A = `FIXTURE_DRIFT_AMPLITUDE`, default 0.15; `FIXTURE_STEP_AT`, default P / 4):
//!
//! ```text
//! none  1 (the default)
//! sine  1 + A sin(2 pi k / P + phase), phase drawn from the seed: a slow +-15% swing by default
//! step  1 for k < FIXTURE_STEP_AT, then 1 - A: the machine gets 15% slower mid-sweep by default
//! ```
//!
//! sigma is `FIXTURE_NOISE` (default 0.01, i.e. 1% per run). The noise is seeded by `FIXTURE_SEED` (default 0),
//! hashed, then combined with the setting and `--rep N` when given, else with k (splitmix64, Box-Muller), so a sweep
//! with the same seed reproduces its numbers exactly. Keyed by rep, rep r of a setting draws the same noise
//! in every sweep of one seed, whatever its order and however many reps it runs (common random numbers):
//! a racing sweep and a fixed-reps sweep are then judged on the same draws. Every run draws its
//! straggler chance too, whether or not stragglers were asked for, so the knobs below change the numbers they
//! are about and nothing else.
//!
//! Misbehaviour on request, each off by default:
//!
//! ```text
//! FIXTURE_STRAGGLERS=0.03             a share of runs (drawn per run) 2-4x slower in both metrics
//! FIXTURE_NOISE_BY_SLICES=4:0.04,1:0.005
//!                                     sigma(slices) of prefill at those slice counts (decode keeps sigma)
//! FIXTURE_CONTROL_MOVE=4:0.9          decode x 0.9 at 4 slices: a control the setting moves
//! FIXTURE_REGRESSION=0.05             prefill 5% lower everywhere (version B of a compare)
//! FIXTURE_REGRESSION_AT=2048,2:0.05   prefill 5% lower at rows=2048 slices=2 only (K:0.05 on the
//!                                     A/A or race grid, B,K:0.05 on the ties grid)
//! FIXTURE_MACHINE=0.03                the machine 3% slower: both metrics of every run (side B of a
//!                                     compare on a slower machine)
//! FIXTURE_AR1=0.01                    AR(1) machine noise, both metrics: speed x exp(x_k),
//!                                     x_k = phi x_(k-1) + 0.01 z, x_0 from its stationary law
//!                                     (phi: FIXTURE_AR1_PHI, default 0.9)
//! FIXTURE_FAST=0.03                   a share of runs (drawn per run) 1.3-2x too fast in prefill only:
//!                                     a run that skipped work, which the control does not see
//! FIXTURE_BIMODAL=0.3                 a share of runs (drawn per run) slower by FIXTURE_BIMODAL_DEPTH
//!                                     (default 0.08) in prefill only: bimodal machine noise the control
//!                                     does not see
//! ```
//!
//! The draws of the later knobs (fast runs, bimodal runs) come after the older ones in each run's stream,
//! and the AR(1) path has a stream of its own, so adding them left every earlier scenario's numbers as
//! they were.

use std::f64::consts::PI;
use std::path::PathBuf;
use std::process::ExitCode;

const SLICE_COUNTS: [u32; 4] = [1, 2, 4, 8];

/// Prefill tokens/s without noise or drift, per row count, for slices 1, 2, 4, 8.
const PREFILL_TRUTH: [(u32, [f64; 4]); 5] = [
    (512, [876.0, 700.0, 431.4, 876.0]),
    (1024, [1139.0, 1139.0, 862.4, 600.0]),
    (2048, [1195.1, 1238.6, 1185.8, 1080.0]),
    (4096, [1205.2, 1218.0, 1265.2, 1214.6]),
    (8192, [1212.0, 1230.0, 1280.0, 1330.0]),
];

/// Decode tokens/s without noise or drift, per row count: the control moves with rows, never with slices.
const DECODE_BASE: [(u32, f64); 5] = [(512, 12.0), (1024, 11.0), (2048, 9.5), (4096, 8.0), (8192, 6.0)];

const AA_SETTINGS: u32 = 50;
const AA_DECODE: f64 = 10.0;
/// The race grid: rival 0 is the best, rivals 1..=RACE_RIVALS trail it by RACE_GAPS.
const RACE_RIVALS: u32 = 9;
const RACE_GAPS: (f64, f64) = (0.03, 0.10);
/// The ties grid: batches 1..=TIE_BATCHES (the groups) of settings 1..=TIE_SETTINGS, every one TIE_TRUTH.
const TIE_BATCHES: u32 = 3;
const TIE_SETTINGS: u32 = 14;
const TIE_TRUTH: f64 = 1000.0;
/// A run too fast (`FIXTURE_FAST`) is this many times faster, uniformly between the two.
const FAST_BY: (f64, f64) = (1.3, 2.0);
/// Salt of the AR(1) path's own stream, so that it shares no draw with any run's noise.
const AR1_STREAM: u64 = 0xA5_1A_2B_3C;
const USAGE: &str = "usage: --rows R --slices S [--rep N] | --setting K [--rep N] | --rival K [--rep N] | \
                     --batch B --setting K [--rep N] | --truth [race|ties]";

/// Which setting one run is asked for.
enum Request {
    Slices { rows: u32, slices: u32 },
    AaSetting(u32),
    Rival(u32),
    Tie { batch: u32, setting: u32 },
}

impl Request {
    /// The params that name the setting, as the result line and the truth table name them.
    fn params(&self) -> Vec<(&'static str, u32)> {
        match self {
            Request::Slices { rows, slices } => vec![("rows", *rows), ("slices", *slices)],
            Request::AaSetting(setting) => vec![("setting", *setting)],
            Request::Rival(rival) => vec![("rival", *rival)],
            Request::Tie { batch, setting } => vec![("batch", *batch), ("setting", *setting)],
        }
    }

    /// The numbers that name the setting, for keying its noise and matching `FIXTURE_REGRESSION_AT`.
    fn ids(&self) -> Vec<u64> {
        self.params().iter().map(|(_, value)| u64::from(*value)).collect()
    }

    /// `rows=512 slices=1`: the labels the result line ends with.
    fn label(&self) -> String {
        self.params().iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>().join(" ")
    }

    /// The slice count, where the grid has one (the per-slice-count knobs apply there only).
    fn slices(&self) -> Option<u32> {
        match self {
            Request::Slices { slices, .. } => Some(*slices),
            Request::AaSetting(_) | Request::Rival(_) | Request::Tie { .. } => None,
        }
    }

    /// Noise-free prefill and decode, before any knob.
    fn truth(&self) -> Result<(f64, f64), String> {
        Ok(match self {
            Request::Slices { rows, slices } => (prefill_truth(*rows, *slices)?, decode_base(*rows)?),
            Request::AaSetting(setting) => (1000.0 + 5.0 * f64::from(*setting), AA_DECODE),
            Request::Rival(rival) => (race_truth(*rival), AA_DECODE),
            Request::Tie { .. } => (TIE_TRUTH, AA_DECODE),
        })
    }
}

/// The fixture's knobs, from the environment.
struct Knobs {
    noise: f64,
    drift: String,
    period: f64,
    amplitude: f64,
    step_at: f64,
    seed: u64,
    state_dir: PathBuf,
    stragglers: f64,
    noise_by_slices: Vec<(Vec<u64>, f64)>,
    control_move: Vec<(Vec<u64>, f64)>,
    regression: f64,
    regression_at: Vec<(Vec<u64>, f64)>,
    machine: f64,
    ar1: f64,
    ar1_phi: f64,
    fast: f64,
    bimodal: f64,
    bimodal_depth: f64,
}

impl Knobs {
    /// The factor a `slices:value` knob gives this request's slice count, if it names it.
    fn at_slices(entries: &[(Vec<u64>, f64)], request: &Request) -> Option<f64> {
        let slices = u64::from(request.slices()?);
        entries.iter().find(|(ids, _)| ids == &[slices]).map(|(_, value)| *value)
    }

    /// Prefill's factor from `FIXTURE_REGRESSION` and `FIXTURE_REGRESSION_AT`.
    fn regression_factor(&self, request: &Request) -> f64 {
        let ids = request.ids();
        let at = self.regression_at.iter().filter(|(at, _)| *at == ids).map(|(_, r)| 1.0 - r).product::<f64>();
        (1.0 - self.regression) * at
    }

    /// The machine's speed at run k, shared by both metrics: drift, a slower machine, AR(1) noise.
    fn machine_factor(&self, k: u64) -> Result<f64, String> {
        Ok(drift_factor(self, k)? * (1.0 - self.machine) * ar1_factor(self.seed, self.ar1_phi, self.ar1, k))
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("decision_fixture: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<String, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let grid = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--truth"] => Some(slices_grid()),
        ["--truth", "race"] => Some(race_grid()),
        ["--truth", "ties"] => Some(ties_grid()),
        _ => None,
    };
    let knobs = read_knobs()?;
    if let Some(grid) = grid {
        return truth_json(&grid, &knobs);
    }
    let (request, rep) = parse_request(args)?;
    let (truth, decode_base) = request.truth()?;
    let k = next_run_index(&knobs.state_dir)?;
    let noise_key = match rep {
        Some(rep) => [request.ids(), vec![u64::from(rep)]].concat(),
        None => vec![k],
    };
    // The seed is hashed before the setting is mixed in: `seed ^ setting` alone collides across sweeps (seed
    // 1000 with setting 47 and seed 1001 with setting 46 both give 967), so two sweeps would share draws.
    let hashed_seed = SplitMix64(knobs.seed).next();
    let mut rng = SplitMix64(noise_key.iter().fold(hashed_seed, |state, part| SplitMix64(state ^ part).next()));
    let machine = knobs.machine_factor(k)?;
    let (z1, z2) = (rng.normal(), rng.normal());
    // Drawn in every run, so that asking for stragglers leaves every other draw as it was.
    let (straggles, how_slow) = (rng.uniform() < knobs.stragglers, 2.0 + 2.0 * rng.uniform());
    let slowdown = if straggles { how_slow } else { 1.0 };
    let primary_only = primary_only(&knobs, &mut rng);
    let sigma = Knobs::at_slices(&knobs.noise_by_slices, &request).unwrap_or(knobs.noise);
    let moved = Knobs::at_slices(&knobs.control_move, &request).unwrap_or(1.0);
    let prefill =
        truth * knobs.regression_factor(&request) * machine / slowdown * primary_only.factor() * (sigma * z1).exp();
    let decode = decode_base * moved * machine / slowdown * (knobs.noise * z2).exp();
    // A run too fast is recorded as a slowdown below 1; a bimodal run is noise, not an outlier.
    let recorded = slowdown / primary_only.fast;
    Ok(format!(
        "fixture_result prefill_tokens_per_s={prefill:.4} decode_tokens_per_s={decode:.6} \
         slowdown={recorded:.3} {}",
        request.label()
    ))
}

/// What happens to one run's primary and not to its control.
struct PrimaryOnly {
    /// How many times too fast (1: not a run that skipped work).
    fast: f64,
    /// The bimodal noise's factor (1 in the run's fast mode).
    mode: f64,
}

impl PrimaryOnly {
    fn factor(&self) -> f64 {
        self.fast * self.mode
    }
}

/// Draws a run's fast-run and bimodal chances, in every run (after every older draw), so that asking for
/// either leaves every other number as it was.
fn primary_only(knobs: &Knobs, rng: &mut SplitMix64) -> PrimaryOnly {
    let (too_fast, how_fast) = (rng.uniform() < knobs.fast, FAST_BY.0 + (FAST_BY.1 - FAST_BY.0) * rng.uniform());
    let slow_mode = rng.uniform() < knobs.bimodal;
    PrimaryOnly {
        fast: if too_fast { how_fast } else { 1.0 },
        mode: if slow_mode { 1.0 - knobs.bimodal_depth } else { 1.0 },
    }
}

/// The setting asked for, and the rep when given.
fn parse_request(args: Vec<String>) -> Result<(Request, Option<u32>), String> {
    let (mut rows, mut slices, mut setting, mut rival, mut batch, mut rep) = (None, None, None, None, None, None);
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = value.parse::<u32>().map_err(|_| format!("{flag} {value}: not a whole number"))?;
        match flag.as_str() {
            "--rows" => rows = Some(number),
            "--slices" => slices = Some(number),
            "--setting" => setting = Some(number),
            "--rival" => rival = Some(number),
            "--batch" => batch = Some(number),
            "--rep" => rep = Some(number),
            _ => return Err(format!("unknown flag {flag}; {USAGE}")),
        }
    }
    if let Some(batch) = batch {
        return Ok((tie_request(batch, setting.ok_or(USAGE)?)?, rep));
    }
    let request = match (rows, slices, setting, rival) {
        (Some(rows), Some(slices), None, None) => Request::Slices { rows, slices },
        (None, None, Some(setting), None) if (1..=AA_SETTINGS).contains(&setting) => Request::AaSetting(setting),
        (None, None, Some(setting), None) => {
            return Err(format!("--setting {setting}: the A/A grid has settings 1..={AA_SETTINGS}"))
        }
        (None, None, None, Some(rival)) if rival <= RACE_RIVALS => Request::Rival(rival),
        (None, None, None, Some(rival)) => {
            return Err(format!("--rival {rival}: the race grid has rivals 0..={RACE_RIVALS}"))
        }
        _ => return Err(USAGE.to_string()),
    };
    Ok((request, rep))
}

fn tie_request(batch: u32, setting: u32) -> Result<Request, String> {
    if (1..=TIE_BATCHES).contains(&batch) && (1..=TIE_SETTINGS).contains(&setting) {
        Ok(Request::Tie { batch, setting })
    } else {
        Err(format!(
            "--batch {batch} --setting {setting}: the ties grid has batches 1..={TIE_BATCHES} of settings \
                     1..={TIE_SETTINGS}"
        ))
    }
}

fn read_knobs() -> Result<Knobs, String> {
    let period = env_number("FIXTURE_DRIFT_PERIOD", 200.0)?;
    let seed = std::env::var("FIXTURE_SEED")
        .map_or(Ok(0), |text| text.parse::<u64>().map_err(|_| format!("FIXTURE_SEED={text}: not a whole number")))?;
    Ok(Knobs {
        noise: env_number("FIXTURE_NOISE", 0.01)?,
        drift: std::env::var("FIXTURE_DRIFT").unwrap_or_else(|_| "none".to_string()),
        period,
        amplitude: env_number("FIXTURE_DRIFT_AMPLITUDE", 0.15)?,
        step_at: env_number("FIXTURE_STEP_AT", period / 4.0)?,
        seed,
        state_dir: std::env::var_os("FIXTURE_STATE").map_or_else(|| PathBuf::from(".."), PathBuf::from),
        stragglers: env_number("FIXTURE_STRAGGLERS", 0.0)?,
        noise_by_slices: env_entries("FIXTURE_NOISE_BY_SLICES", ",")?,
        control_move: env_entries("FIXTURE_CONTROL_MOVE", ",")?,
        regression: env_number("FIXTURE_REGRESSION", 0.0)?,
        regression_at: env_entries("FIXTURE_REGRESSION_AT", ";")?,
        machine: share("FIXTURE_MACHINE", 0.0)?,
        ar1: env_number("FIXTURE_AR1", 0.0)?,
        ar1_phi: share("FIXTURE_AR1_PHI", 0.9)?,
        fast: share("FIXTURE_FAST", 0.0)?,
        bimodal: share("FIXTURE_BIMODAL", 0.0)?,
        bimodal_depth: share("FIXTURE_BIMODAL_DEPTH", 0.08)?,
    })
}

/// A knob that must lie in [0, 1): a share of runs, a slowdown, or the AR(1) coefficient (stationary below 1).
fn share(name: &str, default: f64) -> Result<f64, String> {
    let value = env_number(name, default)?;
    if value < 1.0 {
        Ok(value)
    } else {
        Err(format!("{name}={value}: expected a number in [0, 1)"))
    }
}

fn env_number(name: &str, default: f64) -> Result<f64, String> {
    match std::env::var(name) {
        Ok(text) => text
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite() && *value >= 0.0)
            .ok_or_else(|| format!("{name}={text}: not a non-negative number")),
        Err(_) => Ok(default),
    }
}

/// `4:0.04,1:0.005` (entries split by `separator`): per entry the ids it names (`2048,2` names a
/// rows-and-slices setting when entries are split by `;`) and its value. Unset: no entries.
fn env_entries(name: &str, separator: &str) -> Result<Vec<(Vec<u64>, f64)>, String> {
    let Ok(text) = std::env::var(name) else { return Ok(Vec::new()) };
    let entry = |part: &str| -> Option<(Vec<u64>, f64)> {
        let (ids, value) = part.split_once(':')?;
        let ids = ids.split(',').map(|id| id.trim().parse::<u64>().ok()).collect::<Option<Vec<u64>>>()?;
        let value = value.trim().parse::<f64>().ok().filter(|value| value.is_finite() && *value >= 0.0)?;
        Some((ids, value))
    };
    text.split(separator)
        .filter(|part| !part.trim().is_empty())
        .map(|part| entry(part).ok_or_else(|| format!("{name}={text}: `{part}` is not IDS:VALUE")))
        .collect()
}

/// Reads and bumps the sweep's run counter; the first run of a sweep is 0.
fn next_run_index(state_dir: &std::path::Path) -> Result<u64, String> {
    std::fs::create_dir_all(state_dir).map_err(|error| format!("{}: {error}", state_dir.display()))?;
    let file = state_dir.join("run_counter");
    let k = match std::fs::read_to_string(&file) {
        Ok(text) => text.trim().parse::<u64>().map_err(|_| format!("{}: not a run count: {text:?}", file.display()))?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => 0,
        Err(error) => return Err(format!("{}: {error}", file.display())),
    };
    std::fs::write(&file, format!("{}\n", k + 1)).map_err(|error| format!("{}: {error}", file.display()))?;
    Ok(k)
}

fn drift_factor(knobs: &Knobs, k: u64) -> Result<f64, String> {
    let k = k as f64;
    match knobs.drift.as_str() {
        "none" => Ok(1.0),
        "sine" => {
            // The phase depends on the seed only, so it is the same for every run of the sweep.
            let phase = 2.0 * PI * SplitMix64(knobs.seed).uniform();
            Ok(1.0 + knobs.amplitude * (2.0 * PI * k / knobs.period + phase).sin())
        }
        "step" => Ok(if k < knobs.step_at { 1.0 } else { 1.0 - knobs.amplitude }),
        other => Err(format!("FIXTURE_DRIFT={other}: expected none, sine or step")),
    }
}

/// exp(x_k) of the AR(1) machine noise x_k = phi x_(k-1) + sigma z_k, x_0 from its stationary law
/// N(0, sigma^2 / (1 - phi^2)). Each run replays the sweep's path up to its own k from the seed's own stream
/// (runs are separate processes; a path of a few hundred steps costs nothing), so every run of the sweep
/// sees the same path whatever its setting.
fn ar1_factor(seed: u64, phi: f64, sigma: f64, k: u64) -> f64 {
    if sigma == 0.0 {
        return 1.0;
    }
    let mut rng = SplitMix64(SplitMix64(seed ^ AR1_STREAM).next());
    let mut x = sigma / (1.0 - phi * phi).sqrt() * rng.normal();
    for _ in 0..k {
        x = phi * x + sigma * rng.normal();
    }
    x.exp()
}

/// Every setting of the slices grid.
fn slices_grid() -> Vec<Request> {
    PREFILL_TRUTH
        .iter()
        .flat_map(|(rows, _)| SLICE_COUNTS.iter().map(move |slices| Request::Slices { rows: *rows, slices: *slices }))
        .collect()
}

fn race_grid() -> Vec<Request> {
    (0..=RACE_RIVALS).map(Request::Rival).collect()
}

fn ties_grid() -> Vec<Request> {
    (1..=TIE_BATCHES).flat_map(|batch| (1..=TIE_SETTINGS).map(move |setting| Request::Tie { batch, setting })).collect()
}

/// `[{"rows": 512, "slices": 1, "prefill_tokens_per_s": 876.0}, ...]`: every setting's noise-free primary,
/// with the software regressions asked for.
fn truth_json(grid: &[Request], knobs: &Knobs) -> Result<String, String> {
    let row = |request: &Request| -> Result<serde_json::Value, String> {
        let mut row: serde_json::Map<String, serde_json::Value> =
            request.params().into_iter().map(|(name, value)| (name.to_string(), value.into())).collect();
        let prefill = request.truth()?.0 * knobs.regression_factor(request);
        row.insert("prefill_tokens_per_s".to_string(), prefill.into());
        Ok(row.into())
    };
    let rows = grid.iter().map(row).collect::<Result<Vec<_>, String>>()?;
    Ok(serde_json::Value::Array(rows).to_string())
}

/// Rival 0 is 1000 tokens/s; rival K >= 1 trails it by RACE_GAPS.0 .. RACE_GAPS.1 in equal steps.
fn race_truth(rival: u32) -> f64 {
    if rival == 0 {
        return 1000.0;
    }
    let (first, last) = RACE_GAPS;
    let gap = first + (last - first) * f64::from(rival - 1) / f64::from(RACE_RIVALS - 1);
    1000.0 * (1.0 - gap)
}

fn prefill_truth(rows: u32, slices: u32) -> Result<f64, String> {
    let (_, by_slices) = PREFILL_TRUTH
        .iter()
        .find(|(known, _)| *known == rows)
        .ok_or_else(|| format!("--rows {rows}: the fixture knows 512, 1024, 2048, 4096, 8192"))?;
    let index = SLICE_COUNTS
        .iter()
        .position(|known| *known == slices)
        .ok_or_else(|| format!("--slices {slices}: the fixture knows 1, 2, 4, 8"))?;
    Ok(by_slices[index])
}

fn decode_base(rows: u32) -> Result<f64, String> {
    DECODE_BASE
        .iter()
        .find(|(known, _)| *known == rows)
        .map(|(_, decode)| *decode)
        .ok_or_else(|| format!("--rows {rows}"))
}

/// splitmix64 (Steele, Lea and Flood 2014): a tiny seeded generator, enough for a fixture's noise.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1): the top 53 bits, shifted off zero so `ln` below is finite.
    fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A standard normal draw (Box-Muller).
    fn normal(&mut self) -> f64 {
        let (u1, u2) = (self.uniform(), self.uniform());
        (-2.0 * u1.ln()).sqrt() * (2.0 * PI * u2).cos()
    }
}
