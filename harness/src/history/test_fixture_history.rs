//! A fixture history with a known truth (not a measurement): 24 versions x 20 settings x 3 runs, 1% noise
//! a run, 0.3% a version, a shared 0.5% weather a version, a 4% machine change for every setting and the
//! control, and 3-5% changes in two settings; and the benchmark of `history_changes` against conbench's
//! lookback z-score and against the same test on one measurement a version without a control.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

use super::{history_changes, ChangeKind, ChangePoint, VersionSeries};

const VERSIONS: usize = 24;
const SETTINGS: usize = 20;
const RUNS: usize = 3;

/// A generated history: per setting, per version, its runs; the control's; and where things changed.
struct FixtureHistory {
    settings: Vec<Vec<Vec<f64>>>,
    control: Vec<Vec<f64>>,
    machine_at: usize,
    /// (setting, first version after its change).
    setting_changes: Vec<(usize, usize)>,
}

impl FixtureHistory {
    fn generate(seed: u64) -> FixtureHistory {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let machine_at = rng.random_range(4..VERSIONS - 3);
        let mut setting_changes = Vec::new();
        while setting_changes.len() < 2 {
            let (setting, at) = (rng.random_range(0..SETTINGS), rng.random_range(3..VERSIONS - 2));
            if at != machine_at && setting_changes.iter().all(|&(s, _)| s != setting) {
                setting_changes.push((setting, at));
            }
        }
        let steps: Vec<f64> = setting_changes
            .iter()
            .map(|_| rng.random_range(0.03..0.05) * if rng.random_bool(0.5) { 1.0 } else { -1.0 })
            .collect();
        let weather: Vec<f64> = (0..VERSIONS).map(|_| Normal::new(0.0, 0.005).unwrap().sample(&mut rng)).collect();
        let machine = |version: usize| if version >= machine_at { 0.04f64.ln_1p() } else { 0.0 };
        let runs_of = |base: f64, shift: &dyn Fn(usize) -> f64, runs: usize, rng: &mut ChaCha8Rng| -> Vec<Vec<f64>> {
            (0..VERSIONS)
                .map(|version| {
                    let level = base
                        + weather[version]
                        + machine(version)
                        + shift(version)
                        + Normal::new(0.0, 0.003).unwrap().sample(rng);
                    (0..runs).map(|_| (level + Normal::new(0.0, 0.01).unwrap().sample(rng)).exp()).collect()
                })
                .collect()
        };
        let settings = (0..SETTINGS)
            .map(|setting| {
                let change = setting_changes.iter().zip(&steps).find(|((s, _), _)| *s == setting);
                let shift = move |version: usize| {
                    change.map_or(0.0, |(&(_, at), &step)| if version >= at { step } else { 0.0 })
                };
                runs_of(rng.random_range(0.0..3.0), &shift, RUNS, &mut rng)
            })
            .collect();
        // The control is recorded by every run of every setting, and the store pools them by version.
        let control = runs_of(1.0, &|_| 0.0, RUNS * SETTINGS, &mut rng);
        FixtureHistory { settings, control, machine_at, setting_changes }
    }
}

/// Tallies of one method over many histories.
#[derive(Default)]
struct Tally {
    histories: usize,
    both_located: usize,
    machine_once: usize,
    false_changes: usize,
}

impl Tally {
    fn add(&mut self, history: &FixtureHistory, changes: &[ChangePoint]) {
        self.histories += 1;
        let setting = |c: &&ChangePoint| c.kind == ChangeKind::Setting;
        let located = history
            .setting_changes
            .iter()
            .filter(|&&(s, at)| changes.iter().filter(setting).any(|c| c.series == s && c.at == at));
        self.both_located += usize::from(located.count() == history.setting_changes.len());
        let machine: Vec<&ChangePoint> = changes.iter().filter(|c| c.kind == ChangeKind::Machine).collect();
        let per_setting_at_machine = changes.iter().filter(setting).any(|c| c.at == history.machine_at);
        self.machine_once +=
            usize::from(machine.len() == 1 && machine[0].at == history.machine_at && !per_setting_at_machine);
        let true_change = |c: &ChangePoint| history.setting_changes.contains(&(c.series, c.at));
        self.false_changes += changes.iter().filter(setting).filter(|c| !true_change(c)).count();
    }

