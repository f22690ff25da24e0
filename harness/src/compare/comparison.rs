//! Two sides of one sweep grid (two CSVs, or two values of a parameter inside one interleaved sweep)
//! joined on their settings and judged setting by setting and over the grid, family-wise.

use std::collections::HashMap;

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};

use super::setting_comparison::{judge, CompareConfig, SettingComparison, Verdict};
use crate::analyse::{
    holm_adjust, simultaneous_level, slow_side, two_sided_p, ComparisonMethod, ControlPolicy, ModelDesign, NoTest,
    RandomEffects, RatioInterval, RivalComparison, RoundBlocks, RunSample, Scale, SettingIndex, SettingModel,
    SideShift,
};
use crate::declare::{ControlScaling, Param};
use crate::plan::Setting;
use crate::record::RecordedRun;

/// The comparison of side B against side A.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub config: CompareConfig,
    /// Settings present on both sides, in A's first-seen order (declared grid order once
    /// `sort_by_declaration` put them there).
    pub settings: Vec<SettingComparison>,
    /// Settings recorded only in A, then only in B.
    pub only_a: Vec<Setting>,
    pub only_b: Vec<Setting>,
    /// `Blocked` when rounds were blocks shared by both sides (one interleaved sweep), else `Independent`.
    pub design: ComparisonMethod,
    /// The model every setting's B/A comes from: control adjustment, variance prior, stragglers, df.
    pub model: SettingModel,
    /// The grid-wide B/A (random-effects meta-analysis over the settings), when two or more were tested.
    pub overall: Option<OverallChange>,
    /// B/A of the control over every joined setting (the geometric mean of the per-setting ratios), when
    /// both sides report it.
    pub control_change: Option<f64>,
    /// Confidence of every interval shown (simultaneous, compatible with Holm over the settings and the
    /// overall test).
    pub level: f64,
    /// Two separate sweeps with a control and its scaling estimated: the machine's change between them as
    /// the comparisons took it out (its slope, the control's gap, their errors).
    pub machine_shift: Option<SideShift>,
    /// Why no verdict about the compared thing stands, when the machine changed.
    pub machine_change: Option<MachineChange>,
}

/// The machine changed between the sides: every verdict is "cannot tell".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MachineChange {
    /// B/A of the control over the grid.
    pub control_change: f64,
    pub reason: MachineChangeReason,
}

/// What makes a change of the control a machine change the comparison cannot see through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MachineChangeReason {
    /// The control moved beyond `control_threshold`: another machine (or the compared thing moved it).
    BeyondControlThreshold,
    /// The control moved significantly and beyond the threshold, and nothing inside either sweep tells
    /// how the metric follows it: no slope, or one too imprecise (or not different from 0) to translate
    /// the control's move into the metric's within the threshold.
    NoSlope,
}

impl MachineChange {
    /// The machine change of a comparison, if any: the control's grid-wide B/A beyond
    /// `control_threshold`, or (two separate sweeps, scaling estimated) the control's side gap Δc̄ beyond
    /// the threshold and significant at alpha (z on Var(Δc̄)) while the slope cannot translate it: none,
    /// not different from 0 at alpha, or its error SE(θ̂)·|Δc̄| beyond the threshold.
    fn decide(control_change: Option<f64>, shift: Option<&SideShift>, config: &CompareConfig) -> Option<MachineChange> {
        let control_change = control_change?;
        if config.control_beyond_limit(control_change) {
            return Some(MachineChange { control_change, reason: MachineChangeReason::BeyondControlThreshold });
        }
        let shift = shift?;
        let gap = shift.control_gap;
        let beyond_threshold = |log_change: f64| log_change.abs() > config.threshold.ln_1p();
        let moved = beyond_threshold(gap) && two_sided_p(gap / shift.gap_variance.sqrt(), f64::INFINITY) < config.alpha;
        let slope_error = shift.slope_variance.sqrt();
        let untranslatable = !shift.has_slope()
            || beyond_threshold(slope_error * gap)
            || two_sided_p(shift.slope / slope_error, shift.slope_df) >= config.alpha;
        (moved && untranslatable).then_some(MachineChange { control_change, reason: MachineChangeReason::NoSlope })
    }
}

