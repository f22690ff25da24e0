//! The model every comparison of settings rests on: value = setting + round + slope · control + noise,
//! fitted robustly (stragglers screened out, Huber M-estimation), each setting's variance moderated toward
//! a prior fitted across all settings, and every estimate carrying the residual degrees of freedom left.

use rayon::prelude::*;

use super::block_covariance::BlockCovariance;
use super::comparison_method::ComparisonMethod;
use super::control_adjustment::ControlAdjustment;
use super::control_move::ControlMove;
use super::drift_track::drift_track;
use super::huber;
use super::no_test::NoTest;
use super::ratio_interval::RatioInterval;
use super::rival_comparison::RivalComparison;
use super::round_blocks::RoundBlocks;
use super::run_sample::RunSample;
use super::sample_layout::SampleLayout;
use super::scale::Scale;
use super::step_split::split_blocks_at_steps;
use super::straggler::{SlowSide, Straggler};
use super::summary_stats::power_of_two_below;
use super::variance_prior::VariancePrior;
use super::weighted_backfit::{RoundComponents, WeightedBackfit};

/// What the model is asked to do with the control metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlPolicy {
    /// Test first whether the settings move it (`ControlMove`); adjust only when they do not.
    UnlessMoved,
    /// Adjust whatever it does (comparing two versions: the caller judges the control's move itself).
    Always,
}

/// How a model is set up: the settings' comparison groups, the control, the design.
#[derive(Debug, Clone, Copy)]
pub struct ModelDesign<'a> {
    /// Settings' indices run `0..settings`; a sample's setting indexes `group_of`.
    pub settings: usize,
    /// Per setting, its comparison group (settings compared with each other share one): the control is
    /// adjusted to each group's mean level, and its move is tested within groups.
    pub group_of: &'a [usize],
    /// Per setting, its series (settings that share every parameter but the groups', e.g. slices = 4 in
    /// every rows group), when the caller knows them: the variances' prior may then be fitted by series.
    pub series_of: Option<&'a [usize]>,
    pub control: Option<&'a str>,
    pub policy: ControlPolicy,
    /// Whether rounds are blocks (an interleaved schedule: round effects are fitted and cancel in
    /// comparisons), whole or cut into time blocks.
    pub blocks: RoundBlocks,
    /// The side a straggler is slow on, when the metric's direction is known; None screens nothing.
    pub slow: Option<SlowSide>,
}

/// A fitted model of one metric over a sweep's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingModel {
    pub scale: Scale,
    /// Rounds were fitted as blocks.
    pub blocks: bool,
    /// The control covariate's fit, when it was used.
    pub adjustment: Option<ControlAdjustment>,
    /// The test of whether the settings move the control (when there was one to test).
    pub control_move: Option<ControlMove>,
    /// The empirical-Bayes prior the settings' variances were moderated toward (two or more settings with
    /// residual df).
    pub prior: Option<VariancePrior>,
    /// With the prior fitted by series (`VariancePrior::fit_by_series`): each series' prior, in the
    /// order of its first setting; `prior` then holds their common d₀ and the smallest location. Empty
    /// with one prior for all.
    pub series_priors: Vec<VariancePrior>,
    /// Runs − settings − round blocks − covariate slopes: the df every estimate's df is capped at.
    pub residual_df: f64,
    /// Runs left out of the fit.
    pub stragglers: Vec<Straggler>,
    /// Per setting: its estimate on the analysis scale, the variance of that estimate, the df behind the
    /// variance, its runs in the fit, and its control level (for the slope's share of a contrast).
    estimates: Vec<SettingEstimate>,
    slope_variance: f64,
    /// With rounds as blocks: the estimates' covariance by dense setting (`SettingEstimate::dense`), times
    /// the Huber inflation, for contrasts; None without blocks or with too many settings.
    covariance: Option<(BlockCovariance, f64)>,
    /// Every run of each setting gave the same value (`no_spread`): the settings differ by value alone,
    /// and no variance is estimated.
    pub no_spread: bool,
    /// What the fitted values were divided by (a power of two; 1 but for values beyond 1e150): estimates
    /// and variances inside are in this unit, means and contrasts leave in the values' own.
    pub unit: f64,
}

/// A setting's estimate moved by `shift` on the analysis scale: where it would stand on other evidence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moved {
    pub setting: usize,
    pub shift: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct SettingEstimate {
    /// The setting's index in the dense layout.
    dense: usize,
    mean: f64,
    mean_variance: f64,
    variance_df: f64,
    /// Var(μ̂ₛ) and its df were the settings of its group to share one variance (the pooled model).
    pooled_variance: f64,
    pooled_df: f64,
    runs: usize,
    control_level: f64,
}

impl SettingEstimate {
    /// A setting without runs in the fit.
    const ABSENT: SettingEstimate = SettingEstimate {
        dense: usize::MAX,
        mean: f64::NAN,
        mean_variance: f64::NAN,
        variance_df: 0.0,
        pooled_variance: f64::NAN,
        pooled_df: 0.0,
        runs: 0,
        control_level: 0.0,
    };
}

/// The iterations of the robust fit: least squares (on the runs the straggler screen kept), then one
/// Huber-weighted step from it. From a √n-consistent start one step is as efficient as iterating to
/// convergence (Bickel 1975, "one-step Huber estimates"), and it costs a million-run sweep two fits, not ten.
const ITERATIONS: usize = 2;

impl SettingModel {
    /// A model on the log scale when every value is positive (effects are ratios), else linear.
    pub fn new(samples: Vec<RunSample>, design: ModelDesign) -> SettingModel {
        let scale = Scale::for_values(samples.iter().map(|s| s.value));
        SettingModel::on_scale(scale, samples, design)
    }