    fn row(&self, method: &str) -> String {
        format!(
            "| {method} | {}/{} | {}/{} | {} ({:.1} per 100 series) |",
            self.both_located,
            self.histories,
            self.machine_once,
            self.histories,
            self.false_changes,
            self.false_changes as f64 * 100.0 / (self.histories * SETTINGS) as f64
        )
    }
}

/// conbench's rule: a version flags a series when its mean is more than `threshold` standard deviations
/// from the mean of the `lookback` versions before it (the first flag of a series is its change; a
/// machine change so flags every series, each as a regression of its own).
fn lookback_z(history: &FixtureHistory, lookback: usize, threshold: f64) -> Vec<ChangePoint> {
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
    (history.settings.iter().enumerate())
        .filter_map(|(series, runs)| {
            let means: Vec<f64> = runs.iter().map(|version| mean(version)).collect();
            let at = (3..VERSIONS).find(|&version| {
                let window = &means[version.saturating_sub(lookback)..version];
                let centre = mean(window);
                let sd = (window.iter().map(|x| (x - centre).powi(2)).sum::<f64>() / (window.len() - 1) as f64).sqrt();
                (means[version] - centre).abs() > threshold * sd
            })?;
            Some(ChangePoint {
                series,
                kind: ChangeKind::Setting,
                at,
                ratio: 1.0,
                low: 1.0,
                high: 1.0,
                df: 0.0,
                p: 0.0,
                q: 0.0,
            })
        })
        .collect()
}

/// Over `HISTORY_SEEDS` histories (default 10): both setting changes located at their version, the
/// machine change reported once and never per setting, false setting changes. Prints markdown rows.
#[test]
#[ignore = "a benchmark: bench/history.sh"]
fn history_changes_against_the_peers_on_fixture_histories() {
    let seeds: u64 = std::env::var("HISTORY_SEEDS").map_or(10, |n| n.parse().expect("a count"));
    let (mut ours, mut no_control, mut single, mut conbench) = Default::default();
    let (ours, no_control, single, conbench): (&mut Tally, &mut Tally, &mut Tally, &mut Tally) =
        (&mut ours, &mut no_control, &mut single, &mut conbench);
    for seed in 0..seeds {
        let history = FixtureHistory::generate(seed);
        let series: Vec<VersionSeries> = history.settings.iter().map(|runs| VersionSeries::of_runs(runs)).collect();
        let control = VersionSeries::of_runs(&history.control);
        ours.add(&history, &history_changes(&series, Some(&control), 0.05, 1999, seed));
        no_control.add(&history, &history_changes(&series, None, 0.05, 1999, seed));
        let first_runs: Vec<VersionSeries> = (history.settings.iter())
            .map(|runs| VersionSeries::of_runs(&runs.iter().map(|version| vec![version[0]]).collect::<Vec<_>>()))
            .collect();
        single.add(&history, &history_changes(&first_runs, None, 0.05, 1999, seed));
        conbench.add(&history, &lookback_z(&history, 10, 5.0));
    }
    println!(
        "| method | both setting changes located | machine change once, never per setting | false setting changes |"
    );
    println!("|---|---|---|---|");
    println!("{}", ours.row("history_changes, 3 runs a version, control metric"));
    println!("{}", no_control.row("history_changes, 3 runs a version, no control (median of the series)"));
    println!("{}", single.row("the same on one run a version, no control"));
    println!("{}", conbench.row("lookback z-score (conbench's rule: 10 versions back, z beyond 5)"));
}
