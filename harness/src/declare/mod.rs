//! Parses and validates sweep declarations and engine profiles; every error names file, key and line.

mod analysis_config;
mod build_command;
mod check;
mod constraints;
mod duration_value;
mod engine;
mod engine_profile;
#[cfg(test)]
mod fuzz_tests;
mod history_decl;
mod kernel_ablation;
mod launcher;
mod launchers;
mod near_name;
mod param_tables;
mod param_value;
mod pattern;
mod quantity_decl;
mod ready_decl;
mod recorded_declaration;
mod repository;
mod search_budget;
mod search_config;
mod selector;
mod source_file;
mod spec_error;
mod sweep;
mod sweep_decl;
mod unused_params;
mod validate;
mod validate_services;
mod validate_topology;
mod variant_name;

use std::path::{Path, PathBuf};

use crate::template::Template;

pub use analysis_config::{
    AdditivityScale, AnalysisConfig, ControlScaling, Direction, FitConfig, Race, RelativeKind, RowsPerSliceConfig,
    VerifyRule, DEFAULT_ALPHA,
};
pub use build_command::BuildCommand;
pub use check::{Check, CheckTest};
pub use constraints::Constraints;
pub use engine::{Engine, Topology};
pub use engine_profile::{EngineOverrides, EngineProfile, RanksOverride, ResultLine};
pub use kernel_ablation::KernelAblation;
pub use launcher::Launcher;
pub use launchers::LauncherKind;
pub use near_name::did_you_mean;
pub use param_tables::{DerivedParam, ValueMap};
pub use param_value::{Param, ParamValue};
pub use pattern::Pattern;
pub use quantity_decl::{Quantity, QuantityDecl, QuantityTerm};
pub use ready_decl::{ReadyDecl, ReadyRule};
pub use recorded_declaration::RecordedDeclaration;
pub use repository::Repository;
pub use search_budget::SearchBudget;
pub use search_config::SearchConfig;
pub use selector::{LineBlock, Selector, SelectorError};
pub use source_file::SourceFile;
pub use spec_error::{Location, SpecError, SpecNote};
pub use sweep::Sweep;
pub use sweep_decl::{
    AblationDecl, BlockSelector, CheckDecl, Design, InputDecl, Isolation, MetricsDecl, PivotConfig, ProfileMetricsDecl,
    RegexMetricDecl, ReportConfig, RepsDecl, RunDecl, RunOrder, ServiceDecl, SourceDecl, SweepDecl, TemplateDecl,
    Until, AUTO_PORT, DEFAULT_RACE_MIN, PORT_NAME,
};
pub use variant_name::VariantName;

/// Names the harness itself puts into every template context; a param may not shadow them.
pub const RESERVED_NAMES: &[&str] =
    &["rank", "ranks", "rep", "run_dir", "inputs", "tree", "build_dir", "variant", "ablate"];

/// Most reps (and warmup rounds) a sweep may declare: beyond this a typo, not a measurement plan.
pub const MAX_REPS: u32 = 10_000;

/// Most ranks a run may start.
pub const MAX_RANKS: u32 = 4096;

/// Most settings (grid points times ablation variants) a sweep may plan.
pub const MAX_SETTINGS: u64 = 100_000;

/// Most runs (settings times reps and warmup rounds) a sweep may plan.
pub const MAX_RUNS: u64 = 1_000_000;

/// Most ablation groups: a factorial design builds 2^k variants.
pub const MAX_ABLATION_GROUPS: usize = 12;

