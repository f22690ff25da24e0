//! Test fixtures: synthetic observations shaped like the slice study's sweeps and ablation.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::ablation::{analyse_ablation_runs, AblationAnalysis, AblationQuestion};
use crate::declare::ParamValue;
use crate::declare::{AdditivityScale, DEFAULT_ALPHA};
use crate::ground::RunStatus;
use crate::plan::{Setting, SettingId};
use crate::record::Observation;

/// One usable run of `setting` (values typed as a CSV without a sidecar reads them; a `variant` label
/// is the variant, `baseline` unless given) with the given metrics.
pub(crate) fn fixture_observation(setting: &[(&str, &str)], rep: u32, metrics: &[(&str, f64)]) -> Observation {
    let variant = setting.iter().find(|(k, _)| *k == "variant").map_or("baseline", |(_, v)| v);
    let values = setting.iter().filter(|(k, _)| *k != "variant");
    let setting = Setting {
        values: values.map(|(k, v)| (k.to_string(), ParamValue::infer(v))).collect(),
        variant: variant.into(),
    };
    Observation {
        setting_id: fixture_setting_id(&setting),
        setting,
        rep,
        warmup: false,
        status: RunStatus::Ok,
        error: String::new(),
        metrics: metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>(),
    }
}

/// The id of a fixture's setting: one per distinct setting across the test process, as a table gives one
/// per distinct setting across its rows (so ids are not dense within one test's runs).
pub(crate) fn fixture_setting_id(setting: &Setting) -> SettingId {
    static SETTINGS: Mutex<Vec<Setting>> = Mutex::new(Vec::new());
    let mut settings = SETTINGS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let index = settings.iter().position(|known| known == setting).unwrap_or_else(|| {
        settings.push(setting.clone());
        settings.len() - 1
    });
    SettingId::new(index)
}

/// A failed run of `setting` with the given reason.
pub(crate) fn fixture_failure(setting: &[(&str, &str)], rep: u32, status: RunStatus, error: &str) -> Observation {
    Observation { status, error: error.into(), ..fixture_observation(setting, rep, &[]) }
}

/// The slice study's forced-slice sweep (sections 3 and 3's crossover table): prefill TPS per
/// (rows, slices), decode TPS as the drift control, and `overlap_slices`, the slice count the
/// engine actually used (slices=8 at 512 rows falls back to the serial path). Each 512/slices=1
/// setting also has a warmup, and there are failures: one at 512/1, two timeouts at 2048/4.
pub(crate) fn fixture_slice_sweep() -> Vec<Observation> {
    // (rows, slices, slices used, prefill TPS per rep, decode TPS per rep)
    let reps = [
        ("512", "1", 1.0, [882.09, 882.55, 862.62], [8.72, 8.81, 8.90]),
        ("512", "4", 4.0, [429.12, 428.61, 436.35], [8.99, 8.75, 8.84]),
        ("512", "8", 1.0, [871.51, 883.83, 883.42], [8.77, 8.93, 8.86]),
        ("1024", "1", 1.0, [1138.1, 1139.9, 1138.3], [8.85, 8.80, 8.96]),
        ("1024", "2", 2.0, [1141.0, 1139.2, 1140.2], [8.91, 8.88, 8.79]),
        ("2048", "2", 2.0, [1238.0, 1239.5, 1238.25], [8.93, 8.86, 8.98]),
        ("2048", "4", 4.0, [1185.0, 1186.6, 1185.83], [8.74, 8.90, 8.83]),
    ];
    let mut observations = Vec::new();
    for rep in 1..=3u32 {
        for (rows, slices, used, prefill, decode) in &reps {
            let i = rep as usize - 1;
            let metrics =
                [("prefill_tokens_per_s", prefill[i]), ("decode_tokens_per_s", decode[i]), ("overlap_slices", *used)];
            observations.push(fixture_observation(&[("rows", rows), ("slices", slices)], rep, &metrics));
        }
    }
    let warmup = Observation {
        warmup: true,
        ..fixture_observation(
            &[("rows", "512"), ("slices", "1")],
            0,
            &[("prefill_tokens_per_s", 10.0), ("decode_tokens_per_s", 1.0), ("overlap_slices", 1.0)],
        )
    };
    observations.insert(0, warmup);
    observations.push(fixture_failure(
        &[("rows", "512"), ("slices", "1")],
        4,
        RunStatus::Failed,
        "missing metric prefill_tokens_per_s",
    ));
    observations.push(fixture_failure(&[("rows", "2048"), ("slices", "4")], 4, RunStatus::Timeout, ""));
    observations.push(fixture_failure(&[("rows", "2048"), ("slices", "4")], 5, RunStatus::Timeout, ""));
    observations
}

