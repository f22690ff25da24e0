//! The whole analysis of one recorded sweep: per-setting statistics, winners, drift, equivalence, failures.

use super::baseline_effect::BaselineEffect;
use super::cost_model::{fit_fixed_plus_per_unit, rows_per_slice_rule, CostFit};
use super::cpu_share::CpuShare;
use super::drift_bound::DriftBound;
use super::equivalence::EquivalenceCheck;
use super::failure_summary::FailureSummary;
use super::group_fit::GroupFit;
use super::group_verdict::GroupOutcome;
use super::quantity_estimate::QuantityEstimate;
use super::rule_check::RuleCheck;
use super::setting_summary::SettingSummary;
use super::verdicts::Verdicts;
use crate::declare::{AnalysisConfig, Param};
use crate::record::RecordedRun;

/// Everything `analyse_sweep` concludes about one sweep; plain data the report renders.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepAnalysis {
    /// Distinct setting vectors in first-seen order; other parts refer to them by index.
    pub settings: Vec<SettingSummary>,
    /// The best setting of each group of `config.group_by` values (first-seen order) and its verdict.
    pub verdicts: Verdicts,
    /// The control metric's within-setting spread, when `config.control` is set and some setting has
    /// two usable runs reporting it.
    pub drift: Option<DriftBound>,
    /// The share of the CPU the ranks asked for that they got, when `config.cpu_share` is set and a usable
    /// run reported it.
    pub cpu_share: Option<CpuShare>,
    /// Present when `config.equivalence_key` is set.
    pub equivalence: Option<EquivalenceCheck>,
    pub failures: FailureSummary,
    /// Present when `config.fit` is set without `by` and two settings have distinct x.
    pub fit: Option<CostFit>,
    /// With `config.fit.by`: one fit per group of `by` values (groups with two distinct x).
    pub group_fits: Vec<GroupFit>,
    /// Present when `config.rows_per_slice` is set.
    pub rows_per_slice: Option<ImpliedRule>,
    /// Each setting against its baseline partner, per `config.relative` metric (empty without a baseline).
    pub relative: Vec<BaselineEffect>,
    /// The declared quantities (`[[analysis.quantity]]`) with their intervals.
    pub quantities: Vec<QuantityEstimate>,
    /// With `verify_rule`: the engine's rule against the forced optimum per group.
    pub rule: Option<RuleCheck>,
}

/// The rows-per-slice rule the best settings imply (`config.rows_per_slice`), from resolved groups only: a
/// tied or untold group's best is one of several the data cannot tell apart, and would imply a rule the
/// data do not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImpliedRule {
    /// The smallest rows per slice among the resolved groups' bests that split (`rows_per_slice_rule`);
    /// None when none does.
    pub rows_per_slice: Option<f64>,
    /// The groups resolved, of `groups`.
    pub resolved: usize,
    pub groups: usize,
}

/// Analyse a sweep: descriptive statistics and Student's t 95% intervals per setting, the verdict of
/// each group (`Verdicts::decide`: paired within rounds when `rounds_are_blocks`, i.e. the order was
/// interleaved), the control metric's within-setting drift, equivalence of settings resolving to one
/// code path, and failed runs with reasons. Only usable runs (ok, not warmup) enter statistics; every
/// run counts towards failures. Settings are in `declared` grid order (first-seen without one). The runs
/// are any recorded runs: owned `Observation`s or the rows of a compact `RunTable`.
pub fn analyse_sweep<R: RecordedRun>(
    observations: &[R],
    config: &AnalysisConfig,
    rounds_are_blocks: bool,
    declared: &[Param],
) -> SweepAnalysis {
    analyse_summarised(observations, SettingSummary::summarise(observations), config, rounds_are_blocks, declared)
}

/// The metrics the analysis reads run by run once the settings are summarised (`analyse_summarised`):
/// the primary, the control, the relative ones and those the equivalence key names.
pub fn metrics_read_per_run(config: &AnalysisConfig) -> Vec<&str> {
    let key = config.equivalence_key.iter().flat_map(|key| key.names());
    let relative = config.relative.keys().chain(key).map(String::as_str);
    let machine = config.control.as_deref().into_iter().chain(config.cpu_share.as_deref());
    [config.primary.as_str()].into_iter().chain(machine).chain(relative).collect()
}

