//! The benchmark's output: per scenario a table of right / wrong / cannot tell / overclaim per group and group
//! kind, the facts behind the verdicts (runs, stragglers, control use, intervals), the seeds of every wrong
//! or overclaimed group, and each target with MET or MISSED.

use std::collections::BTreeMap;

use crate::driver::{Bench, Truth, CLEAR_MARGIN_IN_NOISE};
use crate::scenarios::{CompareScenario, Expect, Grid, Scenario, Target};
use crate::tally::{self, Counts, GroupTruth, Outcome};
use crate::{SweepFacts, Trial};

pub fn preamble(bench: &Bench) {
    let count = |set: Option<usize>| set.map_or_else(|| "each scenario's own count of".to_string(), |n| n.to_string());
    println!(
        "Decisions benchmark on the decision FIXTURE (known truth; its numbers are not measurements): {} sweeps per \
         scenario, {} independent pairs per compare scenario, seeds {} + i.",
        count(bench.sweeps),
        count(bench.trials),
        bench.seed
    );
    println!(
        "Clear: the best beats every rival by more than {CLEAR_MARGIN_IN_NOISE}x the per-run noise ({:.1}%). Right: a \
         clear group resolved with its true best, or a true tie reported tied with every true best kept. Wrong: a \
         resolved best that is not a true best. Cannot tell: neither right nor a claim against the truth (a clear \
         group tied or `cannot tell` with its true best kept). Overclaim: a true best called beaten (a true tie \
         resolved is one). Misled: wrong or overclaim.",
        CLEAR_MARGIN_IN_NOISE * bench.noise * 100.0
    );
}

/// The grid's truth, the first time a scenario runs on it with that truth (a software regression asked of
/// the fixture changes it).
pub fn truth_once(grid: &Grid, truth: &Truth, shown: &mut Vec<String>) {
    let describe = |group: &GroupTruth| {
        let best: Vec<String> = group.best.iter().map(u64::to_string).collect();
        let kind = if group.clear { "clear" } else { "true tie" };
        format!("{} {kind} ({} {})", group_label(grid, group), grid.keys.param, best.join(" = "))
    };
    let groups: Vec<String> = truth.groups.iter().map(describe).collect();
    let line = format!("Truth of {} ({} settings): {}.", describe_grid(grid), truth.settings.len(), groups.join("; "));
    if !shown.contains(&line) {
        println!("\n{line}");
        shown.push(line);
    }
}

fn describe_grid(grid: &Grid) -> String {
    let subset: Vec<String> = grid.subset.iter().map(|(param, values)| format!("{param} {values:?}")).collect();
    if subset.is_empty() {
        grid.declaration.to_string()
    } else {
        format!("{} cut to {}", grid.declaration, subset.join(" x "))
    }
}

fn group_label(grid: &Grid, group: &GroupTruth) -> String {
    grid.keys.group.map_or_else(|| "the grid".to_string(), |key| format!("{key}={}", group.group))
}

/// One scenario's tables, facts and targets; `done` holds the scenarios run before it (by id), for racing's
/// comparison with fixed 5 reps (d) and the plain noise (a).
pub fn scenario(scenario: &Scenario, sweeps: &[SweepFacts], truth: &Truth, done: &BTreeMap<&str, Vec<SweepFacts>>) {
    let fixed5 = done.get("d").map(Vec::as_slice);
    println!("\n({}) {} [{} sweeps]", scenario.id, scenario.title, sweeps.len());
    println!("  {:<24} {:>6} {:>6} {:>12} {:>10}", "group", "right", "wrong", "cannot tell", "overclaim");
    for (index, group) in truth.groups.iter().enumerate() {
        let kind = if group.clear { "clear" } else { "true tie" };
        print_counts(&format!("{} ({kind})", group_label(scenario.grid, group)), &column(sweeps, index));
    }
    for (label, clear) in [("clear groups", Some(true)), ("true ties", Some(false)), ("all groups", None)] {
        print_counts(label, &kind_counts(sweeps, truth, clear));
    }
    print_facts(sweeps);
    print_seeds(scenario.grid, sweeps, truth, done.get("a").map(Vec::as_slice).filter(|_| scenario.id != "a"));
    for target in scenario.targets {
        println!("  target: {}", target_line(*target, scenario, sweeps, truth, fixed5));
    }
    if let Some(note) = scenario.note {
        println!("  note: {note}");
    }
}

/// One group's outcomes over every sweep.
fn column(sweeps: &[SweepFacts], index: usize) -> Counts {
    tally::count(sweeps.iter().map(|sweep| sweep.outcomes[index]))
}

