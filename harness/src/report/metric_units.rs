//! The units of a sweep's metrics: those its declaration states (`[metrics] units`, recorded in the
//! sidecar), seconds for phase-profile metrics, else what each name implies (`infer_unit`).

use std::collections::BTreeMap;

use crate::declare::MetricsDecl;
use crate::record::Sidecar;

/// Metric -> declared unit; every other metric's unit is inferred from its name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetricUnits {
    declared: BTreeMap<String, String>,
}

impl MetricUnits {
    /// The units a sweep recorded: `[metrics] units`, and `s` for each `[metrics.profile] phases` metric.
    pub fn recorded(sidecar: &Sidecar) -> MetricUnits {
        let metrics = sidecar.sweep.rest.get("metrics");
        let phases = metrics.and_then(|m| m.get("profile")?.get("phases")?.as_object().cloned()).unwrap_or_default();
        let units = metrics.and_then(|m| m.get("units")?.as_object().cloned()).unwrap_or_default();
        let units = units.into_iter().filter_map(|(metric, unit)| Some((metric, unit.as_str()?.to_string())));
        MetricUnits::of_phases_and(phases.keys(), units)
    }

    /// The units a declaration states, as `recorded` reads them back from its sidecar.
    pub fn declared(metrics: &MetricsDecl) -> MetricUnits {
        let phases = metrics.profile.iter().flat_map(|profile| profile.phases.keys());
        MetricUnits::of_phases_and(phases, metrics.units.clone())
    }

    /// Seconds for each phase-profile metric, then the declared units (which win).
    fn of_phases_and<'a>(
        phases: impl IntoIterator<Item = &'a String>,
        units: impl IntoIterator<Item = (String, String)>,
    ) -> MetricUnits {
        let mut declared: BTreeMap<String, String> =
            phases.into_iter().map(|phase| (phase.clone(), "s".into())).collect();
        declared.extend(units);
        MetricUnits { declared }
    }

    /// The unit of `metric`'s values, if declared or implied by its name.
    pub fn of(&self, metric: &str) -> Option<String> {
        self.declared.get(metric).cloned().or_else(|| infer_unit(metric))
    }

    /// `header (unit)`, or the header alone when `metric` has no known unit.
    pub fn header(&self, header: &str, metric: &str) -> String {
        self.of(metric).map_or_else(|| header.to_string(), |unit| format!("{header} ({unit})"))
    }

    /// `text unit` (`876 ± 28 tok/s`), or `text` alone when the unit is unknown (in a formula or beside
    /// other numbers of the same metric).
    pub fn in_unit(&self, text: &str, metric: &str) -> String {
        match self.of(metric) {
            Some(unit) if unit == "%" => format!("{text}%"),
            Some(unit) => format!("{text} {unit}"),
            None => text.to_string(),
        }
    }

    /// `text unit` (`876 ± 28 tok/s`), or `text metric` when the unit is unknown, so a bare number never
    /// stands alone in a sentence.
    pub fn quantity(&self, text: &str, metric: &str) -> String {
        match self.of(metric) {
            Some(_) => self.in_unit(text, metric),
            None => format!("{text} {metric}"),
        }
    }
}

/// The unit a metric's name implies, as printed after every number of it: a symbol (`tok/s`, `s`, `ms`,
/// `µs`, `ns`, `B`, `GB/s`, `%`) read from the name's first or last word (`_s`, `_ms`, `_per_s`, `_bytes`,
/// `us_per_call`, ...); None when it implies none (`wall`, `gated_delta`), so a unit is never guessed beyond
/// what the name says.
fn infer_unit(metric: &str) -> Option<String> {
    let name = metric.to_lowercase();
    let words: Vec<&str> = name.split('_').filter(|word| !word.is_empty()).collect();
    let (first, last) = (*words.first()?, *words.last()?);
    let before_last = words.len().checked_sub(2).map(|index| words[index]);
    let per_s = before_last == Some("per") && matches!(last, "s" | "sec" | "second");
    let rate = per_s.then(|| per_second(&words[..words.len() - 2]));
    // `us_per_call`, `ms_per_row`: a time unit first, then what it is per.
    let leading = || (words.get(1) == Some(&"per")).then(|| time_unit(first)).flatten();
    rate.or_else(|| last_word_unit(last).or_else(leading).map(String::from))
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

#[cfg(test)]
/// Units given outright, for the tests.
impl MetricUnits {
    pub fn new(declared: BTreeMap<String, String>) -> MetricUnits {
        MetricUnits { declared }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_unit_wins_over_the_name() {
        let units = MetricUnits::new(BTreeMap::from([("wall".to_string(), "s".to_string())]));
        assert_eq!(units.quantity("3.93", "wall"), "3.93 s");
        assert_eq!(units.quantity("876", "prefill_tokens_per_s"), "876 tok/s");
        assert_eq!(units.quantity("0.84", "gated_delta"), "0.84 gated_delta");
        assert_eq!(units.in_unit("0.84", "gated_delta"), "0.84");
        assert_eq!(units.in_unit("12", "cpu_wait_pct"), "12%");
        assert_eq!(units.header("mean", "latency_ns"), "mean (ns)");
        assert_eq!(units.header("mean", "value"), "mean");
    }

    /// The main job's summary printed `wall` without a unit: every reference-engine sweep that records it
    /// declares its seconds.
    #[test]
    fn wall_has_its_unit_in_every_shipped_sweep_that_records_it() {
        let sweeps = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sweeps");
        let mut recording = 0;
        for entry in std::fs::read_dir(&sweeps).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|extension| extension != "toml") {
                continue;
            }
            let sweep = crate::declare::load_sweep(&path).unwrap();
            if sweep.metric_names().iter().any(|metric| metric == "wall") {
                recording += 1;
                let units = MetricUnits::declared(&sweep.metrics);
                assert_eq!(units.header("wall", "wall"), "wall (s)", "{}", path.display());
            }
        }
        assert!(recording >= 3, "slices, slices-real and gated_delta record wall");
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
            assert_eq!(infer_unit(name).as_deref(), Some(unit), "{name}");
        }
    }

    #[test]
    fn no_unit_is_guessed() {
        for name in ["wall", "gated_delta", "overlap_slices", "value", "bus", "status"] {
            assert_eq!(infer_unit(name), None, "{name}");
        }
    }
}