impl Comparison {
    /// Whether a setting, or the grid as a whole, regressed significantly beyond the threshold: the
    /// CLI's exit code 1.
    pub fn has_significant_regression(&self) -> bool {
        self.settings.iter().any(|s| s.verdict == Verdict::Regressed)
            || self.overall.as_ref().is_some_and(|o| o.verdict == Verdict::Regressed)
    }

    /// Holm's family: the settings that could be tested, and the overall effect.
    pub fn tests(&self) -> usize {
        self.settings.iter().filter(|s| s.p_value.is_some()).count() + usize::from(self.overall.is_some())
    }

    /// Settings whose control metric moved by more than the threshold between the sides: a change of
    /// machine speed rather than of the thing compared may explain their verdicts.
    pub fn control_moved(&self) -> Vec<&SettingComparison> {
        let threshold = self.config.threshold;
        self.settings.iter().filter(|s| s.control_ratio.is_some_and(|r| (r - 1.0).abs() > threshold)).collect()
    }

    /// Lists the joined and one-sided settings in declared grid order (`Setting::grid_rank`), as `report`
    /// lists a sweep's, not in the order A's runs happened to come in; as they are without a declaration.
    /// Only the listing changes: every test and Holm's correction were made over the whole family.
    pub fn sort_by_declaration(&mut self, declared: &[Param]) {
        if declared.is_empty() {
            return;
        }
        self.settings.sort_by_cached_key(|s| s.setting.grid_rank(declared));
        for settings in [&mut self.only_a, &mut self.only_b] {
            settings.sort_by_cached_key(|s| s.grid_rank(declared));
        }
    }
}

/// The grid-wide answer of a comparison, and whether one number describes every setting: B/A over all
/// joined settings by a random-effects meta-analysis of their per-setting effects.
#[derive(Debug, Clone, PartialEq)]
pub struct OverallChange {
    pub effects: RandomEffects,
    /// B/A with its simultaneous interval (the overall test is one more member of the Holm family).
    pub ratio: RatioInterval,
    pub p_adjusted: f64,
    /// Cochran's Q test of homogeneity: p ≥ 0.05 reads "consistent across settings".
    pub heterogeneity_p: f64,
    pub verdict: Verdict,
}

/// Below this Q-test p-value the settings' changes differ more than their noise explains.
pub const HETEROGENEITY_P: f64 = 0.05;

impl OverallChange {
    /// The meta-analysis on the model's scale as a ratio, judged like a setting (Holm-adjusted p below
    /// alpha and beyond the threshold; the grid's control change makes it "cannot tell").
    pub fn of(
        effects: RandomEffects,
        p_adjusted: f64,
        model: &SettingModel,
        level: f64,
        config: &CompareConfig,
    ) -> OverallChange {
        let as_comparison = RivalComparison {
            estimate: effects.estimate,
            std_error: effects.std_error,
            df: effects.df,
            runs: effects.settings,
            method: ComparisonMethod::Independent,
            pooled: None,
        };
        let ratio = model.ratio(&as_comparison, 1.0, level);
        let heterogeneity_p = ChiSquared::new(effects.df).map_or(1.0, |chi| chi.sf(effects.q));
        let verdict = judge(Some(ratio), Some(p_adjusted), None, config);
        OverallChange { effects, ratio, p_adjusted, heterogeneity_p, verdict }
    }

    /// The settings' changes are consistent with one common change.
    pub fn is_consistent(&self) -> bool {
        self.heterogeneity_p >= HETEROGENEITY_P
    }
}

/// Two recorded sweeps (e.g. CANN 8 and CANN 9, taken on different days), joined on exact equality of
/// setting vectors (all labels, `variant` included). Their rounds are not shared, and what the machine did
/// between the two days shows only in the control: within each side every run's control is a covariate
/// (time blocks as `report` cuts them), and the control's change between the sweeps is translated into the
/// primary's through the slope the blocks' drift shows (`across_days`).
pub fn compare<R: RecordedRun>(a: &[R], b: &[R], config: &CompareConfig) -> Comparison {
    let sides = [a, b];
    join(|side| sides[side].iter(), None, config, Rounds::Separate)
}

/// Two values of the parameter `by` inside one interleaved sweep (e.g. `cann = ["8.5", "9.0"]`): the
/// versions share rounds, so each setting (the other parameters) is compared within rounds.
/// (Without `rounds_are_blocks`, the sweep was not interleaved: independent samples.)
pub fn compare_within<R: RecordedRun>(
    observations: &[R],
    by: &str,
    values: [&str; 2],
    config: &CompareConfig,
    rounds_are_blocks: bool,
) -> Comparison {
    let side = |side: usize| {
        let value = values[side];
        observations.iter().filter(move |o| o.setting().value(by).is_some_and(|v| v.to_string() == value))
    };
    join(side, Some(by), config, Rounds::Shared { blocks: rounds_are_blocks })
}

