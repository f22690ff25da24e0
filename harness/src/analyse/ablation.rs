//! Ablation effects: each group's delta against the shipped kernel, the joint delta, and additivity.

use super::no_test::NoTest;
use super::round_blocks::RoundBlocks;
use super::run_sample::RunSample;
use super::scale::Scale;
use super::setting_model::{ControlPolicy, ModelDesign, SettingModel};
use super::setting_summary::{first_seen_groups, Labels};
use super::straggler::SlowSide;
use super::summary_stats::SummaryStats;
use crate::declare::{AdditivityScale, VariantName};
use crate::record::RecordedRun;
use crate::student_t::one_sided_critical;

/// Per-variant statistics of an ablation and, when the design allows, its effects.
#[derive(Debug, Clone, PartialEq)]
pub struct AblationAnalysis {
    /// Ablation groups in declaration order.
    pub groups: Vec<String>,
    /// Metrics in the order asked for; the first is the scope timing effects are computed on.
    pub metrics: Vec<String>,
    /// Relative tolerance of the additivity test.
    pub tolerance: f64,
    /// The scale of every delta and interaction: linear (differences in the metric's unit add) or log
    /// (ratios to the baseline multiply, every contrast of log values). The question's, unless the values
    /// leave no log model (a value at or below 0): then linear.
    pub scale: AdditivityScale,
    /// Variants that have usable runs, in design order: baseline, single groups, pairs, ..., all.
    pub variants: Vec<VariantSummary>,
    pub effects: AblationEffects,
}

/// What an ablation's analysis is asked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AblationQuestion {
    /// The interaction that still counts as additive, relative to the all-groups delta (linear) or as a
    /// ratio of ratios (log), e.g. 0.05.
    pub tolerance: f64,
    /// The level of every additivity test.
    pub alpha: f64,
    pub scale: AdditivityScale,
    /// Variants ran interleaved: rounds are blocks of the model.
    pub rounds_are_blocks: bool,
    /// The side a straggler of the scope metric is on, when its direction is known.
    pub slow: Option<SlowSide>,
}

/// One variant: the groups it ablates, each metric's statistics over its usable runs, and its delta.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantSummary {
    pub variant: VariantName,
    /// Aligned with `AblationAnalysis::metrics`; None when no usable run reported that metric.
    pub metrics: Vec<Option<SummaryStats>>,
    /// The scope metric against the baseline, from the one model the effects come from; None for the
    /// baseline itself and without a measured baseline.
    pub delta: Option<VariantDelta>,
}

/// A variant's delta against the baseline: the estimate the variant table prints and the additivity
/// line adds up (the same value, so the two cannot disagree), robust and within rounds like every effect.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VariantDelta {
    /// On `AblationAnalysis::scale`: a difference in the metric's unit, or a log ratio.
    pub contrast: LinearContrast,
    /// The delta as a fraction of the baseline's model level (linear), or the ratio less 1 (log).
    pub relative: f64,
}

/// An interval wider than this share of its delta knows the delta's size to no better than a factor of 3
/// (half the delta to one and a half times it): worth saying, as more reps would narrow it.
const WIDE_INTERVAL: f64 = 0.5;

/// Effects need the baseline, every group alone and all groups together.
#[derive(Debug, Clone, PartialEq)]
pub enum AblationEffects {
    /// Variants the design needs that have no usable measurement of the scope metric.
    NotEnoughData {
        missing: Vec<String>,
    },
    /// No metrics were asked for, so there is no scope metric to take effects on.
    NoScopeMetric,
    Measured(Box<Additivity>),
}

/// Deltas of the scope metric against the baseline and whether they add up.
#[derive(Debug, Clone, PartialEq)]
pub struct Additivity {
    pub metric: String,
    pub baseline_mean: f64,
    /// Each group ablated alone, minus baseline, in declaration order: those variants' `delta`s.
    pub singles: Vec<(String, LinearContrast)>,
    /// All groups ablated, minus baseline: that variant's `delta`.
    pub all: LinearContrast,
    /// Σ singleᵢ − k·baseline: the single deltas' sum, with its interval.
    pub sum_of_singles: LinearContrast,
    /// all − Σ singles (= all − Σ singleᵢ + (k−1)·baseline as a contrast of means).
    pub interaction: LinearContrast,
    /// Two-factor interactions, only for a full 2^k factorial with k > 2 (for k = 2 the single
    /// pairwise interaction is `interaction` itself).
    pub pairwise: Vec<PairInteraction>,
    /// The margin the interactions are judged against, on the contrasts' scale.
    pub margin: f64,
    /// The level of the tests (alpha), and the residual df of the model behind them.
    pub alpha: f64,
    pub residual_df: f64,
    pub verdict: AdditivityVerdict,
}

