//! Baseline-relative effects: each setting against its baseline partner, the setting that differs from
//! it only in the baseline params (`[analysis] baseline = { tbo = "off" }`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::holm::{holm_adjust, simultaneous_level};
use super::ratio_interval::RatioInterval;
use super::rival_comparison::RivalComparison;
use super::round_blocks::RoundBlocks;
use super::run_sample::RunSample;
use super::scale::Scale;
use super::setting_model::{ControlPolicy, ModelDesign, SettingModel};
use super::setting_summary::{first_seen_index, SettingSummary};
use super::verdicts::slow_side;
use crate::declare::{AnalysisConfig, ParamValue, RelativeKind};
use crate::plan::Setting;
use crate::record::RecordedRun;

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
    /// simultaneous interval (compatible with Holm's decisions over all effects, `level`); None when no
    /// test was possible (e.g. one rep).
    pub interval: Option<EffectInterval>,
    /// The confidence of that interval.
    pub level: f64,
    /// Holm-adjusted over every baseline-relative effect of the sweep.
    pub p_adjusted: Option<f64>,
}

/// An effect with its two-sided interval `low..high`: a ratio, or a difference in the metric's own unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EffectInterval {
    pub effect: f64,
    pub low: f64,
    pub high: f64,
}

impl BaselineEffect {
    /// Every non-baseline setting's effect on every `config.relative` metric (metrics in name order,
    /// settings in the order given). Each comparison is `SettingModel::compare` with the partner as the
    /// reference (rounds as blocks when `rounds_are_blocks`, moderated variances, Huber M-estimates; the
    /// control metric, unless the settings move it, a covariate whose comparison groups are the families
    /// of settings differing only in baseline params; the primary metric screened for stragglers). A ratio
    /// is computed on the log scale when every value is positive (else as a ratio of a linear difference);
    /// a difference always on the linear scale. Holm (1979) adjusts the p-values over all effects, and
    /// every interval is at the simultaneous level compatible with those decisions.
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
        let mut per_metric: Vec<(SettingModel, Vec<BaselineEffect>)> = Vec::new();
        for (metric, kind) in &config.relative {
            let control = config.control.as_deref().filter(|control| control != metric);
            let samples = RunSample::collect(observations, settings, metric, control);
            let scale = match kind {
                RelativeKind::Ratio => Scale::for_values(samples.iter().map(|s| s.value)),
                RelativeKind::Difference => Scale::Linear,
            };
            let design = ModelDesign {
                settings: settings.len(),
                group_of: &families,
                series_of: None,
                control,
                policy: ControlPolicy::UnlessMoved,
                blocks: RoundBlocks::interleaved(rounds_are_blocks),
                slow: (*metric == config.primary).then(|| slow_side(config.direction)),
            };
            let model = SettingModel::on_scale(scale, samples, design);
            let effects = partners
                .iter()
                .filter(|(s, b)| model.has(*s) && model.has(*b))
                .map(|&(setting, baseline)| BaselineEffect {
                    setting,
                    baseline,
                    metric: metric.clone(),
                    kind: *kind,
                    comparison: model.compare(setting, baseline).ok(),
                    interval: None,
                    level: 0.95,
                    p_adjusted: None,
                })
                .collect();
            per_metric.push((model, effects));
        }
        let p_values: Vec<f64> = per_metric
            .iter()
            .flat_map(|(_, effects)| effects.iter().filter_map(|e| e.comparison.map(|c| c.p_value())))
            .collect();
        let adjusted = holm_adjust(&p_values);
        let level = simultaneous_level(&adjusted, config.alpha);
        let mut adjusted = adjusted.into_iter();
        let mut all = Vec::new();
        for (model, effects) in per_metric {
            for mut effect in effects {
                effect.level = level;
                if let Some(c) = effect.comparison {
                    effect.p_adjusted = adjusted.next();
                    let baseline_mean = settings[effect.baseline].metric(&effect.metric).map_or(f64::NAN, |s| s.mean);
                    effect.interval = Some(match effect.kind {
                        RelativeKind::Ratio => {
                            let RatioInterval { ratio, low, high } = model.ratio(&c, baseline_mean, level);
                            EffectInterval { effect: ratio, low, high }
                        }
                        // The difference as estimated, ± the half-width of its t interval at the level.
                        RelativeKind::Difference => {
                            let half = c.half_width(level);
                            EffectInterval { effect: c.estimate, low: c.estimate - half, high: c.estimate + half }
                        }
                    });
                }
                all.push(effect);
            }
        }
        all
    }
}

