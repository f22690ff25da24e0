//! Reads a run's declared metrics out of its logs, derives the rest, and applies its checks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::extract_error::ExtractError;
use super::profile_block::{parse_profile_blocks, select_block};
use crate::declare::{BlockSelector, Check, CheckTest, MetricsDecl, ProfileMetricsDecl, ResultLine};
use crate::expression::Expression;

/// Where a run's output landed.
#[derive(Debug, Clone)]
pub struct RunLogs {
    /// The log holding the result line (rank `result.rank`'s, or the merged one).
    pub result_log: PathBuf,
    /// Rank -> log, for per-rank launches; a merged log answers for every rank.
    pub rank_logs: Vec<PathBuf>,
    /// Service name -> its log, for metrics declared with `process = "<service>"`.
    pub service_logs: BTreeMap<String, PathBuf>,
}

impl RunLogs {
    /// The log of `process` (a service; the client when `None` or unknown), else of the client's `rank`.
    fn of(&self, process: Option<&String>, rank: Option<u32>) -> &Path {
        match process.and_then(|name| self.service_logs.get(name)) {
            Some(log) => log,
            None => rank.and_then(|rank| self.rank_logs.get(rank as usize)).unwrap_or(&self.result_log),
        }
    }
}

/// How an engine prints: its result line, and the prefix of its phase-profile lines.
#[derive(Debug, Clone, Copy)]
pub struct EngineOutput<'a> {
    pub result: &'a ResultLine,
    pub profile_prefix: Option<&'a str>,
}

/// Extracts every metric of `decl` for one run; `params` feed derived expressions and checks.
pub fn extract_metrics(
    decl: &MetricsDecl,
    output: EngineOutput<'_>,
    logs: &RunLogs,
    params: &serde_json::Map<String, Value>,
) -> Result<BTreeMap<String, f64>, ExtractError> {
    let mut metrics = BTreeMap::new();
    let result = output.result;
    if !decl.result.is_empty() {
        let path = logs.of(decl.result_process.as_ref(), None);
        let log = read(path)?;
        let line = find_result_line(&log, &result.prefix, &decl.result)
            .ok_or_else(|| ExtractError::NoResultLine { prefix: result.prefix.clone(), log: path.to_path_buf() })?;
        let pairs = parse_pairs(line)?;
        for key in &decl.result {
            metrics.insert(key.clone(), number(&pairs, key)?);
        }
    }
    for (name, regex_decl) in &decl.regex {
        let path = logs.of(regex_decl.process.as_ref(), regex_decl.rank);
        let log = read(path)?;
        // The first capture (or the group named `value`) of the last match.
        let captures = regex_decl.pattern.captures_iter(&log).last();
        let captures =
            captures.ok_or_else(|| ExtractError::NoMatch { metric: name.clone(), log: path.to_path_buf() })?;
        let text = captures.name("value").or_else(|| captures.get(1)).map_or("", |m| m.as_str());
        metrics.insert(name.clone(), finite(name, text.trim())?);
    }
    if let (Some(profile), Some(prefix)) = (&decl.profile, output.profile_prefix) {
        profile_metrics(profile, prefix, logs, &mut metrics)?;
    }
    derive(&decl.derived, params, &mut metrics)?;
    Ok(metrics)
}

/// Phase seconds from the one block the selector picks (never a flat grep across blocks).
fn profile_metrics(
    decl: &ProfileMetricsDecl,
    prefix: &str,
    logs: &RunLogs,
    metrics: &mut BTreeMap<String, f64>,
) -> Result<(), ExtractError> {
    let rank = match &decl.block {
        BlockSelector::ByTag { rank, .. } | BlockSelector::Matching { rank, .. } => *rank,
    };
    let path = logs.of(decl.process.as_ref(), Some(rank));
    let blocks = parse_profile_blocks(&read(path)?, prefix);
    let result_value = match &decl.block {
        BlockSelector::Matching { result_key, .. } => metrics.get(result_key).copied(),
        BlockSelector::ByTag { .. } => None,
    };
    let block = select_block(&blocks, &decl.block, result_value)?;
    for (name, phase) in &decl.phases {
        let seconds = block.phase_seconds(phase).ok_or_else(|| ExtractError::MissingPhase {
            metric: name.clone(),
            phase: phase.clone(),
            tag: block.tag.clone(),
        })?;
        metrics.insert(name.clone(), seconds);
    }
    Ok(())
}