    /// Fits yᵢ = μₛ + βᵣ + θ (cᵢ − c̄_group) + εᵢ, Var(εᵢ) = σ²ₛ:
    /// 1. stragglers are screened out (`Straggler::screen`) and take no part;
    /// 2. the control enters as a covariate (ANCOVA / CUPED, Deng et al. 2013) unless the settings move it
    ///    (`ControlMove`, with `ControlPolicy::UnlessMoved`);
    /// 3. iteratively reweighted least squares with weights hᵢ/σ̃²ₛ: Huber's ψ at k = 1.345 on residuals
    ///    standardised by their setting's scale (Huber 1964), the scale from ψ-winsorised residuals
    ///    (Proposal 2), each setting's variance on its share dₛ of the residual df moderated toward a prior
    ///    fitted across all settings (Smyth 2004; d₀ infinite, i.e. one pooled variance, when they do not
    ///    differ beyond sampling);
    /// 4. the round effects and the slope come from the same weighted fit (Frisch–Waugh–Lovell).
    pub fn on_scale(scale: Scale, mut samples: Vec<RunSample>, design: ModelDesign) -> SettingModel {
        if no_spread(&samples, design.settings) {
            return SettingModel::by_value(scale, &samples, design.settings);
        }
        // Squares of values beyond 1e154 overflow: a linear fit is made on values divided by a power of
        // two (exact) and its estimates multiplied back. Logs never come near.
        let largest = samples.iter().map(|s| s.value.abs()).fold(0.0, f64::max);
        match scale {
            Scale::Linear if largest > 1e150 => {
                let unit = power_of_two_below(largest);
                samples.iter_mut().for_each(|sample| sample.value /= unit);
                SettingModel::fit(scale, samples, design).in_unit(unit)
            }
            _ => SettingModel::fit(scale, samples, design),
        }
    }

    /// `on_scale`'s fit, on values of ordinary magnitude.
    fn fit(scale: Scale, mut samples: Vec<RunSample>, design: ModelDesign) -> SettingModel {
        let control_scale = Scale::for_values(samples.iter().filter_map(|s| s.control));
        samples.par_iter_mut().with_min_len(1 << 14).for_each(|sample| {
            sample.value = scale.transform(sample.value);
            sample.control = sample.control.map(|c| control_scale.transform(c));
        });
        let reps: Vec<u32> = samples.iter().map(|s| s.round).collect();
        if design.blocks == RoundBlocks::TimeBlocks {
            split_rounds_into_time_blocks(&mut samples);
        }
        let mut layout = SampleLayout::of(&samples);
        let mut rounds = design.blocks.fitted().then(|| RoundComponents::of(&layout));
        let mut stragglers = design.slow.map_or_else(Vec::new, |slow| {
            Straggler::screen(&layout, &samples, design.blocks.fitted(), slow, scale == Scale::Log)
        });
        for straggler in &mut stragglers {
            straggler.rep = reps[straggler.sample];
        }
        let mut included = vec![1.0; samples.len()];
        stragglers.iter().for_each(|s| included[s.sample] = 0.0);
        let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
        let controls: Option<Vec<f64>> =
            design.control.and_then(|_| samples.iter().map(|s| s.control).collect::<Option<Vec<f64>>>());
        let group_of: Vec<usize> = dense_groups(&layout, &samples, design.group_of);
        let series_of: Option<Vec<usize>> = design.series_of.map(|series| dense_groups(&layout, &samples, series));
        // A step of the machine inside a block is one more block boundary (stragglers set aside); the
        // control shows the machine's level where there is one.
        let probe = controls.as_deref().unwrap_or(&values);
        let stepped = rounds.as_ref().filter(|_| design.blocks == RoundBlocks::TimeBlocks);
        let (track, mut probe_fit) = rayon::join(
            // With the runs interleaved in rounds, the control's drift track is the covariate: it holds the
            // drift the control shows and none of the settings' effect on it, whether the settings move the
            // control or not (a move the test misses under a fast drift would otherwise bias every setting
            // the control's level differs by), and it averages the control's own noise over 5 runs. Without
            // rounds the run order cannot tell drift from settings: a moved control is set aside. Made
            // beside the probe's fit: the settings and the runs kept do not change when a block is split.
            || {
                controls
                    .as_deref()
                    .filter(|_| design.policy == ControlPolicy::UnlessMoved && design.blocks.fitted())
                    .map(|c| drift_track(c, &layout.setting_of, layout.settings, &included))
            },
            // The level a step shows in; with a control it is the control's fit on the blocks as planned,
            // and unless a block is split, the control's first fit too.
            || stepped.map(|rounds| WeightedBackfit::fit(&layout, probe, &included, Some(rounds), None)),
        );
        // Without time blocks the planned blocks are the final ones: the control's fit is made once, here.
        let unstepped_fit = controls
            .as_ref()
            .filter(|_| probe_fit.is_none())
            .map(|c| WeightedBackfit::fit(&layout, c, &included, rounds.as_ref(), None));
        // The control's move is tested on the blocks as planned: blocks split where the control's own
        // residuals stepped fit its drift, not the settings' differences, and would inflate F (under a fast
        // drift, a third of the sweeps whose settings moved nothing were taken to move the control).
        let planned_fit = probe_fit.as_ref().filter(|_| controls.is_some()).or(unstepped_fit.as_ref());
        let control_move = match (design.control, planned_fit, design.policy) {
            (Some(metric), Some(full), ControlPolicy::UnlessMoved) => ControlMove::test(
                metric,
                &layout,
                full,
                &included,
                &group_of,
                rounds.as_ref(),
                control_scale == Scale::Log,
            ),
            _ => None,
        };
        if probe_fit.as_ref().is_some_and(|fit| split_blocks_at_steps(&mut samples, &fit.residuals, &layout, &included))
        {
            layout = SampleLayout::of(&samples);
            rounds = Some(RoundComponents::of(&layout));
            probe_fit = None;
        }
        let moved = control_move.as_ref().is_some_and(ControlMove::is_moved);
        // The control's unweighted fit on the final blocks serves the robust fit's first step when the
        // control itself is the covariate; the fits made for the move test go before the robust fit.
        let mut planned = probe_fit.take().or(unstepped_fit);
        // The control's own values serve no further when its track is the covariate.
        let controls = controls.filter(|_| track.is_none());
        let covariate = match (&track, controls.as_deref()) {
            (Some(track), _) => Some((track.as_slice(), None)),
            (None, Some(c)) if !moved => Some((
                c,
                Some(
                    planned
                        .take()
                        .unwrap_or_else(|| WeightedBackfit::fit(&layout, c, &included, rounds.as_ref(), None)),
                ),
            )),
            _ => None,
        };
        // Not kept through the robust fit when the track is the covariate: a million-run sweep's residuals.
        drop(planned);
        let reliability = match (&covariate, design.policy) {
            (Some((_, Some(unweighted))), ControlPolicy::Always) => {
                let df = samples.len() as f64
                    - layout.settings as f64
                    - rounds.as_ref().map_or(0.0, |r| (layout.rounds - r.count) as f64);
                ControlAdjustment::reliability_of(&unweighted.residuals, df)
            }
            _ => (0.0, 1.0),
        };
        let fit =
            RobustFit::new(&layout, &values, covariate, included, rounds.as_ref(), &group_of, series_of.as_deref());
        let residual_df = fit.residual_df();
        let estimates = fit.estimates();
        let adjustment = design.control.zip(fit.slope).map(|(metric, slope)| ControlAdjustment {
            metric: metric.to_string(),
            slope: slope.slope,
            variance_removed: slope.variance_removed,
            runs: fit.runs(),
            slope_variance: slope.variance,
            noise_variance: reliability.0,
            reliability: reliability.1,
            track: track.is_some(),
        });
        let slope_variance = fit.slope.map_or(0.0, |s| s.variance);
        // Map the dense layout's settings back to the caller's indices.
        let mut by_setting = vec![SettingEstimate::ABSENT; design.settings];
        for (sample, &dense) in samples.iter().zip(&layout.setting_of) {
            by_setting[sample.setting] = estimates[dense as usize];
        }
        SettingModel {
            scale,
            blocks: design.blocks.fitted(),
            adjustment,
            control_move,
            prior: fit.reported_prior(),
            series_priors: fit.series_priors.clone(),
            residual_df,
            stragglers,
            estimates: by_setting,
            slope_variance,
            covariance: rounds.as_ref().and_then(|_| fit.covariance()),
            no_spread: false,
            unit: 1.0,
        }
    }