/// `analyse_sweep` with the settings already summarised (`SettingSummary::summarise`), so the runs
/// need hold only the metrics `metrics_read_per_run` names: a large table's other columns can be freed.
pub fn analyse_summarised<R: RecordedRun>(
    observations: &[R],
    mut settings: Vec<SettingSummary>,
    config: &AnalysisConfig,
    rounds_are_blocks: bool,
    declared: &[Param],
) -> SweepAnalysis {
    SettingSummary::sort_by_declaration(&mut settings, declared);
    // The model takes one core; the equivalence key, evaluated run by run, the drift bound, the CPU share
    // and the failures the other.
    let (verdicts, (key_values, drift, cpu_share, failures)) = rayon::join(
        || Verdicts::decide(observations, &settings, config, rounds_are_blocks),
        || {
            let key = config.equivalence_key.as_ref();
            let key_values = key.map(|key| EquivalenceCheck::key_values(observations, &settings, key));
            let drift = config.control.as_deref().and_then(|control| DriftBound::of(observations, control));
            let cpu_share = config.cpu_share.as_deref().and_then(|metric| CpuShare::of(observations, metric));
            (
                key_values,
                drift,
                cpu_share,
                FailureSummary::of(observations).with_unmeasured(observations, &config.primary),
            )
        },
    );
    let equivalence =
        config.equivalence_key.as_ref().zip(key_values).map(|(key, values)| {
            EquivalenceCheck::of(&values, &settings, config, key, drift.as_ref(), &verdicts.model)
        });
    let pooled = config.fit.as_ref().filter(|fit| fit.by.is_empty());
    let group_fits = config.fit.as_ref().filter(|fit| !fit.by.is_empty());
    let group_fits = group_fits.map_or_else(Vec::new, |fit| GroupFit::per_group(&settings, fit));
    let fit = pooled.and_then(|fit| fit_fixed_plus_per_unit(&SettingSummary::points(&settings, &fit.x, &fit.y)));
    let rows_per_slice = config.rows_per_slice.as_ref().map(|rule| {
        let resolved: Vec<&SettingSummary> = verdicts
            .groups
            .iter()
            .filter(|group| group.outcome == GroupOutcome::Resolved)
            .map(|group| &settings[group.best])
            .collect();
        let pairs: Vec<(f64, f64)> =
            resolved.iter().filter_map(|s| Some((s.value_of(&rule.rows)?, s.value_of(&rule.slices)?))).collect();
        ImpliedRule {
            rows_per_slice: rows_per_slice_rule(&pairs),
            resolved: resolved.len(),
            groups: verdicts.groups.len(),
        }
    });
    let relative = BaselineEffect::all(observations, &settings, config, rounds_are_blocks);
    // Checked when the declaration was read: a formula that does not compile is not in a recorded sweep.
    let formulas = config.compiled_quantities().unwrap_or_default();
    let quantities = QuantityEstimate::all(&formulas, &settings, fit.as_ref(), &group_fits);
    let rule =
        config.verify_rule.as_ref().map(|verify| RuleCheck::of(verify, &settings, &verdicts, config, drift.as_ref()));
    SweepAnalysis {
        settings,
        verdicts,
        drift,
        cpu_share,
        equivalence,
        failures,
        fit,
        group_fits,
        rows_per_slice,
        relative,
        quantities,
        rule,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_slice_config, fixture_slice_sweep};
    use crate::declare::Direction;
    use crate::declare::{FitConfig, RowsPerSliceConfig};
    use crate::record::Observation;

    #[test]
    fn the_parts_are_wired_to_the_config() {
        let config = AnalysisConfig {
            fit: Some(FitConfig { x: "rows".into(), y: "prefill_tokens_per_s".into(), by: vec![] }),
            rows_per_slice: Some(RowsPerSliceConfig { rows: "rows".into(), slices: "overlap_slices".into() }),
            ..fixture_slice_config()
        };
        let analysis = analyse_sweep(&fixture_slice_sweep(), &config, true, &[]);
        assert_eq!(analysis.settings.len(), 7);
        assert_eq!(analysis.fit.as_ref().map(|fit| fit.n), Some(7));
        // Best: 512 rows -> slices=8 resolving to 1 (no split, tied), 1024 -> 2 (512 rows each, tied with 1),
        // 2048 -> 2 (1024, resolved): only the resolved group implies the rule, the study's 1024.
        let implied = ImpliedRule { rows_per_slice: Some(1024.0), resolved: 1, groups: 3 };
        assert_eq!(analysis.rows_per_slice, Some(implied));
        assert_eq!(analysis.verdicts.groups.len(), 3);
        assert_eq!(analysis.drift.as_ref().map(|d| d.n), Some(21));
        assert_eq!(analysis.equivalence.as_ref().map(|e| e.classes.len()), Some(1));
        assert_eq!(analysis.failures.failed, 3);
    }

    #[test]
    fn optional_parts_are_absent_unless_asked() {
        let config =
            AnalysisConfig { group_by: vec![], control: None, equivalence_key: None, ..fixture_slice_config() };
        let analysis = analyse_sweep(&fixture_slice_sweep(), &config, true, &[]);
        assert_eq!(analysis.verdicts.groups.len(), 1, "no grouping: one group of everything");
        assert!(analysis.drift.is_none() && analysis.equivalence.is_none());
    }

    #[test]
    fn no_observations_analyse_to_nothing() {
        let config = AnalysisConfig {
            primary: "x".into(),
            direction: Direction::Lower,
            group_by: vec![],
            control: Some("y".into()),
            equivalence_key: None,
            ..fixture_slice_config()
        };
        let analysis = analyse_sweep::<Observation>(&[], &config, true, &[]);
        assert!(analysis.settings.is_empty() && analysis.verdicts.groups.is_empty() && analysis.drift.is_none());
        assert_eq!(analysis.failures.runs, 0);
    }
}
