//! Judging `sweep`'s verdicts against a fixture's known truth: pure functions over parsed JSON, shared by the
//! decisions benchmark and its tests (`cargo test --test decisions_tally`).

use serde_json::Value;

/// How a grid's settings are named in the truth table and in `analysis.json`: the compared param, and the
/// param whose values are the groups (none: the whole grid is one group, numbered 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Keys<'a> {
    pub group: Option<&'a str>,
    pub param: &'a str,
}

/// The truth of one group of the fixture's grid, e.g. `rows = 2048`.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupTruth {
    /// The group's value of the group-by param (0 for a grid without one).
    pub group: u64,
    /// The true best settings (values of the compared param): the maximum and every setting within
    /// the clear margin of it.
    pub best: Vec<u64>,
    /// One true best that beats every rival by more than the clear margin.
    pub clear: bool,
}

/// What `sweep` said about one group, read from `analysis.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupVerdict {
    pub group: u64,
    /// `resolved`, `tied` or `cannot tell`.
    pub verdict: String,
    /// The named best, first, and every rival it calls tied with it; the other rivals were called beaten.
    pub winners: Vec<u64>,
    /// `paired` or `welch`.
    pub method: String,
}

/// How one group verdict compares with the truth; the columns of the benchmark's tables, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A clear group resolved with its true best, or a true tie reported tied with every true best in it.
    Right,
    /// A resolved best that is not a true best.
    Wrong,
    /// Not decided, and no claim against the truth: a clear group tied or `cannot tell` with its true best
    /// among the winners, a true tie `cannot tell` with every true best kept.
    CannotTell,
    /// A true best called beaten (which includes a true tie resolved): a claim the truth does not support.
    Overclaim,
}

/// Counts of each `Outcome`, indexed by `Outcome as usize`.
pub type Counts = [usize; 4];

/// One setting of a truth table: its group, its value of the compared param, its noise-free metric.
pub type SettingTruth = (u64, u64, f64);

/// The settings of a truth table `[{"rows": 512, "slices": 1, "prefill_tokens_per_s": 876.0}, ...]`.
pub fn setting_truths(table: &Value, keys: Keys, metric: &str) -> Result<Vec<SettingTruth>, String> {
    let rows = table.as_array().ok_or("the truth table is not a JSON array")?;
    let setting = |row: &Value| -> Result<SettingTruth, String> {
        let group = group_of(row, keys).ok_or_else(|| format!("truth row {row} has no integer `{:?}`", keys.group))?;
        let value =
            unsigned(&row[keys.param]).ok_or_else(|| format!("truth row {row} has no integer `{}`", keys.param))?;
        let truth = row[metric].as_f64().ok_or_else(|| format!("truth row {row} has no number `{metric}`"))?;
        Ok((group, value, truth))
    };
    rows.iter().map(setting).collect()
}

/// The groups of the settings, in group order.
///
/// A setting is among a group's true best when its log distance to the group's maximum is at most
/// `margin` (3x the per-run noise): closer than that, a 3-rep sweep is not expected to separate them.
pub fn truth_groups(settings: &[SettingTruth], margin: f64) -> Vec<GroupTruth> {
    let mut groups: Vec<u64> = settings.iter().map(|(group, _, _)| *group).collect();
    groups.sort_unstable();
    groups.dedup();
    groups.into_iter().map(|group| group_truth(group, settings, margin)).collect()
}

/// The rows of a truth table whose value of every param is one of its `values` (a declaration's grid).
pub fn restrict_all(table: &Value, params: &[(String, Vec<u64>)]) -> Value {
    params.iter().fold(table.clone(), |table, (param, values)| restrict(&table, param, values))
}

/// The rows of a truth table whose `param` is one of `values`; every row when `values` is empty.
pub fn restrict(table: &Value, param: &str, values: &[u64]) -> Value {
    let rows = table.as_array().map_or(&[][..], Vec::as_slice);
    let kept =
        rows.iter().filter(|row| values.is_empty() || unsigned(&row[param]).is_some_and(|v| values.contains(&v)));
    Value::Array(kept.cloned().collect())
}