    /// A model fitted on values divided by `unit`, speaking the values' own unit: its means, contrasts and
    /// slope are multiplied back as they leave it (variances stay inside: theirs would overflow).
    fn in_unit(mut self, unit: f64) -> SettingModel {
        self.unit = unit;
        if let Some(adjustment) = &mut self.adjustment {
            adjustment.slope *= unit;
            adjustment.slope_variance *= unit * unit;
        }
        self
    }

    /// The model of a sweep without spread (`no_spread`): each setting's estimate is its value, with no
    /// variance. A fit would find residuals of rounding error only (1e-16 of the values) and turn them
    /// into an invented noise (a "pooled s0 = 400%" from constant values): no variance is honest, and the
    /// settings are ordered by value.
    fn by_value(scale: Scale, samples: &[RunSample], settings: usize) -> SettingModel {
        let layout = SampleLayout::of(samples);
        let mut estimates = vec![SettingEstimate::ABSENT; settings];
        for (sample, &dense) in samples.iter().zip(&layout.setting_of) {
            let estimate = &mut estimates[sample.setting];
            estimate.dense = dense as usize;
            estimate.mean = scale.transform(sample.value);
            estimate.mean_variance = 0.0;
            estimate.runs += 1;
        }
        SettingModel {
            scale,
            blocks: false,
            adjustment: None,
            control_move: None,
            prior: None,
            series_priors: Vec::new(),
            residual_df: (samples.len() - layout.settings) as f64,
            stragglers: Vec::new(),
            estimates,
            slope_variance: 0.0,
            covariance: None,
            no_spread: true,
            unit: 1.0,
        }
    }

    /// Whether `setting` has a run in the fit.
    pub fn has(&self, setting: usize) -> bool {
        self.estimates[setting].runs > 0
    }

    /// The model's estimate of `setting` on the analysis scale (control-adjusted, rounds removed).
    pub fn mean(&self, setting: usize) -> f64 {
        self.estimates[setting].mean * self.unit
    }

    /// The model's level of the control at `setting` (0 without a control slope).
    pub fn control_level(&self, setting: usize) -> f64 {
        self.estimates[setting].control_level
    }

    /// Runs of `setting` in the fit (stragglers excluded).
    pub fn runs(&self, setting: usize) -> usize {
        self.estimates[setting].runs
    }