/// Whether the two sides' rounds are the same rounds.
#[derive(Debug, Clone, Copy)]
enum Rounds {
    Shared { blocks: bool },
    Separate,
}

/// Judges every setting on both sides (`runs(0)` is A's runs, `runs(1)` B's, in file order, as often as
/// asked for): samples indexed 2j (A) and 2j + 1 (B) for the j-th joined setting in one `SettingModel`
/// (stragglers screened, control as a covariate, moderated variances), each B compared with its A, the
/// grid-wide change by DerSimonian-Laird over the settings, Holm over all of them.
fn join<'r, R, I>(
    runs: impl Fn(usize) -> I,
    without: Option<&str>,
    config: &CompareConfig,
    rounds: Rounds,
) -> Comparison
where
    R: RecordedRun + 'r,
    I: Iterator<Item = &'r R>,
{
    let [a, b] = [0, 1].map(|side| Side::group(runs(side), without, config));
    let joined: Vec<(usize, usize)> =
        (0..a.settings.len()).filter_map(|slot_a| Some((slot_a, b.find(&a.settings[slot_a].0)?))).collect();
    let mut compared = [vec![None; a.settings.len()], vec![None; b.settings.len()]];
    for (j, &(slot_a, slot_b)) in joined.iter().enumerate() {
        (compared[0][slot_a], compared[1][slot_b]) = (Some(2 * j), Some(2 * j + 1));
    }
    let measured = |j: usize| (&a.settings[joined[j].0].1, &b.settings[joined[j].1].1);
    let mut samples = Vec::with_capacity((0..joined.len()).map(|j| measured(j).0.n + measured(j).1.n).sum());
    a.samples(runs(0), &compared[0], config, 0, &mut samples);
    let offset = match rounds {
        Rounds::Separate => samples.iter().map(|s| s.round).max().unwrap_or(0) + 1,
        Rounds::Shared { .. } => 0,
    };
    b.samples(runs(1), &compared[1], config, offset, &mut samples);
    let paired = matches!(rounds, Rounds::Shared { blocks: true });
    let group_of: Vec<usize> = (0..2 * joined.len()).map(|index| index / 2).collect();
    let design = ModelDesign {
        settings: group_of.len(),
        group_of: &group_of,
        series_of: None,
        control: config.control.as_deref(),
        policy: ControlPolicy::Always,
        blocks: RoundBlocks::interleaved(paired),
        slow: Some(slow_side(config.direction)),
    };
    let (model, slope, machine_shift) = match rounds {
        Rounds::Separate => across_days(samples, design, config.control_scaling),
        Rounds::Shared { .. } => {
            let (model, slope) = SharedSlope::within(SettingModel::new(samples, design), joined.len());
            (model, slope, None)
        }
    };
    let tests: Vec<_> = (0..joined.len()).map(|j| slope.widened(model.compare(2 * j + 1, 2 * j), j)).collect();
    let tested: Vec<(usize, &RivalComparison)> =
        tests.iter().enumerate().filter_map(|(j, t)| Some((j, t.as_ref().ok()?))).collect();
    // The slope's error is one error shared by every setting: pooled separately from their own noise.
    let overall_effects: Vec<(f64, f64)> =
        tested.iter().map(|&(j, t)| (t.estimate, (t.std_error.powi(2) - slope.variance_of(j)).max(0.0))).collect();
    let gaps: Vec<f64> = tested.iter().map(|&(j, _)| slope.gaps[j]).collect();
    // Ratios pool across settings; differences in each setting's own unit do not.
    let meta = (model.scale == Scale::Log)
        .then(|| RandomEffects::fit(&overall_effects).map(|fit| slope.widen(fit, &overall_effects, &gaps)))
        .flatten();
    let mut p_values: Vec<f64> = tests.iter().flatten().map(|t| t.p_value()).collect();
    p_values.extend(meta.map(|m| m.p_value));
    let adjusted = holm_adjust(&p_values);
    let level = simultaneous_level(&adjusted, config.alpha);
    let mut overall =
        meta.map(|m| OverallChange::of(m, *adjusted.last().expect("the overall p"), &model, level, config));
    let mut holm = adjusted.into_iter();
    let mut settings: Vec<SettingComparison> = tests
        .into_iter()
        .enumerate()
        .map(|(j, test)| {
            let (side_a, side_b) = measured(j);
            let tested = test.as_ref().ok();
            let reference = side_a.mean();
            let p_adjusted = tested.map(|_| holm.next().expect("one adjusted p per test"));
            let significant = p_adjusted.is_some_and(|p| p < config.alpha);
            let ratio =
                tested.zip(reference).map(|(t, reference)| model.ratio(t, reference, level).cut_at_one(significant));
            let marginal = tested.zip(reference).map(|(t, reference)| model.ratio(t, reference, 0.95));
            let control_ratio = side_b.control_mean().zip(side_a.control_mean()).map(|(b, a)| b / a);
            SettingComparison {
                setting: a.settings[joined[j].0].0.clone(),
                n_a: side_a.n,
                n_b: side_b.n,
                mean_a: side_a.mean(),
                mean_b: side_b.mean(),
                ratio,
                marginal,
                p_value: tested.map(|t| t.p_value()),
                p_adjusted,
                df: tested.map(|t| t.df),
                method: tested.map(|t| t.method),
                reason: test.err(),
                control_ratio,
                verdict: judge(ratio, p_adjusted, control_ratio, config),
            }
        })
        .collect();
    let control_change = geometric_mean(settings.iter().filter_map(|s| s.control_ratio));
    let machine_change = MachineChange::decide(control_change, machine_shift.as_ref(), config);
    if machine_change.is_some() {
        let verdicts = settings.iter_mut().map(|s| &mut s.verdict).chain(overall.as_mut().map(|o| &mut o.verdict));
        verdicts.filter(|v| **v != Verdict::Insufficient).for_each(|v| *v = Verdict::MachineChanged);
    }
    Comparison {
        config: config.clone(),
        only_a: a.unmatched(&b),
        only_b: b.unmatched(&a),
        settings,
        design: if paired { ComparisonMethod::Blocked } else { ComparisonMethod::Independent },
        model,
        overall,
        control_change,
        level,
        machine_shift,
        machine_change,
    }
}

