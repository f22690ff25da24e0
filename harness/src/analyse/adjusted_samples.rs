//! The usable runs being compared, on the comparison scale, drift removed by the control metric, with
//! the residual variance the design allows: what every paired or Welch comparison is computed from.

use rayon::prelude::*;

use super::control_adjustment::ControlAdjustment;
use super::ratio_interval::RatioInterval;
use super::rival_comparison::RivalComparison;
use super::round_model::RoundModel;
use super::run_sample::RunSample;
use super::sample_layout::SampleLayout;
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
    /// Per setting: its (round, value, control) sorted by round (a round's repeats averaged), and all
    /// its (value, control) pairs.
    rounds: Vec<Vec<(u32, f64, f64)>>,
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
        samples.par_iter_mut().with_min_len(1 << 14).for_each(|sample| {
            sample.value = scale.transform(sample.value);
            sample.control = sample.control.map(|c| control_scale.transform(c));
        });
        let layout = (control.is_some() || rounds_are_blocks).then(|| SampleLayout::of(&samples));
        let (adjustment, residuals) = control
            .zip(layout.as_ref())
            .and_then(|(metric, layout)| {
                ControlAdjustment::fit_and_apply(metric, &mut samples, layout, group_of, rounds_are_blocks)
            })
            .unzip();
        let round_model = |layout: &SampleLayout| match &residuals {
            Some(residuals) => RoundModel::of_residuals(layout, residuals, 1),
            None => RoundModel::fit(&samples, layout),
        };
        let (model, (rounds, values)) = rayon::join(
            || layout.as_ref().filter(|_| rounds_are_blocks).and_then(round_model),
            || per_setting(&samples, settings, rounds_are_blocks),
        );
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
            let (values, controls) = self.shared_round_differences(rival, reference);
            let comparison = RivalComparison::of_differences(&values, pooled)?;
            Some((comparison, mean(&controls)))
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

    /// (rival − reference) of the values and of the controls, in every round both ran in: a merge of
    /// the two round-sorted series.
    fn shared_round_differences(&self, rival: usize, reference: usize) -> (Vec<f64>, Vec<f64>) {
        let (a, b) = (&self.rounds[rival], &self.rounds[reference]);
        let (mut i, mut j) = (0, 0);
        let (mut values, mut controls) = (Vec::new(), Vec::new());
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    values.push(a[i].1 - b[j].1);
                    controls.push(a[i].2 - b[j].2);
                    i += 1;
                    j += 1;
                }
            }
        }
        (values, controls)
    }

    fn all(&self, setting: usize, part: fn(&(f64, f64)) -> f64) -> Vec<f64> {
        self.values[setting].iter().map(part).collect()
    }
}

type PerSetting = (Vec<Vec<(u32, f64, f64)>>, Vec<Vec<(f64, f64)>>);

/// Each setting's (value, control) pairs: all of them, and with `by_round` one per round sorted by round
/// (repeats in a round averaged; without, no round series is kept: a Welch design never pairs).
fn per_setting(samples: &[RunSample], settings: usize, by_round: bool) -> PerSetting {
    let mut counts = vec![0usize; settings];
    samples.iter().for_each(|sample| counts[sample.setting] += 1);
    let mut values: Vec<Vec<(f64, f64)>> = counts.iter().map(|&n| Vec::with_capacity(n)).collect();
    let mut series: Vec<Vec<(u32, f64, f64)>> =
        counts.iter().map(|&n| Vec::with_capacity(if by_round { n } else { 0 })).collect();
    for sample in samples {
        let control = sample.control.unwrap_or(0.0);
        values[sample.setting].push((sample.value, control));
        if by_round {
            series[sample.setting].push((sample.round, sample.value, control));
        }
    }
    let rounds = series.into_iter().map(average_repeats).collect();
    (rounds, values)
}

/// One entry per round, sorted: a round's repeats (a setting run twice in a round) averaged. Rounds
/// recorded in order and once each (an interleaved sweep's) are returned as they are.
fn average_repeats(mut runs: Vec<(u32, f64, f64)>) -> Vec<(u32, f64, f64)> {
    if !runs.is_sorted_by_key(|run| run.0) {
        runs.sort_by_key(|run| run.0);
    }
    if runs.windows(2).all(|pair| pair[0].0 != pair[1].0) {
        return runs;
    }
    let mut rounds: Vec<(u32, f64, f64, f64)> = Vec::with_capacity(runs.len());
    for (round, value, control) in runs {
        match rounds.last_mut() {
            Some(last) if last.0 == round => *last = (round, last.1 + value, last.2 + control, last.3 + 1.0),
            _ => rounds.push((round, value, control, 1.0)),
        }
    }
    rounds.into_iter().map(|(round, value, control, n)| (round, value / n, control / n)).collect()
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(setting: usize, round: u32, value: f64) -> RunSample {
        RunSample { setting, round, value, control: None }
    }

    #[test]
    fn only_shared_rounds_are_paired_and_a_repeated_round_counts_as_its_mean() {
        // Rival in rounds 1, 2, 4 (round 2 twice: 5 and 7); reference in 1, 2, 3.
        let samples = vec![
            sample(0, 1, 5.0),
            sample(0, 2, 5.0),
            sample(0, 2, 7.0),
            sample(0, 4, 100.0),
            sample(1, 1, 4.0),
            sample(1, 2, 4.0),
            sample(1, 3, 0.0),
        ];
        let adjusted = AdjustedSamples::on_scale(Scale::Linear, samples, 2, &[0, 0], None, true);
        assert_eq!(adjusted.shared_round_differences(0, 1).0, [1.0, 2.0]);
    }
}
