//! A checked sweep: the declaration after every validation, with its engine resolved; it holds no raw
//! declaration, only what loading made of it (and, for the sidecar, the declaration as recorded).

use std::path::PathBuf;

use super::analysis_config::AnalysisConfig;
use super::build_command::BuildCommand;
use super::check::Check;
use super::constraints::Constraints;
use super::engine::Engine;
use super::kernel_ablation::KernelAblation;
use super::param_tables::{DerivedParam, ValueMap};
use super::param_value::Param;
use super::recorded_declaration::RecordedDeclaration;
use super::search_config::SearchConfig;
use super::source_file::SourceFile;
use super::spec_error::SpecNote;
use super::sweep_decl::{InputDecl, MetricsDecl, RepsDecl, RunDecl};
use super::validate::plain_variables;

/// A sweep that passed `declare::load_sweep`; later stages may trust every name in it.
#[derive(Debug, Clone)]
pub struct Sweep {
    pub source: SourceFile,
    pub name: String,
    pub engine: Engine,
    pub params: Vec<Param>,
    /// `[params.derived]`, in declaration order (one may use an earlier one).
    pub derived: Vec<DerivedParam>,
    /// Params whose values add run arguments (`[params.tbo]`).
    pub value_maps: Vec<ValueMap>,
    pub zip: Vec<Vec<String>>,
    /// `where`: which settings of the grid are planned.
    pub constraints: Constraints,
    pub reps: RepsDecl,
    pub run: RunDecl,
    /// `[build]`: what each setting's build appends to the profile's build command.
    pub build: BuildCommand,
    pub inputs: Vec<InputDecl>,
    pub metrics: MetricsDecl,
    pub checks: Vec<Check>,
    pub analysis: AnalysisConfig,
    /// `[ablation]`, when the sweep declares one.
    pub ablation: Option<KernelAblation>,
    /// `[search]`: search the settings under a budget instead of running them all.
    pub search: Option<SearchConfig>,
    /// The declaration as written, as the sidecar records it.
    pub recorded: RecordedDeclaration,
    /// Whether `sweep run` adds its results to the history store (`[history] add`, default true).
    pub add_to_history: bool,
    /// What it most likely did not mean but can run (`sweep check` prints these).
    pub notes: Vec<SpecNote>,
}

impl Sweep {
    pub fn file(&self) -> &PathBuf {
        &self.source.path
    }

    /// The params the build command names (see `validate_build`): one build per distinct tuple of their values.
    pub fn build_time_params(&self) -> Vec<String> {
        let build = &self.build;
        let templates = self.engine.build.iter().chain(&build.args).chain(build.env.values());
        let named: Vec<&str> = templates.flat_map(|template| plain_variables(template.text())).collect();
        self.recorded_params().into_iter().filter(|name| named.contains(&name.as_str())).collect()
    }

    /// Whether each setting's build is rendered from its params (build-time params or a `[build]` section),
    /// so builds happen in cached copies of the tree rather than in the tree itself.
    pub fn builds_per_setting(&self) -> bool {
        !self.build.args.is_empty() || !self.build.env.is_empty() || !self.build_time_params().is_empty()
    }

    /// The param columns of the CSV: the declared params, the derived ones, then `ranks` when the sweep
    /// templates it.
    pub fn recorded_params(&self) -> Vec<String> {
        let declared = self.params.iter().map(|param| param.name.clone());
        let derived = self.derived.iter().map(|param| param.name.clone());
        declared.chain(derived).chain(self.engine.topology.ranks.as_ref().map(|_| "ranks".to_string())).collect()
    }

    /// Every metric name the sweep extracts or derives, in CSV column order.
    pub fn metric_names(&self) -> Vec<String> {
        let phases = self.metrics.profile.iter().flat_map(|profile| profile.phases.keys());
        let metrics = &self.metrics;
        metrics.result.iter().chain(metrics.regex.keys()).chain(phases).chain(metrics.derived.keys()).cloned().collect()
    }
}