/// The model of two separate sweeps (e.g. two days), their rounds numbered apart, and what the machine did
/// between them.
///
/// Within each side: log metric ~ setting + time block + θ_w · log control, every run's own control a
/// covariate (`SettingModel`, as `report` fits one sweep), which takes drift inside a block out of every
/// setting's noise. θ_w is attenuated by the control's own noise, the right weight for one run's reading
/// but not for the control's gap between the sides, a mean of many runs: that gap is translated through
/// the de-attenuated slope of the blocks' effects (`SideShift`), its error shared by every setting. Each
/// B − A (the model's, Δȳ − θ_w Δc̄ⱼ) is lowered by (θ − θ_w) Δc̄, so that θ_w acts only on the setting's
/// control gap about the sides' Δc̄, and its slope term becomes (Δc̄ⱼ − Δc̄)² Var(θ̂_w). Without a block
/// slope (no control, or blocks it does not see move) nothing is lowered and the sides' unexplained levels
/// are the shared error. With `ControlScaling::Proportional` the metric over its run's control is
/// compared instead (slope 1), the shared error its sides' levels.
fn across_days(
    samples: Vec<RunSample>,
    design: ModelDesign,
    scaling: ControlScaling,
) -> (SettingModel, SharedSlope, Option<SideShift>) {
    let design = ModelDesign { blocks: RoundBlocks::TimeBlocks, ..design };
    let scale = Scale::for_values(samples.iter().map(|s| s.value));
    let settings = design.settings / 2;
    let side_of = |setting: usize| setting % 2;
    let proportional = scaling == ControlScaling::Proportional
        && design.control.is_some()
        && scale == Scale::Log
        && samples.iter().all(|s| s.control.is_some_and(|c| c > 0.0));
    if proportional {
        let relative: Vec<RunSample> = samples
            .into_iter()
            .map(|s| RunSample { value: s.value / s.control.unwrap_or(1.0), control: None, ..s })
            .collect();
        let levels = SideShift::estimate(scale, &relative, side_of, false);
        let model = SettingModel::on_scale(scale, relative, ModelDesign { control: None, ..design });
        return (model, SharedSlope::levels(levels, settings), None);
    }
    let shift = SideShift::estimate(scale, &samples, side_of, design.control.is_some());
    let model = SettingModel::on_scale(scale, samples, design);
    let Some(shift) = shift else { return (model, SharedSlope::levels(None, settings), None) };
    let mut shared = SharedSlope::levels(Some(shift), settings);
    if shift.has_slope() {
        let (within, within_variance) = model.adjustment.as_ref().map_or((0.0, 0.0), |a| (a.slope, a.slope_variance));
        shared.corrections = (0..settings)
            .map(|j| {
                let gap = model.control_level(2 * j + 1) - model.control_level(2 * j);
                let variance = ((gap - shift.control_gap).powi(2) - gap.powi(2)) * within_variance;
                ((shift.slope - within) * shift.control_gap, variance)
            })
            .collect();
    }
    let machine_shift = design.control.is_some().then_some(shift);
    (model, shared, machine_shift)
}