/// The slice sweep re-recorded under a second toolkit: 512 rows / slices=4 10% slower, the
/// 2048-row settings not run, and a new single-rep 4096-row setting.
pub(crate) fn fixture_slice_sweep_b() -> Vec<Observation> {
    let mut b: Vec<Observation> = fixture_slice_sweep()
        .into_iter()
        .filter(|o| o.setting.value("rows") != Some(&ParamValue::Int(2048)))
        .map(|mut o| {
            if o.setting.value("rows") == Some(&ParamValue::Int(512))
                && o.setting.value("slices") == Some(&ParamValue::Int(4))
            {
                o.metrics.entry("prefill_tokens_per_s".into()).and_modify(|v| *v *= 0.9);
            }
            o
        })
        .collect();
    b.push(fixture_observation(&[("rows", "4096"), ("slices", "4")], 1, &[("prefill_tokens_per_s", 1265.2)]));
    b
}

/// A rule-verification sweep shaped like sweeps/slices.toml: per `(rows, throughput of 1, 2 and 4 slices,
/// the index of the count the engine's rule picks)`, the forced counts and the rule (`slices = "rule"`),
/// in `reps` interleaved rounds. Each run's prefill throughput is off by up to `noise` and the control
/// `decode_tokens_per_s` by up to `drift` (fixed patterns, unrelated to each other); `overlap_slices` is
/// the count each run used.
pub(crate) fn fixture_rule_sweep(
    groups: &[(&str, [f64; 3], usize)],
    reps: u32,
    noise: f64,
    drift: f64,
) -> Vec<Observation> {
    let wobble = [0.0, 1.0, -1.0, 0.5, -0.5, 0.8, -0.8];
    let mut observations = Vec::new();
    for rep in 1..=reps {
        let mut index = 0;
        for (rows, tps, rule) in groups {
            let forced = [("1", 0), ("2", 1), ("4", 2)];
            for (slices, used) in forced.into_iter().chain([("rule", *rule)]) {
                index += 1;
                let off = |scale: f64, step: usize| 1.0 + scale * wobble[(index * step + rep as usize) % wobble.len()];
                let metrics = [
                    ("prefill_tokens_per_s", tps[used] * off(noise, 1)),
                    ("decode_tokens_per_s", 9.0 * off(drift, 3)),
                    ("overlap_slices", [1.0, 2.0, 4.0][used]),
                ];
                observations.push(fixture_observation(&[("rows", rows), ("slices", slices)], rep, &metrics));
            }
        }
    }
    observations
}

/// The questions of sweeps/slices.toml: the fixture's, with `verify_rule`, `rows_per_slice` and a declared
/// negligible margin of 5%.
pub(crate) fn fixture_rule_config() -> super::AnalysisConfig {
    super::AnalysisConfig {
        equivalence_key: None,
        rows_per_slice: Some(crate::declare::RowsPerSliceConfig {
            rows: "rows".into(),
            slices: "overlap_slices".into(),
        }),
        negligible: Some(0.05),
        verify_rule: Some(crate::declare::VerifyRule { param: "slices".into(), rule: "rule".into() }),
        ..fixture_slice_config()
    }
}