/// The setting equal to `setting` except that the baseline params take their baseline values; None for
/// a setting that is itself a baseline, or whose partner was not run.
fn partner_of(
    setting: &Setting,
    settings: &[SettingSummary],
    baseline: &BTreeMap<String, ParamValue>,
) -> Option<usize> {
    let values = setting.values.iter().map(|(name, value)| (name.clone(), baseline.get(name).unwrap_or(value).clone()));
    let partner = Setting { values: values.collect(), variant: setting.variant.clone() };
    (partner != *setting).then(|| settings.iter().position(|s| s.setting == partner)).flatten()
}

/// Per setting, the index of its family: the settings that differ from it only in baseline params.
fn families(settings: &[SettingSummary], baseline: &BTreeMap<String, ParamValue>) -> Vec<usize> {
    first_seen_index(settings.iter().map(|summary| summary.setting.without(|name| baseline.contains_key(name))))
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
    fn ratio_and_difference_against_the_partner_within_rounds_by_hand() {
        let observations = tbo_sweep();
        let settings = SettingSummary::summarise(&observations);
        let effects = BaselineEffect::all(&observations, &settings, &tbo_config(), true);
        // One effect per relative metric; the baseline itself has none.
        assert_eq!(effects.len(), 2, "{effects:?}");
        let (ratio, difference) = (&effects[0], &effects[1]);
        assert_eq!((ratio.setting, ratio.baseline, ratio.metric.as_str()), (1, 0, "output_tps"));
        // Two settings in three rounds: the model's contrast is the mean per-round log ratio, ln(112/100),
        // ln(121/110), ln(130/120): 0.0962272 (no residual is beyond Huber's k, so the M-estimate is the mean);
        // its variance the pooled one (two settings' residuals mirror each other: d0 = inf) times Huber's
        // 1.052631: se = 0.0096198 · 1.025978 = 0.0098697 on 2 df, t = 9.7498, p = 0.0103567. Both effects are
        // rejected (Holm), so the simultaneous level is Bonferroni's 97.5%: t(0.9875, 2) = 6.205347,
        // e^0.0962272 = 1.101009 [1.035602, 1.170548].
        let comparison = ratio.comparison.unwrap();
        assert!(close(comparison.estimate, 0.096_227_2) && close(comparison.std_error, 0.009_869_7));
        assert!(close(comparison.p_value(), 0.010_356_7), "{}", comparison.p_value());
        assert!(close(ratio.level, 0.975));
        let interval = ratio.interval.unwrap();
        assert!(close(interval.effect, 1.101_009) && close(interval.low, 1.035_602) && close(interval.high, 1.170_548));
        // Gate time, a difference on the linear scale (every value is positive, still a difference): −2, −1.5,
        // −2 ms per round, the middle round's residual beyond k: the M-estimate leans away from it.
        let interval = difference.interval.unwrap();
        assert!(interval.effect < -1.8 && interval.effect > -1.95, "{interval:?}");
        assert!(interval.low < interval.effect && interval.high < 0.0, "{interval:?}");
        assert_eq!(difference.kind, RelativeKind::Difference);
        // Holm over the two: the larger p is adjusted no lower than either raw p.
        let p_adjusted = [ratio.p_adjusted.unwrap(), difference.p_adjusted.unwrap()];
        assert!(p_adjusted.iter().all(|p| *p >= comparison.p_value() && *p < 0.05), "{p_adjusted:?}");
        assert!(effects.iter().all(|e| e.comparison.unwrap().method == ComparisonMethod::Blocked));
    }

    #[test]
    fn without_interleaving_the_effects_are_independent_samples() {
        let observations = tbo_sweep();
        let settings = SettingSummary::summarise(&observations);
        let effects = BaselineEffect::all(&observations, &settings, &tbo_config(), false);
        assert!(effects.iter().all(|e| e.comparison.unwrap().method == ComparisonMethod::Independent));
        // Gate time: means 9.1667 − 11 = −1.8333 ms; no round effects, so the rounds' drift stays in the noise:
        // the interval is far wider than within rounds.
        let comparison = effects[1].comparison.unwrap();
        assert!((comparison.estimate + 1.833_333).abs() < 0.1, "{comparison:?}");
        assert!(comparison.std_error > 0.5, "{comparison:?}");
    }

    #[test]
    fn no_baseline_no_effects() {
        let observations = tbo_sweep();
        let settings = SettingSummary::summarise(&observations);
        let config = AnalysisConfig { baseline: BTreeMap::new(), ..tbo_config() };
        assert!(BaselineEffect::all(&observations, &settings, &config, true).is_empty());
    }
}
