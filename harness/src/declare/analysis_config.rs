//! What a sweep's analysis is asked: the primary metric, which way is better, how settings group.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::param_value::ParamValue;
use super::quantity_decl::{Quantity, QuantityDecl};
use crate::expression::Expression;

/// Which way a metric improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Throughput-like: larger is better.
    #[default]
    Higher,
    /// Time-like: smaller is better.
    Lower,
}

impl AnalysisConfig {
    /// The declared quantities compiled in order (each may name those before it); the error is the
    /// index of the first that does not compile and why. Loading a declaration checks them with this.
    pub fn compiled_quantities(&self) -> Result<Vec<Quantity>, (usize, String)> {
        let mut compiled: Vec<Quantity> = Vec::with_capacity(self.quantities.len());
        for (index, decl) in self.quantities.iter().enumerate() {
            compiled.push(Quantity::compile(decl, &compiled).map_err(|message| (index, message))?);
        }
        Ok(compiled)
    }

    /// This configuration as a race with `race`'s looks analyses it.
    pub fn racing(&self, race: Option<Race>) -> AnalysisConfig {
        AnalysisConfig { race, ..self.clone() }
    }
}

impl Direction {
    /// Whether `candidate` is better than `incumbent` in this direction (ties are not better).
    pub fn is_better(self, candidate: f64, incumbent: f64) -> bool {
        match self {
            Direction::Higher => candidate > incumbent,
            Direction::Lower => candidate < incumbent,
        }
    }
}

/// The questions `analyse_sweep` answers about one recorded sweep; the `[analysis]` table of a sweep.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisConfig {
    /// The metric settings are ranked by (e.g. `prefill_tokens_per_s`).
    pub primary: String,
    #[serde(default)]
    pub direction: Direction,
    /// Setting columns whose values form the groups a best setting is picked in (e.g. `rows`).
    #[serde(default)]
    pub group_by: Vec<String>,
    /// A metric no setting should move (e.g. `decode_tokens_per_s`): a per-run probe of machine speed,
    /// used as a covariate that removes drift from the primary metric.
    pub control: Option<String>,
    /// A metric giving the share of the CPU time the engine's ranks asked for that they got (1 on an idle
    /// machine; e.g. the reference engine's `prefill_cpu_share`): the summary opens by naming a shortfall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_share: Option<String>,
    /// A setting column or metric naming the code path a setting resolves to (e.g. the metric
    /// `overlap_slices`); settings of one group that resolve to the same value must agree.
    #[serde(default, rename = "equivalence")]
    pub equivalence_key: Option<Expression>,
    /// Fit `y = fixed + per_unit · x` over the settings (e.g. all-reduce time per call against bytes).
    pub fit: Option<FitConfig>,
    /// Derive the rows-per-slice rule implied by the best setting of each group.
    pub rows_per_slice: Option<RowsPerSliceConfig>,
    /// Family-wise error rate of the verdicts (Holm-corrected over every comparison made).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// A relative difference too small to matter (e.g. 0.01 for 1%): a rival shown to be within it of
    /// the best is a practical tie, and a race stops running it.
    pub negligible: Option<f64>,
    /// Param -> value of the baseline (e.g. `tbo = "off"`): each setting's partner is the setting that
    /// differs from it only in these params, set to these values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub baseline: BTreeMap<String, ParamValue>,
    /// Metric -> how it is compared with the baseline partner (`ratio` or `difference`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub relative: BTreeMap<String, RelativeKind>,
    /// How ablation deltas compose: `linear` (the study adds millisecond deltas; the default) or `log`
    /// (speedups multiply: the interaction is a ratio of ratios).
    #[serde(default)]
    pub additivity_scale: AdditivityScale,
    /// How `compare` translates the control's change between two sweeps into the primary's:
    /// `estimated` (the default: the slope learnt from the control's variation inside the sweeps) or
    /// `proportional` (declared: the metric scales with the control, slope 1 on the log scale).
    #[serde(default, skip_serializing_if = "ControlScaling::is_estimated")]
    pub control_scaling: ControlScaling,
    /// Named numbers derived from the estimates (`[[analysis.quantity]]`), each reported with its 95%
    /// interval: `fixed_ms = "(prefill_seconds[slices=4] - prefill_seconds[slices=1]) / 384 * 1000"`.
    #[serde(default, rename = "quantity", skip_serializing_if = "Vec::is_empty")]
    pub quantities: Vec<QuantityDecl>,
    /// Check the engine's own rule (`slices = "rule"`, the variable left unset) against the best
    /// forced setting of each group: they must be equivalent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_rule: Option<VerifyRule>,
    /// Findings beyond the default ones, by name (`findings = ["setting_cv"]`): each reports only when
    /// named here; the names are the report's registry's (`report::check_findings`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
    /// Not declared: the race whose looks `alpha` is spent over (None for a plain sweep).
    #[serde(skip)]
    pub race: Option<Race>,
    /// Not declared: this analysis only decides which settings a race keeps running. Stopping a
    /// practical tie costs no claim (the final verdict tests it again at its look's level), so its
    /// equivalence test spends the whole `alpha`; beating a setting is a claim and does not.
    #[serde(skip)]
    pub stopping: bool,
}

