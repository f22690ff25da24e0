//! The common engine convention: one line of space-separated `key=value` tokens after a prefix.

use super::extract_error::ExtractError;

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
