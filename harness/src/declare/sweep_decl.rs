//! A sweep declaration (`sweeps/<name>.toml`) exactly as written, before any checking.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::analysis_config::AnalysisConfig;
use super::engine_profile::EngineOverrides;
use super::history_decl::HistoryDecl;
use super::pattern::Pattern;
use super::ready_decl::ReadyDecl;
use super::search_config::SearchConfig;
use super::selector::Selector;
use crate::expression::Expression;
use crate::template::Template;

/// The order runs are scheduled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunOrder {
    /// Rep 1 of every setting, then rep 2, ...; shuffled inside each round so drift lands on every setting.
    #[default]
    Interleaved,
    /// Every run in one seeded random order.
    Shuffled,
    /// All reps of a setting back to back, for engines that cannot switch cheaply.
    Blocked,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RepsDecl {
    pub count: u32,
    pub order: RunOrder,
    /// Seed of the shuffle; drawn and recorded when absent.
    pub seed: Option<u64>,
    /// Warmup rounds run first, recorded with `warmup=true`, never analysed.
    pub warmup: u32,
    /// `"decided"`: race. After each round from `min` on, settings that are beaten in their group (or
    /// practical ties) stop being run; the sweep ends when every group is decided, or at `max` rounds.
    pub until: Option<Until>,
    /// Rounds every setting runs before a race may drop any (default 3).
    pub min: Option<u32>,
    /// Rounds a race runs at most (default: `count`, at least `min`).
    pub max: Option<u32>,
}

/// When a racing sweep stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Until {
    /// Every group resolved or tied.
    Decided,
}

/// Rounds a race runs before dropping anything, unless `[reps] min` says otherwise.
pub const DEFAULT_RACE_MIN: u32 = 3;

impl RepsDecl {
    /// `(min, max)` rounds of the race this declares, if it races.
    pub fn race(&self) -> Option<(u32, u32)> {
        self.until.map(|_| {
            let min = self.min.unwrap_or(DEFAULT_RACE_MIN);
            (min, self.max.unwrap_or(self.count).max(min))
        })
    }
}

impl Default for RepsDecl {
    fn default() -> Self {
        RepsDecl { count: 3, order: RunOrder::default(), seed: None, warmup: 0, until: None, min: None, max: None }
    }
}

/// Argv elements and environment, as handlebars templates over the params: what each run passes to the
/// engine (`[run]`), what `[build]` appends to the profile's build command (its params are build-time),
/// and what one value of a value map adds to a run.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunDecl {
    pub args: Vec<Template>,
    pub env: BTreeMap<String, Template>,
    /// Param -> the value of it that leaves its variable unset and its argument out (`slices = "rule"`:
    /// the engine's own rule decides), so the rule runs beside the forced values.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub unset: BTreeMap<String, String>,
    /// `[[run.service]]`: processes started (and ready) before the run's main process, stopped after it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub service: Vec<ServiceDecl>,
}

impl RunDecl {
    pub fn is_empty(&self) -> bool {
        self.args.is_empty() && self.env.is_empty()
    }
}

/// A file generated in each run directory, e.g. a prompt of exactly `{{rows}}` token ids.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InputDecl {
    /// Referenced in templates as `{{inputs.<name>}}` (the file's absolute path).
    pub name: String,
    /// File name inside the run directory.
    pub file: String,
    /// Values repeated in order and cut to `count`.
    pub pattern: Vec<i64>,
    /// How many values; a template such as `"{{rows}}"`.
    pub count: Template,
    #[serde(default = "default_separator")]
    pub separator: String,
}

fn default_separator() -> String {
    ",".to_string()
}

/// A metric read with a regex: the first capture group (or the group named `value`) of the last match.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RegexMetricDecl {
    pub pattern: Pattern,
    /// Per-rank launcher: which rank's log; default the result rank.
    pub rank: Option<u32>,
    /// `"client"` (the run's main process, the default) or a service's name: whose log to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct MetricsDecl {
    /// Keys of the engine's `key=value` result line.
    pub result: Vec<String>,
    pub regex: BTreeMap<String, RegexMetricDecl>,
    /// Name -> expression over other metrics, e.g. `1000 * prefill_seconds / rows`.
    pub derived: BTreeMap<String, Expression>,
    /// Phase seconds from one phase-profile block of each run.
    pub profile: Option<ProfileMetricsDecl>,
    /// Whose log holds the result line: `"client"` (the run's main process, the default) or a service's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_process: Option<String>,
    /// Metric -> the unit its values are in (`prefill_tokens_per_s = "tok/s"`), printed after its numbers;
    /// a metric without one gets the unit its name implies (`_ms`, `_per_s`, ...), if any. Not recorded
    /// when empty, so sidecars and fingerprints of sweeps that declare none are unchanged.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub units: BTreeMap<String, String>,
}