/// The scale on which ablation deltas are expected to add up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AdditivityScale {
    /// Deltas in the metric's unit add: all − Σ singles + (k − 1) · baseline = 0.
    #[default]
    Linear,
    /// Ratios to the baseline multiply: the interaction is computed on log values.
    Log,
}

/// How the primary metric follows the control between two separate sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ControlScaling {
    /// The slope is estimated from the control's variation inside the sweeps; without such variation a
    /// machine change cannot be told from a change of the thing compared.
    #[default]
    Estimated,
    /// Assumed: the metric scales with the control (slope 1 on the log scale): B/A of metric / control.
    Proportional,
}

impl ControlScaling {
    fn is_estimated(&self) -> bool {
        *self == ControlScaling::Estimated
    }
}

impl std::fmt::Display for ControlScaling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::toml_spelling(self))
    }
}

/// The conventional 5% family-wise error rate.
pub const DEFAULT_ALPHA: f64 = 0.05;

fn default_alpha() -> f64 {
    DEFAULT_ALPHA
}

/// The two columns of a cost fit; each a setting column or a metric (its per-setting mean).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FitConfig {
    pub x: String,
    pub y: String,
    /// Params whose values split the settings into groups, one line each (e.g. `["topology"]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by: Vec<String>,
}

/// `verify_rule = { param = "slices", rule = "rule" }`: the param's value that leaves the choice to the
/// engine's rule; every other value forces one.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyRule {
    pub param: String,
    pub rule: String,
}

/// Which columns hold the row count and the slice count (e.g. the effective `overlap_slices`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RowsPerSliceConfig {
    pub rows: String,
    pub slices: String,
}

impl std::fmt::Display for Direction {
    /// `higher` / `lower`, as written in a spec and read in "higher is better".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::toml_spelling(self))
    }
}

/// The form a baseline-relative effect is reported in (`[analysis] relative = { m = "ratio" }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RelativeKind {
    /// setting / baseline (e.g. a throughput impact of 1.12, "12% faster").
    Ratio,
    /// setting − baseline on the metric's own scale (e.g. milliseconds saved per round).
    Difference,
}

impl std::fmt::Display for RelativeKind {
    /// As written in a spec: `ratio` / `difference`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::toml_spelling(self))
    }
}

/// The rounds a race may take: every setting runs `min`, none more than `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub struct Race {
    pub min: u32,
    pub max: u32,
}

impl Race {
    /// The analyses a race makes, one after each round from `min` to `max` (the last is the final
    /// verdict): its error rate is split over them (Bonferroni), so looking after every round cannot
    /// turn a tie into a winner more often than alpha.
    pub fn looks(&self) -> u32 {
        self.max.saturating_sub(self.min) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_reads_lowercase() {
        let config: AnalysisConfig =
            serde_json::from_str(r#"{"primary": "wall", "direction": "lower", "group_by": ["rows"]}"#).unwrap();
        assert_eq!(config.direction, Direction::Lower);
        assert_eq!(config.control, None);
        assert!(serde_json::from_str::<Direction>(r#""Higher""#).is_err());
    }

    #[test]
    fn better_depends_on_direction() {
        assert!(Direction::Higher.is_better(2.0, 1.0));
        assert!(Direction::Lower.is_better(1.0, 2.0));
        assert!(!Direction::Lower.is_better(1.0, 1.0));
    }

    #[test]
    fn direction_displays_as_it_is_written() {
        assert_eq!(format!("{} / {}", Direction::Higher, Direction::Lower), "higher / lower");
    }

    #[test]
    fn kinds_read_and_print_lowercase() {
        let kind: RelativeKind = serde_json::from_str(r#""difference""#).unwrap();
        assert_eq!((kind, kind.to_string()), (RelativeKind::Difference, "difference".to_string()));
        assert!(serde_json::from_str::<RelativeKind>(r#""percent""#).is_err());
    }

    #[test]
    fn a_race_looks_once_per_round_from_min_to_max() {
        assert_eq!(Race { min: 3, max: 5 }.looks(), 3);
        assert_eq!(Race { min: 3, max: 3 }.looks(), 1);
    }
}
