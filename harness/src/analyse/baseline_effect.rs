//! Baseline-relative effects: each setting against its baseline partner, the setting that differs from
//! it only in the baseline params (`[analysis] baseline = { tbo = "off" }`).

use std::collections::BTreeMap;

use super::adjusted_samples::AdjustedSamples;
use super::effect_interval::EffectInterval;
use super::holm::holm_adjust;
use super::rival_comparison::RivalComparison;
use super::run_sample::RunSample;
use super::scale::Scale;
use super::setting_summary::{Labels, SettingSummary};
use crate::record::RecordedRun;
use crate::spec::{AnalysisConfig, ParamValue, RelativeKind};

/// One setting's effect on one metric, against its baseline partner.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineEffect {
    /// Index into the sweep's settings.
    pub setting: usize,
    /// The partner: `setting` with the baseline params at their baseline values.
    pub baseline: usize,
    pub metric: String,
    pub kind: RelativeKind,
    /// setting − baseline on the comparison scale (log for a ratio of positive values, else linear).
    pub comparison: Option<RivalComparison>,
    /// The ratio setting / baseline, or the difference setting − baseline in the metric's unit, with its
    /// 95% interval; None when no test was possible (e.g. one rep).
    pub interval: Option<EffectInterval>,
    /// Holm-adjusted over every baseline-relative effect of the sweep.
    pub p_adjusted: Option<f64>,
}

impl BaselineEffect {
    /// Every non-baseline setting's effect on every `config.relative` metric (metrics in name order,
    /// settings in the order given). Each comparison is `AdjustedSamples::compare` with the partner as
    /// the reference: within rounds when `rounds_are_blocks` (paired t, or the round model's pooled
    /// variance), else Welch's test; the control metric, when declared, is a covariate (CUPED) whose
    /// comparison groups are the families of settings differing only in baseline params. A ratio is
    /// computed on the log scale when every value is positive (else as a ratio of a linear difference);
    /// a difference always on the linear scale. Holm (1979) adjusts the p-values over all effects.
    pub fn all<R: RecordedRun>(
        observations: &[R],
        settings: &[SettingSummary],
        config: &AnalysisConfig,
        rounds_are_blocks: bool,
    ) -> Vec<BaselineEffect> {
        if config.baseline.is_empty() {
            return Vec::new();
        }
        let partners: Vec<(usize, usize)> = settings
            .iter()
            .enumerate()
            .filter_map(|(index, summary)| Some((index, partner_of(&summary.setting, settings, &config.baseline)?)))
            .collect();
        let families = families(settings, &config.baseline);
        let mut effects: Vec<BaselineEffect> = Vec::new();
        for (metric, kind) in &config.relative {
            let control = config.control.as_deref().filter(|control| control != metric);
            let samples = RunSample::collect(observations, settings, metric, control);
            let scale = match kind {
                RelativeKind::Ratio => Scale::for_values(samples.iter().map(|s| s.value)),
                RelativeKind::Difference => Scale::Linear,
            };
            let adjusted =
                AdjustedSamples::on_scale(scale, samples, settings.len(), &families, control, rounds_are_blocks);
            for &(setting, baseline) in partners.iter().filter(|(s, b)| adjusted.has(*s) && adjusted.has(*b)) {
                let comparison = adjusted.compare(setting, baseline);
                let baseline_mean = settings[baseline].metric(metric).map_or(f64::NAN, |stats| stats.mean);
                let interval = comparison.map(|c| match kind {
                    RelativeKind::Ratio => adjusted.ratio(&c, baseline_mean).into(),
                    RelativeKind::Difference => EffectInterval::difference(&c),
                });
                effects.push(BaselineEffect {
                    setting,
                    baseline,
                    metric: metric.clone(),
                    kind: *kind,
                    comparison,
                    interval,
                    p_adjusted: None,
                });
            }
        }
        let p_values: Vec<f64> = effects.iter().filter_map(|e| e.comparison.map(|c| c.p_value())).collect();
        let mut adjusted = holm_adjust(&p_values).into_iter();
        for effect in effects.iter_mut().filter(|e| e.comparison.is_some()) {
            effect.p_adjusted = adjusted.next();
        }
        effects
    }
}

/// The setting equal to `setting` except that the baseline params take their baseline values; None for
/// a setting that is itself a baseline, or whose partner was not run.
fn partner_of(setting: &Labels, settings: &[SettingSummary], baseline: &BTreeMap<String, ParamValue>) -> Option<usize> {
    let partner: Labels =
        setting.iter().map(|(name, value)| (name.clone(), baseline.get(name).unwrap_or(value).clone())).collect();
    (partner != *setting).then(|| settings.iter().position(|s| s.setting == partner)).flatten()
}