fn group_of(object: &Value, keys: Keys) -> Option<u64> {
    keys.group.map_or(Some(0), |key| unsigned(&object[key]))
}

fn group_truth(group: u64, settings: &[SettingTruth], margin: f64) -> GroupTruth {
    let members: Vec<(u64, f64)> =
        settings.iter().filter(|(g, _, _)| *g == group).map(|(_, value, truth)| (*value, *truth)).collect();
    let top = members.iter().map(|(_, truth)| *truth).fold(f64::MIN, f64::max);
    let best: Vec<u64> =
        members.iter().filter(|(_, truth)| (top / truth).ln() <= margin).map(|(value, _)| *value).collect();
    GroupTruth { group, clear: best.len() == 1, best }
}

/// The group verdicts of an `analysis.json`, keyed by the group-by param.
pub fn group_verdicts(analysis: &Value, keys: Keys) -> Result<Vec<GroupVerdict>, String> {
    let groups = analysis["groups"].as_array().ok_or("no `groups` array")?;
    groups.iter().map(|group| group_verdict(group, keys)).collect()
}

fn group_verdict(group: &Value, keys: Keys) -> Result<GroupVerdict, String> {
    let param = keys.param;
    let key = group_of(&group["group"], keys).ok_or_else(|| format!("a group without `group.{:?}`", keys.group))?;
    let text = |field: &str| {
        group[field].as_str().map(str::to_string).ok_or_else(|| format!("group {key}: no string `{field}`"))
    };
    let best = unsigned(&group["best"][param]).ok_or_else(|| format!("group {key}: no `best.{param}`"))?;
    let rivals = group["rivals"].as_array().ok_or_else(|| format!("group {key}: no `rivals` array"))?;
    let mut winners = vec![best];
    for rival in rivals {
        let value =
            unsigned(&rival["setting"][param]).ok_or_else(|| format!("group {key}: a rival without `{param}`"))?;
        match rival["verdict"].as_str() {
            Some("tied") => winners.push(value),
            Some("beaten") => {}
            other => return Err(format!("group {key}: rival {param}={value} has verdict {other:?}")),
        }
    }
    Ok(GroupVerdict { group: key, verdict: text("verdict")?, winners, method: text("method")? })
}

/// Judges one verdict (see `Outcome`); a wrong best outranks an overclaim, which outranks the rest.
pub fn classify(truth: &GroupTruth, verdict: &GroupVerdict) -> Result<Outcome, String> {
    let resolved = match verdict.verdict.as_str() {
        "resolved" => true,
        "tied" | "cannot tell" => false,
        other => return Err(format!("group {}: unknown verdict {other:?}", verdict.group)),
    };
    let named_a_true_best = truth.best.contains(&verdict.winners[0]);
    // Every setting is the best, a tied rival or a beaten one: a true best not among the winners was beaten.
    let beat_a_true_best = truth.best.iter().any(|best| !verdict.winners.contains(best));
    let decided_as_truth = if truth.clear { resolved } else { verdict.verdict == "tied" };
    Ok(if resolved && !named_a_true_best {
        Outcome::Wrong
    } else if beat_a_true_best {
        Outcome::Overclaim
    } else if decided_as_truth {
        Outcome::Right
    } else {
        Outcome::CannotTell
    })
}

/// How many sweeps (each its number of cases: intervals missing the truth, rivals falsely beaten) had any:
/// the family-wise count that simultaneous intervals and Holm over the sweep keep at alpha.
pub fn sweeps_with_any(cases: impl IntoIterator<Item = usize>) -> usize {
    cases.into_iter().filter(|cases| *cases > 0).count()
}

/// Tallies outcomes into `Counts`.
pub fn count(outcomes: impl IntoIterator<Item = Outcome>) -> Counts {
    let mut counts = [0; 4];
    for outcome in outcomes {
        counts[outcome as usize] += 1;
    }
    counts
}

/// A run of a sweep: its values of the grid's params (in the order asked for) and its rep.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RunId {
    pub setting: Vec<u64>,
    pub rep: u64,
}