/// Reads, parses and checks a sweep declaration and its engine profile.
pub fn load_sweep(path: &Path) -> Result<Sweep, SpecError> {
    let source = SourceFile::read(path)?;
    let decl: SweepDecl = source.parse()?;
    validate::name(&source, &decl.name)?;
    let engine = read_profile(&find_profile(&source, &decl.engine.profile)?, &source, &decl.engine)?;
    let tables = param_tables::ParamTables::split(&source, &decl.params)?;
    let params = validate::params(&source, &tables.values, &decl.run.unset)?;
    validate::derived(&source, &tables.derived, &params)?;
    let constraints = Constraints::check(&source, &decl.constraints, &params, &tables.derived)?;
    declared_env_names(&source, &decl, &tables.maps)?;
    // Templates, expressions and analysis may also name derived params (their values are known per setting).
    let named: Vec<Param> = params.iter().cloned().chain(tables.derived.iter().map(DerivedParam::as_named)).collect();
    validate::zip_groups(&source, &decl.zip, &params)?;
    validate::repeated_values(&source, &params, &decl.zip)?;
    validate::reps(&source, &decl.reps)?;
    validate::metrics(&source, &decl.metrics, &named)?;
    validate::units(&source, &decl.metrics)?;
    validate::profile_metrics(&source, &decl.metrics, engine.profile_prefix.as_deref())?;
    validate::result_keys(&source, &decl.metrics, &engine)?;
    let checks = validate::checks(&source, &decl.checks, &decl.metrics, &named)?;
    validate::inputs(&source, &decl.inputs)?;
    validate_services::services(&source, &decl.run, &named, !engine.pre_run.is_empty())?;
    validate_services::metric_processes(&source, &decl.metrics, &decl.run)?;
    validate::run_templates(&source, &decl.run, &named, &decl.inputs, engine.launcher)?;
    let build = BuildCommand::check(&source, &decl.build, &engine, &named)?;
    validate_topology::topology(&source, &engine, &params)?;
    validate::analysis(&source, &decl.analysis, &decl.metrics, &named)?;
    validate::baseline(&source, &decl.analysis, &decl.metrics, &params)?;
    validate::report(&source, &decl.report, &decl.metrics, &params)?;
    let ablation = decl.ablation.as_ref().map(|ablation| KernelAblation::check(&source, ablation)).transpose()?;
    validate::plan_size(&source, &params, &decl.zip, &decl.reps, ablation.as_ref())?;
    validate::search(&source, decl.search.as_ref(), &decl.reps, ablation.is_some())?;
    let mut sweep = Sweep {
        name: decl.name.clone(),
        engine,
        params,
        derived: tables.derived,
        value_maps: tables.maps,
        zip: decl.zip.clone(),
        constraints,
        reps: decl.reps.clone(),
        run: decl.run.clone(),
        build,
        inputs: decl.inputs.clone(),
        metrics: decl.metrics.clone(),
        checks,
        analysis: decl.analysis.clone(),
        ablation,
        search: decl.search,
        recorded: RecordedDeclaration::of(&decl),
        add_to_history: decl.history.add,
        source,
        notes: Vec::new(),
    };
    sweep.notes = unused_params::unused_params(&sweep);
    Ok(sweep)
}

/// Every environment a sweep declares has settable variable names: `[engine] env`, `[run] env`, each
/// service's, `[build] env` and each value map's.
fn declared_env_names(source: &SourceFile, decl: &SweepDecl, maps: &[ValueMap]) -> Result<(), SpecError> {
    validate::env_names(source, "engine.env", decl.engine.env.keys())?;
    validate::env_names(source, "run.env", decl.run.env.keys())?;
    validate::env_names(source, "build.env", decl.build.env.keys())?;
    for (index, service) in decl.run.service.iter().enumerate() {
        validate::env_names(source, &format!("run.service[{index}].env"), service.env.keys())?;
    }
    for map in maps {
        for (value, args) in &map.values {
            validate::env_names(source, &format!("params.{}.{value}.env", map.param), args.env.keys())?;
        }
    }
    Ok(())
}

/// A declared enum value as the TOML spells it (`mpirun`, `interleaved`), not as Rust's Debug does.
pub fn toml_spelling(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        other => format!("{other:?}"),
    }
}

/// Whether a TOML file is an engine profile rather than a sweep: it names a `program` and has no
/// `[engine]` table (a file that does not parse is taken as a sweep, whose loading says why).
pub fn is_engine_profile(path: &Path) -> bool {
    let text = crate::read_limit::ReadLimit::DECLARATION.read_to_string(path).ok();
    let table = text.and_then(|text| text.parse::<toml::Table>().ok());
    table.is_some_and(|table| table.contains_key("program") && !table.contains_key("engine"))
}

/// Reads and checks an engine profile on its own (`sweep check sweeps/engines/x.toml`), as a sweep
/// that overrides nothing would use it.
pub fn load_engine_profile(path: &Path) -> Result<Engine, SpecError> {
    let source = SourceFile::read(path)?;
    let overrides = EngineOverrides { profile: path.display().to_string(), ..Default::default() };
    read_profile(path, &source, &overrides)
}