/// Per setting, the index of its family: the settings that differ from it only in baseline params.
fn families(settings: &[SettingSummary], baseline: &BTreeMap<String, ParamValue>) -> Vec<usize> {
    let mut known: Vec<Labels> = Vec::new();
    settings
        .iter()
        .map(|summary| {
            let family: Labels =
                summary.setting.iter().filter(|(name, _)| !baseline.contains_key(name)).cloned().collect();
            known.iter().position(|f| *f == family).unwrap_or_else(|| {
                known.push(family);
                known.len() - 1
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{
        fixture_observation, fixture_tbo_config as tbo_config, fixture_tbo_sweep as tbo_sweep,
    };
    use crate::analyse::ComparisonMethod;

    #[test]
    fn the_partner_differs_only_in_the_baseline_params() {
        let mut observations = tbo_sweep();
        // At concurrency 8 only `on` ran: it has no partner.
        observations.push(fixture_observation(&[("concurrency", "8"), ("tbo", "on")], 1, &[("output_tps", 1.0)]));
        let settings = SettingSummary::summarise(&observations);
        let baseline = tbo_config().baseline;
        let partners: Vec<Option<usize>> =
            settings.iter().map(|s| partner_of(&s.setting, &settings, &baseline)).collect();
        assert_eq!(partners, [None, Some(0), None]);
        assert_eq!(families(&settings, &baseline), [0, 0, 1]);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn ratio_and_difference_against_the_partner_paired_by_round_by_hand() {
        let observations = tbo_sweep();
        let settings = SettingSummary::summarise(&observations);
        let effects = BaselineEffect::all(&observations, &settings, &tbo_config(), true);
        // One effect per relative metric; the baseline itself has none.
        assert_eq!(effects.len(), 2, "{effects:?}");
        let (ratio, difference) = (&effects[0], &effects[1]);
        assert_eq!((ratio.setting, ratio.baseline, ratio.metric.as_str()), (1, 0, "output_tps"));
        // d = ln(112/100), ln(121/110), ln(130/120): mean 0.0962272, se 0.0096198 on 2 df;
        // t(0.975, 2) = 4.302653: ratio e^0.0962272 = 1.101009 [1.056368, 1.147537], p = 0.0098465.
        let interval = ratio.interval.unwrap();
        assert!(close(interval.effect, 1.101_009) && close(interval.low, 1.056_368) && close(interval.high, 1.147_537));
        assert!(close(ratio.comparison.unwrap().p_value(), 0.009_846_5));
        // d = −2, −1.5, −2 ms on the linear scale (every value is positive, still a difference):
        // −1.833333 ± 4.302653 · 0.1666667 = [−2.550442, −1.116225], p = 1 − t/√(2 + t²) = 0.0081634.
        let interval = difference.interval.unwrap();
        assert!(
            close(interval.effect, -1.833_333) && close(interval.low, -2.550_442) && close(interval.high, -1.116_225)
        );
        assert_eq!(difference.kind, RelativeKind::Difference);
        // Holm over the two: 2 · 0.0081634 = 0.0163268 for the smaller, max(that, 0.0098465) for the other.
        assert!(close(difference.p_adjusted.unwrap(), 0.016_326_8));
        assert!(close(ratio.p_adjusted.unwrap(), 0.016_326_8));
        assert!(effects.iter().all(|e| e.comparison.unwrap().method != ComparisonMethod::Welch));
    }

    #[test]
    fn without_interleaving_the_effects_are_welch_tests() {
        let observations = tbo_sweep();
        let settings = SettingSummary::summarise(&observations);
        let effects = BaselineEffect::all(&observations, &settings, &tbo_config(), false);
        assert!(effects.iter().all(|e| e.comparison.unwrap().method == ComparisonMethod::Welch));
        // Welch on the values: means 9.1667 − 11 = −1.8333, variances 1.5833 and 1: se √(1.5833/3 + 1/3) = 0.927961.
        let comparison = effects[1].comparison.unwrap();
        assert!(close(comparison.estimate, -1.833_333) && close(comparison.std_error, 0.927_961));
    }

    #[test]
    fn no_baseline_no_effects() {
        let observations = tbo_sweep();
        let settings = SettingSummary::summarise(&observations);
        let config = AnalysisConfig { baseline: BTreeMap::new(), ..tbo_config() };
        assert!(BaselineEffect::all(&observations, &settings, &config, true).is_empty());
    }
}