    /// Settings whose level may rest on which of their runs is the odd one: the screen set a run aside
    /// and at most two of the setting's runs stay in the fit, too few to outvote it (two runs that
    /// skipped work agree with each other as closely as two good ones). Each as a `Moved`: where the
    /// setting would stand were the set-aside run the right one.
    pub fn odd_runs(&self) -> impl Iterator<Item = Moved> + '_ {
        self.stragglers
            .iter()
            .filter(|s| self.runs(s.setting) <= 2)
            .map(|s| Moved { setting: s.setting, shift: s.shift })
    }

    /// `mean` with `moved`'s estimate where it says.
    pub fn mean_moved(&self, setting: usize, moved: Option<Moved>) -> f64 {
        self.estimate(setting, moved).mean * self.unit
    }

    /// `compare` with `moved`'s estimate where it says, its variance as fitted: a what-if, never a verdict.
    pub fn compare_moved(
        &self,
        rival: usize,
        reference: usize,
        moved: Option<Moved>,
    ) -> Result<RivalComparison, NoTest> {
        self.combine(&[(rival, 1.0), (reference, -1.0)], |mean| (mean, 1.0), moved)
    }

    /// `setting`'s estimate, shifted when it is the `moved` one.
    fn estimate(&self, setting: usize, moved: Option<Moved>) -> SettingEstimate {
        let estimate = self.estimates[setting];
        match moved {
            Some(moved) if moved.setting == setting => {
                SettingEstimate { mean: estimate.mean + moved.shift, ..estimate }
            }
            _ => estimate,
        }
    }

    /// `rival` − `reference` on the analysis scale: `contrast` with weights +1 and −1.
    pub fn compare(&self, rival: usize, reference: usize) -> Result<RivalComparison, NoTest> {
        self.contrast(&[(rival, 1.0), (reference, -1.0)])
    }

    /// Σ cₛ μ̂ₛ over (setting, weight) pairs whose weights sum to zero (a difference, an ablation's delta
    /// or interaction): its variance Σ cₛ² Var(μ̂ₛ) (round effects cancel within shared rounds) plus
    /// (Σ cₛ c̄ₛ)² · Var(θ̂) when a slope was fitted, its df the Welch–Satterthwaite combination of the
    /// moderated variances' dₛ + d₀ (Satterthwaite 1946), capped at the model's residual df (as limma caps
    /// the moderated t's). Its error under the pooled model (the settings of a group, or of a series, share
    /// one variance: `RobustFit::pooled`) goes with it: tests and intervals take the more cautious. Err
    /// with the reason when no test is possible: a setting with one run and nothing to borrow, no residual
    /// df, or a zero standard error.
    pub fn contrast(&self, weights: &[(usize, f64)]) -> Result<RivalComparison, NoTest> {
        self.combine(weights, |mean| (mean, 1.0), None)
    }

    /// Σ cₛ e^μ̂ₛ: a contrast of the settings' levels in the metric's own unit from a model on the log
    /// scale (drift multiplies, so it is fitted there), by the delta method: Var ≈ Σ cₛ² e^(2μ̂ₛ) Var(μ̂ₛ).
    pub fn level_contrast(&self, weights: &[(usize, f64)]) -> Result<RivalComparison, NoTest> {
        self.combine(weights, |mean| (mean.exp(), mean.exp()), None)
    }

    /// Σ cₛ f(μ̂ₛ) with f given as (value, derivative) at μ̂ₛ, its variance by the delta method; `moved`
    /// shifts one setting's μ̂ₛ.
    fn combine(
        &self,
        weights: &[(usize, f64)],
        f: impl Fn(f64) -> (f64, f64),
        moved: Option<Moved>,
    ) -> Result<RivalComparison, NoTest> {
        let method = if self.blocks { ComparisonMethod::Blocked } else { ComparisonMethod::Independent };
        let terms: Vec<(SettingEstimate, f64)> =
            weights.iter().filter(|(_, c)| *c != 0.0).map(|&(s, c)| (self.estimate(s, moved), c)).collect();
        if terms.is_empty() {
            return Ok(RivalComparison {
                estimate: 0.0,
                std_error: 0.0,
                df: f64::INFINITY,
                runs: 0,
                method,
                pooled: None,
            });
        }
        let fewest = terms.iter().map(|(e, _)| e.runs).min().unwrap_or(0);
        let most = terms.iter().map(|(e, _)| e.runs).max().unwrap_or(0);
        if fewest == 0 || most < 2 {
            return Err(NoTest::OneRep);
        }
        if self.no_spread {
            return Err(NoTest::NoSpread);
        }
        if self.residual_df < 1.0 || terms.iter().any(|(e, _)| e.variance_df <= 0.0) {
            return Err(if fewest < 2 { NoTest::OneRep } else { NoTest::NoResidualDf });
        }
        let control_gap: f64 = terms.iter().map(|(e, c)| c * f(e.mean).1 * e.control_level).sum();
        let parts = variance_parts(&terms, &f, |e| (e.mean_variance, e.variance_df));
        let coefficients: Vec<(usize, f64)> = terms.iter().map(|(e, c)| (e.dense, c * f(e.mean).1)).collect();
        let settings_variance = match &self.covariance {
            // A contrast's exact variance under incomplete blocks; the parts still weigh its df.
            Some((covariance, inflation)) if coefficients.iter().map(|(_, a)| a).sum::<f64>().abs() < 1e-9 => {
                inflation * covariance.contrast_variance(&coefficients)
            }
            _ => parts.iter().map(|(v, _)| v).sum::<f64>(),
        };
        let variance = settings_variance + control_gap * control_gap * self.slope_variance;
        if variance.is_nan() || variance <= 0.0 || variance.is_infinite() {
            return Err(NoTest::ZeroStdError);
        }
        let df = satterthwaite(&parts).min(self.residual_df);
        if df.is_nan() || df < 1.0 {
            return Err(NoTest::NoResidualDf);
        }
        let estimate = terms.iter().map(|(e, c)| c * f(e.mean).0).sum::<f64>() * self.unit;
        // The pooled model's error too (`RivalComparison::pooled`): three runs in one mode of a non-normal
        // noise make a setting's own variance tiny; its group's pooled variance does not shrink with them.
        let pooled_parts = variance_parts(&terms, &f, |e| (e.pooled_variance, e.pooled_df));
        let pooled_variance =
            pooled_parts.iter().map(|(v, _)| v).sum::<f64>() + control_gap * control_gap * self.slope_variance;
        let pooled_df = satterthwaite(&pooled_parts).min(self.residual_df);
        let pooled = (pooled_variance > 0.0 && pooled_variance.is_finite() && pooled_df >= 1.0)
            .then(|| (pooled_variance.sqrt() * self.unit, pooled_df));
        Ok(RivalComparison { estimate, std_error: variance.sqrt() * self.unit, df, runs: fewest, method, pooled })
    }

    /// A comparison as rival / reference on the metric's own scale, with its interval at `confidence`.
    pub fn ratio(&self, comparison: &RivalComparison, reference_mean: f64, confidence: f64) -> RatioInterval {
        let half = comparison.half_width(confidence);
        RatioInterval {
            ratio: self.scale.ratio(comparison.estimate, reference_mean),
            low: self.scale.ratio(comparison.estimate - half, reference_mean),
            high: self.scale.ratio(comparison.estimate + half, reference_mean),
        }
    }
}