/// A two-factor interaction of a 2^k factorial ablation.
#[derive(Debug, Clone, PartialEq)]
pub struct PairInteraction {
    pub groups: (String, String),
    pub interaction: LinearContrast,
    /// This pair judged by the same test as the overall interaction.
    pub judged: Interaction,
}

/// One interaction judged against the margin by level-alpha tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interaction {
    /// Its 1 − 2·alpha interval lies within ± margin (two one-sided tests, Schuirmann 1987).
    Within,
    /// Its interval, at the level Bonferroni leaves each interaction, lies wholly beyond ± margin: a
    /// one-sided test that the interaction exceeds the tolerance.
    Beyond,
    /// Neither: the interval is too wide, or there is none (one rep, no residual df).
    Unclear,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AdditivityVerdict {
    /// Every interaction is shown to be within the tolerance.
    Additive,
    /// The groups that interact: for two groups both; for a factorial those in non-additive pairs;
    /// otherwise (one-at-a-time design, or only higher-order interaction) every group.
    NotAdditive { interacting: Vec<String> },
    /// The data cannot tell: an interval too wide for the tolerance, or no interval at all.
    CannotTell,
}

impl Additivity {
    /// The interaction as a fraction of the all-groups delta (linear), or as the ratio of the joint ratio
    /// to the product of the single ratios, less 1 (log); `scale` the analysis's.
    pub fn relative_interaction(&self, scale: AdditivityScale) -> f64 {
        self.relative_of(scale, self.interaction.estimate)
    }

    /// An interaction (or a bound of one) on the scale the tolerance is stated in.
    pub fn relative_of(&self, scale: AdditivityScale, interaction: f64) -> f64 {
        match scale {
            AdditivityScale::Linear => interaction / self.all.estimate.abs(),
            AdditivityScale::Log => interaction.exp_m1(),
        }
    }
}

impl AblationAnalysis {
    /// The variant whose delta's 95% interval is widest relative to the delta, with that half-width as a
    /// share of it, when above `WIDE_INTERVAL`.
    pub fn widest_interval(&self) -> Option<(&VariantSummary, f64)> {
        self.variants
            .iter()
            .filter_map(|variant| {
                let contrast = variant.delta?.contrast;
                Some((variant, contrast.ci95? / contrast.estimate.abs()))
            })
            .filter(|(_, share)| share.is_finite() && *share > WIDE_INTERVAL)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// Analyse an ablation. Per variant, descriptive statistics with Student's t 95% intervals of every
/// metric. On the first metric, one `SettingModel` over the variants (rounds as blocks when they ran
/// interleaved, stragglers screened, Huber M-estimates, moderated variances, residual df): every variant's
/// delta vs baseline (the singles and the all-groups delta among them, whatever else reads them), the
/// sum of the singles, the interaction all − Σ singles and, for a full 2^k factorial
/// (k > 2), every two-factor interaction by the classical factorial contrast (Yates; Montgomery, *Design
/// and Analysis of Experiments*, ch. 6), averaged over the other groups' levels and scaled to the k = 2
/// form y_ab − y_a − y_b + y_(1). On the log scale every contrast is of log values (ratios multiply). An
/// interaction is within the tolerance when its 1 − 2·alpha interval lies inside ± margin (two one-sided
/// tests), beyond it when its interval at 1 − 2·alpha/m (m interactions judged) lies wholly outside, and
/// unclear otherwise: both claims are level-alpha tests. Only usable runs count; other setting labels
/// than `variant` are ignored (one measurement point).
pub fn analyse_ablation_runs<R: RecordedRun>(
    observations: &[R],
    groups: &[String],
    metrics: &[String],
    question: &AblationQuestion,
) -> AblationAnalysis {
    let mut variants: Vec<VariantSummary> = measured_variants(observations, groups)
        .into_iter()
        .map(|variant| VariantSummary::of(observations, variant, metrics))
        .filter(|v| v.metrics.iter().any(Option::is_some))
        .collect();
    let (scale, deltas, effects) = match metrics.first() {
        None => (question.scale, Vec::new(), AblationEffects::NoScopeMetric),
        Some(scope) => Design { groups, variants: &variants, question }.measure(observations, scope),
    };
    for (variant, delta) in variants.iter_mut().zip(deltas) {
        variant.delta = delta;
    }
    let tolerance = question.tolerance;
    AblationAnalysis { groups: groups.to_vec(), metrics: metrics.to_vec(), tolerance, scale, variants, effects }
}

/// An ablation per `group_by` setting (e.g. per row count): the same analysis over each group's runs,
/// groups in first-seen order. Empty without grouping or when every run is in one group, where the
/// pooled `analyse_ablation_runs` says it all.
pub fn analyse_ablation_by_group<R: RecordedRun + Clone>(
    runs: &[R],
    group_by: &[String],
    groups: &[String],
    metrics: &[String],
    question: &AblationQuestion,
) -> Vec<(Labels, AblationAnalysis)> {
    let grouped = first_seen_groups(runs.iter().map(|run| {
        let labels: Labels = run.setting().values.iter().filter(|(name, _)| group_by.contains(name)).cloned().collect();
        (labels, run.clone())
    }));
    if grouped.len() < 2 {
        return Vec::new();
    }
    grouped
        .into_iter()
        .map(|(labels, members)| (labels, analyse_ablation_runs(&members, groups, metrics, question)))
        .collect()
}

impl VariantSummary {
    fn of<R: RecordedRun>(observations: &[R], variant: VariantName, metrics: &[String]) -> VariantSummary {
        let name = variant.to_string();
        let runs: Vec<&R> = observations.iter().filter(|o| o.is_usable() && o.variant() == name).collect();
        let metrics = metrics
            .iter()
            .map(|metric| SummaryStats::of(&mut runs.iter().filter_map(|o| o.metric(metric)).collect::<Vec<_>>()))
            .collect();
        VariantSummary { variant, metrics, delta: None }
    }

    fn scope(&self) -> Option<&SummaryStats> {
        self.metrics.first()?.as_ref()
    }
}

/// The variants recorded, in design order: by size, then declaration order (baseline first, all
/// groups last). Names that are not `baseline` or known groups joined by `+` in declaration order
/// belong to no design and are left out.
fn measured_variants<R: RecordedRun>(observations: &[R], groups: &[String]) -> Vec<VariantName> {
    let parsed = observations.iter().filter_map(|o| Some((VariantName::parse(o.variant(), groups)?, ())));
    let mut variants: Vec<VariantName> = first_seen_groups(parsed).into_iter().map(|(variant, _)| variant).collect();
    variants.sort_by_cached_key(|variant| (variant.ablated().len(), variant.group_indices(groups)));
    variants
}

/// The ablated set of a group ablated alone.
fn alone(group: &str) -> Vec<String> {
    vec![group.to_string()]
}

/// The measured variants of one ablation, queried by which groups they ablate.
struct Design<'a> {
    groups: &'a [String],
    variants: &'a [VariantSummary],
    question: &'a AblationQuestion,
}

impl Design<'_> {
    fn index_of(&self, ablated: &[String]) -> Option<usize> {
        self.variants.iter().position(|v| v.variant.ablated() == ablated && v.scope().is_some())
    }

