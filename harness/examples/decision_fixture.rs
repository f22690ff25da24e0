//! FIXTURE ENGINE for the decisions benchmark (`cargo bench --bench decisions`): not an engine, and its
//! numbers are not measurements. It prints throughput drawn from a cost model whose truth is known, so the
//! benchmark can count how often `sweep`'s verdicts name the true best setting.
//!
//! Usage: `decision_fixture --rows R --slices S [--rep N]` (the slices grid) or `decision_fixture --setting K
//! [--rep N]` (the A/A grid, K in 1..=50). It prints one line and exits 0:
//! `fixture_result prefill_tokens_per_s=.. decode_tokens_per_s=.. rows=.. slices=..` (or `setting=..`).
//! `decision_fixture --truth` prints the slices grid's truth table as JSON, for the benchmark to judge by.
//!
//! Truth model, one run (k = the run's index in its sweep):
//!
//! ```text
//! prefill = truth(rows, slices) x drift(k) x exp(sigma z1)
//! decode  = decode_base(rows)   x drift(k) x exp(sigma z2)
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
//! The A/A grid's truth is `1000 + 5 K` for setting K; it only has to be the same on both sides.
//!
//! `decode_base(rows)` is the control metric: it does not depend on slices (or on K), but it does depend
//! on rows, as decode TPS did in the study (`DECODE_BASE` below, 12 .. 6 tokens/s).
//!
//! `drift(k)` is a machine-speed factor shared by every run at the same moment. k counts the runs of a
//! sweep (0, 1, ...) in the file `run_counter` of the directory `FIXTURE_STATE` (default: the parent of the
//! working directory, i.e. the sweep's `runs/` folder), created when absent; runs of one sweep are
//! sequential. `FIXTURE_DRIFT` selects it (P = `FIXTURE_DRIFT_PERIOD`, default 200 runs; A = 0.15):
//!
//! ```text
//! none  1 (the default)
//! sine  1 + A sin(2 pi k / P + phase), phase drawn from the seed: a slow +-15% swing
//! step  1 for k < P / 4, then 1 - A: the machine gets 15% slower mid-sweep
//! ```
//!
//! sigma is `FIXTURE_NOISE` (default 0.01, i.e. 1% per run). The noise is seeded by `FIXTURE_SEED` (default 0)
//! combined with the setting and `--rep N` when given, else with k (splitmix64, Box-Muller), so a sweep
//! with the same seed reproduces its numbers exactly. Keyed by rep, rep r of a setting draws the same noise
//! in every sweep of one seed, whatever its order and however many reps it runs (common random numbers):
//! a racing sweep and a fixed-reps sweep are then judged on the same draws.

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
const DRIFT_AMPLITUDE: f64 = 0.15;
const USAGE: &str = "usage: --rows R --slices S [--rep N] | --setting K [--rep N] | --truth";

/// Which setting one run is asked for.
enum Request {
    Slices { rows: u32, slices: u32 },
    AaSetting(u32),
}

impl Request {
    /// The numbers that name the setting, for keying its noise.
    fn ids(&self) -> Vec<u64> {
        match self {
            Request::Slices { rows, slices } => vec![u64::from(*rows), u64::from(*slices)],
            Request::AaSetting(setting) => vec![u64::from(*setting)],
        }
    }
}

/// The fixture's knobs, from the environment.
struct Knobs {
    noise: f64,
    drift: String,
    period: f64,
    seed: u64,
    state_dir: PathBuf,
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
    if args == ["--truth"] {
        return Ok(truth_json());
    }
    let (request, rep) = parse_request(args)?;
    let (truth, decode_base, label) = match &request {
        Request::Slices { rows, slices } => {
            (prefill_truth(*rows, *slices)?, decode_base(*rows)?, format!("rows={rows} slices={slices}"))
        }
        Request::AaSetting(setting) => (1000.0 + 5.0 * f64::from(*setting), AA_DECODE, format!("setting={setting}")),
    };
    let knobs = read_knobs()?;
    let k = next_run_index(&knobs.state_dir)?;
    let noise_key = match rep {
        Some(rep) => [request.ids(), vec![u64::from(rep)]].concat(),
        None => vec![k],
    };
    let mut rng = SplitMix64(noise_key.iter().fold(knobs.seed, |state, part| SplitMix64(state ^ part).next()));
    let drift = drift_factor(&knobs, k)?;
    let prefill = truth * drift * (knobs.noise * rng.normal()).exp();
    let decode = decode_base * drift * (knobs.noise * rng.normal()).exp();
    Ok(format!("fixture_result prefill_tokens_per_s={prefill:.4} decode_tokens_per_s={decode:.6} {label}"))
}

/// The setting asked for, and the rep when given.
fn parse_request(args: Vec<String>) -> Result<(Request, Option<u32>), String> {
    let (mut rows, mut slices, mut setting, mut rep) = (None, None, None, None);
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = value.parse::<u32>().map_err(|_| format!("{flag} {value}: not a whole number"))?;
        match flag.as_str() {
            "--rows" => rows = Some(number),
            "--slices" => slices = Some(number),
            "--setting" => setting = Some(number),
            "--rep" => rep = Some(number),
            _ => return Err(format!("unknown flag {flag}; {USAGE}")),
        }
    }
    let request = match (rows, slices, setting) {
        (Some(rows), Some(slices), None) => Request::Slices { rows, slices },
        (None, None, Some(setting)) if (1..=AA_SETTINGS).contains(&setting) => Request::AaSetting(setting),
        (None, None, Some(setting)) => {
            return Err(format!("--setting {setting}: the A/A grid has settings 1..={AA_SETTINGS}"))
        }
        _ => return Err(USAGE.to_string()),
    };
    Ok((request, rep))
}

fn read_knobs() -> Result<Knobs, String> {
    let noise = env_number("FIXTURE_NOISE", 0.01)?;
    let period = env_number("FIXTURE_DRIFT_PERIOD", 200.0)?;
    let seed = std::env::var("FIXTURE_SEED")
        .map_or(Ok(0), |text| text.parse::<u64>().map_err(|_| format!("FIXTURE_SEED={text}: not a whole number")))?;
    let state_dir = std::env::var_os("FIXTURE_STATE").map_or_else(|| PathBuf::from(".."), PathBuf::from);
    let drift = std::env::var("FIXTURE_DRIFT").unwrap_or_else(|_| "none".to_string());
    Ok(Knobs { noise, drift, period, seed, state_dir })
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
            Ok(1.0 + DRIFT_AMPLITUDE * (2.0 * PI * k / knobs.period + phase).sin())
        }
        "step" => Ok(if k < knobs.period / 4.0 { 1.0 } else { 1.0 - DRIFT_AMPLITUDE }),
        other => Err(format!("FIXTURE_DRIFT={other}: expected none, sine or step")),
    }
}

/// `[{"rows": 512, "slices": 1, "prefill_tokens_per_s": 876.0}, ...]`: every setting's noise-free primary.
fn truth_json() -> String {
    let settings: Vec<serde_json::Value> = PREFILL_TRUTH
        .iter()
        .flat_map(|(rows, by_slices)| {
            SLICE_COUNTS.iter().zip(by_slices).map(move |(slices, prefill)| {
                serde_json::json!({ "rows": rows, "slices": slices, "prefill_tokens_per_s": prefill })
            })
        })
        .collect();
    serde_json::Value::Array(settings).to_string()
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