/// Whether every setting's runs gave one value, bit for bit, and some setting has two runs or more: a
/// metric that is a count, or one the engine rounds coarser than its noise. Values compared as measured,
/// not after a transform (a log's rounding would tell nothing apart).
fn no_spread(samples: &[RunSample], settings: usize) -> bool {
    let mut first: Vec<Option<f64>> = vec![None; settings];
    let mut repeated = false;
    for sample in samples {
        match first[sample.setting] {
            None => first[sample.setting] = Some(sample.value),
            Some(value) if value.to_bits() == sample.value.to_bits() => repeated = true,
            Some(_) => return false,
        }
    }
    repeated
}

/// Runs of a round in one time block, at least: a round of more runs is split into consecutive parts of
/// at least this many.
const BLOCK_RUNS: usize = 10;

/// Turns each sample's round into its time block: a round of an interleaved schedule (every setting once,
/// in a shuffled order) split in file order — the order the runs ran in — into parts of at least
/// `BLOCK_RUNS` runs. Drift a round shares is one block effect either way; drift that moves within a long
/// round is blocked too. The shuffle puts settings in parts at random, so the parts are randomised
/// incomplete blocks, which the additive model fits like any unbalanced design.
pub(super) fn split_rounds_into_time_blocks(samples: &mut [RunSample]) {
    let rounds = samples.iter().map(|s| s.round as usize + 1).max().unwrap_or(0);
    let mut sizes = vec![0usize; rounds];
    samples.iter().for_each(|s| sizes[s.round as usize] += 1);
    if sizes.iter().all(|&n| n < 2 * BLOCK_RUNS) {
        return;
    }
    let parts_of = |n: usize| (n / BLOCK_RUNS).max(1);
    let most = sizes.iter().map(|&n| parts_of(n)).max().unwrap_or(1) as u32;
    let mut seen = vec![0usize; rounds];
    for sample in samples.iter_mut() {
        let round = sample.round as usize;
        let part = (seen[round] * parts_of(sizes[round]) / sizes[round]) as u32;
        seen[round] += 1;
        sample.round = sample.round * most + part;
    }
}

/// The caller's comparison group of each dense setting, renumbered densely in first-seen order.
fn dense_groups(layout: &SampleLayout, samples: &[RunSample], group_of: &[usize]) -> Vec<usize> {
    let mut caller_group = vec![usize::MAX; layout.settings];
    for (sample, &dense) in samples.iter().zip(&layout.setting_of) {
        caller_group[dense as usize] = group_of[sample.setting];
    }
    let mut known: rustc_hash::FxHashMap<usize, usize> = rustc_hash::FxHashMap::default();
    caller_group
        .into_iter()
        .map(|group| {
            let next = known.len();
            *known.entry(group).or_insert(next)
        })
        .collect()
}

/// (Σ vᵢ)² / Σ vᵢ²/νᵢ: the df of a sum of independent variance estimates (Satterthwaite 1946); infinite
/// when every part is known exactly.
pub(crate) fn satterthwaite(parts: &[(f64, f64)]) -> f64 {
    let total: f64 = parts.iter().map(|(v, _)| v).sum();
    let denominator: f64 = parts.iter().filter(|(v, _)| *v > 0.0).map(|(v, df)| v * v / df).sum();
    if denominator > 0.0 {
        total * total / denominator
    } else {
        f64::INFINITY
    }
}

/// The control covariate's slope in the final weighted fit.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Slope {
    slope: f64,
    /// Var(θ̂) = κ / Σ wᵢ e_c,ᵢ² (weights are inverse variances).
    variance: f64,
    variance_removed: f64,
}