/// Metrics read from the engine's phase profile: which block, and which phases become metrics.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileMetricsDecl {
    /// e.g. `{ select = "matching", rank = 0, phase = "STACK", result_key = "prefill_seconds", within = 0.05 }`
    pub block: BlockSelector,
    /// Metric name -> phase name, e.g. `gated_delta = "gated_delta"`, `stack = "STACK.r"`.
    pub phases: BTreeMap<String, String>,
    /// `"client"` (the run's main process, the default) or a service's name: whose log holds the profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
}

/// How kernel variants are kept apart from each other and from the user's tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// Each variant builds in its own copy of the tree; variants interleave at run time.
    #[default]
    Copy,
    /// Render into the real tree, build, run that variant's reps, restore; for trees too large to copy.
    InPlace,
}

/// A handlebars template and the engine source it renders.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateDecl {
    /// Relative to the sweep file.
    pub template: String,
    /// Relative to the engine tree.
    pub target: String,
}

/// `[ablation]`: the instruction groups a kernel template can remove, and how to run the variants.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AblationDecl {
    pub groups: Vec<String>,
    #[serde(default)]
    pub design: Design,
    #[serde(default)]
    pub isolation: Isolation,
    /// The interaction may be this fraction of the all-groups delta and still count as additive.
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    /// Hand-written templates.
    #[serde(default)]
    pub templates: Vec<TemplateDecl>,
    /// Sources whose templates are derived from group selectors at run time.
    #[serde(default)]
    pub sources: Vec<SourceDecl>,
    /// Top-level entries of the tree not copied for copy isolation (build outputs).
    #[serde(default = "default_exclude")]
    pub exclude: Vec<String>,
}

fn default_tolerance() -> f64 {
    0.05
}

fn default_exclude() -> Vec<String> {
    vec!["build".to_string()]
}

/// A `[[checks]]` entry as written (see `Check`, what loading makes of it). Exactly one of `metric` and
/// `expr` is given.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CheckDecl {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expr: Option<Expression>,
    /// With `metric`: a template over params (`{{rows}}`); with `expr`: an expression over params and
    /// metrics (`rows`).
    pub equals: String,
    /// Relative tolerance: the check holds when |actual − expected| ≤ within · |expected|; exact without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<f64>,
}

/// The whole sweep file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SweepDecl {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Groups of params whose lists move together instead of forming a product.
    #[serde(default)]
    pub zip: Vec<Vec<String>>,
    /// Grid constraints: a setting is planned only when every expression holds (`K % 256 == 0`).
    #[serde(default, rename = "where", skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<Expression>,
    pub engine: EngineOverrides,
    #[serde(default)]
    pub params: toml::Table,
    #[serde(default)]
    pub reps: RepsDecl,
    #[serde(default)]
    pub run: RunDecl,
    /// Appended to the profile's build command; the params it names are build-time.
    #[serde(default, skip_serializing_if = "RunDecl::is_empty")]
    pub build: RunDecl,
    #[serde(default)]
    pub inputs: Vec<InputDecl>,
    pub metrics: MetricsDecl,
    #[serde(default)]
    pub checks: Vec<CheckDecl>,
    pub analysis: AnalysisConfig,
    #[serde(default, skip_serializing_if = "ReportConfig::is_empty")]
    pub report: ReportConfig,
    pub ablation: Option<AblationDecl>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchConfig>,
    #[serde(default, skip_serializing_if = "HistoryDecl::is_default")]
    pub history: HistoryDecl,
}

/// `[report]`: tables a sweep's summary adds to its verdicts.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReportConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pivot: Option<PivotConfig>,
}