/// Reads the profile at `profile_path` and applies `overrides` (keys of `sweep`, where an error in an
/// override is located).
fn read_profile(profile_path: &Path, sweep: &SourceFile, overrides: &EngineOverrides) -> Result<Engine, SpecError> {
    let profile_source = SourceFile::read(profile_path)?;
    let mut profile: EngineProfile = profile_source.parse()?;
    let profile_dir = parent_dir(profile_path);
    profile.apply(overrides);
    // After `apply`: an overriding tree is relative to the sweep file, the profile's own to the profile.
    let (written_tree, tree_location, tree) = match &overrides.tree {
        Some(tree) => (tree.clone(), sweep.location("engine.tree", None), absolute(&parent_dir(&sweep.path), tree)),
        None => (profile.tree.clone(), profile_source.location("tree", None), absolute(&profile_dir, &profile.tree)),
    };
    profile.tree = tree;
    validate::engine(&profile_source, sweep, &profile, overrides)?;
    let tree = PathBuf::from(&profile.tree);
    let launcher_command = match profile.launcher_command.is_empty() {
        true => profile.launcher.default_command().map(Template::literal).into_iter().collect(),
        false => profile.launcher_command,
    };
    // The path is made absolute first, so a rendered script is found from any folder.
    let setup = profile.setup.map(|file| {
        Template::parse(&absolute(&profile_dir, &file))
            .map_err(|error| profile_source.error_at("setup", format!("bad template `{file}`: {error}")))
    });
    let setup = setup.transpose()?;
    let ranks = match &overrides.ranks {
        Some(RanksOverride::Template(text)) => Some(
            Template::parse(text)
                .map_err(|error| sweep.error_at("engine.ranks", format!("bad template `{text}`: {error}")))?,
        ),
        _ => None,
    };
    let engine = Engine {
        profile: profile_source,
        build_dir: tree.join(&profile.build_dir),
        tree,
        program: profile.program,
        build: profile.build,
        launcher: profile.launcher,
        launcher_command,
        hostfile: profile.hostfile.map(|file| PathBuf::from(absolute(&profile_dir, &file))),
        ranks: profile.ranks,
        env: profile.env,
        timeout: profile.timeout,
        grace: profile.grace,
        setup,
        pre_run: profile.pre_run,
        result: profile.result,
        profile_prefix: profile.profile_prefix,
        toolchain: profile.toolchain,
        topology: Topology {
            ranks,
            hostfile: overrides.hostfile.clone(),
            sweep_dir: std::path::absolute(parent_dir(&sweep.path)).unwrap_or_else(|_| parent_dir(&sweep.path)),
        },
    };
    // Last: without its tree a profile is still checked as a declaration (`sweep check` says so).
    if !engine.tree.is_dir() {
        return Err(SpecError::TreeMissing { location: tree_location, tree: written_tree, resolved: engine.tree });
    }
    engine.check_program()?;
    Ok(engine)
}

/// `name` is a path when it ends in `.toml`; otherwise `engines/<name>.toml` in the sweep's folder or above.
/// The first found is the profile whatever it is: reading it refuses anything but a regular file by name.
fn find_profile(sweep: &SourceFile, name: &str) -> Result<PathBuf, SpecError> {
    let sweep_dir = parent_dir(&sweep.path);
    if name.ends_with(".toml") {
        let path = sweep_dir.join(name);
        return if path.exists() {
            Ok(path)
        } else {
            Err(sweep.error_at("engine.profile", format!("engine profile `{}` does not exist", path.display())))
        };
    }
    let file = format!("engines/{name}.toml");
    sweep_dir.ancestors().map(|dir| dir.join(&file)).find(|candidate| candidate.exists()).ok_or_else(|| {
        sweep.error_at(
            "engine.profile",
            format!("no engine profile `{name}`: looked for {file} in {} and its parents", sweep_dir.display()),
        )
    })
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Joins a declared path onto the folder it is relative to, made absolute so runs can `cd` freely.
fn absolute(base: &Path, path: &str) -> String {
    let joined = base.join(path);
    let joined = std::path::absolute(&joined).unwrap_or(joined);
    normalize(&joined).display().to_string()
}

/// Removes `.` and `a/..` segments without touching the file system (the path may not exist yet).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dry run printed Rust spellings (`Mpirun`, `Interleaved`), not the TOML's.
    #[test]
    fn enums_are_spelled_as_in_the_toml() {
        assert_eq!(toml_spelling(&LauncherKind::named("per-rank").unwrap()), "per-rank");
        assert_eq!(toml_spelling(&RunOrder::Interleaved), "interleaved");
    }
}