    /// Baseline, each group alone and all together, without a scope measurement.
    fn missing_for_effects(&self) -> Vec<String> {
        let mut needed = vec![vec![]];
        needed.extend(self.groups.iter().map(|g| alone(g)));
        needed.push(self.groups.to_vec());
        needed.dedup();
        needed
            .iter()
            .filter(|ablated| self.index_of(ablated).is_none())
            .map(|a| VariantName::ablating(a.clone()).to_string())
            .collect()
    }

    /// One model of the scope metric; from it the scale, every variant's delta against the baseline
    /// (aligned with the variants) and, when the design has every variant they need, the effects.
    fn measure<R: RecordedRun>(
        &self,
        observations: &[R],
        scope: &str,
    ) -> (AdditivityScale, Vec<Option<VariantDelta>>, AblationEffects) {
        let missing = self.missing_for_effects();
        let Some(baseline) = self.index_of(&[]) else {
            return (self.question.scale, Vec::new(), AblationEffects::NotEnoughData { missing });
        };
        let model = self.model(observations, scope);
        let deltas: Vec<Option<VariantDelta>> = (0..self.variants.len())
            .map(|index| {
                let measured = index != baseline && self.variants[index].scope().is_some();
                measured.then(|| self.variant_delta(&model, index, baseline))
            })
            .collect();
        let effects = if missing.is_empty() {
            AblationEffects::Measured(Box::new(self.additivity(scope, &model, &deltas)))
        } else {
            AblationEffects::NotEnoughData { missing }
        };
        (self.scale(&model), deltas, effects)
    }

    /// The question's scale when the model is on log values; linear when the values allow no log model.
    fn scale(&self, model: &SettingModel) -> AdditivityScale {
        match model.scale {
            Scale::Log => self.question.scale,
            Scale::Linear => AdditivityScale::Linear,
        }
    }

    /// `variant` − `baseline`, with the delta relative to the baseline's level in the metric's unit
    /// (exp of its log level for a log model), or as the ratio less 1 on the log scale.
    fn variant_delta(&self, model: &SettingModel, variant: usize, baseline: usize) -> VariantDelta {
        let contrast = self.contrast(model, &[(variant, 1.0), (baseline, -1.0)]);
        let relative = match (self.scale(model), model.scale) {
            (AdditivityScale::Log, _) => contrast.estimate.exp_m1(),
            (AdditivityScale::Linear, Scale::Log) => contrast.estimate / model.mean(baseline).exp(),
            (AdditivityScale::Linear, Scale::Linear) => contrast.estimate / model.mean(baseline),
        };
        VariantDelta { contrast, relative }
    }

