//! Judging `sweep`'s verdicts against a fixture's known truth: pure functions over parsed JSON, shared by the
//! decisions benchmark and its tests (`cargo test --test decisions_tally`).

use serde_json::Value;

/// The truth of one group of the fixture's grid, e.g. `rows = 2048`.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupTruth {
    /// The group's value of the group-by param.
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
    /// The named best and every rival it calls tied with it.
    pub winners: Vec<u64>,
    /// `paired` or `welch`.
    pub method: String,
}

/// How one group verdict compares with the truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A clear group resolved with its true best, or a true tie reported tied with every true best in it.
    Right,
    /// No true best among the winners: a setting that is not a true best was named best (or tied best)
    /// and every true best was called beaten.
    Wrong,
    /// A clear group not resolved (tied or cannot tell) although its winners include the true best.
    WashWhereClear,
    /// A true tie where at least one truly tied setting was called beaten.
    ClearWhereWash,
    /// A true tie reported as `cannot tell`.
    Undecided,
}

/// The groups of a truth table `[{"rows": 512, "slices": 1, "prefill_tokens_per_s": 876.0}, ...]`.
///
/// A setting is among a group's true best when its log distance to the group's maximum is at most
/// `margin` (3x the per-run noise): closer than that, a 3-rep sweep is not expected to separate them.
pub fn truth_groups(
    table: &Value,
    group_key: &str,
    param: &str,
    metric: &str,
    margin: f64,
) -> Result<Vec<GroupTruth>, String> {
    let rows = table.as_array().ok_or("the truth table is not a JSON array")?;
    let mut settings: Vec<(u64, u64, f64)> = Vec::new();
    for row in rows {
        let group = unsigned(&row[group_key]).ok_or_else(|| format!("truth row {row} has no integer `{group_key}`"))?;
        let value = unsigned(&row[param]).ok_or_else(|| format!("truth row {row} has no integer `{param}`"))?;
        let truth = row[metric].as_f64().ok_or_else(|| format!("truth row {row} has no number `{metric}`"))?;
        settings.push((group, value, truth));
    }
    let mut groups: Vec<u64> = settings.iter().map(|(group, _, _)| *group).collect();
    groups.sort_unstable();
    groups.dedup();
    Ok(groups.into_iter().map(|group| group_truth(group, &settings, margin)).collect())
}

fn group_truth(group: u64, settings: &[(u64, u64, f64)], margin: f64) -> GroupTruth {
    let members: Vec<(u64, f64)> =
        settings.iter().filter(|(g, _, _)| *g == group).map(|(_, value, truth)| (*value, *truth)).collect();
    let top = members.iter().map(|(_, truth)| *truth).fold(f64::MIN, f64::max);
    let best: Vec<u64> =
        members.iter().filter(|(_, truth)| (top / truth).ln() <= margin).map(|(value, _)| *value).collect();
    GroupTruth { group, clear: best.len() == 1, best }
}

/// The group verdicts of an `analysis.json` (schema 1), keyed by the group-by param.
pub fn group_verdicts(analysis: &Value, group_key: &str, param: &str) -> Result<Vec<GroupVerdict>, String> {
    let groups = analysis["groups"].as_array().ok_or("no `groups` array")?;
    groups.iter().map(|group| group_verdict(group, group_key, param)).collect()
}

