//! `compare` judged against a known truth: a uniform regression, one setting's regression under drift, and
//! A/A pairs, on simulated sweeps of the decisions fixture's grid (made-up numbers, not measurements).

use super::{compare, CompareConfig, Comparison, Verdict, DEFAULT_CONTROL_THRESHOLD};
use crate::analyse::scenario_tests::{simulated, Drift, Noise, Regression};
use crate::analyse::Direction;
use crate::declare::ControlScaling;

const ROWS: [u32; 5] = [512, 1024, 2048, 4096, 8192];
const SLICES: [u32; 4] = [1, 2, 4, 8];

fn config() -> CompareConfig {
    CompareConfig {
        metric: "prefill_tokens_per_s".into(),
        direction: Direction::Higher,
        threshold: 0.02,
        alpha: 0.05,
        control: Some("decode_tokens_per_s".into()),
        control_threshold: DEFAULT_CONTROL_THRESHOLD,
        control_scaling: ControlScaling::Estimated,
    }
}

/// Side A with `a` noise, side B with `b`, from independent seeds; both interleaved.
fn trial(a: &Noise, b: &Noise, seed: u64) -> Comparison {
    trial_under(a, b, seed, &config())
}

fn trial_under(a: &Noise, b: &Noise, seed: u64, config: &CompareConfig) -> Comparison {
    let side_a = simulated(a, &ROWS, &SLICES, 10_000 + 2 * seed);
    let side_b = simulated(b, &ROWS, &SLICES, 10_001 + 2 * seed);
    compare(&side_a, &side_b, config)
}

fn flagged(comparison: &Comparison) -> bool {
    comparison.has_significant_regression()
        || comparison.settings.iter().any(|s| s.verdict == Verdict::Improved)
        || comparison.overall.as_ref().is_some_and(|o| o.verdict == Verdict::Improved)
}

/// Every setting of B 5% slower, 5 x 4 grid, 3 reps: the grid-wide answer finds it.
#[test]
fn a_uniform_five_percent_regression_is_flagged_by_the_grid_wide_answer() {
    let b = Noise { regression: Regression::Uniform(0.95), ..Noise::WELL_BEHAVED };
    let found = (0..50)
        .filter(|&seed| {
            let comparison = trial(&Noise::WELL_BEHAVED, &b, seed);
            comparison.overall.as_ref().is_some_and(|o| o.verdict == Verdict::Regressed)
        })
        .count();
    assert!(found >= 45, "the uniform regression was flagged in {found} of 50 trials");
}

/// One setting 5% slower while both sides drift (a slow sine, its own phase on each side): found alone in
/// most trials, and another setting called regressed in at most alpha of them (family-wise).
#[test]
fn one_setting_five_percent_slower_under_drift_is_found() {
    let drift = Drift::Sine { amplitude: 0.05, period: 200.0 };
    let a = Noise { drift, ..Noise::WELL_BEHAVED };
    let b = Noise { regression: Regression::At { rows: 2048, slices: 2, factor: 0.95 }, ..a };
    let regressed: Vec<Vec<String>> = (0..40)
        .map(|seed| {
            let comparison = trial(&a, &b, seed);
            comparison
                .settings
                .iter()
                .filter(|s| s.verdict == Verdict::Regressed)
                .map(|s| format!("{}/{}", s.setting.values[0].1, s.setting.values[1].1))
                .collect()
        })
        .collect();
    let found = regressed.iter().filter(|r| r.as_slice() == ["2048/2"]).count();
    let misled = regressed.iter().filter(|r| r.iter().any(|s| s != "2048/2")).count();
    assert!(found >= 30, "the single regression was found alone in {found} of 40 trials: {regressed:?}");
    // Binomial(40, 0.05): mean 2, sd 1.4.
    assert!(misled <= 4, "{misled} of 40 trials called an unchanged setting regressed: {regressed:?}");
}

/// The same machine on both sides, steady or drifting: at most alpha of the trials may flag anything.
#[test]
fn a_a_pairs_flag_in_at_most_alpha_of_trials() {
    let drift = Noise { drift: Drift::Sine { amplitude: 0.05, period: 200.0 }, ..Noise::WELL_BEHAVED };
    for noise in [Noise::WELL_BEHAVED, drift] {
        let flagged_trials = (0..200).filter(|&seed| flagged(&trial(&noise, &noise, seed))).count();
        // Binomial(200, 0.05): mean 10, sd 3.1.
        assert!(flagged_trials <= 14, "{flagged_trials} of 200 A/A trials flagged a change under {noise:?}");
    }
}

/// What `pairs` seeded pairs of sweeps under `a` and `b` noise came to: pairs claiming a software change
/// (any setting or the grid regressed or improved), pairs finding one setting alone regressed (`at`,
/// rows/slices), pairs naming a machine change.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Tally {
    pairs: usize,
    claimed: usize,
    found: usize,
    found_alone: usize,
    found_overall: usize,
    machine_changed: usize,
}

impl Tally {
    fn share(&self, count: usize) -> f64 {
        count as f64 / self.pairs as f64
    }
}

fn tally(a: &Noise, b: &Noise, pairs: u64, at: &str) -> Tally {
    let mut tally = Tally { pairs: pairs as usize, ..Tally::default() };
    for seed in 0..pairs {
        let comparison = trial(a, b, seed);
        let regressed: Vec<String> = comparison
            .settings
            .iter()
            .filter(|s| s.verdict == Verdict::Regressed)
            .map(|s| format!("{}/{}", s.setting.values[0].1, s.setting.values[1].1))
            .collect();
        tally.claimed += usize::from(flagged(&comparison));
        tally.found += usize::from(regressed.iter().any(|r| r == at));
        tally.found_alone += usize::from(regressed == [at]);
        tally.found_overall +=
            usize::from(comparison.overall.as_ref().is_some_and(|o| o.verdict == Verdict::Regressed));
        tally.machine_changed += usize::from(comparison.machine_change.is_some());
    }
    tally
}