/// The control adjustment's error as the comparisons carry it: one error shared by every setting, in
/// proportion to its gap.
struct SharedSlope {
    /// Var(θ̂) of the slope the comparisons were adjusted by (across days: of the whole side shift θ Δc̄
    /// with the sides' unexplained levels).
    variance: f64,
    /// Per joined setting, the control's level difference between B and A (across days: 1 for every
    /// setting, which all got the same shift).
    gaps: Vec<f64>,
    /// The comparisons do not include gap² · variance yet (across days: the model does not know the shift).
    added: bool,
    /// Per joined setting, what its B − A is lowered by beyond the model's own adjustment and what its
    /// variance changes by (across days: the shift's part the per-run slope left, `across_days`).
    corrections: Vec<(f64, f64)>,
}

impl SharedSlope {
    /// Within one sweep the model carries the slope itself (`SettingModel::compare`).
    fn within(model: SettingModel, settings: usize) -> (SettingModel, SharedSlope) {
        let variance = model.adjustment.as_ref().map_or(0.0, |a| a.slope_variance);
        let gaps = (0..settings).map(|j| model.control_level(2 * j + 1) - model.control_level(2 * j)).collect();
        (model, SharedSlope { variance, gaps, added: false, corrections: vec![(0.0, 0.0); settings] })
    }

    /// Across days: the shift's variance (none without a shift) added to every setting, nothing lowered yet.
    fn levels(shift: Option<SideShift>, settings: usize) -> SharedSlope {
        SharedSlope {
            variance: shift.map_or(0.0, |s| s.variance()),
            gaps: vec![1.0; settings],
            added: true,
            corrections: vec![(0.0, 0.0); settings],
        }
    }

    /// The slope's part of setting j's variance, Δc̄² Var(θ̂).
    fn variance_of(&self, j: usize) -> f64 {
        self.gaps[j].powi(2) * self.variance
    }

    /// A comparison lowered by its correction, with the slope's part added when the fit could not carry it.
    fn widened(&self, test: Result<RivalComparison, NoTest>, j: usize) -> Result<RivalComparison, NoTest> {
        let (lowered, changed) = self.corrections[j];
        let added = if self.added { self.variance_of(j) } else { 0.0 };
        test.map(|t| {
            if (lowered, changed, added) == (0.0, 0.0, 0.0) {
                return t;
            }
            let widen = |se: f64| (se.powi(2) + changed + added).max(0.0).sqrt();
            let pooled = t.pooled.map(|(se, df)| (widen(se), df));
            RivalComparison { estimate: t.estimate - lowered, std_error: widen(t.std_error), pooled, ..t }
        })
    }

    /// The pooled change with the shared slope error added once: (Σ w*Δc̄ / Σ w*)² Var(θ̂), the weights
    /// those of the random-effects fit.
    fn widen(&self, mut fit: RandomEffects, effects: &[(f64, f64)], gaps: &[f64]) -> RandomEffects {
        let weights: Vec<f64> = effects.iter().map(|(_, v)| 1.0 / (v + fit.tau2)).collect();
        let gap = weights.iter().zip(gaps).map(|(w, g)| w * g).sum::<f64>() / weights.iter().sum::<f64>();
        fit.std_error = (fit.std_error.powi(2) + gap * gap * self.variance).sqrt();
        fit.p_value = crate::analyse::two_sided_p(fit.estimate / fit.std_error, fit.df);
        fit
    }
}