/// The outcomes of the clear groups (`Some(true)`), the true ties (`Some(false)`) or all.
fn kind_counts(sweeps: &[SweepFacts], truth: &Truth, clear: Option<bool>) -> Counts {
    let of_kind = |index: &usize| clear.is_none_or(|clear| truth.groups[*index].clear == clear);
    tally::count(
        (0..truth.groups.len()).filter(of_kind).flat_map(|index| sweeps.iter().map(move |s| s.outcomes[index])),
    )
}

fn print_counts(label: &str, counts: &Counts) {
    println!("  {label:<24} {:>6} {:>6} {:>12} {:>10}", counts[0], counts[1], counts[2], counts[3]);
}

/// Runs per sweep, methods, stragglers named, control use and interval honesty.
fn print_facts(sweeps: &[SweepFacts]) {
    let runs: Vec<usize> = sweeps.iter().map(|sweep| sweep.runs).collect();
    let (low, high) = (runs.iter().min().unwrap_or(&0), runs.iter().max().unwrap_or(&0));
    let paired = sweeps.iter().flat_map(|sweep| &sweep.methods).filter(|method| *method == "paired").count();
    let groups = sweeps.iter().map(|sweep| sweep.methods.len()).sum::<usize>();
    println!(
        "  engine runs per sweep: median {} (min {low}, max {high}); groups judged paired {paired}, welch {}",
        tally::median(&runs),
        groups - paired
    );
    let (named, true_ones, found) = sweeps
        .iter()
        .fold((0, 0, 0), |(n, t, f), sweep| (n + sweep.stragglers.0, t + sweep.stragglers.1, f + sweep.stragglers.2));
    let with_control = sweeps.iter().filter(|sweep| sweep.control_used.is_some()).count();
    let used = sweeps.iter().filter(|sweep| sweep.control_used == Some(true)).count();
    let control = if with_control == 0 {
        "no control declared".to_string()
    } else {
        format!("control used in {used} of {with_control} sweeps, set aside in {}", with_control - used)
    };
    println!(
        "  stragglers named {named} (the fixture made {true_ones} outliers, slow or too fast, {found} of them named); \
         {control}"
    );
    let tested = sweeps.iter().map(|sweep| sweep.tested).sum::<usize>();
    let faults = sweeps.iter().map(|sweep| sweep.faults.len()).sum::<usize>();
    let misses = sweeps.iter().map(|sweep| sweep.misses.len()).sum::<usize>();
    let missing = sweeps.iter().filter(|sweep| !sweep.misses.is_empty()).count();
    println!(
        "  rivals tested {tested}: with a zero-width interval, df < 1 or no standard error {faults}; with an interval \
         missing the true ratio {misses}, in {missing} of {} sweeps (simultaneous intervals: at most alpha of them)",
        sweeps.len()
    );
}

/// The seed and group of every wrong and overclaimed verdict, and every dishonest interval: what to rerun.
/// Beside them, how many of those verdicts (a) also gave on the same draws (same seeds, same grid): those
/// are the plain noise's, not this scenario's misbehaviour.
fn print_seeds(grid: &Grid, sweeps: &[SweepFacts], truth: &Truth, plain: Option<&[SweepFacts]>) {
    let comparable = plain.filter(|plain| {
        plain.len() == sweeps.len()
            && plain.iter().zip(sweeps).all(|(p, s)| p.seed == s.seed && p.outcomes.len() == s.outcomes.len())
    });
    for (outcome, name) in [(Outcome::Wrong, "wrong"), (Outcome::Overclaim, "overclaim")] {
        let (mut cases, mut in_plain) = (Vec::new(), 0);
        for (index, sweep) in sweeps.iter().enumerate() {
            for (group, _) in sweep.outcomes.iter().enumerate().filter(|(_, o)| **o == outcome) {
                cases.push(format!("seed {} {}", sweep.seed, group_label(grid, &truth.groups[group])));
                in_plain += usize::from(comparable.is_some_and(|plain| plain[index].outcomes[group] == outcome));
            }
        }
        if !cases.is_empty() {
            let plain =
                comparable.map_or(String::new(), |_| format!(" ({in_plain} of them also in (a) on the same draws)"));
            // Holm keeps the share of sweeps with any false claim at alpha when the model fits the noise.
            let in_sweeps = sweeps.iter().filter(|sweep| sweep.outcomes.contains(&outcome)).count();
            println!("  {name} in {in_sweeps} of {} sweeps: {}{plain}", sweeps.len(), cases.join(", "));
        }
    }
    print_by_seed("dishonest intervals", sweeps.iter().map(|sweep| (sweep.seed, &sweep.faults)));
    print_by_seed("intervals missing the truth", sweeps.iter().map(|sweep| (sweep.seed, &sweep.misses)));
    print_by_seed("rivals falsely beaten", sweeps.iter().map(|sweep| (sweep.seed, &sweep.falsely_beaten)));
}