/// Owned names from literals, as groups and metrics are passed.
pub(crate) fn fixture_names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The slice study's gated-delta ablation (section 5.4) as a full 2² factorial, three reps per
/// variant around the published means: scope seconds, wall seconds, prefill TPS.
pub(crate) fn fixture_ablation() -> Vec<Observation> {
    let variants: [(&str, f64, f64, f64); 4] = [
        ("baseline", 2.2023, 3.929, 1128.0),
        ("broadcast_rows", 1.4105, 3.137, 1413.0),
        ("rank1_update", 1.6252, 3.373, 1314.0),
        ("broadcast_rows+rank1_update", 0.8424, 2.557, 1734.0),
    ];
    let jitter = [-0.004, 0.001, 0.003];
    let mut observations = Vec::new();
    for (rep, j) in jitter.iter().enumerate() {
        for (variant, scope, wall, tps) in &variants {
            let metrics = [("gated_delta", scope + j), ("wall", wall + j), ("prefill_tokens_per_s", tps * (1.0 - j))];
            observations.push(fixture_observation(&[("variant", variant)], rep as u32 + 1, &metrics));
        }
    }
    observations
}

/// The analysis questions of the slice study fixture: best slices per row count, decode as control.
pub(crate) fn fixture_slice_config() -> super::AnalysisConfig {
    super::AnalysisConfig {
        primary: "prefill_tokens_per_s".into(),
        direction: super::Direction::Higher,
        group_by: vec!["rows".into()],
        control: Some("decode_tokens_per_s".into()),
        cpu_share: None,
        equivalence_key: Some(crate::expression::Expression::parse("overlap_slices").expect("an expression")),
        fit: None,
        rows_per_slice: None,
        alpha: 0.05,
        negligible: None,
        additivity_scale: Default::default(),
        control_scaling: Default::default(),
        quantities: Vec::new(),
        verify_rule: None,
        findings: Vec::new(),
        race: None,
        stopping: false,
        baseline: Default::default(),
        relative: Default::default(),
    }
}

/// Two-batch overlap off/on at one client concurrency (the TBO document's impact table, made up), three
/// interleaved rounds of output throughput and gate milliseconds.
pub(crate) fn fixture_tbo_sweep() -> Vec<Observation> {
    let runs =
        [("1", "off", [100.0, 110.0, 120.0], [10.0, 12.0, 11.0]), ("1", "on", [112.0, 121.0, 130.0], [8.0, 10.5, 9.0])];
    let mut observations = Vec::new();
    for round in 0..3 {
        for (concurrency, tbo, tps, gate) in &runs {
            let metrics = [("output_tps", tps[round]), ("t_gate_ms", gate[round])];
            let setting = [("concurrency", *concurrency), ("tbo", *tbo)];
            observations.push(fixture_observation(&setting, round as u32 + 1, &metrics));
        }
    }
    observations
}

/// The TBO sweep's questions: output throughput as a ratio and gate time as a difference to tbo=off.
pub(crate) fn fixture_tbo_config() -> super::AnalysisConfig {
    super::AnalysisConfig {
        primary: "output_tps".into(),
        control: None,
        equivalence_key: None,
        group_by: vec!["concurrency".into()],
        baseline: [("tbo".to_string(), ParamValue::Text("off".into()))].into(),
        relative: [
            ("output_tps".to_string(), super::RelativeKind::Ratio),
            ("t_gate_ms".to_string(), super::RelativeKind::Difference),
        ]
        .into(),
        ..fixture_slice_config()
    }
}

/// Analyse an ablation with the study's question (linear deltas, alpha 0.05; see
/// `analyse_ablation_runs`).
pub(crate) fn analyse_ablation(
    observations: &[Observation],
    groups: &[String],
    metrics: &[String],
    tolerance: f64,
    rounds_are_blocks: bool,
) -> AblationAnalysis {
    analyse_ablation_runs(observations, groups, metrics, &AblationQuestion::linear(tolerance, rounds_are_blocks))
}

impl AblationQuestion {
    /// Linear deltas at alpha 0.05, no straggler screen: the study's question.
    pub fn linear(tolerance: f64, rounds_are_blocks: bool) -> AblationQuestion {
        AblationQuestion {
            tolerance,
            alpha: DEFAULT_ALPHA,
            scale: AdditivityScale::Linear,
            rounds_are_blocks,
            slow: None,
        }
    }
}
