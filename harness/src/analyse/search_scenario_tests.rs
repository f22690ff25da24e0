//! Test-only: the verdicts a budgeted search ends with, taken as `sweep` takes them (the search replayed
//! round by round, then the grid's rules on its final race's runs), on fixture spaces with a known truth
//! (`search::test_fixture_space`: not measurements): how often each verdict comes, and how often a
//! "resolved" one names a setting beyond the margin of the true best.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{
    analyse_sweep, AnalysisConfig, Direction, GroupOutcome, GroupSearch, RecordedValues, SearchStep, SearchSummary,
};
use crate::declare::{ParamValue, SearchBudget, SearchConfig};
use crate::ground::RunStatus;
use crate::plan::{Setting, SettingId};
use crate::record::Observation;
use crate::search::test_fixture_space::FixtureSpace;

/// A fixture's settings as a plan numbers them: one param per axis, its level as the value.
fn settings_of(fixture: &FixtureSpace) -> Vec<Setting> {
    let axes = fixture.space.axes();
    (0..fixture.space.len())
        .map(|setting| Setting {
            values: (fixture.space.point(setting).iter().zip(axes).enumerate())
                .map(|(axis, (&level, shape))| {
                    let value = match shape.ordered {
                        true => ParamValue::Int(i64::from(level)),
                        false => ParamValue::Text(format!("l{level}")),
                    };
                    (format!("p{axis}"), value)
                })
                .collect(),
            variant: "default".to_string(),
        })
        .collect()
}

/// The noise a search meets besides the fixture's 1% (unkind noise, as the grid's scenario tests have it).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Weather {
    /// 1% on every run, nothing else.
    Calm,
    /// One run in 20 is a straggler, 1.5 to 3 times slower.
    Stragglers,
    /// Every other setting (by index) is noisy: 4% instead of 1%.
    UnequalNoise,
    /// A drift faster than a round: the machine's speed swings 3% with a period of 7 runs.
    FastDrift,
}

impl Weather {
    const ALL: [Weather; 4] = [Weather::Calm, Weather::Stragglers, Weather::UnequalNoise, Weather::FastDrift];

    /// One run of `setting`, the `count`-th of the search.
    fn run(self, fixture: &FixtureSpace, setting: usize, count: usize, rng: &mut ChaCha8Rng) -> f64 {
        use rand::Rng;
        let noise = if self == Weather::UnequalNoise && setting % 2 == 1 { 0.04 } else { 0.01 };
        let value = fixture.run(setting, noise, rng);
        match self {
            Weather::Stragglers if rng.random_bool(0.05) => value * rng.random_range(1.5..3.0),
            Weather::FastDrift => value * (1.0 + 0.03 * (count as f64 * std::f64::consts::TAU / 7.0).sin()),
            _ => value,
        }
    }
}

/// What a search ended with.
struct SearchEnd {
    /// The setting it named best.
    named: usize,
    /// Its verdict over the space, and among the evaluated (the final race's, by the grid's rules).
    verdict: GroupOutcome,
    among: GroupOutcome,
    /// The settings of its final race.
    finalists: Vec<usize>,
}

/// What one search of `fixture` under `budget` in `weather` ends with, each round's runs in a shuffled
/// order as the driver runs them.
fn searched(weather: Weather, fixture: &FixtureSpace, budget: usize, seed: u64, config: &AnalysisConfig) -> SearchEnd {
    let settings = settings_of(fixture);
    let search = SearchConfig { budget: SearchBudget::Runs(budget as u64), seed: Some(seed) };
    let mut groups = GroupSearch::per_group(&settings, config, &search, &[]);
    let trace = &mut groups[0].trace;
    let (mut recorded, mut runs) = (RecordedValues::new(), Vec::new());
    let mut noise = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    while let SearchStep::Run(mut round) = trace.advance(&recorded) {
        rand::seq::SliceRandom::shuffle(&mut round[..], &mut noise);
        for (setting, rep) in round {
            let value = weather.run(fixture, setting, runs.len(), &mut noise);
            recorded.insert((setting, rep), (Some(value), 1.0));
            runs.push(Observation {
                setting: settings[setting].clone(),
                setting_id: SettingId::new(setting),
                rep,
                warmup: false,
                status: RunStatus::Ok,
                error: String::new(),
                metrics: [("time".to_string(), value)].into(),
            });
        }
    }
    let summary = SearchSummary::of(&groups, &settings, search.budget);
    runs.retain(|run| summary.final_runs.contains(&(run.setting_id.index(), run.rep)));
    let mut finalists: Vec<usize> = runs.iter().map(|run| run.setting_id.index()).collect();
    finalists.sort_unstable();
    finalists.dedup();
    let analysis = analyse_sweep(&runs, config, true, &[]);
    let untold = GroupOutcome::CannotTell;
    let Some(group) = analysis.verdicts.groups.first() else {
        return SearchEnd { named: 0, verdict: untold, among: untold, finalists };
    };
    let best = analysis.settings[group.best].setting.clone();
    let named = settings.iter().position(|setting| *setting == best).expect("a planned setting");
    SearchEnd { named, verdict: summary.verdict([group.outcome], config.negligible), among: group.outcome, finalists }
}

