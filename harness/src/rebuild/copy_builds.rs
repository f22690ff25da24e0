//! `CopyBuilds`: the copy builds shared by ablations and build-time sweeps: one build per distinct
//! rendering and tuple of build-time values, each in its own cached copy of the tree, keyed by content,
//! so settings that render alike share it.

use std::collections::HashMap;
use std::path::{Component, Path};

use serde_json::{Map, Value};

use super::build_cache::{BuildCache, BuildKey, CachedBuild, EntryClaim};
use super::build_job::BuildJob;
use super::deferred_copies::DeferredCopies;
use super::error::BuildError;
use super::setting_build::SettingBuild;
use super::variant_site::VariantSite;
use crate::declare::{ParamValue, Sweep};
use crate::ground::BaseEnv;
use crate::variants::{self, RenderedFile, VariantError};

/// How a claim held by another sweep is waited for: told what it waits for, asked whether a signal
/// stopped it.
type Wait<'a> = (&'a dyn Fn(&str), &'a dyn Fn() -> Option<i32>);

/// One setting's build in a copy of the tree: its variant, its name in build lines, its command and the
/// sources rendered into its copy.
pub struct CopyBuild<'a> {
    variant: String,
    name: String,
    command: SettingBuild<'a>,
    files: Vec<RenderedFile>,
}

impl<'a> CopyBuild<'a> {
    /// The build of the setting of `variant` with param `values` (`context` as templates see them), with
    /// `files` rendered into its copy (none for a sweep whose only difference is its build-time params).
    pub fn of(
        sweep: &'a Sweep,
        variant: &str,
        values: &[(String, ParamValue)],
        context: &Map<String, Value>,
        files: Vec<RenderedFile>,
    ) -> CopyBuild<'a> {
        let name = build_name(sweep, variant, values);
        CopyBuild { variant: variant.to_string(), name, command: SettingBuild::of(sweep, context), files }
    }
}

/// What the copy builds of a sweep's settings are, before any is built.
pub struct CopyBuilds {
    /// Each setting's build key, in the settings' order.
    pub keys: Vec<BuildKey>,
    /// One job per distinct key.
    pub jobs: Vec<BuildJob>,
    /// Each setting's copy.
    pub sites: Vec<VariantSite>,
    /// The entries this sweep builds, claimed until their builds end.
    pub claims: Vec<EntryClaim>,
    /// The copies not made yet (when prepared `deferred`): each made before its first build.
    pub copies: DeferredCopies,
}

impl CopyBuilds {
    /// Keys every setting's build, claims the entries still to be built and copies the tree into each
    /// distinct one, or leaves the copies to `copies` when `deferred` (a search's: made as it visits
    /// them). Top-level entries of the tree not copied (build outputs): `exclude` (an ablation's), else
    /// the tree's own build dir. `toolchain` (every declared toolchain's version) is part of each key; a
    /// build starts from `base_env`.
    pub fn prepare<'a>(
        sweep: &'a Sweep,
        settings: impl Iterator<Item = Result<CopyBuild<'a>, VariantError>>,
        (exclude, deferred): (Option<&[String]>, bool),
        cache: &BuildCache,
        (toolchain, base_env): (&str, &BaseEnv),
        wait: Wait<'_>,
    ) -> Result<CopyBuilds, BuildError> {
        let engine = &sweep.engine;
        let exclude = exclude.map_or_else(|| build_outputs(sweep), <[String]>::to_vec);
        let fingerprint = variants::tree_fingerprint(&engine.tree, &exclude)?;
        // Each setting's variant and key; each distinct key once, with the first setting that has it (the
        // others' rendered files are dropped as they are keyed).
        let (mut variants, mut keys) = (Vec::new(), Vec::new());
        let mut distinct: Vec<(BuildKey, CopyBuild)> = Vec::new();
        for setting in settings {
            let setting = setting?;
            let key_argv = setting.command.key_argv().map_err(BuildError::Command)?;
            let key = BuildKey::new(&setting.files, &key_argv, toolchain, &fingerprint);
            variants.push(setting.variant.clone());
            if !distinct.iter().any(|(known, _)| *known == key) {
                distinct.push((key, setting));
            }
            keys.push(key);
        }
        let claims = claim_unbuilt(cache, distinct.iter().map(|(key, _)| *key), wait)?;
        let mut entries: HashMap<BuildKey, CachedBuild> = HashMap::new();
        let mut jobs = Vec::with_capacity(distinct.len());
        let mut copies = DeferredCopies::of(engine.tree.clone(), exclude.clone());
        for (key, setting) in distinct {
            // A deferred copy lives where the cache will make it: its paths are known before it exists.
            let entry = match deferred {
                true => cache.entry(&key),
                false => cache.prepare(&key, &engine.tree, &setting.files, &exclude)?,
            };
            let argv = setting.command.argv(&entry.tree, &entry.build).map_err(BuildError::Command)?;
            let mut env = base_env.overrides().to_vec();
            env.extend(setting.command.env().map_err(BuildError::Command)?);
            let (tree, build_dir) = (entry.tree.clone(), entry.build.clone());
            jobs.push(BuildJob { variant: setting.name.clone(), tree, build_dir, argv, env, key });
            entries.insert(key, entry);
            if deferred {
                copies.defer(key, setting.files);
            }
        }
        let sites = variants
            .into_iter()
            .zip(&keys)
            .map(|(name, key)| VariantSite {
                name,
                tree: entries[key].tree.clone(),
                build_dir: entries[key].build.clone(),
                hash: key.to_string(),
            })
            .collect();
        Ok(CopyBuilds { keys, jobs, sites, claims, copies })
    }
}

/// Claims every entry of `keys` still to be built, in key order: sweeps sharing the cache claim the
/// entries they both need in one order, so none holds one while waiting for another's.
fn claim_unbuilt(
    cache: &BuildCache,
    keys: impl Iterator<Item = BuildKey>,
    (waiting, stop): Wait<'_>,
) -> Result<Vec<EntryClaim>, BuildError> {
    let mut unbuilt: Vec<BuildKey> = keys.filter(|key| cache.lookup(key).is_none()).collect();
    unbuilt.sort();
    unbuilt.iter().map(|key| EntryClaim::acquire(&cache.root, key, waiting, stop)).collect()
}

/// The variant, with its build-time values when there are any (`baseline block=64`), for build lines.
fn build_name(sweep: &Sweep, variant: &str, values: &[(String, ParamValue)]) -> String {
    let build_time = sweep.build_time_params();
    let values = values.iter().filter(|(name, _)| build_time.contains(name));
    std::iter::once(variant.to_string())
        .chain(values.map(|(name, value)| format!("{name}={value}")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The tree's own build dir is not copied: each copy builds into its own.
fn build_outputs(sweep: &Sweep) -> Vec<String> {
    let engine = &sweep.engine;
    first_component(&engine.build_dir, &engine.tree).into_iter().collect()
}

fn first_component(path: &Path, under: &Path) -> Option<String> {
    match path.strip_prefix(under).ok()?.components().next()? {
        Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_dir_inside_the_tree_is_excluded_by_its_top_entry() {
        assert_eq!(first_component(Path::new("/e/build/x"), Path::new("/e")), Some("build".into()));
        assert_eq!(first_component(Path::new("/elsewhere/b"), Path::new("/e")), None);
    }
}