/// Every case of every sweep, named by its seed (`print_cases`).
fn print_by_seed<'a>(label: &str, cases: impl Iterator<Item = (u64, &'a Vec<String>)>) {
    let cases: Vec<String> =
        cases.flat_map(|(seed, cases)| cases.iter().map(move |case| format!("seed {seed} {case}"))).collect();
    print_cases(label, &cases);
}

fn target_line(
    target: Target,
    scenario: &Scenario,
    sweeps: &[SweepFacts],
    truth: &Truth,
    fixed5: Option<&[SweepFacts]>,
) -> String {
    let all = kind_counts(sweeps, truth, None);
    let (wrong, overclaim) = (all[Outcome::Wrong as usize], all[Outcome::Overclaim as usize]);
    match target {
        Target::NoWrong => format!("0 wrong: {wrong} {}", mark(wrong == 0)),
        Target::WrongAtMost(share) => at_most("wrong", wrong, all.iter().sum::<usize>(), share),
        Target::NoMisled => {
            format!("0 misled (wrong + overclaim): {} {}", wrong + overclaim, mark(wrong + overclaim == 0))
        }
        Target::ClearRight(share) => {
            let clear = kind_counts(sweeps, truth, Some(true));
            at_least("clear groups right and resolved", clear[Outcome::Right as usize], clear.iter().sum(), share)
        }
        Target::FalselyBeatenInSweeps(share) => {
            let falsely = tally::sweeps_with_any(sweeps.iter().map(|sweep| sweep.falsely_beaten.len()));
            let what = "sweeps calling a rival beaten that is truly as good as the named best";
            at_most(what, falsely, sweeps.len(), share)
        }
        Target::Coverage(share) => {
            let covered = sweeps.len() - tally::sweeps_with_any(sweeps.iter().map(|sweep| sweep.misses.len()));
            at_least("sweeps whose every interval covers its true ratio", covered, sweeps.len(), share)
        }
        Target::HonestIntervals => {
            let faults = sweeps.iter().map(|sweep| sweep.faults.len()).sum::<usize>();
            format!("no zero-width interval (low < high, df >= 1, std_error > 0): {faults} {}", mark(faults == 0))
        }
        Target::RunsOfBudget(share) => {
            let runs: Vec<usize> = sweeps.iter().map(|sweep| sweep.runs).collect();
            let budget = truth.settings.len() * scenario.race_to.unwrap_or(scenario.reps) as usize;
            let median = tally::median(&runs);
            format!(
                "median runs {median} of the fixed budget {budget} = {:.0}% <= {:.0}%: {}",
                median / budget as f64 * 100.0,
                share * 100.0,
                mark(median <= share * budget as f64)
            )
        }
        Target::VersusFixed5 { saving } => versus_fixed5(sweeps, fixed5, saving),
    }
}

/// Racing against fixed 5 reps (d), sweep by sweep on the same noise draws (the fixture keys its noise by
/// setting and rep): the outcome per group, and the runs saved.
fn versus_fixed5(sweeps: &[SweepFacts], fixed5: Option<&[SweepFacts]>, saving_target: f64) -> String {
    let Some(fixed5) = fixed5 else {
        return "racing against fixed 5 reps needs scenario (d) in the same run".to_string();
    };
    let pairs: Vec<(Outcome, Outcome)> = sweeps
        .iter()
        .zip(fixed5)
        .flat_map(|(racing, fixed)| racing.outcomes.iter().copied().zip(fixed.outcomes.iter().copied()))
        .collect();
    let right_in = |racing: bool, fixed: bool| {
        pairs.iter().filter(|(r, f)| (*r == Outcome::Right, *f == Outcome::Right) == (racing, fixed)).count()
    };
    let (gained, lost) = (right_in(true, false), right_in(false, true));
    let runs = |sweeps: &[SweepFacts]| tally::median(&sweeps.iter().map(|sweep| sweep.runs).collect::<Vec<_>>());
    let saving = 1.0 - runs(sweeps) / runs(fixed5);
    format!(
        "vs fixed 5 reps (d) on the same draws: right only when racing {gained}, only in (d) {lost}; median runs \
         {:.1}% fewer >= {:.0}%: {}",
        saving * 100.0,
        saving_target * 100.0,
        mark(gained >= lost && saving >= saving_target)
    )
}