/// exp(mean ln xᵢ), None without values.
fn geometric_mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.filter(|v| *v > 0.0).fold((0.0, 0usize), |(sum, n), v| (sum + v.ln(), n + 1));
    (n > 0).then(|| (sum / n as f64).exp())
}

/// One side's runs, measured per setting (first-seen order), in one pass in file order.
struct Side {
    settings: Vec<(Setting, Measured)>,
    /// A recorded setting's index into `settings`.
    slots: SettingIndex,
}

impl Side {
    /// Measures runs per setting, the settings without the `without` param (the one that tells the sides
    /// apart). A setting is cut once per distinct recorded setting, not once per run.
    fn group<'r, R: RecordedRun + 'r>(
        runs: impl Iterator<Item = &'r R>,
        without: Option<&str>,
        config: &CompareConfig,
    ) -> Side {
        let mut settings: Vec<(Setting, Measured)> = Vec::new();
        let mut index: HashMap<Setting, usize> = HashMap::new();
        let mut slots = SettingIndex::default();
        for run in runs {
            let slot = slots.get_or_insert_with(run.setting_id(), || {
                let setting = run.setting().without(|name| Some(name) == without);
                *index.entry(setting.clone()).or_insert_with(|| {
                    settings.push((setting, Measured::default()));
                    settings.len() - 1
                })
            });
            settings[slot].1.add(run, config);
        }
        Side { settings, slots }
    }

    /// Appends the samples of `runs` (this side's, again) whose setting is compared, as `compared[slot]`,
    /// their rounds shifted by `round_offset` (the other side's rounds when the sides share none).
    fn samples<'r, R: RecordedRun + 'r>(
        &self,
        runs: impl Iterator<Item = &'r R>,
        compared: &[Option<usize>],
        config: &CompareConfig,
        round_offset: u32,
        samples: &mut Vec<RunSample>,
    ) {
        for run in runs.filter(|run| run.is_usable()) {
            let Some(setting) = self.slots.get(run.setting_id()).and_then(|slot| compared[slot]) else { continue };
            if let Some(value) = run.metric(&config.metric) {
                let control = config.control.as_deref().and_then(|c| run.metric(c));
                samples.push(RunSample { setting, round: run.rep() + round_offset, value, control });
            }
        }
    }

    fn find(&self, setting: &Setting) -> Option<usize> {
        self.settings.iter().position(|(known, _)| known == setting)
    }

    fn unmatched(&self, other: &Side) -> Vec<Setting> {
        self.settings.iter().filter(|(setting, _)| other.find(setting).is_none()).map(|(s, _)| s.clone()).collect()
    }
}

/// What one side's usable runs of one setting measured.
#[derive(Debug, Clone, Default)]
struct Measured {
    /// Usable runs that reported the compared metric, and its sum over them.
    n: usize,
    metric_sum: f64,
    /// The control's sum and count over the usable runs that reported it.
    control_sum: f64,
    controls: usize,
}

impl Measured {
    fn add<R: RecordedRun>(&mut self, run: &R, config: &CompareConfig) {
        if !run.is_usable() {
            return;
        }
        if let Some(control) = config.control.as_deref().and_then(|c| run.metric(c)) {
            self.control_sum += control;
            self.controls += 1;
        }
        if let Some(value) = run.metric(&config.metric) {
            self.metric_sum += value;
            self.n += 1;
        }
    }

    fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.metric_sum / self.n as f64)
    }

    fn control_mean(&self) -> Option<f64> {
        (self.controls > 0).then(|| self.control_sum / self.controls as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_sweep, fixture_slice_sweep_b};
    use crate::compare::fixture_compare_config;
    use crate::declare::ParamValue;
    use crate::record::Observation;

    #[test]
    fn join_on_settings_and_flag_the_regression() {
        let comparison = compare(&fixture_slice_sweep(), &fixture_slice_sweep_b(), &fixture_compare_config());
        assert_eq!(comparison.settings.len(), 5);
        let verdicts: Vec<Verdict> = comparison.settings.iter().map(|s| s.verdict).collect();
        use Verdict::*;
        assert_eq!(
            verdicts,
            vec![NoSignificantChange, Regressed, NoSignificantChange, NoSignificantChange, NoSignificantChange]
        );
        assert_eq!(comparison.only_a.len(), 2);
        assert_eq!(comparison.only_b, vec![fixture_slice_sweep_b().last().unwrap().setting.clone()]);
        assert!(comparison.has_significant_regression());
        // Five settings and the grid's overall change, one Holm family.
        assert_eq!((comparison.tests(), comparison.design), (6, ComparisonMethod::Independent));
        assert!(comparison.overall.as_ref().is_some_and(|o| !o.is_consistent()), "one setting changed, the rest not");
        let regressed = &comparison.settings[1];
        assert!(regressed.p_adjusted.unwrap() >= regressed.p_value.unwrap(), "Holm never lowers a p-value");
        assert!((regressed.ratio.unwrap().ratio - 0.9).abs() < 1e-3);
    }

    #[test]
    fn identical_sweeps_do_not_regress() {
        let comparison = compare(&fixture_slice_sweep(), &fixture_slice_sweep(), &fixture_compare_config());
        assert!(!comparison.has_significant_regression());
        assert!(comparison.settings.iter().all(|s| s.p_value == Some(1.0)));
        assert!(comparison.only_a.is_empty() && comparison.only_b.is_empty());
    }

    #[test]
    fn variant_is_part_of_the_join() {
        let a = [fixture_observation(&[("rows", "1"), ("variant", "baseline")], 1, &[])];
        let b = [fixture_observation(&[("rows", "1"), ("variant", "other")], 1, &[])];
        let comparison = compare(&a, &b, &fixture_compare_config());
        assert!(comparison.settings.is_empty());
        assert_eq!((comparison.only_a.len(), comparison.only_b.len()), (1, 1));
    }

    /// A machine 6x slower for B on everything, with drift inside each sweep that the control tracks:
    /// the control explains the change, so B is not "regressed" everywhere (it was before the control
    /// was used), and the control's own ratio is reported.
    #[test]
    fn a_slower_machine_is_not_a_regression_when_the_control_explains_it() {
        let side = |speed: f64| -> Vec<Observation> {
            let mut runs = Vec::new();
            for rep in 1..=4u32 {
                for rows in ["512", "1024"] {
                    let drift = 1.0 + 0.2 * ((rep as f64) * 1.7 + rows.len() as f64).sin();
                    let metrics = [("prefill_tokens_per_s", 1000.0 * speed * drift), ("decode", 9.0 * speed * drift)];
                    runs.push(fixture_observation(&[("rows", rows)], rep, &metrics));
                }
            }
            runs
        };
        let with_control = CompareConfig { control: Some("decode".into()), ..fixture_compare_config() };
        let comparison = compare(&side(1.0), &side(1.0 / 6.0), &with_control);
        assert!(!comparison.has_significant_regression(), "{:?}", comparison.settings);
        assert!(comparison.settings.iter().all(|s| (s.control_ratio.unwrap() - 1.0 / 6.0).abs() < 1e-9));
        assert_eq!(comparison.control_moved().len(), 2);
        assert!(compare(&side(1.0), &side(1.0 / 6.0), &fixture_compare_config()).has_significant_regression());
    }

    /// `compare` of the main job (slices in ["rule", 1, 2, 4] x rows) listed its settings in the order A's
    /// runs came in, not the declared grid's that `report` lists them in.
    #[test]
    fn compare_lists_settings_in_grid_order_not_run_order() {
        let side = |settings: &[&str]| -> Vec<Observation> {
            let runs = (1..=3u32).flat_map(|rep| settings.iter().map(move |setting| (setting, rep)));
            let run = |(setting, rep): (&&str, u32)| {
                let (slices, rows) = setting.split_once('/').expect("slices/rows");
                let value = 1000.0 + f64::from(rep * rep);
                fixture_observation(&[("slices", slices), ("rows", rows)], rep, &[("prefill_tokens_per_s", value)])
            };
            runs.map(run).collect()
        };
        let a = side(&["4/1024", "rule/1024", "1/512", "4/512", "rule/512", "2/1024"]);
        let b = side(&["rule/512", "2/512", "1/1024", "4/1024", "1/512", "2/1024", "rule/1024"]);
        let declared = [
            Param {
                name: "slices".into(),
                values: ["rule", "1", "2", "4"].map(ParamValue::infer).into(),
                is_list: true,
            },
            Param { name: "rows".into(), values: ["512", "1024"].map(ParamValue::infer).into(), is_list: true },
        ];
        let mut comparison = compare(&a, &b, &fixture_compare_config());
        comparison.sort_by_declaration(&declared);
        let texts =
            |settings: Vec<&Setting>| settings.into_iter().map(|s| s.value_texts().join("/")).collect::<Vec<_>>();
        let joined = texts(comparison.settings.iter().map(|s| &s.setting).collect());
        assert_eq!(joined, ["rule/512", "rule/1024", "1/512", "2/1024", "4/1024"]);
        assert_eq!(texts(comparison.only_a.iter().collect()), ["4/512"]);
        assert_eq!(texts(comparison.only_b.iter().collect()), ["1/1024", "2/512"]);
    }

    #[test]
    fn within_one_sweep_the_versions_are_paired_by_round() {
        let mut runs = Vec::new();
        for rep in 1..=3u32 {
            let drift = [1.0, 0.7, 1.2][rep as usize - 1];
            for (cann, speed) in [("8.5", 1.0), ("9.5", 0.95)] {
                for (rows, base) in [("512", 880.0), ("1024", 1140.0)] {
                    let noise = 1.0 + 0.001 * f64::from(rep) * if cann == "8.5" { 1.0 } else { -1.0 };
                    let tps = base * speed * drift * noise;
                    runs.push(fixture_observation(
                        &[("cann", cann), ("rows", rows)],
                        rep,
                        &[("prefill_tokens_per_s", tps)],
                    ));
                }
            }
        }
        let comparison = compare_within(&runs, "cann", ["8.5", "9.5"], &fixture_compare_config(), true);
        assert_eq!(comparison.design, ComparisonMethod::Blocked);
        assert_eq!(comparison.settings.len(), 2);
        assert!(comparison.settings.iter().all(|s| s.verdict == Verdict::Regressed), "{:?}", comparison.settings);
        // The same runs as two unpaired sweeps: the ±25% round-to-round drift swamps the 5% change.
        let (a, b): (Vec<Observation>, Vec<Observation>) =
            runs.iter().cloned().partition(|o| o.setting.value("cann").is_some_and(|v| v.to_string() == "8.5"));
        let strip = |runs: Vec<Observation>| -> Vec<Observation> {
            runs.into_iter()
                .map(|mut o| {
                    o.setting.values.retain(|(name, _)| name != "cann");
                    o
                })
                .collect()
        };
        assert!(!compare(&strip(a), &strip(b), &fixture_compare_config()).has_significant_regression());
    }
}

