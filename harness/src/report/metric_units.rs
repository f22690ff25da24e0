//! The units of a sweep's metrics: those its declaration states (`[metrics] units`, recorded in the
//! sidecar), seconds for phase-profile metrics, else what each name implies (`Unit::infer`).

use std::collections::BTreeMap;

use super::unit::Unit;
use crate::record::Sidecar;

/// Metric -> declared unit; every other metric's unit is inferred from its name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetricUnits {
    declared: BTreeMap<String, String>,
}

impl MetricUnits {
    pub fn new(declared: BTreeMap<String, String>) -> MetricUnits {
        MetricUnits { declared }
    }

    /// The units a sweep recorded: `[metrics] units`, and `s` for each `[metrics.profile] phases` metric.
    pub fn recorded(sidecar: &Sidecar) -> MetricUnits {
        let metrics = sidecar.sweep.rest.get("metrics");
        let phases = metrics.and_then(|m| m.get("profile")?.get("phases")?.as_object().cloned()).unwrap_or_default();
        let mut declared: BTreeMap<String, String> = phases.keys().map(|phase| (phase.clone(), "s".into())).collect();
        let units = metrics.and_then(|m| m.get("units")?.as_object().cloned()).unwrap_or_default();
        declared.extend(units.into_iter().filter_map(|(metric, unit)| Some((metric, unit.as_str()?.to_string()))));
        MetricUnits { declared }
    }

    /// The unit of `metric`'s values, if declared or implied by its name.
    pub fn of(&self, metric: &str) -> Option<Unit> {
        self.declared.get(metric).map(Unit::declared).or_else(|| Unit::infer(metric))
    }

    /// `header (unit)`, or the header alone when `metric` has no known unit.
    pub fn header(&self, header: &str, metric: &str) -> String {
        self.of(metric).map_or_else(|| header.to_string(), |unit| format!("{header} ({unit})"))
    }

    /// `text unit` (`876 ± 28 tok/s`), or `text` alone when the unit is unknown (in a formula or beside
    /// other numbers of the same metric).
    pub fn in_unit(&self, text: &str, metric: &str) -> String {
        match self.of(metric) {
            Some(unit) if unit.symbol() == "%" => format!("{text}%"),
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
}