/// The iteratively reweighted fit and what it leaves.
struct RobustFit<'a> {
    layout: &'a SampleLayout,
    group_of: &'a [usize],
    /// Per dense setting its dense series, when known.
    series_of: Option<&'a [usize]>,
    /// 1 for a sample in the fit, 0 for a straggler.
    included: Vec<f64>,
    fit: WeightedBackfit,
    control_fit: Option<WeightedBackfit>,
    slope: Option<Slope>,
    /// Per dense setting: moderated variance σ̃²ₛ, its own df dₛ, runs in the fit, the prior it was
    /// moderated toward, and the most df its moderated variance may claim (the df of its series' pool
    /// with priors by series; unlimited with one prior, where the model's residual df caps it).
    variances: Vec<f64>,
    own_df: Vec<f64>,
    runs: Vec<usize>,
    priors: Vec<Option<VariancePrior>>,
    df_cap: Vec<f64>,
    /// Per dense setting, the pooled model's variance and df (`pooled_by`): pooled over its series when
    /// the series differ in noise, else over its group.
    pooled: Vec<(f64, f64)>,
    /// The one prior of every setting, or (empty when there is one) each series' prior.
    prior: Option<VariancePrior>,
    series_priors: Vec<VariancePrior>,
    round_params: f64,
    /// Per dense setting, Eₛ = (1 − πₛ) / (1 − 1/v): the information its runs keep when the round effects
    /// are estimated from incomplete (time) blocks, 1 with complete blocks or none.
    block_efficiency: Vec<f64>,
    huber: bool,
}