    /// The model of the scope metric over the variants (each variant one setting).
    fn model<R: RecordedRun>(&self, observations: &[R], scope: &str) -> SettingModel {
        let names: Vec<String> = self.variants.iter().map(|v| v.variant.to_string()).collect();
        let samples: Vec<RunSample> = observations
            .iter()
            .filter(|o| o.is_usable())
            .filter_map(|o| {
                let setting = names.iter().position(|name| name == o.variant())?;
                Some(RunSample { setting, round: o.rep(), value: o.metric(scope)?, control: None })
            })
            .collect();
        // Drift multiplies timings, so the model is fitted on log values whenever it can be; linear deltas
        // are then taken of its levels by the delta method (`LinearContrast::of`).
        let group_of = vec![0; self.variants.len()];
        let design = ModelDesign {
            settings: self.variants.len(),
            group_of: &group_of,
            series_of: None,
            control: None,
            policy: ControlPolicy::Always,
            blocks: RoundBlocks::interleaved(self.question.rounds_are_blocks),
            slow: self.question.slow,
        };
        SettingModel::new(samples, design)
    }

    fn is_factorial(&self) -> bool {
        let measured = self.variants.iter().filter(|v| v.scope().is_some()).count();
        u32::try_from(self.groups.len()).ok().and_then(|k| 1usize.checked_shl(k)) == Some(measured)
    }

    /// Σ cᵢ·μ̂ᵢ over variants named by the groups they ablate; weights of the same variant add (with one
    /// group, "all" is the single).
    fn contrast_of(&self, model: &SettingModel, weights: &[(Vec<String>, f64)]) -> LinearContrast {
        let indexed = weights
            .iter()
            .map(|(ablated, weight)| (self.index_of(ablated).expect("effects need every variant they weigh"), *weight));
        let merged: Vec<(usize, f64)> = first_seen_groups(indexed)
            .into_iter()
            .map(|(index, weights)| (index, weights.into_iter().reduce(|total, weight| total + weight).unwrap_or(0.0)))
            .collect();
        self.contrast(model, &merged)
    }

    /// Σ cᵢ·μ̂ᵢ over variant indices, on the analysis's scale.
    fn contrast(&self, model: &SettingModel, weights: &[(usize, f64)]) -> LinearContrast {
        let in_unit = model.scale == Scale::Log && self.scale(model) == AdditivityScale::Linear;
        LinearContrast::of(model, weights, in_unit)
    }

    /// The effects, the deltas taken from `deltas` (the variants' own).
    fn additivity(&self, metric: &str, model: &SettingModel, deltas: &[Option<VariantDelta>]) -> Additivity {
        let delta = |ablated: &[String]| {
            let index = self.index_of(ablated).expect("effects need every variant they weigh");
            deltas[index].expect("every variant but the baseline has a delta").contrast
        };
        let singles: Vec<(String, LinearContrast)> =
            self.groups.iter().map(|g| (g.clone(), delta(&alone(g)))).collect();
        let all = delta(self.groups);
        let k = self.groups.len() as f64;
        let mut sum = vec![(vec![], -k)];
        sum.extend(self.groups.iter().map(|g| (alone(g), 1.0)));
        let mut weights = vec![(self.groups.to_vec(), 1.0), (vec![], k - 1.0)];
        weights.extend(self.groups.iter().map(|g| (alone(g), -1.0)));
        let interaction = self.contrast_of(model, &weights);
        let scale = self.scale(model);
        let margin = match scale {
            AdditivityScale::Linear => self.question.tolerance * all.estimate.abs(),
            AdditivityScale::Log => self.question.tolerance.ln_1p(),
        };
        let factorial = self.groups.len() > 2 && self.is_factorial();
        let judged = 1 + if factorial { self.groups.len() * (self.groups.len() - 1) / 2 } else { 0 };
        let judge = |interaction: &LinearContrast| judge(interaction, margin, self.question.alpha, judged);
        let pairwise = if factorial { self.pairwise(model, judge) } else { Vec::new() };
        let verdict = self.verdict(judge(&interaction), &pairwise);
        let baseline = self.index_of(&[]).expect("baseline checked");
        Additivity {
            metric: metric.to_string(),
            baseline_mean: self.variants[baseline].scope().expect("measured").mean,
            sum_of_singles: self.contrast_of(model, &sum),
            singles,
            all,
            interaction,
            pairwise,
            margin,
            alpha: self.question.alpha,
            residual_df: model.residual_df,
            verdict,
        }
    }