#[cfg(test)]
mod family_wise {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::analyse::fixtures::fixture_observation;
    use crate::record::Observation;

    /// One A/A side: 50 settings x 3 reps of the same truth with 1% lognormal noise, decode as control.
    fn side(rng: &mut ChaCha8Rng) -> Vec<Observation> {
        let mut normal = || -> f64 {
            let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let mut runs = Vec::new();
        for rep in 1..=3u32 {
            for setting in 0..50 {
                let value = (1000.0 + 5.0 * f64::from(setting)) * (0.01 * normal()).exp();
                let control = 10.0 * (0.01 * normal()).exp();
                let label = setting.to_string();
                runs.push(fixture_observation(&[("k", &label)], rep, &[("tps", value), ("decode", control)]));
            }
        }
        runs
    }

    /// Without Holm, 10% of A/A pairs flagged something, growing with the grid; with it, at most alpha. (A
    /// control that moved by chance with no slope to translate it is "cannot tell", not a claim.)
    #[test]
    fn a_a_comparisons_of_50_settings_flag_anything_in_at_most_alpha_of_trials() {
        let config = CompareConfig {
            metric: "tps".into(),
            direction: crate::analyse::Direction::Higher,
            threshold: 0.0,
            alpha: 0.05,
            control: Some("decode".into()),
            control_threshold: crate::compare::DEFAULT_CONTROL_THRESHOLD,
            control_scaling: ControlScaling::Estimated,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let trials = 300;
        let flagged = (0..trials)
            .filter(|_| {
                let (a, b) = (side(&mut rng), side(&mut rng));
                let claims = [Verdict::Regressed, Verdict::Improved];
                compare(&a, &b, &config).settings.iter().any(|s| claims.contains(&s.verdict))
            })
            .count();
        // Binomial(300, 0.05): mean 15, sd 3.8.
        assert!(flagged <= 26, "{flagged} of {trials} A/A trials flagged a setting");
    }
}
