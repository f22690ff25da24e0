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

/// What one search of `fixture` under `budget` ends with: the named setting and the verdict.
fn searched(fixture: &FixtureSpace, budget: usize, seed: u64, config: &AnalysisConfig) -> (usize, GroupOutcome) {
    let settings = settings_of(fixture);
    let search = SearchConfig { budget: SearchBudget::Runs(budget as u64), seed: Some(seed) };
    let mut groups = GroupSearch::per_group(&settings, config, &search, &[]);
    let trace = &mut groups[0].trace;
    let (mut recorded, mut runs) = (RecordedValues::new(), Vec::new());
    let mut noise = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    while let SearchStep::Run(round) = trace.advance(&recorded) {
        for (setting, rep) in round {
            let value = fixture.run(setting, 0.01, &mut noise);
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
    let analysis = analyse_sweep(&runs, config, true, &[]);
    let Some(group) = analysis.verdicts.groups.first() else { return (0, GroupOutcome::CannotTell) };
    let best = analysis.settings[group.best].setting.clone();
    let verdict = summary.verdict([group.outcome], config.negligible);
    (settings.iter().position(|setting| *setting == best).expect("a planned setting"), verdict)
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
    let config = AnalysisConfig {
        primary: "time".to_string(),
        direction: Direction::Lower,
        group_by: Vec::new(),
        control: None,
        equivalence_key: None,
        ..super::fixtures::fixture_slice_config()
    };
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
                let (best, outcome) = searched(&fixture, budget, seed, &config);
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