impl<'a> RobustFit<'a> {
    /// The robust fit of `values` (and the `controls` covariate, whose unweighted fit `control_fit` may
    /// already have been made) over the `included` samples.
    fn new(
        layout: &'a SampleLayout,
        values: &[f64],
        controls: Option<(&[f64], Option<WeightedBackfit>)>,
        included: Vec<f64>,
        rounds: Option<&RoundComponents>,
        group_of: &'a [usize],
        series_of: Option<&'a [usize]>,
    ) -> RobustFit<'a> {
        let (controls, control_fit) = controls.map_or((None, None), |(c, fit)| (Some(c), fit));
        let mut runs = vec![0usize; layout.settings];
        for (&setting, &w) in layout.setting_of.iter().zip(&included) {
            runs[setting as usize] += usize::from(w > 0.0);
        }
        let round_params = rounds.map_or(0.0, |r| (layout.rounds - r.count) as f64);
        let mut fit = RobustFit {
            layout,
            group_of,
            series_of,
            fit: WeightedBackfit { setting_effect: Vec::new(), round_effect: Vec::new(), residuals: Vec::new() },
            control_fit,
            slope: None,
            variances: vec![1.0; layout.settings],
            own_df: vec![0.0; layout.settings],
            runs,
            priors: vec![None; layout.settings],
            df_cap: vec![f64::INFINITY; layout.settings],
            pooled: Vec::new(),
            prior: None,
            series_priors: Vec::new(),
            round_params,
            block_efficiency: vec![1.0; layout.settings],
            huber: false,
            included,
        };
        let mut weights = fit.included.clone();
        for iteration in 0..ITERATIONS {
            fit.weighted_fit(values, controls, &weights, rounds, iteration == 0);
            let residuals = fit.residuals(controls.is_some());
            fit.update_variances(&residuals, &weights);
            fit.huber = iteration > 0;
            if iteration + 1 < ITERATIONS {
                weights = fit
                    .huber_weights(&residuals)
                    .iter()
                    .zip(&fit.layout.setting_of)
                    .map(|(h, &s)| h / fit.variances[s as usize].max(f64::MIN_POSITIVE))
                    .collect();
            }
        }
        fit
    }

    /// The weighted fit of the values, and of the controls with the slope by Frisch–Waugh–Lovell. The
    /// first (unweighted) fit of the controls may already be there: the control's move test made it.
    fn weighted_fit(
        &mut self,
        values: &[f64],
        controls: Option<&[f64]>,
        weights: &[f64],
        rounds: Option<&RoundComponents>,
        first: bool,
    ) {
        let start = (!self.fit.setting_effect.is_empty()).then_some(&self.fit);
        let control_start = self.control_fit.take();
        let (fit, control_fit) = rayon::join(
            || WeightedBackfit::fit(self.layout, values, weights, rounds, start),
            || match (controls, control_start) {
                (Some(_), Some(made)) if first => Some(made),
                (Some(c), start) => Some(WeightedBackfit::fit(self.layout, c, weights, rounds, start.as_ref())),
                (None, _) => None,
            },
        );
        self.slope = control_fit.as_ref().and_then(|control_fit| {
            let (mut cross, mut control_ss, mut value_ss) = (0.0, 0.0, 0.0);
            for ((w, y), c) in weights.iter().zip(&fit.residuals).zip(&control_fit.residuals) {
                cross += w * y * c;
                control_ss += w * c * c;
                value_ss += w * y * y;
            }
            (control_ss > 0.0 && value_ss > 0.0).then(|| Slope {
                slope: cross / control_ss,
                variance: 1.0 / control_ss,
                variance_removed: (cross * cross / control_ss / value_ss).clamp(0.0, 1.0),
            })
        });
        self.fit = fit;
        self.control_fit = control_fit;
    }

    /// e_y − θ e_c: the residuals of the model with the covariate.
    fn residuals(&self, with_control: bool) -> Vec<f64> {
        match (&self.slope, &self.control_fit) {
            (Some(slope), Some(control)) if with_control => {
                self.fit.residuals.iter().zip(&control.residuals).map(|(y, c)| y - slope.slope * c).collect()
            }
            _ => self.fit.residuals.clone(),
        }
    }

    /// Each setting's share dₛ of the residual df, its variance Σ e² / dₛ from the residuals of the robust
    /// fit (stragglers screened out beforehand; a moderate outlier left in widens its setting's variance,
    /// which errs on the side of caution, where winsorising it would understate the noise of small
    /// samples), and the moderated variances.
    fn update_variances(&mut self, residuals: &[f64], weights: &[f64]) {
        let settings = self.layout.settings;
        let n: f64 = self.runs.iter().sum::<usize>() as f64;
        let covariates = if self.slope.is_some() { 1.0 } else { 0.0 };
        let shares = self.round_shares(weights);
        let blocked = self.round_params > 0.0;
        let complete_share = 1.0 / self.runs.iter().filter(|&&n| n > 0).count().max(1) as f64;
        for (((df, efficiency), &runs), share) in
            self.own_df.iter_mut().zip(&mut self.block_efficiency).zip(&self.runs).zip(shares)
        {
            let runs = runs as f64;
            let blocks_share = if blocked { share } else { 0.0 };
            *df = ((runs - 1.0) * (1.0 - blocks_share) - covariates * runs / n.max(1.0)).max(0.0);
            // An incomplete block design's efficiency factor (v(k − 1) / (k(v − 1)) for a balanced one,
            // Cochran & Cox 1957): its settings' effects carry 1/E times the variance σ²/n.
            *efficiency = if blocked { ((1.0 - blocks_share) / (1.0 - complete_share)).min(1.0) } else { 1.0 };
        }
        let mut ss = vec![0.0; settings];
        for ((&setting, residual), &included) in self.layout.setting_of.iter().zip(residuals).zip(&self.included) {
            ss[setting as usize] += included * residual * residual;
        }
        let sample_variances: Vec<(f64, f64)> = (0..settings)
            .map(|s| {
                let df = self.own_df[s];
                (if df > 0.0 { ss[s] / df } else { 0.0 }, df)
            })
            .collect();
        let by_series =
            self.series_of.and_then(|series| Some((series, VariancePrior::fit_by_series(&sample_variances, series)?)));
        match by_series {
            Some((series, priors)) => {
                let mut pool_df = vec![0.0; priors.len()];
                series.iter().zip(&self.own_df).for_each(|(&k, df)| pool_df[k] += df);
                self.series_priors = (0..priors.len())
                    .map(|k| pooled_when_equal(priors[k], &sample_variances, |s| series[s] == k))
                    .collect();
                self.priors = series.iter().map(|&k| Some(self.series_priors[k])).collect();
                self.df_cap = series.iter().map(|&k| pool_df[k]).collect();
                self.pooled = pooled_by(&sample_variances, |s| series[s]);
                self.prior = None;
            }
            None => {
                self.prior = VariancePrior::fit(&sample_variances)
                    .map(|prior| pooled_when_equal(prior, &sample_variances, |_| true));
                self.priors = vec![self.prior; settings];
                self.df_cap = vec![f64::INFINITY; settings];
                self.pooled = pooled_by(&sample_variances, |s| self.group_of[s]);
                self.series_priors = Vec::new();
            }
        }
        self.variances = sample_variances
            .iter()
            .zip(&self.priors)
            .map(|(&(variance, df), prior)| prior.map_or(variance, |prior| prior.moderate(variance, df)))
            .collect();
    }

    /// The prior to report: the one prior, or the series priors' common d₀ with their smallest location.
    fn reported_prior(&self) -> Option<VariancePrior> {
        self.prior.or_else(|| {
            let smallest = self.series_priors.iter().map(|p| p.prior_variance).reduce(f64::min)?;
            Some(VariancePrior { prior_variance: smallest, ..self.series_priors[0] })
        })
    }

    /// Per setting, the average share of its rounds' weight it carries (πₛ): with rounds as blocks a
    /// setting's residuals lose (nₛ − 1)·πₛ df to the round effects, the ones it dominates most.
    fn round_shares(&self, weights: &[f64]) -> Vec<f64> {
        let mut round_weight = vec![0.0; self.layout.rounds];
        for (&round, &w) in self.layout.round_of.iter().zip(weights) {
            round_weight[round as usize] += w;
        }
        let mut shares = vec![0.0; self.layout.settings];
        for ((&setting, &round), &w) in self.layout.setting_of.iter().zip(&self.layout.round_of).zip(weights) {
            if w > 0.0 {
                shares[setting as usize] += w / round_weight[round as usize];
            }
        }
        shares.iter().zip(&self.runs).map(|(share, &n)| if n > 0 { share / n as f64 } else { 0.0 }).collect()
    }

    /// hᵢ = ψ(uᵢ)/uᵢ at uᵢ = eᵢ / (σ̃ₛ √(dₛ/nₛ)), the standard deviation of one residual of setting s (its
    /// runs share dₛ df); stragglers stay 0.
    fn huber_weights(&self, residuals: &[f64]) -> Vec<f64> {
        residuals
            .iter()
            .zip(&self.layout.setting_of)
            .zip(&self.included)
            .map(|((residual, &s), &included)| {
                let s = s as usize;
                let scale = (self.variances[s] * self.own_df[s] / self.runs[s].max(1) as f64).sqrt();
                if included == 0.0 {
                    0.0
                } else if scale > 0.0 {
                    huber::weight(residual / scale)
                } else {
                    1.0
                }
            })
            .collect()
    }

    fn runs(&self) -> usize {
        self.runs.iter().sum()
    }

    /// The estimates' covariance under the blocks, from the runs' inverse moderated variances, with the
    /// Huber inflation of `estimates`.
    fn covariance(&self) -> Option<(BlockCovariance, f64)> {
        let weights: Vec<f64> = self
            .layout
            .setting_of
            .iter()
            .zip(&self.included)
            .map(|(&s, &w)| w / self.variances[s as usize].max(f64::MIN_POSITIVE))
            .collect();
        let inflation = if self.huber { huber::variance_inflation() } else { 1.0 };
        Some((BlockCovariance::of(self.layout, &weights)?, inflation))
    }

    /// Runs − settings − round blocks − slopes.
    fn residual_df(&self) -> f64 {
        let settings = self.runs.iter().filter(|n| **n > 0).count() as f64;
        let covariates = if self.slope.is_some() { 1.0 } else { 0.0 };
        self.runs() as f64 - settings - self.round_params - covariates
    }

    /// Per dense setting: the adjusted mean μ̂ₛ − θ (c̄ₛ − c̄_group), Var = κ σ̃²ₛ / (nₛ Eₛ) (κ = Huber's
    /// variance inflation once Huber weights were used, Eₛ the blocks' efficiency), df dₛ + d₀.
    fn estimates(&self) -> Vec<SettingEstimate> {
        let inflation = if self.huber { huber::variance_inflation() } else { 1.0 };
        let control_levels = self.control_fit.as_ref().map(|c| c.setting_effect.clone());
        let group_level = control_levels.as_ref().map(|levels| group_means(levels, self.group_of));
        (0..self.layout.settings)
            .map(|s| {
                let runs = self.runs[s];
                let control_level = control_levels.as_ref().map_or(0.0, |levels| levels[s]);
                let shift = match (&self.slope, &group_level) {
                    (Some(slope), Some(group)) => slope.slope * (control_level - group[self.group_of[s]]),
                    _ => 0.0,
                };
                let variance_df =
                    self.priors[s].map_or(self.own_df[s], |p| p.moderated_df(self.own_df[s])).min(self.df_cap[s]);
                // A run's variance made the mean's: Var = κ σ² / (nₛ Eₛ).
                let of_mean = |variance: f64| {
                    inflation * variance / runs.max(1) as f64 / self.block_efficiency[s].max(f64::MIN_POSITIVE)
                };
                SettingEstimate {
                    dense: s,
                    mean: self.fit.setting_effect[s] - shift,
                    mean_variance: of_mean(self.variances[s]),
                    variance_df,
                    pooled_variance: of_mean(self.pooled[s].0),
                    pooled_df: self.pooled[s].1,
                    runs,
                    control_level,
                }
            })
            .collect()
    }
}