/// The runs `analysis.json` names as stragglers (`stragglers`: `{"setting": {...}, "rep": 5, ...}`).
pub fn named_stragglers(analysis: &Value, params: &[&str]) -> Result<Vec<RunId>, String> {
    let stragglers = analysis["stragglers"].as_array().ok_or("no `stragglers` array")?;
    stragglers
        .iter()
        .map(|straggler| {
            let setting: Option<Vec<u64>> =
                params.iter().map(|param| unsigned(&straggler["setting"][*param])).collect();
            let rep = unsigned(&straggler["rep"]);
            setting
                .zip(rep)
                .map(|(setting, rep)| RunId { setting, rep })
                .ok_or_else(|| format!("straggler {straggler}"))
        })
        .collect()
}

/// Named stragglers against the true ones: (named, true, true ones named).
pub fn straggler_hits(named: &[RunId], truth: &[RunId]) -> (usize, usize, usize) {
    (named.len(), truth.len(), truth.iter().filter(|run| named.contains(run)).count())
}

/// Of the rivals an `analysis.json` tested (a `df` is reported), how many, and the settings of those whose
/// interval is not honest: `low >= high`, `df < 1` or a standard error of 0 (a test with nothing behind it).
pub fn interval_faults(analysis: &Value, param: &str) -> (usize, Vec<String>) {
    let rivals =
        analysis["groups"].as_array().into_iter().flatten().flat_map(|group| {
            group["rivals"].as_array().into_iter().flatten().map(move |rival| (&group["group"], rival))
        });
    let tested: Vec<(&Value, &Value)> = rivals.filter(|(_, rival)| !rival["df"].is_null()).collect();
    let honest = |rival: &Value| {
        let number = |field: &str| rival[field].as_f64().unwrap_or(f64::NAN);
        number("low") < number("high") && number("df") >= 1.0 && number("std_error") > 0.0
    };
    let faults = tested
        .iter()
        .filter(|(_, rival)| !honest(rival))
        .map(|(group, rival)| format!("{group} {param}={}", rival["setting"][param]))
        .collect();
    (tested.len(), faults)
}

/// One rival of an `analysis.json` group beside its truth.
#[derive(Debug, Clone, PartialEq)]
pub struct RivalTruth {
    /// `{"rows":2048} slices=4`, to name it in a list of cases.
    pub name: String,
    pub beaten: bool,
    /// The true ratio rival / named best, from the fixture's truth.
    pub ratio: f64,
    /// The simultaneous interval (`low`..`high`), when the rival was tested.
    pub interval: Option<(f64, f64)>,
}

/// Every rival of every group of an `analysis.json` with the true ratio of its truth to the named best's.
pub fn rival_truths(analysis: &Value, keys: Keys, settings: &[SettingTruth]) -> Result<Vec<RivalTruth>, String> {
    let truth = |group: u64, value: &Value| {
        let value = unsigned(value)?;
        settings.iter().find(|(g, v, _)| (*g, *v) == (group, value)).map(|(_, _, truth)| *truth)
    };
    let mut rivals = Vec::new();
    for group in analysis["groups"].as_array().ok_or("no `groups` array")? {
        let key = group_of(&group["group"], keys).ok_or_else(|| format!("a group without `{:?}`", keys.group))?;
        let best =
            truth(key, &group["best"][keys.param]).ok_or_else(|| format!("group {key}: a best without truth"))?;
        for rival in group["rivals"].as_array().into_iter().flatten() {
            let value = &rival["setting"][keys.param];
            let ratio = truth(key, value).ok_or_else(|| format!("group {key}: rival {value} without truth"))? / best;
            rivals.push(RivalTruth {
                name: format!("{} {}={value}", group["group"], keys.param),
                beaten: rival["verdict"].as_str() == Some("beaten"),
                ratio,
                interval: rival["low"].as_f64().zip(rival["high"].as_f64()),
            });
        }
    }
    Ok(rivals)
}

/// The tested rivals whose interval (`low`..`high`, rival / best) misses the true ratio of their truths:
/// `group param=value: low..high misses truth`. Simultaneous intervals (family-wise 1 - alpha) should leave
/// at most alpha of the sweeps with any miss.
pub fn interval_misses(rivals: &[RivalTruth]) -> Vec<String> {
    let missed = |rival: &RivalTruth| {
        let (low, high) = rival.interval?;
        let ratio = rival.ratio;
        (!(low..=high).contains(&ratio)).then(|| format!("{}: {low:.4}..{high:.4} misses {ratio:.4}", rival.name))
    };
    rivals.iter().filter_map(missed).collect()
}