    /// Two-factor interaction contrasts of a 2^k factorial: weight sᵢ·sⱼ / 2^(k−2) per variant,
    /// s = +1 if the group is ablated and −1 if not.
    fn pairwise(&self, model: &SettingModel, judge: impl Fn(&LinearContrast) -> Interaction) -> Vec<PairInteraction> {
        let k = self.groups.len();
        let scale = 1.0 / (1u32 << (k - 2)) as f64;
        let sign = |ablated: &[String], group: &String| {
            if ablated.contains(group) {
                1.0
            } else {
                -1.0
            }
        };
        let pairs = self.groups.iter().enumerate().flat_map(|(i, a)| self.groups[i + 1..].iter().map(move |b| (a, b)));
        let pair = |(a, b): (&String, &String)| {
            let weights: Vec<(Vec<String>, f64)> = self
                .variants
                .iter()
                .map(|v| {
                    let ablated = v.variant.ablated();
                    (ablated.to_vec(), sign(ablated, a) * sign(ablated, b) * scale)
                })
                .collect();
            let interaction = self.contrast_of(model, &weights);
            PairInteraction { groups: (a.clone(), b.clone()), judged: judge(&interaction), interaction }
        };
        pairs.map(pair).collect()
    }

    fn verdict(&self, overall: Interaction, pairwise: &[PairInteraction]) -> AdditivityVerdict {
        let beyond = |p: &&PairInteraction| p.judged == Interaction::Beyond;
        if overall != Interaction::Beyond && !pairwise.iter().any(|p| beyond(&p)) {
            let all_within = overall == Interaction::Within && pairwise.iter().all(|p| p.judged == Interaction::Within);
            return if all_within { AdditivityVerdict::Additive } else { AdditivityVerdict::CannotTell };
        }
        let named: Vec<String> = self
            .groups
            .iter()
            .filter(|g| pairwise.iter().filter(beyond).any(|p| p.groups.0 == **g || p.groups.1 == **g))
            .cloned()
            .collect();
        AdditivityVerdict::NotAdditive { interacting: if named.is_empty() { self.groups.to_vec() } else { named } }
    }
}

/// The two level-alpha tests every interaction gets. Within: the 1 − 2·alpha interval inside ± margin (each
/// of the intersection's tests at alpha, as an intersection-union test needs no correction); beyond: the
/// interval at 1 − 2·alpha/judged wholly outside ± margin, `judged` being the interactions judged (a
/// "beyond" claim about any of them spends alpha / judged, Bonferroni); unclear otherwise or without an
/// interval.
fn judge(interaction: &LinearContrast, margin: f64, alpha: f64, judged: usize) -> Interaction {
    let (Some(within), Some(beyond)) =
        (interaction.one_sided_half_width(alpha), interaction.one_sided_half_width(alpha / judged as f64))
    else {
        return Interaction::Unclear;
    };
    let size = interaction.estimate.abs();
    if size + within < margin {
        Interaction::Within
    } else if size - beyond > margin {
        Interaction::Beyond
    } else {
        Interaction::Unclear
    }
}

/// A linear contrast of the model's setting estimates, Σ cₛ μ̂ₛ on the model's scale, with the uncertainty the
/// model gives it (its standard error and df when a test is possible): every ablation delta and interaction is one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearContrast {
    pub estimate: f64,
    /// None, with `reason`, when the model leaves no test (one rep, no residual df, zero spread).
    pub std_error: Option<f64>,
    pub df: Option<f64>,
    /// Half-width of the two-sided 95% t interval, t(0.975, df) · std_error.
    pub ci95: Option<f64>,
    pub reason: Option<NoTest>,
}

impl LinearContrast {
    /// The contrast of `weights` (setting, cₛ; they sum to zero) from `model`: the estimate from its
    /// setting estimates, the rest from `SettingModel::contrast` (moderated variances, residual df). With
    /// `in_unit`, a log-scale model's levels are contrasted in the metric's own unit
    /// (`SettingModel::level_contrast`, the delta method).
    pub fn of(model: &SettingModel, weights: &[(usize, f64)], in_unit: bool) -> LinearContrast {
        let level = |s: usize| if in_unit { model.mean(s).exp() } else { model.mean(s) };
        let estimate = weights.iter().filter(|(_, c)| *c != 0.0).map(|&(s, c)| c * level(s)).sum();
        let test = if in_unit { model.level_contrast(weights) } else { model.contrast(weights) };
        let tested = test.as_ref().ok();
        LinearContrast {
            estimate,
            std_error: tested.map(|test| test.std_error),
            df: tested.map(|test| test.df),
            ci95: tested.map(|test| test.half_width(0.95)),
            reason: test.err(),
        }
    }