/// Per term cₛ f(μ̂ₛ) of a combination, (f'(μ̂ₛ)² cₛ² Var, df) with the (Var(μ̂ₛ), df) `model` gives a setting.
fn variance_parts(
    terms: &[(SettingEstimate, f64)],
    f: &impl Fn(f64) -> (f64, f64),
    model: impl Fn(&SettingEstimate) -> (f64, f64),
) -> Vec<(f64, f64)> {
    terms
        .iter()
        .map(|(e, c)| {
            let slope = c * f(e.mean).1;
            let (variance, df) = model(e);
            (slope * slope * variance, df)
        })
        .collect()
}

/// Per setting, the pooled model's variance and df: its pool's (`pool_of`) Σ dₛ s²ₛ / Σ dₛ on Σ dₛ,
/// moderated across the pools by their own empirical-Bayes prior (Smyth 2004, one level up): pools whose
/// variances agree share one on every pool's df (so a sweep of equal noise loses no df to the pooled
/// model), a pool much noisier than the rest keeps its own (so a noisy group does not widen a quiet one's
/// tests).
fn pooled_by(variances: &[(f64, f64)], pool_of: impl Fn(usize) -> usize) -> Vec<(f64, f64)> {
    let count = (0..variances.len()).map(&pool_of).max().map_or(0, |k| k + 1);
    let mut sums = vec![(0.0, 0.0); count];
    for (s, &(variance, df)) in variances.iter().enumerate() {
        let sum = &mut sums[pool_of(s)];
        *sum = (sum.0 + variance * df, sum.1 + df);
    }
    let pools: Vec<(f64, f64)> = sums.into_iter().map(|(ss, df)| (if df > 0.0 { ss / df } else { 0.0 }, df)).collect();
    let total_df: f64 = pools.iter().map(|(_, df)| df).sum();
    let prior = VariancePrior::fit(&pools).map(|prior| pooled_when_equal(prior, &pools, |_| true));
    let moderated: Vec<(f64, f64)> = pools
        .iter()
        .map(|&(variance, df)| {
            prior.map_or((variance, df), |p| (p.moderate(variance, df), p.moderated_df(df).min(total_df)))
        })
        .collect();
    (0..variances.len()).map(|s| moderated[pool_of(s)]).collect()
}

/// With d₀ infinite the `member` settings share one variance: its estimate is the pooled Σ dₛ s²ₛ / Σ dₛ
/// on Σ dₛ df, not the moment estimate (which with few settings of little df each is far noisier).
fn pooled_when_equal(prior: VariancePrior, variances: &[(f64, f64)], member: impl Fn(usize) -> bool) -> VariancePrior {
    if prior.prior_df.is_finite() {
        return prior;
    }
    let members = || variances.iter().enumerate().filter(|(s, _)| member(*s)).map(|(_, v)| v);
    let df: f64 = members().map(|(_, df)| df).sum();
    if df <= 0.0 {
        return prior;
    }
    let pooled = members().map(|(v, df)| v * df).sum::<f64>() / df;
    VariancePrior { prior_variance: pooled, ..prior }
}

/// The mean of `levels` over each group's settings.
fn group_means(levels: &[f64], group_of: &[usize]) -> Vec<f64> {
    let groups = group_of.iter().copied().max().map_or(0, |g| g + 1);
    let mut sums = vec![(0.0, 0.0); groups];
    for (level, &group) in levels.iter().zip(group_of) {
        sums[group].0 += level;
        sums[group].1 += 1.0;
    }
    sums.into_iter().map(|(sum, n)| sum / n).collect()
}
