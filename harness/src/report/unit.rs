//! The unit a metric's values are in, as printed after every number of it: declared in `[metrics] units`,
//! else read from the name's first or last word (`_s`, `_ms`, `_per_s`, `_bytes`, `us_per_call`, ...).

/// A unit symbol: `tok/s`, `s`, `ms`, `µs`, `ns`, `B`, `GB/s`, `%`, or whatever a declaration says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit(String);

impl Unit {
    /// The unit a declaration states.
    pub fn declared(symbol: impl Into<String>) -> Unit {
        Unit(symbol.into())
    }

    /// The unit a metric's name implies; None when it implies none (`wall`, `gated_delta`), so a unit is
    /// never guessed beyond what the name says.
    pub fn infer(metric: &str) -> Option<Unit> {
        let name = metric.to_lowercase();
        let words: Vec<&str> = name.split('_').filter(|word| !word.is_empty()).collect();
        let (first, last) = (*words.first()?, *words.last()?);
        let before_last = words.len().checked_sub(2).map(|index| words[index]);
        let rate = match (before_last, last) {
            (Some("per"), "s" | "sec" | "second") => Some(per_second(&words[..words.len() - 2])),
            _ => None,
        };
        // `us_per_call`, `ms_per_row`: a time unit first, then what it is per.
        let leading = || (words.get(1) == Some(&"per")).then(|| time_unit(first)).flatten();
        let symbol = rate.or_else(|| last_word_unit(last).or_else(leading).map(String::from))?;
        Some(Unit(symbol))
    }

    pub fn symbol(&self) -> &str {
        &self.0
    }
}

/// `tokens` -> `tok/s`, `requests` -> `requests/s`, nothing -> `/s`.
fn per_second(counted: &[&str]) -> String {
    match counted.last() {
        Some(&"tokens" | &"token" | &"tok") => "tok/s".to_string(),
        Some(thing) => format!("{thing}/s"),
        None => "/s".to_string(),
    }
}

fn last_word_unit(word: &str) -> Option<&'static str> {
    time_unit(word).or(match word {
        "seconds" => Some("s"),
        "tps" => Some("tok/s"),
        "bytes" => Some("B"),
        "gbps" => Some("GB/s"),
        "mbps" => Some("MB/s"),
        "pct" | "percent" => Some("%"),
        _ => None,
    })
}

fn time_unit(word: &str) -> Option<&'static str> {
    match word {
        "s" | "sec" => Some("s"),
        "ms" => Some("ms"),
        "us" => Some("µs"),
        "ns" => Some("ns"),
        _ => None,
    }
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inferred(name: &str) -> Option<String> {
        Unit::infer(name).map(|unit| unit.symbol().to_string())
    }

    #[test]
    fn units_from_the_name() {
        for (name, unit) in [
            ("prefill_tokens_per_s", "tok/s"),
            ("decode_tps", "tok/s"),
            ("requests_per_second", "requests/s"),
            ("prefill_seconds", "s"),
            ("seconds", "s"),
            ("duration_s", "s"),
            ("t_gate_ms", "ms"),
            ("us_per_call", "µs"),
            ("ms_per_row", "ms"),
            ("latency_ns", "ns"),
            ("payload_bytes", "B"),
            ("link_gbps", "GB/s"),
            ("cpu_wait_pct", "%"),
        ] {
            assert_eq!(inferred(name).as_deref(), Some(unit), "{name}");
        }
    }

    #[test]
    fn no_unit_is_guessed() {
        for name in ["wall", "gated_delta", "overlap_slices", "value", "bus", "status"] {
            assert_eq!(inferred(name), None, "{name}");
        }
    }
}
