//! The usable runs being compared, on the comparison scale, drift removed by the control metric, with
//! the residual variance the design allows: what every paired or Welch comparison is computed from.

use std::collections::BTreeMap;

use super::control_adjustment::ControlAdjustment;
use super::ratio_interval::RatioInterval;
use super::rival_comparison::RivalComparison;
use super::round_model::RoundModel;
use super::run_sample::RunSample;
use super::scale::Scale;

/// Samples of several settings, ready to be compared pairwise.
#[derive(Debug, Clone, PartialEq)]
pub struct AdjustedSamples {
    pub scale: Scale,
    /// Rounds are blocks (an interleaved schedule).
    pub rounds_are_blocks: bool,
    /// The control covariate's fit, when it could be made.
    pub adjustment: Option<ControlAdjustment>,
    /// The additive setting + round model, when rounds are blocks and it has residual df.
    pub model: Option<RoundModel>,
    /// Per setting: its (value, control) per round (a round's repeats averaged) and all of them.
    rounds: Vec<BTreeMap<u32, (f64, f64)>>,
    values: Vec<Vec<(f64, f64)>>,
}

impl AdjustedSamples {
    /// Puts raw samples (values and controls as measured) on the log scale when every value is positive,
    /// removes drift with the control when `control` names one (`ControlAdjustment`, settings in one
    /// comparison group sharing `group_of`), and with `rounds_are_blocks` fits the round model.
    pub fn new(
        samples: Vec<RunSample>,
        settings: usize,
        group_of: &[usize],
        control: Option<&str>,
        rounds_are_blocks: bool,
    ) -> AdjustedSamples {
        let scale = Scale::for_values(samples.iter().map(|s| s.value));
        Self::on_scale(scale, samples, settings, group_of, control, rounds_are_blocks)
    }

    /// As `new`, on the given scale: a difference asked for in the metric's own unit is `Scale::Linear`
    /// even when every value is positive.
    pub fn on_scale(
        scale: Scale,
        mut samples: Vec<RunSample>,
        settings: usize,
        group_of: &[usize],
        control: Option<&str>,
        rounds_are_blocks: bool,
    ) -> AdjustedSamples {
        let control_scale = Scale::for_values(samples.iter().filter_map(|s| s.control));
        for sample in &mut samples {
            sample.value = scale.transform(sample.value);
            sample.control = sample.control.map(|c| control_scale.transform(c));
        }
        let adjustment = control
            .and_then(|metric| ControlAdjustment::fit_and_apply(metric, &mut samples, group_of, rounds_are_blocks));
        let model = rounds_are_blocks.then(|| RoundModel::fit(&samples, usize::from(adjustment.is_some()))).flatten();
        let (rounds, values) = per_setting(&samples, settings);
        AdjustedSamples { scale, rounds_are_blocks, adjustment, model, rounds, values }
    }

    /// Whether `setting` has any sample.
    pub fn has(&self, setting: usize) -> bool {
        !self.values[setting].is_empty()
    }

    /// The mean adjusted value of `setting` on the comparison scale.
    pub fn mean(&self, setting: usize) -> f64 {
        mean(&self.all(setting, |pair| pair.0))
    }

    /// `rival` − `reference`: within the rounds both ran in when rounds are blocks (pooled residual
    /// variance when the settings' variances are homogeneous), else by Welch's test; widened by
    /// Δc̄² · Var(θ̂), the uncertainty the estimated control slope adds to a difference whose two
    /// sides saw controls Δc̄ apart. None when no test is possible.
    pub fn compare(&self, rival: usize, reference: usize) -> Option<RivalComparison> {
        let value = |pair: &(f64, f64)| pair.0;
        let control = |pair: &(f64, f64)| pair.1;
        let pooled = self.model.as_ref().filter(|m| m.is_homogeneous());
        let paired = self.rounds_are_blocks.then(|| {
            let shared = |part| {
                RivalComparison::shared_rounds(&self.round_values(rival, part), &self.round_values(reference, part))
            };
            let comparison = RivalComparison::of_differences(&shared(value)?, pooled)?;
            Some((comparison, mean(&shared(control)?)))
        });
        let welch = || {
            let comparison = RivalComparison::welch(&self.all(rival, value), &self.all(reference, value))?;
            Some((comparison, mean(&self.all(rival, control)) - mean(&self.all(reference, control))))
        };
        let slope_variance = self.adjustment.as_ref().map_or(0.0, |a| a.slope_variance);
        paired.flatten().or_else(welch).map(|(c, gap)| c.widened(gap * gap * slope_variance))
    }

    /// A comparison as rival / reference on the metric's own scale, with its 95% interval.
    pub fn ratio(&self, comparison: &RivalComparison, reference_mean: f64) -> RatioInterval {
        let half = comparison.half_width(0.95);
        RatioInterval {
            ratio: self.scale.ratio(comparison.estimate, reference_mean),
            low: self.scale.ratio(comparison.estimate - half, reference_mean),
            high: self.scale.ratio(comparison.estimate + half, reference_mean),
        }
    }

    fn round_values(&self, setting: usize, part: fn(&(f64, f64)) -> f64) -> BTreeMap<u32, f64> {
        self.rounds[setting].iter().map(|(round, pair)| (*round, part(pair))).collect()
    }

    fn all(&self, setting: usize, part: fn(&(f64, f64)) -> f64) -> Vec<f64> {
        self.values[setting].iter().map(part).collect()
    }
}

type PerSetting = (Vec<BTreeMap<u32, (f64, f64)>>, Vec<Vec<(f64, f64)>>);

/// Each setting's (value, control) pairs, per round (repeats in a round averaged) and all.
fn per_setting(samples: &[RunSample], settings: usize) -> PerSetting {
    let mut values = vec![Vec::new(); settings];
    let mut sums: Vec<BTreeMap<u32, (f64, f64, f64)>> = vec![BTreeMap::new(); settings];
    for sample in samples {
        let control = sample.control.unwrap_or(0.0);
        values[sample.setting].push((sample.value, control));
        let entry = sums[sample.setting].entry(sample.round).or_default();
        *entry = (entry.0 + sample.value, entry.1 + control, entry.2 + 1.0);
    }
    let rounds = sums
        .into_iter()
        .map(|s| s.into_iter().map(|(round, (value, control, n))| (round, (value / n, control / n))).collect())
        .collect();
    (rounds, values)
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}
