//! Params that no template, argument or env names: every value of one runs the same command, so its
//! "settings" are repeats under different labels (most often a misspelt `{{name}}` elsewhere).

use std::collections::BTreeSet;

use super::near_name::did_you_mean;
use super::spec_error::SpecNote;
use super::sweep::Sweep;
use super::validate_services::service_templates;
use super::RESERVED_NAMES;

/// Handlebars' built-in helpers and keywords: words of a template that are never a misspelt param.
const HELPERS: &[&str] = &[
    "if", "unless", "each", "with", "else", "lookup", "log", "this", "eq", "ne", "gt", "gte", "lt", "lte", "and", "or",
    "not", "len",
];

/// One note per param nothing the run is made from names, at the param's key.
pub fn unused_params(sweep: &Sweep) -> Vec<SpecNote> {
    let Some(texts) = run_texts(sweep) else { return Vec::new() };
    let mut used: BTreeSet<&str> = texts.iter().flat_map(|text| mentioned(text)).collect();
    used.extend(sweep.value_maps.iter().map(|map| map.param.as_str()));
    // A derived param used passes the use on to what it is computed from (later ones may use earlier ones).
    for derived in sweep.derived.iter().rev() {
        if used.contains(derived.name.as_str()) {
            used.extend(derived.expression.names().iter().map(String::as_str));
        }
    }
    let is_param = |name: &str| sweep.params.iter().any(|param| param.name == name);
    let known = |name: &&str| is_param(name) || HELPERS.contains(name) || RESERVED_NAMES.contains(name);
    let unknown: Vec<&str> = used.iter().copied().filter(|name| !known(name)).collect();
    let unused = sweep.params.iter().filter(|param| !used.contains(param.name.as_str()));
    unused
        .map(|param| {
            let name = &param.name;
            let message = format!(
                "parameter `{name}` is named by no template, argument or env, so its values run the same \
                 command{}",
                did_you_mean(name, unknown.iter().copied())
            );
            SpecNote { location: sweep.source.location(&format!("params.{name}"), None), message }
        })
        .collect()
}

/// Every text a run is rendered from; `None` when an ablation template file cannot be read (its own
/// check says why).
fn run_texts(sweep: &Sweep) -> Option<Vec<String>> {
    let (run, build, engine) = (&sweep.run, &sweep.build, &sweep.engine);
    let declared = run.args.iter().chain(run.env.values()).chain(&build.args).chain(build.env.values());
    let maps = sweep.value_maps.iter().flat_map(|map| &map.values);
    let maps = maps.flat_map(|(_, adds)| adds.args.iter().chain(adds.env.values()));
    let profile = engine.build.iter().chain(&engine.launcher_command).chain(engine.env.values());
    let profile = profile.chain(engine.pre_run.iter().flatten());
    let optional = [
        Some(&engine.program),
        engine.setup.as_ref(),
        engine.topology.ranks.as_ref(),
        engine.topology.hostfile.as_ref(),
    ];
    let inputs = sweep.inputs.iter().map(|input| &input.count);
    let templates = declared.chain(maps).chain(profile).chain(optional.into_iter().flatten()).chain(inputs);
    let mut texts: Vec<String> = templates.map(|template| template.text().to_string()).collect();
    texts.extend(service_templates(&run.service).map(|(_, text)| text.to_string()));
    for template in sweep.ablation.iter().flat_map(|ablation| &ablation.templates) {
        texts.push(std::fs::read_to_string(engine.topology.sweep_dir.join(&template.template)).ok()?);
    }
    Some(texts)
}

/// Every name-like word inside the `{{ }}` of `text` (`{{#if (eq a "b")}}` names `if`, `eq`, `a`, `b`):
/// more than the variables, which is safe here (a param is only ever reported as unused).
fn mentioned(text: &str) -> impl Iterator<Item = &str> {
    text.split("{{").skip(1).filter_map(|part| part.split_once("}}").map(|(inside, _)| inside)).flat_map(|inside| {
        inside.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).filter(|word| !word.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_inside_braces_only() {
        let words: Vec<&str> = mentioned("--rows {{rows}} x {{#if (eq mode \"a\")}}y{{/if}} z").collect();
        assert_eq!(words, ["rows", "if", "eq", "mode", "a", "if"]);
    }
}