pub fn compare(scenario: &CompareScenario, trials: &[Trial]) {
    println!("\n({}) {}", scenario.id, scenario.title);
    let count = |keep: &dyn Fn(&Trial) -> bool| trials.iter().filter(|trial| keep(trial)).count();
    let settings = trials.iter().map(|trial| trial.claims.settings).sum::<usize>();
    let regressed = trials.iter().map(|trial| trial.claims.regressed.len()).sum::<usize>();
    let improved = trials.iter().map(|trial| trial.claims.improved.len()).sum::<usize>();
    let overall = |verdict: &str| count(&|trial| trial.claims.overall.as_deref() == Some(verdict));
    println!(
        "  {} trials; settings called regressed {regressed}, improved {improved} of {settings} compared; grid-wide \
         verdict regressed {}, improved {}, no change {}; machine changed {}; trials flagging anything {}",
        trials.len(),
        overall("regressed"),
        overall("improved"),
        overall("no change"),
        count(&|trial| trial.claims.machine_changed),
        count(&|trial| trial.claims.flags_anything())
    );
    print_missed_trials(scenario.expect, trials);
    let expected = count(&|trial| scenario.expect.holds(&trial.claims));
    let lines = match scenario.expect {
        Expect::Nothing { at_most: share } => {
            vec![at_most("trials flagging anything", trials.len() - expected, trials.len(), share)]
        }
        Expect::Only { setting, at_least: share } => {
            let what = format!("found (only {setting:?} regressed, nothing improved)");
            vec![at_least(&what, expected, trials.len(), share)]
        }
        Expect::Overall { at_least: share } => {
            vec![at_least("flagged (grid-wide verdict regressed)", expected, trials.len(), share)]
        }
        Expect::NoSoftwareChange { at_most: share } => {
            let what = "trials claiming a software change (a setting or the grid regressed or improved)";
            vec![at_most(what, trials.len() - expected, trials.len(), share)]
        }
        Expect::AnyRegression { at_least: share } => {
            vec![at_least("found (grid-wide or a setting regressed)", expected, trials.len(), share)]
        }
        Expect::Found { setting, at_least: share, others_at_most } => {
            let elsewhere = count(&|trial| trial.claims.regressed_elsewhere(setting));
            vec![
                at_least(&format!("found ({setting:?} regressed)"), expected, trials.len(), share),
                at_most("trials calling another setting regressed", elsewhere, trials.len(), others_at_most),
            ]
        }
    };
    for line in lines {
        println!("  target: {line}");
    }
}

/// `what hits/of = p% >= target%: MET`.
fn at_least(what: &str, hits: usize, of: usize, share: f64) -> String {
    format!("{} >= {:.0}%: {}", ratio_text(what, hits, of), share * 100.0, mark(rate(hits, of) >= share))
}

/// `what hits/of = p% <= target%: MET`.
fn at_most(what: &str, hits: usize, of: usize, share: f64) -> String {
    format!("{} <= {:.0}%: {}", ratio_text(what, hits, of), share * 100.0, mark(rate(hits, of) <= share))
}

fn ratio_text(what: &str, hits: usize, of: usize) -> String {
    format!("{what} {hits}/{of} = {:.1}%", rate(hits, of) * 100.0)
}

/// hits / of; 0 of nothing.
fn rate(hits: usize, of: usize) -> f64 {
    hits as f64 / of.max(1) as f64
}

/// The seeds of the trials that went against the expectation (A/A: those that flagged), for a rerun; the
/// first `MISSED_SHOWN` of them.
fn print_missed_trials(expect: Expect, trials: &[Trial]) {
    let missed: Vec<String> = trials
        .iter()
        .filter(|trial| !expect.holds(&trial.claims))
        .map(|trial| {
            let claims = &trial.claims;
            format!(
                "seeds {}/{} (regressed {}, improved {}, overall {}{})",
                trial.seeds.0,
                trial.seeds.1,
                settings_text(&claims.regressed),
                settings_text(&claims.improved),
                claims.overall.as_deref().unwrap_or("-"),
                if claims.machine_changed { ", machine changed" } else { "" }
            )
        })
        .collect();
    print_cases("against expectation", &missed);
}

/// The settings a trial called changed, or only how many when there are more than a reader can use (a
/// machine change read as a regression names every setting).
fn settings_text(settings: &[Vec<u64>]) -> String {
    const NAMED: usize = 4;
    if settings.len() > NAMED {
        format!("{} settings", settings.len())
    } else {
        format!("{settings:?}")
    }
}

/// `label: case; case; ...`, the first `MISSED_SHOWN` of them; nothing when there are none.
fn print_cases(label: &str, cases: &[String]) {
    if let Some(shown) = cases.get(..cases.len().min(MISSED_SHOWN)).filter(|shown| !shown.is_empty()) {
        let more = cases.len() - shown.len();
        let more = if more > 0 { format!("; and {more} more") } else { String::new() };
        println!("  {label}: {}{more}", shown.join("; "));
    }
}

const MISSED_SHOWN: usize = 12;

fn mark(met: bool) -> &'static str {
    if met {
        "MET"
    } else {
        "MISSED"
    }
}