/// Evaluates derived metrics in dependency order (one may use another), over metrics and params.
fn derive(
    derived: &BTreeMap<String, Expression>,
    params: &serde_json::Map<String, Value>,
    metrics: &mut BTreeMap<String, f64>,
) -> Result<(), ExtractError> {
    let mut pending: Vec<(&String, &Expression)> = derived.iter().collect();
    while !pending.is_empty() {
        let before = pending.len();
        let mut last_error = None;
        pending.retain(|(name, expression)| match evaluate(expression, params, metrics) {
            Ok(value) => {
                metrics.insert((*name).clone(), value);
                false
            }
            Err(error) => {
                last_error = Some(ExtractError::Derived { metric: (*name).clone(), error });
                true
            }
        });
        if pending.len() == before {
            return Err(last_error.expect("a pending expression failed"));
        }
    }
    for (name, value) in derived.keys().filter_map(|name| metrics.get(name).map(|v| (name, *v))) {
        if !value.is_finite() {
            return Err(ExtractError::NotANumber { metric: name.clone(), value: value.to_string() });
        }
    }
    Ok(())
}

fn evaluate(
    expression: &Expression,
    params: &serde_json::Map<String, Value>,
    metrics: &BTreeMap<String, f64>,
) -> Result<f64, String> {
    let numeric_params = params.iter().filter_map(|(name, value)| value.as_f64().map(|v| (name.as_str(), v)));
    expression.number(numeric_params.chain(metrics.iter().map(|(name, value)| (name.as_str(), *value))))
}

/// Applies `[[checks]]`: each metric must equal its rendered expectation (a number), or each expression
/// over metrics and params (the numbers of `context`) the value of its `equals` expression; within the
/// relative tolerance `within` when one is given, else exactly.
pub fn apply_checks(checks: &[Check], metrics: &BTreeMap<String, f64>, context: &Value) -> Result<(), ExtractError> {
    let no_params = serde_json::Map::new();
    let params = context.as_object().unwrap_or(&no_params);
    for check in checks {
        let (actual, expected) = match &check.test {
            CheckTest::Metric { metric, equals } => {
                let rendered = equals.render(context).unwrap_or_else(|error| error.to_string());
                (metrics[metric], rendered.trim().parse::<f64>().map_err(|_| rendered))
            }
            CheckTest::Expression { expr, equals } => {
                let failed = |error| ExtractError::CheckError { check: expr.to_string(), error };
                let actual = evaluate(expr, params, metrics).map_err(failed)?;
                (actual, Ok(evaluate(equals, params, metrics).map_err(failed)?))
            }
        };
        let holds = expected.as_ref().is_ok_and(|&expected| match check.within {
            Some(share) => (actual - expected).abs() <= share * expected.abs(),
            None => actual == expected,
        });
        if !holds {
            let expected = expected.map_or_else(|text| text, |value| value.to_string());
            let tolerance = check.within.map_or_else(String::new, |share| format!(" within {}", percent(share)));
            return Err(ExtractError::CheckFailed {
                metric: check.name().to_string(),
                actual,
                expected: expected + &tolerance,
            });
        }
    }
    Ok(())
}

/// `1%`, `0.5%`: a tolerance as written, without float noise (0.07 · 100 = 7.000000000000001).
fn percent(share: f64) -> String {
    let text = format!("{:.4}", share * 100.0);
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

fn read(path: &Path) -> Result<String, ExtractError> {
    std::fs::read(path)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .map_err(|error| ExtractError::UnreadableLog { log: path.to_path_buf(), error: error.to_string() })
}

// The common engine convention: one line of space-separated `key=value` tokens after a prefix.

/// The last line whose first token is `prefix` (any line with a `=` when the prefix is empty) and
/// that carries every key in `keys`; failing that, the last line with the prefix, so the caller can
/// say which key is missing.
///
/// The last line wins because engines print progress lines before the final result. Requiring the
/// keys matters for engines whose result line has no prefix of its own (the Ascend engine's starts
/// with `wall=`): a later `qwen_phase ... seconds=...` line also has `=` but is not the result.
pub fn find_result_line<'a>(log: &'a str, prefix: &str, keys: &[String]) -> Option<&'a str> {
    let candidates = || {
        log.lines().rev().map(|line| line.trim_end_matches('\r').trim()).filter(move |line| {
            if prefix.is_empty() {
                line.contains('=')
            } else {
                line.split_whitespace().next() == Some(prefix)
            }
        })
    };
    let has_every_key = |line: &&str| {
        keys.iter().all(|key| line.split_whitespace().any(|token| token.split_once('=').is_some_and(|(k, _)| k == key)))
    };
    candidates().find(has_every_key).or_else(|| candidates().next())
}