    /// The one-sided bound distance t(1 − alpha, df) · SE: the estimate ± this is the 1 − 2·alpha
    /// interval whose inclusion in a margin is Schuirmann's (1987) two one-sided tests at alpha.
    pub fn one_sided_half_width(&self, alpha: f64) -> Option<f64> {
        Some(one_sided_critical(1.0 - alpha, self.df?)? * self.std_error?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{analyse_ablation, fixture_ablation, fixture_names, fixture_observation};
    use crate::record::Observation;

    fn study() -> AblationAnalysis {
        analyse_ablation(
            &fixture_ablation(),
            &fixture_names(&["broadcast_rows", "rank1_update"]),
            &fixture_names(&["gated_delta", "wall", "prefill_tokens_per_s"]),
            0.05,
            false,
        )
    }

    fn measured(analysis: &AblationAnalysis) -> &Additivity {
        match &analysis.effects {
            AblationEffects::Measured(additivity) => additivity,
            other => panic!("expected effects, got {other:?}"),
        }
    }

    /// Every subset of the groups, as the ablated group names.
    fn all_subsets(groups: &[String]) -> Vec<Vec<String>> {
        (0..1u32 << groups.len())
            .map(|mask| {
                groups.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, g)| g.clone()).collect()
            })
            .collect()
    }

    /// Runs of every variant of `groups` with scope = Σ main effects + the given pair interactions,
    /// three reps with a small spread.
    fn synthetic(groups: &[&str], main: &[f64], pairs: &[((usize, usize), f64)]) -> Vec<Observation> {
        let groups = fixture_names(groups);
        let mut observations = Vec::new();
        for ablated in all_subsets(&groups) {
            let on = |i: usize| ablated.contains(&groups[i]);
            let value = 10.0
                + (0..groups.len()).filter(|&i| on(i)).map(|i| main[i]).sum::<f64>()
                + pairs.iter().filter(|((i, j), _)| on(*i) && on(*j)).map(|(_, v)| v).sum::<f64>();
            for (rep, jitter) in [-0.001, 0.0, 0.001].iter().enumerate() {
                let name = VariantName::ablating(ablated.clone()).to_string();
                observations.push(fixture_observation(&[("variant", &name)], rep as u32 + 1, &[("t", value + jitter)]));
            }
        }
        observations
    }

    #[test]
    fn variant_names_follow_declaration_order() {
        let groups = fixture_names(&["a", "b", "c"]);
        let mut observations = synthetic(&["a", "b", "c"], &[-1.0, -2.0, -0.5], &[]);
        observations.reverse();
        observations.push(fixture_observation(&[("variant", "b+a")], 1, &[("t", 1.0)]));
        observations.push(fixture_observation(&[("variant", "unknown")], 1, &[("t", 1.0)]));
        let order: Vec<String> = measured_variants(&observations, &groups).iter().map(VariantName::to_string).collect();
        assert_eq!(order, fixture_names(&["baseline", "a", "b", "c", "a+b", "a+c", "b+c", "a+b+c"]));
    }

    #[test]
    fn study_deltas_and_interaction() {
        let analysis = study();
        assert_eq!(analysis.variants.len(), 4);
        let effects = measured(&analysis);
        // Section 5.4: −0.792 (−36.0%), −0.577 (−26.2%), both −1.360 (−61.8%); sum −1.369. The model's levels
        // are geometric (fitted on log values, where drift is additive): within 1e-4 s of the means' deltas.
        let (broadcast, rank1) = (&effects.singles[0].1, &effects.singles[1].1);
        assert!((broadcast.estimate + 0.7918).abs() < 1e-4);
        let relative = |index: usize| analysis.variants[index].delta.unwrap().relative;
        assert!((relative(1) + 0.3595).abs() < 1e-3, "{}", relative(1));
        assert!((rank1.estimate + 0.5771).abs() < 1e-4);
        // (Huber's weights lean away from the all-groups variant's widest rep: 4e-4 s from the means' delta.)
        assert!((effects.all.estimate + 1.3599).abs() < 1e-3, "{:?}", effects.all);
        assert!((relative(3) + 0.6175).abs() < 1e-3, "{}", relative(3));
        assert!((effects.sum_of_singles.estimate + 1.3689).abs() < 1e-4);
        assert!((effects.interaction.estimate - 0.009).abs() < 1e-3);
        let interaction = effects.relative_interaction(analysis.scale);
        assert!((interaction - 0.00662).abs() < 1e-3, "{interaction}");
        // The same spread s² = 13e-6 s² in all four variants: on the linear scale se = √(κ · 4·s²/3) = 0.00427
        // (κ = 1.052631, the Huber estimate's variance at the normal). The model sees it on log values, where
        // the 0.84 s variant is 2.6x noisier than the 2.2 s one, and moderates the four toward one prior:
        // the delta method brings it back within a third of that, on the model's 12 − 4 = 8 residual df.
        let se = (1.052_631 * 4.0 * 13e-6 / 3.0f64).sqrt();
        let ratio = effects.interaction.std_error.unwrap() / se;
        assert!((0.9..1.35).contains(&ratio), "{:?}", effects.interaction);
        assert!((effects.interaction.df.unwrap() - 8.0).abs() < 1e-9);
        assert!(effects.pairwise.is_empty());
        assert_eq!(effects.verdict, AdditivityVerdict::Additive);
    }

