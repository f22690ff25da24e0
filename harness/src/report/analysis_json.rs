//! `<stamp>.analysis.json` (every verdict of a sweep) and `sweep compare --json` (the comparison) as
//! machine-readable data: param values typed, units beside raw numbers.

use serde_json::{json, Map, Value};

use super::metric_units::MetricUnits;
use super::search_report::{among_evaluated, overall};
use super::sweep_report::SweepReport;
use super::what_to_trust::trust_notes;
use crate::analyse::{GroupVerdict, Rival, Scale, SettingModel};
use crate::compare::Comparison;
use crate::declare::ParamValue;
use crate::plan::{Setting, DEFAULT_VARIANT};

/// Version of the layout below; bump it when a field changes meaning. 2: `low`/`high` are the simultaneous
/// intervals (`level`), and the model (prior, residual df, stragglers, control use) is reported.
pub const ANALYSIS_SCHEMA_VERSION: u32 = 3;

/// The analysis as JSON: top-level `runs` (engine runs recorded), `alpha`, `method` (`paired` or
/// `welch`), and per group its labels, verdict (`resolved`, `tied`, `cannot tell`), best setting and
/// rivals with their verdict (`beaten` or `tied`), ratio rival / best with its 95% interval, and the
/// Holm-adjusted p-value; `baseline` and `relative`, each setting against its baseline partner; `fits`,
/// the per-group cost lines of `fit.by`; `unit` (the primary metric's) and `units` (every metric's known
/// unit), values staying raw numbers in them; `notes`, the summary's "what to trust" block.
pub fn analysis_json(report: &SweepReport) -> Value {
    let (analysis, config) = (report.analysis, report.config);
    let verdicts = &analysis.verdicts;
    let setting = |index: usize| setting_object(&analysis.settings[index].setting);
    let design = if verdicts.paired { "paired" } else { "welch" };
    let groups: Vec<Value> = verdicts.groups.iter().map(|group| group_json(group, &setting, design)).collect();
    let mut object = json!({
        "schema_version": ANALYSIS_SCHEMA_VERSION,
        "primary": config.primary,
        "direction": config.direction,
        "alpha": verdicts.alpha,
        "looks": verdicts.looks,
        "negligible": verdicts.negligible,
        "runs": analysis.failures.runs,
        // Runs that finished ok with an empty primary cell: they take no part.
        "unmeasured": analysis.failures.unmeasured,
        // Every run of each setting gave one value: verdicts by value, no test (rivals' reason "no spread").
        "by_value": verdicts.model.no_spread,
        "method": verdicts.method().design(),
        "tests": verdicts.tests,
        "pairs": verdicts.pairs,
        "selection": "pairwise step-down (closed testing, Bonferroni-Holm weights; Hsu 1984 MCB guarantee)",
        "alpha_spent": verdicts.alpha_spent,
        "look": verdicts.look,
        "level": verdicts.level,
        "control": verdicts.model.adjustment.as_ref().map(|a| json!({
            "metric": a.metric, "slope": a.slope, "variance_removed": a.variance_removed,
        })),
        "control_move": verdicts.model.control_move,
        "pooled_df": verdicts
            .model
            .prior
            .filter(|p| p.prior_df.is_infinite() && verdicts.model.series_priors.is_empty())
            .map(|_| verdicts.model.residual_df),
        "model": model_json(&verdicts.model),
        // Each run the screen left out: `side` `slow` or `fast`; `slowdown` below 1 for a fast one.
        "stragglers": verdicts.model.stragglers.iter().map(|s| json!({
            "setting": setting(s.setting), "rep": s.rep, "slowdown": s.slowdown, "t": s.t, "side": s.side,
        })).collect::<Vec<_>>(),
        "groups": groups,
        "baseline": config.baseline,
        "unit": report.context.units.of(&config.primary),
        // Metric -> unit for every metric of the analysis whose unit is known.
        "units": analysis.settings.iter().flat_map(|s| s.metrics.keys())
            .filter_map(|metric| Some((metric.clone(), Value::from(report.context.units.of(metric)?))))
            .collect::<Map<String, Value>>(),
        // The "what to trust" notes: `level` (`warning` or `note`) and the sentence, code in backticks.
        "notes": trust_notes(report).iter().map(|note| json!({
            "level": if note.warning { "warning" } else { "note" }, "text": note.text.with_backticks(),
        })).collect::<Vec<_>>(),
    });
    if let Value::Object(object) = &mut object {
        report.add_finding_json(object);
        object.extend(search_json(report).map(|search| ("search".to_string(), search)));
    }
    object
}