/// Splits a result line into `(key, value)` pairs; a repeated key must repeat its value.
pub fn parse_pairs(line: &str) -> Result<Vec<(&str, &str)>, ExtractError> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (key, value) in line.split_whitespace().filter_map(|token| token.split_once('=')) {
        match pairs.iter().find(|(k, _)| *k == key) {
            Some((_, first)) if *first != value => {
                return Err(ExtractError::RepeatedKey { key: key.into(), first: (*first).into(), second: value.into() })
            }
            Some(_) => {}
            None => pairs.push((key, value)),
        }
    }
    Ok(pairs)
}

/// Looks up `key` exactly (never as a suffix of a longer key) and parses it as a finite number.
pub fn number(pairs: &[(&str, &str)], key: &str) -> Result<f64, ExtractError> {
    let (_, text) = pairs.iter().find(|(k, _)| *k == key).ok_or_else(|| ExtractError::MissingKey {
        key: key.to_string(),
        present: pairs.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", "),
    })?;
    finite(key, text)
}

/// Parses a metric value, refusing `inf` and `nan`: a run that reports them did not measure.
pub fn finite(metric: &str, text: &str) -> Result<f64, ExtractError> {
    text.parse::<f64>()
        .ok()
        .filter(|value| value.is_finite())
        .ok_or_else(|| ExtractError::NotANumber { metric: metric.to_string(), value: text.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::{Pattern, RegexMetricDecl};
    use crate::template::Template;
    use serde_json::json;

    fn expression(text: &str) -> Expression {
        Expression::parse(text).unwrap()
    }

    fn pattern(text: &str) -> Pattern {
        Pattern::parse(text).unwrap()
    }

    fn metric_check(within: Option<f64>) -> [Check; 1] {
        let equals = Template::parse("{{rows}}").unwrap();
        [Check { test: CheckTest::Metric { metric: "rows".into(), equals }, within }]
    }

    fn expression_check(expr: &str, equals: &str, within: Option<f64>) -> [Check; 1] {
        [Check { test: CheckTest::Expression { expr: expression(expr), equals: expression(equals) }, within }]
    }

    fn logs_with(text: &str) -> (tempfile::TempDir, RunLogs) {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("output.log");
        std::fs::write(&log, text).unwrap();
        (dir, RunLogs { result_log: log.clone(), rank_logs: vec![], service_logs: BTreeMap::new() })
    }

    fn result_line() -> ResultLine {
        ResultLine { prefix: "tpe_result".into(), rank: 0, keys: Vec::new() }
    }

    fn output(result: &ResultLine) -> EngineOutput<'_> {
        EngineOutput { result, profile_prefix: Some("tpe_phase") }
    }

    #[test]
    fn result_regex_and_derived_metrics_are_extracted() {
        let (_dir, logs) = logs_with("tpe_phase phase=STACK seconds=0.48\ntpe_result rows=512 prefill_seconds=0.5\n");
        let decl = MetricsDecl {
            result: vec!["rows".into(), "prefill_seconds".into()],
            regex: [(
                "stack".to_string(),
                RegexMetricDecl { pattern: pattern(r"phase=STACK seconds=(\S+)"), rank: None, process: None },
            )]
            .into(),
            derived: [
                ("ms_per_row".to_string(), expression("1000 * prefill_seconds / rows")),
                ("twice".to_string(), expression("2 * ms_per_row")),
            ]
            .into(),
            ..Default::default()
        };
        let params = json!({"rows": 512}).as_object().unwrap().clone();
        let metrics = extract_metrics(&decl, output(&result_line()), &logs, &params).unwrap();
        assert_eq!(metrics["stack"], 0.48);
        assert!((metrics["ms_per_row"] - 1000.0 * 0.5 / 512.0).abs() < 1e-12);
        assert!((metrics["twice"] - 2.0 * metrics["ms_per_row"]).abs() < 1e-12);
    }

    #[test]
    fn a_derived_division_by_zero_fails_the_run_instead_of_recording_inf() {
        let (_dir, logs) = logs_with("tpe_result t=0\n");
        let decl = MetricsDecl {
            result: vec!["t".into()],
            derived: [("rate".to_string(), expression("1.0 / t"))].into(),
            ..Default::default()
        };
        let error = extract_metrics(&decl, output(&result_line()), &logs, &Default::default()).unwrap_err();
        assert!(matches!(error, ExtractError::NotANumber { .. } | ExtractError::Derived { .. }), "{error}");
    }

    #[test]
    fn a_missing_result_line_names_the_prefix_and_log() {
        let (_dir, logs) = logs_with("segfault\n");
        let decl = MetricsDecl { result: vec!["t".into()], ..Default::default() };
        let error = extract_metrics(&decl, output(&result_line()), &logs, &Default::default()).unwrap_err();
        assert!(error.to_string().starts_with("no result line starting with `tpe_result` in "), "{error}");
    }

    #[test]
    fn a_check_mismatch_names_both_numbers() {
        let checks = metric_check(None);
        let metrics: BTreeMap<String, f64> = [("rows".to_string(), 511.0)].into();
        let error = apply_checks(&checks, &metrics, &json!({"rows": 512})).unwrap_err();
        assert_eq!(error.to_string(), "check failed: `rows` is 511 but should be 512");
        assert!(apply_checks(&checks, &metrics, &json!({"rows": 511})).is_ok());
    }

    fn prompt_check(within: Option<f64>) -> [Check; 1] {
        expression_check("prefill_tokens_per_s * prefill_seconds", "rows", within)
    }

    fn prefill(tokens_per_s: f64, seconds: f64) -> BTreeMap<String, f64> {
        [("prefill_tokens_per_s".to_string(), tokens_per_s), ("prefill_seconds".to_string(), seconds)].into()
    }

    #[test]
    fn an_expression_equals_a_param_within_a_relative_tolerance() {
        let context = json!({"rows": 4096, "run_dir": "/tmp/x"});
        // 8000 · 0.5100 = 4080: 16 tokens off, 0.39% of 4096 (inside 1%, not exact).
        assert!(apply_checks(&prompt_check(Some(0.01)), &prefill(8000.0, 0.51), &context).is_ok());
        assert!(apply_checks(&prompt_check(None), &prefill(8000.0, 0.51), &context).is_err());
        // 8000 · 0.506 = 4048: 48 off, 1.17% > 1%.
        assert!(apply_checks(&prompt_check(Some(0.01)), &prefill(8000.0, 0.506), &context).is_err());
    }

    /// The study's id-file command made 520 ids for a 4096-token prompt; the engine prints no token count.
    #[test]
    fn a_prompt_of_the_wrong_length_fails_the_check_naming_both_numbers() {
        let error = apply_checks(&prompt_check(Some(0.01)), &prefill(1040.0, 0.5), &json!({"rows": 4096})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "check failed: `prefill_tokens_per_s * prefill_seconds` is 520 but should be 4096 within 1%"
        );
    }

    #[test]
    fn a_metric_check_takes_a_tolerance_too() {
        let checks = metric_check(Some(0.01));
        let metrics: BTreeMap<String, f64> = [("rows".to_string(), 509.0)].into();
        assert!(apply_checks(&checks, &metrics, &json!({"rows": 512})).is_ok());
        let metrics: BTreeMap<String, f64> = [("rows".to_string(), 500.0)].into();
        assert!(apply_checks(&checks, &metrics, &json!({"rows": 512})).is_err());
        assert_eq!((percent(0.07), percent(0.005)), ("7%".to_string(), "0.5%".to_string()));
    }

    #[test]
    fn an_expression_that_cannot_be_evaluated_fails_the_run_naming_it() {
        let checks = expression_check("missing * 2", "rows", None);
        let error = apply_checks(&checks, &BTreeMap::new(), &json!({"rows": 1})).unwrap_err();
        assert!(error.to_string().starts_with("check `missing * 2`: "), "{error}");
    }

    #[test]
    fn a_metric_with_a_process_reads_that_service_log_and_the_rest_the_client() {
        let (dir, mut logs) = logs_with("load_client output_tps=900\n");
        let server_log = dir.path().join("service-server.log");
        std::fs::write(&server_log, "load_client output_tps=1\nbatch_size=64\n").unwrap();
        logs.service_logs.insert("server".into(), server_log);
        let regex = |process: Option<&str>| RegexMetricDecl {
            pattern: pattern(r"batch_size=(\d+)"),
            rank: None,
            process: process.map(str::to_string),
        };
        let decl = MetricsDecl {
            result: vec!["output_tps".into()],
            regex: [("batch".to_string(), regex(Some("server")))].into(),
            ..Default::default()
        };
        let result = ResultLine { prefix: "load_client".into(), rank: 0, keys: Vec::new() };
        let metrics = extract_metrics(&decl, output(&result), &logs, &Default::default()).unwrap();
        assert_eq!((metrics["output_tps"], metrics["batch"]), (900.0, 64.0));
        let from_client = MetricsDecl { regex: [("batch".to_string(), regex(None))].into(), ..Default::default() };
        let error = extract_metrics(&from_client, output(&result), &logs, &Default::default()).unwrap_err();
        assert!(matches!(error, ExtractError::NoMatch { .. }), "{error}");
    }

    const LOG: &str = "starting\r\ntpe_result rows=512 prefill_seconds=0.5\r\nnoise\r\ntpe_result rows=512 prefill_seconds=0.25 seconds=9\r\n";

    #[test]
    fn the_last_result_line_wins_and_crlf_is_stripped() {
        assert_eq!(
            find_result_line(LOG, "tpe_result", &[]),
            Some("tpe_result rows=512 prefill_seconds=0.25 seconds=9")
        );
    }

    #[test]
    fn without_a_prefix_the_result_is_the_last_line_holding_the_keys_not_a_later_phase_line() {
        let log = "wall=3.95 prefill_seconds=3.9484 decode_seconds=1.2\nqwen_phase tag=decode rank=0 phase=TOTAL seconds=0.06\n";
        let keys = ["prefill_seconds".to_string()];
        assert_eq!(find_result_line(log, "", &keys), Some("wall=3.95 prefill_seconds=3.9484 decode_seconds=1.2"));
    }

    #[test]
    fn a_key_that_is_a_suffix_of_another_is_matched_exactly() {
        let pairs = parse_pairs(find_result_line(LOG, "tpe_result", &[]).unwrap()).unwrap();
        assert_eq!(number(&pairs, "seconds").unwrap(), 9.0);
        assert_eq!(number(&pairs, "prefill_seconds").unwrap(), 0.25);
    }

    #[test]
    fn a_missing_key_lists_what_is_there() {
        let pairs = parse_pairs("tpe_result a=1 b=2").unwrap();
        assert_eq!(number(&pairs, "c").unwrap_err().to_string(), "the result line has no `c=` (it has: a, b)");
    }

    #[test]
    fn non_numbers_inf_and_nan_are_refused() {
        for text in ["abc", "inf", "-inf", "nan", "NaN", ""] {
            assert!(matches!(finite("x", text), Err(ExtractError::NotANumber { .. })), "{text}");
        }
        assert_eq!(finite("x", "1e-3").unwrap(), 0.001);
    }

    #[test]
    fn a_repeated_key_with_different_values_is_an_error() {
        assert!(matches!(parse_pairs("r a=1 a=2"), Err(ExtractError::RepeatedKey { .. })));
        assert_eq!(parse_pairs("r a=1 a=1").unwrap(), vec![("a", "1")]);
    }

    #[test]
    fn the_prefix_must_be_the_first_token() {
        assert_eq!(find_result_line("xtpe_result a=1\nsaid tpe_result b=2\n", "tpe_result", &[]), None);
    }
}