/// The rivals called beaten though truly at least as good as the named best (true ratio >= 1): the false
/// claims of the comparisons the analysis made, whatever the clear margin of the truth's groups says. On a
/// grid of exact ties every beaten rival is one.
pub fn falsely_beaten(rivals: &[RivalTruth]) -> Vec<String> {
    // A tolerance for the ratio of two equal truths that went through different regression factors.
    const EQUAL: f64 = 1e-9;
    let false_claim = |rival: &&RivalTruth| rival.beaten && rival.ratio >= 1.0 - EQUAL;
    rivals.iter().filter(false_claim).map(|rival| format!("{} (true ratio {:.4})", rival.name, rival.ratio)).collect()
}

/// Whether the analysis adjusted by its control (`control` is reported) or set it aside (only the test of
/// whether the settings move it, `control_move`, is); `None` when the sweep has no control.
pub fn control_used(analysis: &Value) -> Option<bool> {
    match (analysis["control"].is_null(), analysis["control_move"].is_null()) {
        (true, true) => None,
        (used, _) => Some(!used),
    }
}

/// What one `sweep compare --json` answer claims.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompareClaims {
    /// Settings (values of the params asked for) called regressed, and called improved.
    pub regressed: Vec<Vec<u64>>,
    pub improved: Vec<Vec<u64>>,
    /// The grid-wide verdict, when there is one.
    pub overall: Option<String>,
    /// The headline says "cannot tell: the machine changed".
    pub machine_changed: bool,
    /// Settings compared.
    pub settings: usize,
}

impl CompareClaims {
    /// Anything that would make a reader act: a setting or the grid called changed, or the machine changed.
    pub fn flags_anything(&self) -> bool {
        self.software_change() || self.machine_changed
    }

    /// A change of the software claimed: a setting or the grid-wide verdict regressed or improved. ("The
    /// machine changed" is not one: it is the right answer when only the machine did.)
    pub fn software_change(&self) -> bool {
        !self.regressed.is_empty()
            || !self.improved.is_empty()
            || matches!(self.overall.as_deref(), Some("regressed" | "improved"))
    }

    /// A regression claimed anywhere: the grid-wide verdict or any setting.
    pub fn any_regression(&self) -> bool {
        !self.regressed.is_empty() || self.overall.as_deref() == Some("regressed")
    }

    /// `setting` called regressed, whatever else was claimed.
    pub fn regressed_at(&self, setting: &[u64]) -> bool {
        self.regressed.iter().any(|regressed| regressed == setting)
    }

    /// A setting other than `setting` called regressed.
    pub fn regressed_elsewhere(&self, setting: &[u64]) -> bool {
        self.regressed.iter().any(|regressed| regressed != setting)
    }

    /// Exactly `setting` called regressed, and nothing called improved.
    pub fn found_only(&self, setting: &[u64]) -> bool {
        self.regressed == [setting.to_vec()] && self.improved.is_empty()
    }
}

/// Reads the claims of a `sweep compare --json` answer over the grid's `params`.
pub fn compare_claims(comparison: &Value, params: &[&str]) -> Result<CompareClaims, String> {
    let settings = comparison["settings"].as_array().ok_or("no `settings` array")?;
    let mut claims = CompareClaims { settings: settings.len(), ..CompareClaims::default() };
    for setting in settings {
        let values: Option<Vec<u64>> = params.iter().map(|param| unsigned(&setting["setting"][*param])).collect();
        let values = values.ok_or_else(|| format!("a setting without {params:?}: {}", setting["setting"]))?;
        match setting["verdict"].as_str() {
            Some("regressed") => claims.regressed.push(values),
            Some("improved") => claims.improved.push(values),
            Some("no change" | "insufficient" | "cannot tell") => {}
            other => return Err(format!("a setting with verdict {other:?}")),
        }
    }
    claims.overall = comparison["overall"]["verdict"].as_str().map(str::to_string);
    claims.machine_changed = comparison["machine_changed"].as_bool().unwrap_or(false);
    Ok(claims)
}