/// `analysis.json`'s `search` object: budget, runs, space, evaluated, best and verdict (per group too).
fn search_json(report: &SweepReport) -> Option<Value> {
    let search = report.context.search.as_ref()?;
    let settings = &report.analysis.settings;
    let groups: Vec<Value> = (report.analysis.verdicts.groups.iter())
        .map(|group| {
            json!({
                "group": labels_object(&group.group), "best": setting_object(&settings[group.best].setting),
                "verdict": group.outcome,
            })
        })
        .collect();
    let best = match report.analysis.verdicts.groups.as_slice() {
        [only] => setting_object(&settings[only.best].setting),
        _ => Value::Null,
    };
    Some(json!({
        "budget": search.budget.as_json(),
        // The seconds of the builds the search caused, charged against its budget (in runs: `build_runs`).
        "build_seconds": search.build_seconds,
        "build_runs": search.build_runs,
        "runs": search.used,
        "space": search.space,
        "evaluated": search.evaluated,
        "best": best,
        "verdict": overall(report),
        "among_evaluated": among_evaluated(report),
        // The most a setting never run could beat the best by (a ratio; null: nothing bounds it).
        "unexplored_headroom": search.headroom,
        "complete": search.complete,
        "final_race_runs": search.final_runs.len(),
        "groups": groups,
        "method": "iterated racing (López-Ibáñez et al. 2016); verdict on the final race's runs alone, by the grid's rules",
        "importance": search.importance.iter().map(|(param, share)| json!({"param": param, "share": share})).collect::<Vec<_>>(),
        "progress": search.progress.iter().map(|(group, points)| json!({
            "group": labels_object(group),
            "points": points.iter().map(|(runs, best)| json!([runs, best])).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    }))
}

/// `{"rows": 512, "slices": 1}`: param -> typed value; the variant only when it is not the default.
pub(super) fn setting_object(setting: &Setting) -> Value {
    let mut map = setting.context();
    if setting.variant != DEFAULT_VARIANT {
        map.insert("variant".into(), setting.variant.clone().into());
    }
    Value::Object(map)
}

/// `{"rows": 512}`: a group's labels, param -> typed value.
pub(super) fn labels_object(labels: &[(String, ParamValue)]) -> Value {
    Value::Object(crate::plan::labels_object(labels))
}

/// The model behind every verdict: scale, estimator, variance prior and the residual df left.
fn model_json(model: &SettingModel) -> Value {
    json!({
        "scale": match model.scale { Scale::Log => "log", Scale::Linear => "linear" },
        "estimator": "huber",
        "huber_k": 1.345,
        "residual_df": model.residual_df,
        "prior": model.prior.map(|p| json!({
            "df": if p.prior_df.is_finite() { Some(p.prior_df) } else { None },
            "variance": p.prior_variance,
            "by_series": (!model.series_priors.is_empty())
                .then(|| model.series_priors.iter().map(|s| s.prior_variance).collect::<Vec<f64>>()),
        })),
    })
}

/// One group's verdict; `design` names the method when no rival could be tested.
fn group_json(group: &GroupVerdict, setting: &dyn Fn(usize) -> Value, design: &str) -> Value {
    let rival = |rival: &Rival| {
        let tested = rival.comparison.as_ref().ok();
        json!({
            "setting": setting(rival.setting),
            "verdict": if rival.beaten { "beaten" } else { "tied" },
            "equivalent": rival.equivalent,
            "ratio": rival.ratio.map(|r| r.ratio),
            "low": rival.ratio.map(|r| r.low),
            "high": rival.ratio.map(|r| r.high),
            "marginal_low": rival.marginal.map(|r| r.low),
            "marginal_high": rival.marginal.map(|r| r.high),
            "p_value": tested.map(|c| c.p_value()),
            "p_adjusted": rival.p_adjusted,
            "df": tested.map(|c| c.df),
            "std_error": tested.map(|c| c.std_error),
            // The pooled model's; p_value, intervals and verdicts take the more cautious of the two.
            "pooled_std_error": tested.and_then(|c| c.pooled).map(|(se, _)| se),
            "pooled_df": tested.and_then(|c| c.pooled).map(|(_, df)| df),
            "detectable": rival.detectable,
            "runs_to_decide": rival.runs_to_decide,
            "reason": rival.comparison.as_ref().err(),
            "method": tested.map(|c| c.method.design()),
        })
    };
    json!({
        "group": labels_object(&group.group),
        "verdict": group.outcome,
        "reason": group.reason,
        "decided": group.is_decided(),
        "best": setting(group.best),
        "method": group.rivals.iter().find_map(|r| r.comparison.as_ref().ok()).map_or(design, |c| c.method.design()),
        "detectable": group.tied().filter_map(|r| r.detectable).reduce(f64::max),
        "runs_to_decide": group.runs_to_decide(),
        "rivals": group.rivals.iter().map(rival).collect::<Vec<_>>(),
    })
}

/// The comparison as JSON: per joined setting its typed labels, ratio B/A with its 95% interval, the
/// Holm-adjusted p-value and the verdict (`improved`, `regressed`, `no change`, `insufficient`).
/// `unit` is the metric's unit (null when unknown).
pub fn compare_json(comparison: &Comparison, label_a: &str, label_b: &str, units: &MetricUnits) -> Value {
    let settings = comparison.settings.iter().map(|s| {
        json!({
            "setting": setting_object(&s.setting),
            "n_a": s.n_a, "n_b": s.n_b, "mean_a": s.mean_a, "mean_b": s.mean_b,
            "ratio": s.ratio.map(|r| r.ratio), "low": s.ratio.map(|r| r.low), "high": s.ratio.map(|r| r.high),
            "marginal_low": s.marginal.map(|r| r.low), "marginal_high": s.marginal.map(|r| r.high),
            "p": s.p_value, "p_adjusted": s.p_adjusted, "df": s.df, "reason": s.reason,
            "control_ratio": s.control_ratio,
            "verdict": s.verdict,
        })
    });
    let config = &comparison.config;
    json!({
        "schema_version": ANALYSIS_SCHEMA_VERSION,
        "a": label_a, "b": label_b,
        "metric": config.metric, "direction": config.direction, "alpha": config.alpha,
        "threshold": config.threshold, "control": config.control,
        "method": comparison.design.design(),
        "tests": comparison.tests(),
        "settings": settings.collect::<Vec<_>>(),
        "only_a": comparison.only_a.iter().map(setting_object).collect::<Vec<_>>(),
        "only_b": comparison.only_b.iter().map(setting_object).collect::<Vec<_>>(),
        "regression": comparison.has_significant_regression(),
        "level": comparison.level,
        "overall": comparison.overall.as_ref().map(|o| json!({
            "ratio": o.ratio.ratio, "low": o.ratio.low, "high": o.ratio.high,
            "p_adjusted": o.p_adjusted, "verdict": o.verdict,
            "tau": o.effects.tau2.sqrt(), "i2": o.effects.i2, "q": o.effects.q,
            "heterogeneity_p": o.heterogeneity_p, "consistent": o.is_consistent(),
            "settings": o.effects.settings, "df": o.effects.df,
        })),
        "control_change": comparison.control_change,
        "machine_changed": comparison.machine_change.is_some(),
        "machine_change_reason": comparison.machine_change.map(|m| m.reason),
        "control_scaling": config.control.as_ref().map(|_| config.control_scaling),
        "machine_shift": comparison.machine_shift.filter(|s| s.has_slope()).map(|s| json!({
            "slope": s.slope, "slope_std_error": s.slope_variance.sqrt(), "slope_df": s.slope_df,
            "side_slopes": s.side_slopes, "slopes_differ": s.slopes_differ, "reliability": s.reliability,
            "control_gap": s.control_gap, "shift": s.shift(),
        })),
        "residual_df": comparison.model.residual_df,
        "stragglers": comparison.model.stragglers.len(),
        "unit": units.of(&config.metric),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse_sweep;
    use crate::analyse::fixtures::{fixture_slice_config, fixture_slice_sweep};
    use crate::report::ReportContext;

    #[test]
    fn verdicts_with_typed_settings() {
        let config = fixture_slice_config();
        let analysis = analyse_sweep(&fixture_slice_sweep(), &config, true, &[]);
        let context = ReportContext::default();
        let json = analysis_json(&SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" });
        assert_eq!(json["schema_version"], 3);
        assert_eq!(json["runs"], 25);
        assert_eq!(json["alpha"], 0.05);
        assert_eq!(json["method"], "paired");
        let groups = json["groups"].as_array().unwrap();
        assert_eq!(groups.len(), 3);
        assert_eq!(groups[2]["group"]["rows"], 2048, "numbers stay numbers: {}", groups[2]["group"]);
        assert_eq!(groups[2]["verdict"], "resolved");
        assert_eq!(groups[2]["best"]["slices"], 2);
        let rival = &groups[2]["rivals"][0];
        assert_eq!((rival["verdict"].as_str(), rival["setting"]["slices"].as_i64()), (Some("beaten"), Some(4)));
        let (low, ratio, high) =
            (rival["low"].as_f64().unwrap(), rival["ratio"].as_f64().unwrap(), rival["high"].as_f64().unwrap());
        assert!(low < ratio && ratio < high && high < 1.0);
        assert_eq!(groups[0]["verdict"], "tied");
        assert!(rival["p_adjusted"].as_f64().unwrap() < 0.05);
        assert_eq!(json["unit"], "tok/s");
        assert_eq!(json["units"]["decode_tokens_per_s"], "tok/s");
        assert!(json["units"].get("overlap_slices").is_none(), "no unit is guessed");
        assert_eq!(json["notes"][0]["level"], "warning");
        assert!(json["notes"][0]["text"].as_str().unwrap().starts_with("3 of 25 runs failed"), "{}", json["notes"]);
    }
}