/// Pairs per scenario: at least 100, more when optimised.
const PAIRS: u64 = if cfg!(debug_assertions) { 100 } else { 200 };

fn fast_drift() -> Noise {
    Noise { drift: Drift::Sine { amplitude: 0.12, period: 40.0 }, ..Noise::WELL_BEHAVED }
}

fn wandering() -> Noise {
    Noise { drift: Drift::Ar1 { phi: 0.9, sd: 0.01 }, ..Noise::WELL_BEHAVED }
}

#[test]
#[ignore = "prints the compare scenarios' tallies; run with --ignored --nocapture"]
fn print_compare_tallies() {
    let quiet = Noise::WELL_BEHAVED;
    let scenarios: [(&str, Noise, Noise); 8] = [
        ("machine 3% slower, quiet", quiet, Noise { machine: 0.97, ..quiet }),
        ("machine 10% slower, quiet", quiet, Noise { machine: 0.9, ..quiet }),
        ("machine 3% slower, AR(1)", wandering(), Noise { machine: 0.97, ..wandering() }),
        ("machine 10% slower, AR(1)", wandering(), Noise { machine: 0.9, ..wandering() }),
        ("software 10% slower", quiet, Noise { regression: Regression::Uniform(0.9), ..quiet }),
        ("fast drift, one 5% slower", fast_drift(), Noise { regression: ONE_SLOWER, ..fast_drift() }),
        ("fast drift, A/A", fast_drift(), fast_drift()),
        ("quiet A/A", quiet, quiet),
    ];
    for (name, a, b) in scenarios {
        eprintln!("{name:<28} {:?}", tally(&a, &b, PAIRS, "2048/2"));
    }
}

const ONE_SLOWER: Regression = Regression::At { rows: 2048, slices: 2, factor: 0.95 };

/// The machine 3% or 10% slower on B, nothing drifting inside either sweep: nothing inside them shows how
/// the metric follows the control, so the change is named a machine change, never a software change.
#[test]
fn a_slower_machine_in_a_quiet_lab_is_named_not_sold_as_a_regression() {
    let quiet = Noise::WELL_BEHAVED;
    for machine in [0.97, 0.9] {
        let tally = tally(&quiet, &Noise { machine, ..quiet }, PAIRS, "");
        assert!(tally.share(tally.claimed) <= 0.05, "machine x{machine}: {tally:?}");
        assert!(tally.share(tally.machine_changed) >= 0.95, "machine x{machine}: {tally:?}");
    }
}

/// The same with the machine wandering run to run (AR(1), phi 0.9, 1% innovations): the blocks show the
/// slope, the change is translated and taken out, and no software change is claimed.
#[test]
fn a_slower_wandering_machine_is_taken_out_through_the_control() {
    for machine in [0.97, 0.9] {
        let tally = tally(&wandering(), &Noise { machine, ..wandering() }, PAIRS, "");
        assert!(tally.share(tally.claimed) <= 0.06, "machine x{machine}: {tally:?}");
    }
}

/// A real 10% regression everywhere, the control flat: found, not taken for a machine change.
#[test]
fn a_software_regression_with_a_flat_control_is_found() {
    let quiet = Noise::WELL_BEHAVED;
    let tally = tally(&quiet, &Noise { regression: Regression::Uniform(0.9), ..quiet }, PAIRS, "");
    assert!(tally.share(tally.found_overall) >= 0.95, "{tally:?}");
    assert_eq!(tally.machine_changed, 0, "{tally:?}");
}

/// Fast drift (12% sine, period 40 runs) the control follows run by run: every run's control takes it out
/// of the settings' noise, so one setting 5% slower is found, and A/A pairs stay quiet.
#[test]
fn under_fast_drift_one_setting_five_percent_slower_is_found() {
    let tally = tally(&fast_drift(), &Noise { regression: ONE_SLOWER, ..fast_drift() }, PAIRS, "2048/2");
    assert!(tally.share(tally.found) >= 0.75, "{tally:?}");
    let a_a = self::tally(&fast_drift(), &fast_drift(), PAIRS, "");
    assert!(a_a.share(a_a.claimed) <= 0.05, "{a_a:?}");
}

/// The machine 10% slower on B in a quiet lab, the scaling declared proportional: verdicts adjusted under
/// that assumption, no machine change named; a 10% software regression on top of it is still found.
#[test]
fn declared_proportional_scaling_adjusts_a_machine_change() {
    let proportional = CompareConfig { control_scaling: ControlScaling::Proportional, ..config() };
    let quiet = Noise::WELL_BEHAVED;
    let slower = Noise { machine: 0.9, ..quiet };
    let regressed = Noise { regression: Regression::Uniform(0.9), ..slower };
    let (mut claimed, mut found, mut named) = (0, 0, 0);
    for seed in 0..PAIRS {
        let machine_only = trial_under(&quiet, &slower, seed, &proportional);
        claimed += usize::from(flagged(&machine_only));
        named += usize::from(machine_only.machine_change.is_some());
        let both = trial_under(&quiet, &regressed, seed, &proportional);
        found += usize::from(both.overall.as_ref().is_some_and(|o| o.verdict == Verdict::Regressed));
    }
    let share = |n: usize| n as f64 / PAIRS as f64;
    assert!(share(claimed) <= 0.05 && named == 0, "claimed {claimed}, named {named} of {PAIRS}");
    assert!(share(found) >= 0.95, "found {found} of {PAIRS}");
}