impl ReportConfig {
    /// Nothing declared (then nothing is recorded either, so older sidecars read back the same).
    pub fn is_empty(&self) -> bool {
        self.pivot.is_none()
    }
}

/// A pivot table of per-setting means, one param down, one across, a metric in the cells:
/// `pivot = { rows = "bytes", columns = "topology", value = "latency_ns" }`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PivotConfig {
    /// The param whose values are the table's rows.
    pub rows: String,
    /// The param whose values are the table's columns.
    pub columns: String,
    /// The metric whose per-setting mean fills the cells.
    pub value: String,
}

/// How the ablation groups expand into variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Design {
    /// Every subset of the groups (2^k variants): needed to measure interactions.
    #[default]
    Factorial,
    /// The baseline, each group alone, and all groups together (k + 2 variants).
    OneAtATime,
}

/// How a metric declaration picks one block out of a log.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "select", rename_all = "kebab-case", deny_unknown_fields)]
pub enum BlockSelector {
    /// The `index`-th block (default: the last) of `rank` carrying `tag`.
    ByTag { tag: String, rank: u32, index: Option<usize> },
    /// The block of `rank` (and `tag`, if given) whose `phase` seconds is closest to the run's `result_key`
    /// value, and within `within` of it (relative: 0.05 is 5%).
    Matching { rank: u32, phase: String, result_key: String, within: f64, tag: Option<String> },
}

/// `[ablation] sources = [{ target = "...", groups = { name = selector, ... } }]`: the template is the
/// target's current text with each group's blocks wrapped, so it can never be stale.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SourceDecl {
    /// Relative to the engine tree.
    pub target: String,
    /// Group name -> the selector of its blocks in `target` (a string, or `{ begin = '...', end = '...' }`).
    pub groups: BTreeMap<String, Selector>,
}

/// A process started before the run's main process, in its own process group and with its own log,
/// and stopped (SIGTERM, grace, SIGKILL) once the main process ends. Every text is a template over
/// the run's context, like `[run]`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceDecl {
    /// Names its log (`service-<name>.log`) and `process = "<name>"` on metrics.
    pub name: String,
    pub program: Template,
    #[serde(default)]
    pub args: Vec<Template>,
    #[serde(default)]
    pub env: BTreeMap<String, Template>,
    /// When the service counts as started.
    pub ready: ReadyDecl,
    /// `"auto"`: a free loopback port per run, as `{{port}}` in every template of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// Params whose values may differ between runs sharing one instance: runs of a round whose settings
    /// differ only in these run back to back beside one instance (e.g. client concurrency).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reuse_across: Vec<String>,
}

/// The only `port` value: pick a free loopback port.
pub const AUTO_PORT: &str = "auto";

/// The template name a service's automatic port is bound to.
pub const PORT_NAME: &str = "port";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_deserialises_kebab_case() {
        #[derive(Deserialize)]
        struct Holder {
            design: Design,
        }
        let parsed: Holder = serde_json::from_str(r#"{"design":"one-at-a-time"}"#).unwrap();
        assert_eq!(parsed.design, Design::OneAtATime);
        let parsed: Holder = serde_json::from_str(r#"{"design":"factorial"}"#).unwrap();
        assert_eq!(parsed.design, Design::Factorial);
    }

    #[test]
    fn selector_deserialises_and_rejects_unknown_fields() {
        let parsed: BlockSelector = serde_json::from_str(
            r#"{"select":"matching","rank":0,"phase":"STACK.r","result_key":"prefill_seconds","within":0.05}"#,
        )
        .unwrap();
        let expected = BlockSelector::Matching {
            rank: 0,
            phase: "STACK.r".to_string(),
            result_key: "prefill_seconds".to_string(),
            within: 0.05,
            tag: None,
        };
        assert_eq!(parsed, expected);
        let by_tag: BlockSelector = serde_json::from_str(r#"{"select":"by-tag","tag":"prefill","rank":0}"#).unwrap();
        assert_eq!(by_tag, BlockSelector::ByTag { tag: "prefill".to_string(), rank: 0, index: None });
        assert!(serde_json::from_str::<BlockSelector>(r#"{"select":"by-tag","tag":"p","rank":0,"idx":1}"#).is_err());
    }
}