fn group_verdict(group: &Value, group_key: &str, param: &str) -> Result<GroupVerdict, String> {
    let key = unsigned(&group["group"][group_key]).ok_or_else(|| format!("a group without `group.{group_key}`"))?;
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

/// Judges one verdict by the definitions of issue 7's benchmark (see `Outcome`).
pub fn classify(truth: &GroupTruth, verdict: &GroupVerdict) -> Result<Outcome, String> {
    let holds_a_true_best = truth.best.iter().any(|best| verdict.winners.contains(best));
    let holds_every_true_best = truth.best.iter().all(|best| verdict.winners.contains(best));
    let outcome = match (verdict.verdict.as_str(), truth.clear) {
        ("cannot tell", true) => Outcome::WashWhereClear,
        ("cannot tell", false) => Outcome::Undecided,
        ("resolved" | "tied", _) if !holds_a_true_best => Outcome::Wrong,
        ("resolved", true) => Outcome::Right,
        ("tied", true) => Outcome::WashWhereClear,
        ("tied", false) if holds_every_true_best => Outcome::Right,
        ("resolved" | "tied", false) => Outcome::ClearWhereWash,
        (other, _) => return Err(format!("group {}: unknown verdict {other:?}", verdict.group)),
    };
    Ok(outcome)
}

/// How many settings of a `sweep compare --json` answer are flagged `improved` or `regressed`.
pub fn flagged_settings(comparison: &Value) -> Result<usize, String> {
    let settings = comparison["settings"].as_array().ok_or("no `settings` array")?;
    settings.iter().try_fold(0, |flagged, setting| match setting["verdict"].as_str() {
        Some("improved" | "regressed") => Ok(flagged + 1),
        Some("no change" | "insufficient") => Ok(flagged),
        other => Err(format!("a setting with verdict {other:?}")),
    })
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

    fn truth() -> Vec<GroupTruth> {
        let table = json!([
            {"rows": 512, "slices": 1, "tps": 876.0}, {"rows": 512, "slices": 2, "tps": 700.0},
            {"rows": 512, "slices": 8, "tps": 876.0},
            {"rows": 2048, "slices": 1, "tps": 1195.1}, {"rows": 2048, "slices": 2, "tps": 1238.6},
            {"rows": 2048, "slices": 4, "tps": 1185.8},
        ]);
        truth_groups(&table, "rows", "slices", "tps", 0.03).unwrap()
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
        let groups = truth_groups(&table, "g", "p", "m", 0.06).unwrap();
        assert_eq!(groups[0].best, vec![1, 2]);
        assert!(!groups[0].clear);
    }

    #[test]
    fn clear_group_outcomes() {
        let clear = &truth()[1];
        assert_eq!(classify(clear, &verdict("resolved", &[2])), Ok(Outcome::Right));
        assert_eq!(classify(clear, &verdict("resolved", &[1])), Ok(Outcome::Wrong));
        assert_eq!(classify(clear, &verdict("tied", &[2, 1])), Ok(Outcome::WashWhereClear));
        assert_eq!(classify(clear, &verdict("tied", &[1, 4])), Ok(Outcome::Wrong));
        assert_eq!(classify(clear, &verdict("cannot tell", &[1])), Ok(Outcome::WashWhereClear));
    }

    #[test]
    fn true_tie_outcomes() {
        let tie = &truth()[0];
        assert_eq!(classify(tie, &verdict("tied", &[8, 1])), Ok(Outcome::Right));
        assert_eq!(classify(tie, &verdict("tied", &[1, 8, 2])), Ok(Outcome::Right));
        assert_eq!(classify(tie, &verdict("resolved", &[1])), Ok(Outcome::ClearWhereWash));
        assert_eq!(classify(tie, &verdict("tied", &[1, 2])), Ok(Outcome::ClearWhereWash));
        assert_eq!(classify(tie, &verdict("resolved", &[2])), Ok(Outcome::Wrong));
        assert_eq!(classify(tie, &verdict("cannot tell", &[1])), Ok(Outcome::Undecided));
        assert!(classify(tie, &verdict("wash", &[1])).is_err());
    }

    #[test]
    fn verdicts_are_read_from_analysis_json() {
        let analysis = json!({"schema_version": 1, "groups": [
            {"group": {"rows": 512}, "verdict": "tied", "best": {"rows": 512, "slices": 8}, "method": "paired",
             "rivals": [
                {"setting": {"rows": 512, "slices": 1}, "verdict": "tied", "ratio": 0.999},
                {"setting": {"rows": 512, "slices": 2}, "verdict": "beaten", "ratio": 0.8}]},
            {"group": {"rows": 2048}, "verdict": "resolved", "best": {"rows": 2048, "slices": 2}, "method": "welch",
             "rivals": [{"setting": {"rows": 2048, "slices": 4}, "verdict": "beaten"}]}]});
        let verdicts = group_verdicts(&analysis, "rows", "slices").unwrap();
        assert_eq!(
            verdicts[0],
            GroupVerdict { group: 512, verdict: "tied".into(), winners: vec![8, 1], method: "paired".into() }
        );
        assert_eq!(verdicts[1].winners, vec![2]);
        assert_eq!(verdicts[1].method, "welch");
    }

    #[test]
    fn malformed_analysis_json_names_what_is_missing() {
        assert_eq!(group_verdicts(&json!({}), "rows", "slices"), Err("no `groups` array".to_string()));
        let no_best = json!({"groups": [{"group": {"rows": 512}, "verdict": "tied", "rivals": []}]});
        assert_eq!(group_verdicts(&no_best, "rows", "slices"), Err("group 512: no `best.slices`".to_string()));
        let odd_rival = json!({"groups": [{"group": {"rows": 512}, "verdict": "tied", "best": {"slices": 1},
            "method": "paired", "rivals": [{"setting": {"slices": 2}, "verdict": "wash"}]}]});
        assert!(group_verdicts(&odd_rival, "rows", "slices").unwrap_err().contains("\"wash\""));
    }

    #[test]
    fn compare_flags_count_improved_and_regressed() {
        let comparison = json!({"settings": [
            {"verdict": "no change"}, {"verdict": "improved"}, {"verdict": "regressed"}, {"verdict": "insufficient"}]});
        assert_eq!(flagged_settings(&comparison), Ok(2));
        assert!(flagged_settings(&json!({"settings": [{"verdict": "better"}]})).is_err());
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[100, 60, 80]), 80.0);
        assert_eq!(median(&[60, 100, 80, 90]), 85.0);
    }
}