    #[test]
    fn other_metrics_are_summarised_per_variant() {
        let analysis = study();
        let both = &analysis.variants[3];
        assert_eq!(both.variant.to_string(), "broadcast_rows+rank1_update");
        assert!((both.metrics[1].unwrap().mean - 2.557).abs() < 1e-9);
        assert!((both.metrics[2].unwrap().mean - 1734.0).abs() < 1e-9);
    }

    #[test]
    fn two_groups_that_interact_are_named() {
        let observations = synthetic(&["a", "b"], &[-1.0, -1.0], &[((0, 1), 0.5)]);
        let analysis =
            analyse_ablation(&observations, &fixture_names(&["a", "b"]), &fixture_names(&["t"]), 0.05, false);
        let effects = measured(&analysis);
        assert!((effects.interaction.estimate - 0.5).abs() < 1e-6);
        assert_eq!(effects.verdict, AdditivityVerdict::NotAdditive { interacting: fixture_names(&["a", "b"]) });
    }

    #[test]
    fn factorial_localises_the_interacting_pair() {
        let observations = synthetic(&["a", "b", "c"], &[-1.0, -2.0, -0.5], &[((0, 2), 0.4)]);
        let analysis =
            analyse_ablation(&observations, &fixture_names(&["a", "b", "c"]), &fixture_names(&["t"]), 0.05, false);
        let effects = measured(&analysis);
        let pairs: Vec<(&str, &str, f64)> = effects
            .pairwise
            .iter()
            .map(|p| (p.groups.0.as_str(), p.groups.1.as_str(), p.interaction.estimate))
            .collect();
        assert_eq!(pairs.len(), 3);
        // The contrast recovers the planted a×c interaction exactly and nothing for the others.
        assert!((pairs[1].2 - 0.4).abs() < 1e-6 && pairs[0].2.abs() < 1e-6 && pairs[2].2.abs() < 1e-6, "{pairs:?}");
        assert_eq!((pairs[1].0, pairs[1].1), ("a", "c"));
        assert_eq!(effects.verdict, AdditivityVerdict::NotAdditive { interacting: fixture_names(&["a", "c"]) });
    }

    #[test]
    fn one_at_a_time_design_cannot_localise() {
        let keep = ["baseline", "a", "b", "c", "a+b+c"];
        let observations: Vec<Observation> = synthetic(&["a", "b", "c"], &[-1.0, -2.0, -0.5], &[((0, 1), 0.6)])
            .into_iter()
            .filter(|o| keep.contains(&o.variant()))
            .collect();
        let analysis =
            analyse_ablation(&observations, &fixture_names(&["a", "b", "c"]), &fixture_names(&["t"]), 0.05, false);
        let effects = measured(&analysis);
        assert!((effects.interaction.estimate - 0.6).abs() < 1e-6);
        assert!(effects.pairwise.is_empty());
        assert_eq!(effects.verdict, AdditivityVerdict::NotAdditive { interacting: fixture_names(&["a", "b", "c"]) });
    }

    #[test]
    /// "not shown non-additive" was printed (and exit 0) for an interaction of 33% whose interval held zero.
    fn an_interval_too_wide_for_the_tolerance_cannot_tell() {
        // Interaction 0.05 on an all-groups delta of 0.15 is 33%, but ±0.2 noise swamps it.
        let mut observations = Vec::new();
        for (variant, mean) in [("baseline", 1.0), ("a", 0.9), ("b", 0.9), ("a+b", 0.85)] {
            for (rep, jitter) in [-0.1, 0.0, 0.1].iter().enumerate() {
                observations.push(fixture_observation(
                    &[("variant", variant)],
                    rep as u32 + 1,
                    &[("t", mean + jitter)],
                ));
            }
        }
        let analysis =
            analyse_ablation(&observations, &fixture_names(&["a", "b"]), &fixture_names(&["t"]), 0.05, false);
        assert_eq!(measured(&analysis).verdict, AdditivityVerdict::CannotTell);
    }

    #[test]
    fn one_rep_cannot_tell_instead_of_claiming_non_additivity() {
        let observations: Vec<Observation> =
            synthetic(&["a", "b"], &[-1.0, -1.0], &[((0, 1), 0.5)]).into_iter().filter(|o| o.rep == 1).collect();
        let analysis = analyse_ablation(&observations, &fixture_names(&["a", "b"]), &fixture_names(&["t"]), 0.05, true);
        assert_eq!(measured(&analysis).verdict, AdditivityVerdict::CannotTell);
    }