/// The analysis of a fixture search: lower times better, no groups, no control.
fn fixture_config() -> AnalysisConfig {
    AnalysisConfig {
        primary: "time".to_string(),
        direction: Direction::Lower,
        group_by: Vec::new(),
        control: None,
        equivalence_key: None,
        ..super::fixtures::fixture_slice_config()
    }
}

/// Per weather (`Weather::ALL`) and fixture space, at `SEARCH_WEATHER_FRACTION` of the grid's runs (default
/// 0.1), over the seeds of `seeds_from_env`: how often the true best is named, the median regret, the
/// final race's own verdicts (resolved, and of those how many name a finalist more than 1% slower than the
/// truly best finalist) and the verdicts over the space (resolved, and beyond 1% of the true best).
#[test]
#[ignore = "a benchmark: bench/search.sh"]
fn search_verdicts_in_unkind_weather() {
    println!();
    let fraction: f64 = std::env::var("SEARCH_WEATHER_FRACTION").map_or(0.1, |f| f.parse().expect("a fraction"));
    let seed_range = crate::search::test_fixture_space::seeds_from_env();
    let seeds = seed_range.end - seed_range.start;
    let config = fixture_config();
    println!(
        "| weather | space | true best named | median regret | final race resolved | of those, not the best finalist (beyond 1%) | resolved over the space | of those, beyond 1% of the true best |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for weather in Weather::ALL {
        for (levels, unordered) in crate::search::test_fixture_space::spaces_from_env() {
            let (mut found, mut regrets, mut among, mut among_wrong, mut resolved, mut wrong) = (0, vec![], 0, 0, 0, 0);
            for seed in seed_range.clone() {
                let fixture = FixtureSpace::generate(&levels, unordered, seed);
                let budget = (fixture.space.len() as f64 * 3.0 * fraction) as usize;
                let end = searched(weather, &fixture, budget, seed, &config);
                let regret = fixture.regret(end.named);
                found += usize::from(regret == 0.0);
                regrets.push(regret);
                let best_finalist =
                    end.finalists.iter().map(|&setting| fixture.truth[setting]).fold(f64::INFINITY, f64::min);
                if end.among == GroupOutcome::Resolved {
                    among += 1;
                    among_wrong += usize::from(fixture.truth[end.named] / best_finalist - 1.0 > 0.01);
                }
                if end.verdict == GroupOutcome::Resolved {
                    resolved += 1;
                    wrong += usize::from(regret > 0.01);
                }
            }
            regrets.sort_by(f64::total_cmp);
            let space = levels.iter().map(u16::to_string).collect::<Vec<_>>().join("x");
            println!(
                "| {weather:?} | {space} | {found}/{seeds} | {:.2}% | {among}/{seeds} | {among_wrong} | {resolved}/{seeds} | {wrong} |",
                regrets[regrets.len() / 2] * 100.0
            );
        }
    }
}

/// Per fixture space and budget (`SEARCH_FRACTIONS` of the grid's runs at 3 reps, default 0.05, 0.1 and
/// 0.25), over the seeds of `seeds_from_env` (default 0 to 19): the verdicts' counts, and the "resolved" ones that name
/// a setting more than 1% slower than the true best, as markdown table rows.
#[test]
#[ignore = "a benchmark: bench/search.sh"]
fn search_verdicts_on_fixture_spaces() {
    println!();
    let env = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_string());
    let seed_range = crate::search::test_fixture_space::seeds_from_env();
    let seeds = seed_range.end - seed_range.start;
    let fractions: Vec<f64> =
        env("SEARCH_FRACTIONS", "0.05,0.1,0.25").split(',').map(|f| f.parse().expect("a fraction")).collect();
    let config = fixture_config();
    println!(
        "| space | budget | resolved | resolved beyond 1% of the true best | tied | cannot tell | true best named |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (levels, unordered) in crate::search::test_fixture_space::spaces_from_env() {
        for &fraction in &fractions {
            let (mut resolved, mut wrong, mut tied, mut untold, mut found) = (0, 0, 0, 0, 0);
            for seed in seed_range.clone() {
                let fixture = FixtureSpace::generate(&levels, unordered, seed);
                let budget = (fixture.space.len() as f64 * 3.0 * fraction) as usize;
                let SearchEnd { named: best, verdict: outcome, .. } =
                    searched(Weather::Calm, &fixture, budget, seed, &config);
                found += usize::from(fixture.regret(best) == 0.0);
                match outcome {
                    GroupOutcome::Resolved => {
                        resolved += 1;
                        wrong += usize::from(fixture.regret(best) > 0.01);
                    }
                    GroupOutcome::Tied => tied += 1,
                    GroupOutcome::CannotTell => untold += 1,
                }
            }
            let space = levels.iter().map(u16::to_string).collect::<Vec<_>>().join("x");
            println!(
                "| {space} | {:.0}% | {resolved}/{seeds} | {wrong} | {tied} | {untold} | {found}/{seeds} |",
                fraction * 100.0
            );
        }
    }
}