/// The median of a non-empty list (the mean of the middle two for an even count).
pub fn median(values: &[usize]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 0 {
        (sorted[middle - 1] + sorted[middle]) as f64 / 2.0
    } else {
        sorted[middle] as f64
    }
}

/// A JSON number that is a whole non-negative value (`512` or `512.0`).
fn unsigned(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| value.as_f64().filter(|number| number.fract() == 0.0 && *number >= 0.0).map(|n| n as u64))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const ROWS: Keys = Keys { group: Some("rows"), param: "slices" };

    fn table() -> Value {
        json!([
            {"rows": 512, "slices": 1, "tps": 876.0}, {"rows": 512, "slices": 2, "tps": 700.0},
            {"rows": 512, "slices": 8, "tps": 876.0},
            {"rows": 2048, "slices": 1, "tps": 1195.1}, {"rows": 2048, "slices": 2, "tps": 1238.6},
            {"rows": 2048, "slices": 4, "tps": 1185.8}, {"rows": 2048, "slices": 8, "tps": 1080.0},
        ])
    }

    fn truth() -> Vec<GroupTruth> {
        truth_groups(&setting_truths(&table(), ROWS, "tps").unwrap(), 0.03)
    }

    fn verdict(verdict: &str, winners: &[u64]) -> GroupVerdict {
        GroupVerdict { group: 0, verdict: verdict.to_string(), winners: winners.to_vec(), method: "paired".into() }
    }

    #[test]
    fn truth_separates_clear_groups_from_true_ties() {
        let groups = truth();
        assert_eq!(groups[0], GroupTruth { group: 512, best: vec![1, 8], clear: false });
        assert_eq!(groups[1], GroupTruth { group: 2048, best: vec![2], clear: true });
    }

    #[test]
    fn a_wider_margin_turns_a_close_group_into_a_tie() {
        let table = json!([{"g": 1, "p": 1, "m": 100.0}, {"g": 1, "p": 2, "m": 96.5}, {"g": 1, "p": 3, "m": 80.0}]);
        let groups = truth_groups(&setting_truths(&table, Keys { group: Some("g"), param: "p" }, "m").unwrap(), 0.06);
        assert_eq!(groups[0].best, vec![1, 2]);
        assert!(!groups[0].clear);
    }

    #[test]
    fn a_grid_without_groups_is_one_group() {
        let table = json!([{"rival": 0, "m": 1000.0}, {"rival": 1, "m": 970.0}]);
        let groups = truth_groups(&setting_truths(&table, Keys { group: None, param: "rival" }, "m").unwrap(), 0.03);
        assert_eq!(groups, vec![GroupTruth { group: 0, best: vec![0], clear: true }]);
    }

    #[test]
    fn a_restricted_table_keeps_the_values_asked_for() {
        let kept = restrict(&table(), "slices", &[2, 4]);
        assert_eq!(kept.as_array().unwrap().len(), 3);
        let groups = truth_groups(&setting_truths(&restrict(&kept, "rows", &[2048]), ROWS, "tps").unwrap(), 0.03);
        assert_eq!(groups, vec![GroupTruth { group: 2048, best: vec![2], clear: true }]);
        assert_eq!(restrict(&table(), "rows", &[]), table());
    }

    #[test]
    fn clear_group_outcomes() {
        let clear = &truth()[1];
        assert_eq!(classify(clear, &verdict("resolved", &[2])), Ok(Outcome::Right));
        assert_eq!(classify(clear, &verdict("resolved", &[1])), Ok(Outcome::Wrong));
        assert_eq!(classify(clear, &verdict("tied", &[2, 1])), Ok(Outcome::CannotTell));
        assert_eq!(classify(clear, &verdict("tied", &[1, 2])), Ok(Outcome::CannotTell));
        assert_eq!(classify(clear, &verdict("tied", &[1, 4])), Ok(Outcome::Overclaim));
        assert_eq!(classify(clear, &verdict("cannot tell", &[1, 2, 4])), Ok(Outcome::CannotTell));
    }

    #[test]
    fn true_tie_outcomes() {
        let tie = &truth()[0];
        assert_eq!(classify(tie, &verdict("tied", &[8, 1])), Ok(Outcome::Right));
        assert_eq!(classify(tie, &verdict("tied", &[1, 8, 2])), Ok(Outcome::Right));
        assert_eq!(classify(tie, &verdict("resolved", &[1])), Ok(Outcome::Overclaim));
        assert_eq!(classify(tie, &verdict("tied", &[1, 2])), Ok(Outcome::Overclaim));
        assert_eq!(classify(tie, &verdict("resolved", &[2])), Ok(Outcome::Wrong));
        assert_eq!(classify(tie, &verdict("cannot tell", &[1, 8, 2])), Ok(Outcome::CannotTell));
        assert!(classify(tie, &verdict("wash", &[1])).is_err());
    }

    #[test]
    fn outcomes_are_counted_in_column_order() {
        let outcomes = [Outcome::Right, Outcome::Overclaim, Outcome::Right, Outcome::CannotTell];
        assert_eq!(count(outcomes), [2, 0, 1, 1]);
    }

    #[test]
    fn verdicts_are_read_from_analysis_json() {
        let analysis = json!({"schema_version": 2, "groups": [
            {"group": {"rows": 512}, "verdict": "tied", "best": {"rows": 512, "slices": 8}, "method": "paired",
             "rivals": [
                {"setting": {"rows": 512, "slices": 1}, "verdict": "tied", "ratio": 0.999},
                {"setting": {"rows": 512, "slices": 2}, "verdict": "beaten", "ratio": 0.8}]},
            {"group": {"rows": 2048}, "verdict": "resolved", "best": {"rows": 2048, "slices": 2}, "method": "welch",
             "rivals": [{"setting": {"rows": 2048, "slices": 4}, "verdict": "beaten"}]}]});
        let verdicts = group_verdicts(&analysis, ROWS).unwrap();
        assert_eq!(
            verdicts[0],
            GroupVerdict { group: 512, verdict: "tied".into(), winners: vec![8, 1], method: "paired".into() }
        );
        assert_eq!(verdicts[1].winners, vec![2]);
        assert_eq!(verdicts[1].method, "welch");
        let one_group = json!({"groups": [{"group": {}, "verdict": "resolved", "best": {"rival": 0},
            "method": "paired", "rivals": []}]});
        assert_eq!(group_verdicts(&one_group, Keys { group: None, param: "rival" }).unwrap()[0].group, 0);
    }

    #[test]
    fn malformed_analysis_json_names_what_is_missing() {
        assert_eq!(group_verdicts(&json!({}), ROWS), Err("no `groups` array".to_string()));
        let no_best = json!({"groups": [{"group": {"rows": 512}, "verdict": "tied", "rivals": []}]});
        assert_eq!(group_verdicts(&no_best, ROWS), Err("group 512: no `best.slices`".to_string()));
        let odd_rival = json!({"groups": [{"group": {"rows": 512}, "verdict": "tied", "best": {"slices": 1},
            "method": "paired", "rivals": [{"setting": {"slices": 2}, "verdict": "wash"}]}]});
        assert!(group_verdicts(&odd_rival, ROWS).unwrap_err().contains("\"wash\""));
    }

    #[test]
    fn named_stragglers_are_matched_with_the_true_ones() {
        let analysis = json!({"stragglers": [
            {"setting": {"rows": 512, "slices": 2}, "rep": 3, "slowdown": 2.5, "t": 9.0},
            {"setting": {"rows": 2048, "slices": 1}, "rep": 1, "slowdown": 1.2, "t": 4.0}]});
        let named = named_stragglers(&analysis, &["rows", "slices"]).unwrap();
        assert_eq!(named[0], RunId { setting: vec![512, 2], rep: 3 });
        let truth = [RunId { setting: vec![512, 2], rep: 3 }, RunId { setting: vec![4096, 8], rep: 2 }];
        assert_eq!(straggler_hits(&named, &truth), (2, 2, 1));
        assert!(named_stragglers(&json!({}), &["rows"]).is_err());
        assert!(named_stragglers(&json!({"stragglers": [{"setting": {}, "rep": 1}]}), &["rows"]).is_err());
    }

    #[test]
    fn interval_faults_are_zero_width_no_df_or_no_error() {
        let rival = |slices: u64, [low, high, df, std_error]: [f64; 4]| {
            let setting = json!({ "slices": slices });
            json!({"setting": setting, "low": low, "high": high, "df": df, "std_error": std_error})
        };
        let analysis = json!({"groups": [{"group": {"rows": 2048}, "rivals": [
            rival(1, [0.95, 0.99, 2.0, 0.01]), rival(2, [0.97, 0.97, 2.0, 0.01]), rival(4, [0.9, 0.99, 0.5, 0.01]),
            rival(8, [0.9, 0.99, 3.0, 0.0]), {"setting": {"slices": 16}, "df": null, "reason": "no residual df"}]}]});
        let (tested, faults) = interval_faults(&analysis, "slices");
        assert_eq!(tested, 4);
        assert_eq!(faults, vec![r#"{"rows":2048} slices=2"#, r#"{"rows":2048} slices=4"#, r#"{"rows":2048} slices=8"#]);
    }

    #[test]
    fn intervals_are_checked_against_the_true_ratio() {
        let settings = setting_truths(&table(), ROWS, "tps").unwrap();
        let analysis = json!({"groups": [{"group": {"rows": 2048}, "best": {"slices": 2}, "rivals": [
            {"setting": {"slices": 1}, "low": 0.95, "high": 0.98},
            {"setting": {"slices": 4}, "low": 0.96, "high": 0.99},
            {"setting": {"slices": 8}, "low": null, "high": null}]}]});
        // True ratios 1195.1 / 1238.6 = 0.9649 (covered) and 1185.8 / 1238.6 = 0.9574 (missed).
        let misses = interval_misses(&rival_truths(&analysis, ROWS, &settings).unwrap());
        assert_eq!(misses, vec![r#"{"rows":2048} slices=4: 0.9600..0.9900 misses 0.9574"#]);
        let unknown = json!({"groups": [{"group": {"rows": 2048}, "best": {"slices": 16}, "rivals": []}]});
        assert!(rival_truths(&unknown, ROWS, &settings).is_err());
    }

    #[test]
    fn a_control_set_aside_is_reported_as_null_beside_its_test() {
        assert_eq!(control_used(&json!({"control": {"metric": "decode_tokens_per_s", "slope": 0.9}})), Some(true));
        assert_eq!(control_used(&json!({"control": null, "control_move": {"p_value": 0.0}})), Some(false));
        assert_eq!(control_used(&json!({"control": null, "control_move": null})), None);
    }

    #[test]
    fn compare_claims_name_settings_overall_and_machine() {
        let comparison = json!({"settings": [
            {"setting": {"rows": 512, "slices": 1}, "verdict": "no change"},
            {"setting": {"rows": 2048, "slices": 2}, "verdict": "regressed"},
            {"setting": {"rows": 4096, "slices": 4}, "verdict": "insufficient"},
            {"setting": {"rows": 8192, "slices": 8}, "verdict": "cannot tell"}],
            "overall": {"verdict": "no change"}, "machine_changed": false});
        let claims = compare_claims(&comparison, &["rows", "slices"]).unwrap();
        assert_eq!(claims.regressed, vec![vec![2048, 2]]);
        assert_eq!(claims.settings, 4);
        assert!(claims.found_only(&[2048, 2]));
        assert!(!claims.found_only(&[512, 1]));
        assert!(claims.flags_anything());
        let quiet = compare_claims(&json!({"settings": [], "overall": null}), &["rows"]).unwrap();
        assert!(!quiet.flags_anything());
        let overall = compare_claims(&json!({"settings": [], "overall": {"verdict": "regressed"}}), &["rows"]).unwrap();
        assert!(overall.flags_anything() && !overall.found_only(&[2048, 2]));
        let machine = compare_claims(&json!({"settings": [], "machine_changed": true}), &["rows"]).unwrap();
        assert!(machine.flags_anything());
        assert!(
            compare_claims(&json!({"settings": [{"setting": {"rows": 1}, "verdict": "better"}]}), &["rows"]).is_err()
        );
    }

    #[test]
    fn a_software_change_is_a_setting_or_the_grid_changed_not_the_machine() {
        let machine = CompareClaims { machine_changed: true, ..CompareClaims::default() };
        assert!(machine.flags_anything() && !machine.software_change());
        let improved = CompareClaims { improved: vec![vec![512, 1]], ..CompareClaims::default() };
        assert!(improved.software_change() && !improved.any_regression());
        let grid = CompareClaims { overall: Some("improved".into()), ..CompareClaims::default() };
        assert!(grid.software_change());
        let quiet = CompareClaims { overall: Some("no change".into()), ..CompareClaims::default() };
        assert!(!quiet.software_change());
    }

    #[test]
    fn a_regression_is_found_at_its_setting_or_grid_wide() {
        let at = CompareClaims { regressed: vec![vec![2048, 2], vec![512, 1]], ..CompareClaims::default() };
        assert!(at.any_regression() && at.regressed_at(&[2048, 2]) && !at.regressed_at(&[512, 2]));
        assert!(at.regressed_elsewhere(&[2048, 2]));
        let alone = CompareClaims { regressed: vec![vec![2048, 2]], ..CompareClaims::default() };
        assert!(!alone.regressed_elsewhere(&[2048, 2]));
        let grid = CompareClaims { overall: Some("regressed".into()), ..CompareClaims::default() };
        assert!(grid.any_regression() && !grid.regressed_at(&[2048, 2]) && !grid.regressed_elsewhere(&[2048, 2]));
    }

    #[test]
    fn sweeps_with_any_count_each_sweep_with_cases_once() {
        assert_eq!(sweeps_with_any([0, 2, 0, 1, 0]), 2);
        assert_eq!(sweeps_with_any([]), 0);
    }

    #[test]
    fn rivals_are_falsely_beaten_when_truly_as_good_as_the_named_best() {
        // The 512 true tie: slices 1 = 8 (876), 2 at 700. Named best 8: 1 beaten is false, 2 beaten is not.
        let settings = setting_truths(&table(), ROWS, "tps").unwrap();
        let analysis = json!({"groups": [
            {"group": {"rows": 512}, "best": {"slices": 8}, "rivals": [
                {"setting": {"slices": 1}, "verdict": "beaten", "low": 0.9, "high": 0.99},
                {"setting": {"slices": 2}, "verdict": "beaten", "low": 0.7, "high": 0.9}]},
            // A wrong best (2048 slices 1, truly behind 2): beating the true best is false; 4 is truly behind 1.
            {"group": {"rows": 2048}, "best": {"slices": 1}, "rivals": [
                {"setting": {"slices": 2}, "verdict": "beaten"},
                {"setting": {"slices": 4}, "verdict": "tied"}]}]});
        let rivals = rival_truths(&analysis, ROWS, &settings).unwrap();
        assert_eq!(rivals[0].interval, Some((0.9, 0.99)));
        assert_eq!(rivals[2].interval, None);
        assert!(rivals[0].beaten && !rivals[3].beaten);
        assert_eq!(
            falsely_beaten(&rivals),
            vec![r#"{"rows":512} slices=1 (true ratio 1.0000)"#, r#"{"rows":2048} slices=2 (true ratio 1.0364)"#]
        );
        assert_eq!(interval_misses(&rivals), vec![r#"{"rows":512} slices=1: 0.9000..0.9900 misses 1.0000"#]);
    }

    #[test]
    fn a_truth_table_is_restricted_to_the_declared_grid() {
        let params = [("rows".to_string(), vec![2048]), ("slices".to_string(), vec![1, 4])];
        let kept = restrict_all(&table(), &params);
        let settings = setting_truths(&kept, ROWS, "tps").unwrap();
        assert_eq!(settings, vec![(2048, 1, 1195.1), (2048, 4, 1185.8)]);
        assert_eq!(restrict_all(&table(), &[]), table());
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[100, 60, 80]), 80.0);
        assert_eq!(median(&[60, 100, 80, 90]), 85.0);
    }
}