    /// A drift shared by every variant of a round (rounds 0.8x .. 1.25x) swamps the unpaired
    /// interaction test; within rounds the same data show the groups additive.
    #[test]
    fn rounds_as_blocks_remove_a_drift_shared_by_the_round() {
        let mut observations = Vec::new();
        for (rep, speed) in [(1u32, 1.0), (2, 1.25), (3, 0.8), (4, 1.1)] {
            for (variant, mean) in [("baseline", 2.2), ("a", 1.41), ("b", 1.625), ("a+b", 0.835)] {
                let jitter = 1.0 + 0.002 * f64::from(rep % 2) - 0.001;
                observations.push(fixture_observation(&[("variant", variant)], rep, &[("t", mean * speed * jitter)]));
            }
        }
        let groups = fixture_names(&["a", "b"]);
        let welch = analyse_ablation(&observations, &groups, &fixture_names(&["t"]), 0.05, false);
        let paired = analyse_ablation(&observations, &groups, &fixture_names(&["t"]), 0.05, true);
        assert_eq!(measured(&welch).verdict, AdditivityVerdict::CannotTell);
        let effects = measured(&paired);
        assert_eq!(effects.interaction.df, Some(16.0 - 4.0 - 3.0), "4 variants in 4 rounds as blocks");
        assert!(effects.interaction.ci95.unwrap() < measured(&welch).interaction.ci95.unwrap());
        assert!(effects.singles.iter().all(|(_, d)| d.ci95.is_some_and(|half| d.estimate.abs() > half)));
        assert_eq!(effects.verdict, AdditivityVerdict::Additive);
    }

    #[test]
    fn single_group_is_trivially_additive() {
        let observations = synthetic(&["a"], &[-1.0], &[]);
        let analysis = analyse_ablation(&observations, &fixture_names(&["a"]), &fixture_names(&["t"]), 0.05, false);
        let effects = measured(&analysis);
        assert_eq!(effects.interaction.estimate, 0.0);
        assert_eq!(effects.verdict, AdditivityVerdict::Additive);
    }

    #[test]
    fn missing_variants_are_named_not_panicked_on() {
        let observations: Vec<Observation> =
            fixture_ablation().into_iter().filter(|o| o.variant() != "rank1_update").collect();
        let analysis = analyse_ablation(
            &observations,
            &fixture_names(&["broadcast_rows", "rank1_update"]),
            &fixture_names(&["gated_delta"]),
            0.05,
            false,
        );
        assert_eq!(analysis.effects, AblationEffects::NotEnoughData { missing: fixture_names(&["rank1_update"]) });
        assert_eq!(analysis.variants.len(), 3);
        let no_metric = analyse_ablation(&fixture_ablation(), &fixture_names(&["broadcast_rows"]), &[], 0.05, false);
        assert_eq!(no_metric.effects, AblationEffects::NoScopeMetric);
        let nothing = analyse_ablation(&[], &fixture_names(&["a"]), &fixture_names(&["t"]), 0.05, false);
        assert_eq!(nothing.effects, AblationEffects::NotEnoughData { missing: fixture_names(&["baseline", "a"]) });
    }

    /// The ablation summary pooled every setting of a variant into one mean: at 512 rows the groups
    /// interact, at 4096 they add up, and only the per-setting analysis says which.
    #[test]
    fn per_group_by_setting_each_row_count_gets_its_own_verdict() {
        let mut observations = Vec::new();
        for (rows, interaction) in [("512", 0.5), ("4096", 0.0)] {
            for (variant, value) in [("baseline", 10.0), ("a", 9.0), ("b", 9.0), ("a+b", 8.0 + interaction)] {
                for (rep, jitter) in [-0.001, 0.0, 0.001].iter().enumerate() {
                    let labels = [("rows", rows), ("variant", variant)];
                    observations.push(fixture_observation(&labels, rep as u32 + 1, &[("t", value + jitter)]));
                }
            }
        }
        let groups = fixture_names(&["a", "b"]);
        let question = AblationQuestion::linear(0.05, false);
        let per_group = analyse_ablation_by_group(
            &observations,
            &fixture_names(&["rows"]),
            &groups,
            &fixture_names(&["t"]),
            &question,
        );
        let verdicts: Vec<(String, AdditivityVerdict)> = per_group
            .iter()
            .map(|(labels, analysis)| (labels[0].1.to_string(), measured(analysis).verdict.clone()))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("512".to_string(), AdditivityVerdict::NotAdditive { interacting: groups.clone() }),
                ("4096".to_string(), AdditivityVerdict::Additive)
            ]
        );
        let ungrouped = analyse_ablation_by_group(&observations, &[], &groups, &fixture_names(&["t"]), &question);
        assert!(ungrouped.is_empty(), "one group: the pooled analysis says it all");
    }
}
