//! Checks a parsed declaration for what serde cannot: empty grids, dangling names, bad expressions.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::analysis_config::AnalysisConfig;
use super::check::{Check, CheckTest};
use super::engine::Engine;
use super::engine_profile::{EngineOverrides, EngineProfile, RanksOverride};
use super::kernel_ablation::KernelAblation;
use super::launchers::LauncherKind;
use super::near_name::did_you_mean;
use super::param_tables::DerivedParam;
use super::param_value::{Param, ParamValue};
use super::quantity_decl::QuantityTerm;
use super::search_budget::SearchBudget;
use super::search_config::SearchConfig;
use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::{
    BlockSelector, CheckDecl, InputDecl, MetricsDecl, ReportConfig, RepsDecl, RunDecl, RunOrder, PORT_NAME,
};
use super::validate_services::CLIENT_PROCESS;
use super::{MAX_RANKS, MAX_REPS, MAX_RUNS, MAX_SETTINGS, RESERVED_NAMES};
use crate::expression::Expression;

/// Turns `[params]` into params, refusing empty lists, non-scalars and reserved names; `unset` (`[run.unset]`)
/// names values that may stand apart in type (`"rule"` among numbers: the engine's own choice beside forced ones).
pub fn params(
    source: &SourceFile,
    table: &toml::Table,
    unset: &BTreeMap<String, String>,
) -> Result<Vec<Param>, SpecError> {
    table.iter().map(|(name, value)| param(source, name, value, unset.get(name))).collect()
}

fn param(source: &SourceFile, name: &str, value: &toml::Value, unset: Option<&String>) -> Result<Param, SpecError> {
    let key = format!("params.{name}");
    if RESERVED_NAMES.contains(&name) {
        return Err(source.error_at(&key, format!("`{name}` is reserved for the harness; rename the parameter")));
    }
    let (items, is_list) = match value {
        toml::Value::Array(items) => (items.as_slice(), true),
        scalar => (std::slice::from_ref(scalar), false),
    };
    if items.is_empty() {
        return Err(source.error_at(&key, "empty list: a parameter needs at least one value"));
    }
    let value = |item: &toml::Value| {
        ParamValue::from_toml(item).ok_or_else(|| {
            let kind = match item.type_str() {
                "array" => "a list",
                "table" => "a table",
                other => other,
            };
            source.error_at(&key, format!("values must be numbers, strings or booleans, not {kind}"))
        })
    };
    let values = items.iter().map(value).collect::<Result<Vec<_>, _>>()?;
    if let Some(value) = values.iter().find(|value| matches!(value, ParamValue::Float(x) if !x.is_finite())) {
        return Err(source.error_at(&key, format!("`{value}` is not a finite number")));
    }
    let is_unset = |value: &&ParamValue| unset.is_some_and(|unset| matches!(value, ParamValue::Text(t) if t == unset));
    let typed: Vec<&ParamValue> = values.iter().filter(|value| !is_unset(value)).collect();
    if let Some(&[a, b]) = typed.windows(2).find(|pair| kind_of(pair[0]) != kind_of(pair[1])) {
        let (a, a_kind, b, b_kind) = (a.written(), kind_of(a), b.written(), kind_of(b));
        let message = format!(
            "mixed value types: `{a}` is {a_kind} but `{b}` is {b_kind}; write every value of a parameter as one type"
        );
        return Err(source.error_at(&key, message));
    }
    Ok(Param { name: name.to_string(), values, is_list })
}

/// The param called `name`, else an error at `key`: `unknown parameter `name``, then `hint`.
fn param_named<'a>(
    source: &SourceFile,
    key: &str,
    params: &'a [Param],
    name: &str,
    hint: &str,
) -> Result<&'a Param, SpecError> {
    let unknown = || source.error_at(key, format!("{}{hint}", unknown_param(name, params)));
    params.iter().find(|param| param.name == name).ok_or_else(unknown)
}

/// `unknown parameter `colum`; did you mean `column`?` (the suggestion only when a param is near).
fn unknown_param(name: &str, params: &[Param]) -> String {
    format!("unknown parameter `{name}`{}", did_you_mean(name, params.iter().map(|param| param.name.as_str())))
}

/// Derived params are expressions over numeric params (a text or boolean param is refused here, never
/// found at run time) and earlier derived params.
pub fn derived(source: &SourceFile, derived: &[DerivedParam], params: &[Param]) -> Result<(), SpecError> {
    for (index, param) in derived.iter().enumerate() {
        let key = format!("params.derived.{}", param.name);
        if RESERVED_NAMES.contains(&param.name.as_str()) || params.iter().any(|p| p.name == param.name) {
            return Err(source.error_at(&key, format!("`{}` is already a parameter or a harness name", param.name)));
        }
        let earlier: Vec<&str> = derived[..index].iter().map(|d| d.name.as_str()).collect();
        numeric_expression(source, &key, &param.expression, params, &earlier)?;
    }
    Ok(())
}

pub(super) fn numeric_expression(
    source: &SourceFile,
    key: &str,
    expression: &Expression,
    params: &[Param],
    derived: &[&str],
) -> Result<(), SpecError> {
    for name in expression.names() {
        match params.iter().find(|param| param.name == *name) {
            Some(param) if !param.values.iter().all(|value| value.as_f64().is_some()) => {
                let message =
                    format!("`{name}` is not numeric: expressions are over numbers (compare it in a value map)");
                return Err(source.error_at(key, message));
            }
            Some(_) => {}
            None if derived.contains(&name.as_str()) => {}
            None => return Err(source.error_at(key, format!("unknown parameter `{name}` in `{expression}`"))),
        }
    }
    Ok(())
}

/// Integers and floats are both numbers: `[1, 1.5]` is one numeric axis, `[512, "1024"]` is a typo.
fn kind_of(value: &ParamValue) -> &'static str {
    match value {
        ParamValue::Int(_) | ParamValue::Float(_) => "a number",
        ParamValue::Bool(_) => "a boolean",
        ParamValue::Text(_) => "a string",
    }
}

/// Zip groups name existing list params of one length, each param in at most one group.
pub fn zip_groups(source: &SourceFile, groups: &[Vec<String>], params: &[Param]) -> Result<(), SpecError> {
    let mut seen = BTreeSet::new();
    for (index, group) in groups.iter().enumerate() {
        let key = format!("zip[{index}]");
        if group.len() < 2 {
            return Err(source.error_at(&key, "a zip group needs at least two parameters"));
        }
        let mut first = None;
        for name in group {
            let param = param_named(source, &key, params, name, " (not in [params])")?;
            if !param.is_list {
                return Err(source.error_at(&key, format!("`{name}` is a single value; only lists can be zipped")));
            }
            if !seen.insert(name.as_str()) {
                return Err(source.error_at(&key, format!("`{name}` is in more than one zip group")));
            }
            let (first, len) = *first.get_or_insert((name, param.values.len()));
            if len != param.values.len() {
                let message = format!(
                    "zipped lists differ in length: `{first}` has {len} values, `{name}` has {}",
                    param.values.len()
                );
                return Err(source.error_at(&key, message));
            }
        }
    }
    Ok(())
}

/// No two points of one axis (a lone param's list, or a zip group's tuples) may print alike: the CSV
/// records a value as it prints, so `32` and `32.0` (or `"32"`) would be one setting counted twice.
pub fn repeated_values(source: &SourceFile, params: &[Param], zip: &[Vec<String>]) -> Result<(), SpecError> {
    let lone = params.iter().filter(|p| !zip.iter().flatten().any(|name| *name == p.name));
    let lone = lone.map(|param| (format!("params.{}", param.name), vec![param]));
    let zipped = zip.iter().enumerate().map(|(index, group)| {
        let members = group.iter().filter_map(|name| params.iter().find(|p| &p.name == name)).collect::<Vec<_>>();
        (format!("zip[{index}]"), members)
    });
    for (key, members) in lone.chain(zipped) {
        let points: Vec<Vec<&ParamValue>> =
            (0..members[0].values.len()).map(|i| members.iter().map(|p| &p.values[i]).collect()).collect();
        // The first point that prints like an earlier one, with that earlier point. Linear: a list of
        // 100,000 values is checked in milliseconds.
        let mut seen: HashMap<Vec<String>, usize> = HashMap::with_capacity(points.len());
        let repeat = points.iter().enumerate().find_map(|(i, point)| {
            let printed = point.iter().map(|value| value.to_string()).collect();
            seen.insert(printed, i).map(|j| (points[j].as_slice(), point.as_slice()))
        });
        let Some((earlier, repeated)) = repeat else { continue };
        // A lone param's point shows as its value, a zip group's as `name=value` pairs.
        let shown = |point: &[&ParamValue], show: fn(&ParamValue) -> String| match point {
            [value] => show(value),
            _ => {
                members.iter().zip(point).map(|(p, v)| format!("{}={}", p.name, show(v))).collect::<Vec<_>>().join(" ")
            }
        };
        let printed = shown(repeated, |value| value.to_string());
        let (earlier, repeated) = (shown(earlier, ParamValue::written), shown(repeated, ParamValue::written));
        let message = if earlier == repeated {
            format!("`{printed}` is listed twice: two settings would be one and the same")
        } else {
            format!("`{earlier}` and `{repeated}` both print as `{printed}`: two settings would share one CSV identity")
        };
        return Err(source.error_at(&key, message));
    }
    Ok(())
}

pub fn reps(source: &SourceFile, reps: &RepsDecl) -> Result<(), SpecError> {
    if reps.count == 0 {
        return Err(source.error_at("reps.count", "must be at least 1"));
    }
    for (key, value) in [("reps.count", reps.count), ("reps.warmup", reps.warmup)] {
        if value > MAX_REPS {
            return Err(source.error_at(key, format!("{value} is more than the {MAX_REPS} reps a sweep may have")));
        }
    }
    let Some((min, max)) = reps.race() else {
        for (key, value) in [("reps.min", reps.min), ("reps.max", reps.max)] {
            if value.is_some() {
                return Err(source.error_at(key, "only means something with `until = \"decided\"`"));
            }
        }
        return Ok(());
    };
    if reps.order != RunOrder::Interleaved {
        return Err(
            source.error_at("reps.until", "a race needs `order = \"interleaved\"`: it decides after each round")
        );
    }
    if min < 2 {
        return Err(source.error_at("reps.min", "must be at least 2: one round cannot show a difference"));
    }
    if reps.max.is_some_and(|max| max < min) {
        return Err(source.error_at("reps.max", format!("must be at least reps.min ({min})")));
    }
    if max > MAX_REPS {
        return Err(source.error_at("reps.max", format!("{max} is more than the {MAX_REPS} reps a sweep may have")));
    }
    Ok(())
}

/// Sweep names name the results folder (`<results_dir>/<name>/`), so they must stay one plain file name.
pub fn name(source: &SourceFile, name: &str) -> Result<(), SpecError> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        let message =
            format!("`{name}` is not a plain file name (no `/`, `.` or `..`): it names the sweep's results folder");
        return Err(source.error_at("name", message));
    }
    Ok(())
}

/// The settings (grid points times ablation variants) and their runs must fit in memory and in a lifetime
/// of runs: a param with thousands of values, or thousands of reps over a large grid, is refused here
/// rather than aborting on allocation while planning.
pub fn plan_size(
    source: &SourceFile,
    params: &[Param],
    zip: &[Vec<String>],
    reps: &RepsDecl,
    ablation: Option<&KernelAblation>,
) -> Result<(), SpecError> {
    let zipped = |param: &&Param| zip.iter().flatten().any(|name| *name == param.name);
    let lone = params.iter().filter(|param| !zipped(param)).map(|param| param.values.len() as u64);
    let groups = zip.iter().filter_map(|group| params.iter().find(|param| param.name == group[0]));
    let mut axes =
        lone.chain(groups.map(|param| param.values.len() as u64)).chain(ablation.map(KernelAblation::variant_count));
    let settings = axes.try_fold(1u64, u64::checked_mul);
    let settings = settings.filter(|&n| n <= MAX_SETTINGS).ok_or_else(|| {
        let count = settings.map_or("billions of".to_string(), |n| n.to_string());
        source.error_at("params", format!("{count} settings: more than the {MAX_SETTINGS} a sweep may plan"))
    })?;
    let rounds = u64::from(reps.count) + u64::from(reps.warmup);
    let runs = settings * rounds;
    if runs > MAX_RUNS {
        let message =
            format!("{settings} settings x {rounds} rounds = {runs} runs: more than the {MAX_RUNS} a sweep may plan");
        return Err(source.error_at("reps.count", message));
    }
    Ok(())
}

/// `[search]` spends at least one run, races its own candidates round by round (so neither a race of
/// `[reps]` nor runs back to back), and searches settings, not ablation variants.
pub fn search(
    source: &SourceFile,
    search: Option<&SearchConfig>,
    reps: &RepsDecl,
    ablation: bool,
) -> Result<(), SpecError> {
    let Some(search) = search else { return Ok(()) };
    if search.budget == SearchBudget::Runs(0) {
        return Err(source.error_at("search.budget", "must be at least 1 run"));
    }
    if search.budget.runs().is_some_and(|runs| runs > MAX_RUNS) {
        return Err(source.error_at("search.budget", format!("more than the {MAX_RUNS} runs a sweep may plan")));
    }
    if reps.until.is_some() {
        let message = "a search races its candidates itself: drop `[reps] until` (or `[search]`)";
        return Err(source.error_at("reps.until", message));
    }
    if reps.order != RunOrder::Interleaved {
        return Err(source.error_at("reps.order", "a search runs its candidates in interleaved rounds"));
    }
    if ablation {
        return Err(source.error_at("search", "an ablation runs every variant: it cannot be searched"));
    }
    Ok(())
}

/// Metric names are unique, regexes compile with a capture, derived expressions parse over known names.
pub fn metrics(source: &SourceFile, metrics: &MetricsDecl, params: &[Param]) -> Result<(), SpecError> {
    let mut names = BTreeSet::new();
    let result = metrics.result.iter().enumerate().map(|(i, name)| (format!("metrics.result[{i}]"), name));
    let regex = metrics.regex.keys().map(|name| (format!("metrics.regex.{name}"), name));
    let phases = metrics.profile.iter().flat_map(|profile| profile.phases.keys());
    let phases = phases.map(|name| (format!("metrics.profile.phases.{name}"), name));
    let derived = metrics.derived.keys().map(|name| (format!("metrics.derived.{name}"), name));
    for (key, name) in result.chain(regex).chain(phases).chain(derived) {
        if !names.insert(name.as_str()) {
            return Err(source.error_at(&key, format!("metric `{name}` is declared twice")));
        }
    }
    if names.is_empty() {
        return Err(source.error_at("metrics", "no metrics declared: add `result = [...]` keys to read"));
    }
    for (name, decl) in &metrics.regex {
        if decl.pattern.captures_len() < 2 {
            let message = "the regex has no capture group: wrap the number in ( )";
            return Err(source.error_at(&format!("metrics.regex.{name}.pattern"), message));
        }
    }
    let known: BTreeSet<&str> = names.iter().copied().chain(numeric_names(params)).collect();
    for (name, expression) in &metrics.derived {
        expression_over(source, &format!("metrics.derived.{name}"), expression, &known, Some(name))?;
    }
    derived_cycle(source, &metrics.derived)
}

/// Derived metrics may use one another, but not in a cycle: `a = "b + 1"`, `b = "a + 1"` can never be
/// evaluated, so every run would fail.
fn derived_cycle(source: &SourceFile, derived: &BTreeMap<String, Expression>) -> Result<(), SpecError> {
    let uses = |name: &str| -> Vec<&str> {
        let read = derived[name].names();
        derived.keys().map(String::as_str).filter(|other| read.iter().any(|used| used == other)).collect()
    };
    // Depth-first from each metric: a path that comes back to a metric on it is a cycle.
    let mut finished: BTreeSet<&str> = BTreeSet::new();
    for start in derived.keys() {
        let mut path: Vec<(&str, Vec<&str>)> = vec![(start.as_str(), uses(start))];
        while let Some((_, next)) = path.last_mut() {
            match next.pop() {
                Some(used) if path.iter().any(|(on, _)| *on == used) => {
                    let at = path.iter().position(|(on, _)| *on == used).unwrap_or_default();
                    let cycle: Vec<&str> = path[at..].iter().map(|(on, _)| *on).chain([used]).collect();
                    let message = format!(
                        "derived metrics defined in terms of each other ({}) can never be evaluated",
                        cycle.join(" -> ")
                    );
                    return Err(source.error_at(&format!("metrics.derived.{used}"), message));
                }
                Some(used) if !finished.contains(used) => path.push((used, uses(used))),
                Some(_) => {}
                None => {
                    let (done, _) = path.pop().expect("the path is not empty");
                    finished.insert(done);
                }
            }
        }
    }
    Ok(())
}

/// The params an expression may read: numbers only (`Expression::number` binds numbers), so an expression
/// over a text or boolean param is refused here, not found at run time.
fn numeric_names(params: &[Param]) -> impl Iterator<Item = &str> {
    let numeric = params.iter().filter(|param| param.values.iter().all(|value| value.as_f64().is_some()));
    numeric.map(|param| param.name.as_str())
}

/// `expression` parses, reads only `known` names (and not `itself`), and evaluates: a wrong arity, an
/// unknown function or a type error (`value +* 2`, `a b`, `if(x, 1, 2)` over numbers) would fail every
/// run, whatever the numbers, since every name is bound to a number.
fn expression_over(
    source: &SourceFile,
    key: &str,
    expression: &Expression,
    known: &BTreeSet<&str>,
    itself: Option<&str>,
) -> Result<(), SpecError> {
    for variable in expression.names() {
        if Some(variable.as_str()) == itself {
            return Err(source.error_at(key, format!("`{variable}` is defined in terms of itself")));
        }
        if !known.contains(variable.as_str()) {
            let near = did_you_mean(variable, known.iter().copied());
            let message =
                format!("unknown name `{variable}` in `{expression}` (not a metric or numeric parameter){near}");
            return Err(source.error_at(key, message));
        }
    }
    let evaluated = expression.number(known.iter().map(|name| (*name, 1.5)));
    evaluated.map(|_| ()).map_err(|error| source.error_at(key, format!("`{expression}` cannot be evaluated: {error}")))
}

/// A check names a declared metric and a template, or an expression and an expression, over declared
/// metrics and params; a tolerance is a share below 1.
pub fn checks(
    source: &SourceFile,
    checks: &[CheckDecl],
    metrics: &MetricsDecl,
    params: &[Param],
) -> Result<Vec<Check>, SpecError> {
    let known: BTreeSet<&str> = metric_names(metrics).into_iter().chain(numeric_names(params)).collect();
    let mut checked = Vec::with_capacity(checks.len());
    for (index, decl) in checks.iter().enumerate() {
        let key = |field: &str| format!("checks[{index}].{field}");
        let check = Check::of(source, index, decl)?;
        match &check.test {
            CheckTest::Metric { metric, .. } => metric_named(source, &key("metric"), metrics, metric)?,
            CheckTest::Expression { expr, equals } => {
                expression_over(source, &key("expr"), expr, &known, None)?;
                expression_over(source, &key("equals"), equals, &known, None)?;
            }
        }
        if check.within.is_some_and(|share| !(share.is_finite() && share > 0.0 && share < 1.0)) {
            return Err(source.error_at(&key("within"), "must be a share between 0 and 1 (e.g. 0.01 for 1%)"));
        }
        checked.push(check);
    }
    Ok(checked)
}

pub fn inputs(source: &SourceFile, inputs: &[InputDecl]) -> Result<(), SpecError> {
    let mut names = BTreeSet::new();
    for (index, input) in inputs.iter().enumerate() {
        let key = |field: &str| format!("inputs[{index}].{field}");
        if !names.insert(input.name.as_str()) {
            return Err(source.error_at(&key("name"), format!("input `{}` is declared twice", input.name)));
        }
        if input.pattern.is_empty() {
            return Err(source.error_at(&key("pattern"), "empty list: the pattern needs at least one value"));
        }
        if input.file.contains('/') {
            return Err(source.error_at(&key("file"), "a file name, not a path: inputs live in the run directory"));
        }
    }
    Ok(())
}

pub fn analysis(
    source: &SourceFile,
    analysis: &AnalysisConfig,
    metrics: &MetricsDecl,
    params: &[Param],
) -> Result<(), SpecError> {
    metric_named(source, "analysis.primary", metrics, &analysis.primary)?;
    if !(analysis.alpha > 0.0 && analysis.alpha < 0.5) {
        return Err(source.error_at("analysis.alpha", "must be between 0 and 0.5 (e.g. 0.05)"));
    }
    if analysis.negligible.is_some_and(|share| !(share > 0.0 && share < 1.0)) {
        return Err(source.error_at("analysis.negligible", "must be a share between 0 and 1 (e.g. 0.01 for 1%)"));
    }
    if let Some(control) = &analysis.control {
        metric_named(source, "analysis.control", metrics, control)?;
        if *control == analysis.primary {
            let message = format!(
                "`{control}` is the primary metric: the control is a metric no setting changes, which removes drift from the primary"
            );
            return Err(source.error_at("analysis.control", message));
        }
    }
    if let Some(share) = &analysis.cpu_share {
        metric_named(source, "analysis.cpu_share", metrics, share)?;
    }
    let is_param = |name: &str| params.iter().any(|param| param.name == name);
    if let Some((index, column)) = analysis.group_by.iter().enumerate().find(|(_, column)| !is_param(column)) {
        return Err(source.error_at(&format!("analysis.group_by[{index}]"), unknown_param(column, params)));
    }
    let named = |key: &str, name: &str| {
        if is_param(name) || is_metric(metrics, name) {
            return Ok(());
        }
        let near = did_you_mean(name, params.iter().map(|param| param.name.as_str()).chain(metric_names(metrics)));
        Err(source.error_at(key, format!("`{name}` is neither a parameter nor a metric{near}")))
    };
    if let Some(fit) = &analysis.fit {
        named("analysis.fit.x", &fit.x)?;
        named("analysis.fit.y", &fit.y)?;
        if let Some((index, column)) = fit.by.iter().enumerate().find(|(_, column)| !is_param(column)) {
            return Err(source.error_at(&format!("analysis.fit.by[{index}]"), unknown_param(column, params)));
        }
    }
    if let Some(rule) = &analysis.rows_per_slice {
        named("analysis.rows_per_slice.rows", &rule.rows)?;
        named("analysis.rows_per_slice.slices", &rule.slices)?;
    }
    let is_column = |key: &Expression| is_param(key.text()) || is_metric(metrics, key.text());
    if let Some(key) = analysis.equivalence_key.as_ref().filter(|key| !is_column(key)) {
        let known = metric_names(metrics).into_iter().chain(numeric_names(params)).collect();
        expression_over(source, "analysis.equivalence", key, &known, None)?;
    }
    if let Some(rule) = &analysis.verify_rule {
        let param = param_named(source, "analysis.verify_rule.param", params, &rule.param, "")?;
        if !param.values.iter().any(|value| value.is_written(&rule.rule)) || param.values.len() < 2 {
            let message = format!("`{}` is not a value of `{}` beside forced ones", rule.rule, rule.param);
            return Err(source.error_at("analysis.verify_rule.rule", message));
        }
    }
    quantities(source, analysis, metrics, params)
}

/// `[analysis] baseline` names params and values of the grid, and every `relative` metric is a declared
/// metric. A baseline without relative metrics (or the reverse) asks for nothing, so it is refused as a slip.
pub fn baseline(
    source: &SourceFile,
    analysis: &AnalysisConfig,
    metrics: &MetricsDecl,
    params: &[Param],
) -> Result<(), SpecError> {
    for (name, value) in &analysis.baseline {
        let key = format!("analysis.baseline.{name}");
        let param = param_named(source, &key, params, name, " (not in [params])")?;
        if !param.values.contains(value) {
            // As TOML writes them: `1` is not `1.0`, and a partner is found by typed value.
            let values: Vec<String> = param.values.iter().map(|v| format!("`{}`", v.written())).collect();
            let value = value.written();
            return Err(source
                .error_at(&key, format!("`{value}` is not a value of `{name}` in the grid ({})", values.join(", "))));
        }
    }
    if let Some(name) = analysis.relative.keys().find(|name| !is_metric(metrics, name)) {
        return Err(source.error_at(&format!("analysis.relative.{name}"), unknown_metric(name, metrics)));
    }
    match (analysis.baseline.is_empty(), analysis.relative.is_empty()) {
        (false, true) => Err(source.error_at(
            "analysis.baseline",
            "no `relative` metrics to compare with it: add `relative = { <metric> = \"ratio\" }`",
        )),
        (true, false) => Err(source
            .error_at("analysis.relative", "no `baseline` to compare with: add `baseline = { <param> = <value> }`")),
        _ => Ok(()),
    }
}

/// Every `[[analysis.quantity]]` compiles, has a name of its own, and reads only declared metrics or
/// numeric params, at settings of the grid, and the fit only when one is declared.
fn quantities(
    source: &SourceFile,
    analysis: &AnalysisConfig,
    metrics: &MetricsDecl,
    params: &[Param],
) -> Result<(), SpecError> {
    let compiled = analysis
        .compiled_quantities()
        .map_err(|(index, message)| source.error_at(&format!("analysis.quantity[{index}].expr"), message))?;
    let numeric: BTreeSet<&str> = numeric_names(params).collect();
    for (index, quantity) in compiled.iter().enumerate() {
        let name = &quantity.name;
        let key = |field: &str| format!("analysis.quantity[{index}].{field}");
        let taken = is_metric(metrics, name)
            || params.iter().any(|param| param.name == *name)
            || compiled[..index].iter().any(|earlier| earlier.name == *name);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || taken {
            let reason =
                if taken { "is already a metric, param or quantity" } else { "must be a word (letters, digits, _)" };
            return Err(source.error_at(&key("name"), format!("`{name}` {reason}")));
        }
        for term in &quantity.terms {
            quantity_term(term, analysis.fit.is_some(), metrics, params, &numeric)
                .map_err(|message| source.error_at(&key("expr"), format!("{message} (in `{}`)", quantity.expr)))?;
        }
    }
    Ok(())
}

fn quantity_term(
    term: &QuantityTerm,
    has_fit: bool,
    metrics: &MetricsDecl,
    params: &[Param],
    numeric: &BTreeSet<&str>,
) -> Result<(), String> {
    let QuantityTerm::Metric { name, overrides } = term else {
        return if has_fit { Ok(()) } else { Err("`fit.` needs `[analysis] fit = { x = .., y = .. }`".into()) };
    };
    if !is_metric(metrics, name) && !numeric.contains(name.as_str()) {
        return Err(format!("`{name}` is neither a metric nor a numeric parameter"));
    }
    for (param, value) in overrides {
        let declared = params.iter().find(|declared| declared.name == *param);
        let declared = declared.ok_or_else(|| format!("`{param}` in `{name}[..]` is not a parameter"))?;
        if !declared.values.iter().any(|known| known.is_written(value)) {
            let values: Vec<String> = declared.values.iter().map(|v| format!("`{v}`")).collect();
            return Err(format!("`{param}={value}` is not in the grid ({})", values.join(", ")));
        }
    }
    Ok(())
}

/// Engine checks that need the profile and the sweep together (overrides may set ranks and launcher).
/// A value the sweep's `[engine]` overrides is the sweep's error, located in the sweep file.
pub fn engine(
    profile_source: &SourceFile,
    sweep: &SourceFile,
    profile: &EngineProfile,
    overrides: &EngineOverrides,
) -> Result<(), SpecError> {
    if profile.ranks == 0 || profile.ranks > MAX_RANKS {
        let message = format!("{} ranks: must be between 1 and {MAX_RANKS}", profile.ranks);
        return Err(match overrides.ranks {
            Some(RanksOverride::Count(_)) => sweep.error_at("engine.ranks", message),
            _ => profile_source.error_at("ranks", message),
        });
    }
    if profile.result.rank >= profile.ranks {
        let message = format!("rank {} does not exist: ranks are 0..{}", profile.result.rank, profile.ranks - 1);
        return Err(profile_source.error_at("result.rank", message));
    }
    if profile.launcher.one_process() && profile.ranks != 1 {
        let (launcher, ranks) = (profile.launcher.name(), profile.ranks);
        let others = LauncherKind::names_where(|launcher| !launcher.one_process());
        let message = format!("the {launcher} launcher starts one process but ranks = {ranks}; use {others}");
        return Err(sweep.error_at("engine.ranks", message));
    }
    if let Some(index) = profile.pre_run.iter().position(Vec::is_empty) {
        return Err(profile_source.error_at(&format!("pre_run[{index}]"), "empty command"));
    }
    env_names(profile_source, "env", profile.env.keys().filter(|name| !overrides.env.contains_key(*name)))?;
    // A result prefix is one whole first token of a line (or empty: any line of `key=value` tokens), so
    // one holding whitespace matches no line; a profile prefix must be a token too.
    let prefix = &profile.result.prefix;
    if prefix.chars().any(char::is_whitespace) {
        let message = format!("`{prefix}` holds whitespace, so no line's first token can be it: every run would find no result line (write the first token, or \"\" for any line of key=value tokens)");
        return Err(profile_source.error_at("result.prefix", message));
    }
    match profile.profile_prefix.as_deref() {
        Some(prefix) if prefix.is_empty() || prefix.chars().any(char::is_whitespace) => Err(profile_source.error_at(
            "profile_prefix",
            format!("`{prefix}` is not a first token of a line: no phase-profile line could be found"),
        )),
        _ => Ok(()),
    }
}

fn is_metric(metrics: &MetricsDecl, name: &str) -> bool {
    metric_names(metrics).contains(&name)
}

/// Every declared metric name: result keys, regex, derived and profile metrics, in that order.
fn metric_names(metrics: &MetricsDecl) -> Vec<&str> {
    let phases = metrics.profile.iter().flat_map(|profile| profile.phases.keys());
    let names = metrics.result.iter().chain(metrics.regex.keys()).chain(metrics.derived.keys()).chain(phases);
    names.map(String::as_str).collect()
}

/// `name` is a declared metric, else an error at `key`: `unknown metric `tps` (declared: rows,
/// prefill_tokens_per_s)`, so a typo is fixed from the message.
fn metric_named(source: &SourceFile, key: &str, metrics: &MetricsDecl, name: &str) -> Result<(), SpecError> {
    if is_metric(metrics, name) {
        return Ok(());
    }
    let declared = metric_names(metrics).join(", ");
    Err(source.error_at(key, format!("{} (declared: {declared})", unknown_metric(name, metrics))))
}

/// `unknown metric `tokens_per_sec`; did you mean `tokens_per_s`?` (the suggestion only when a metric is near).
fn unknown_metric(name: &str, metrics: &MetricsDecl) -> String {
    format!("unknown metric `{name}`{}", did_you_mean(name, metric_names(metrics)))
}

/// Each `[metrics] result` key is one the engine's result line prints, when its profile documents them
/// (and the line is the engine's, not a service's).
pub fn result_keys(source: &SourceFile, metrics: &MetricsDecl, engine: &Engine) -> Result<(), SpecError> {
    let keys = &engine.result.keys;
    if keys.is_empty() || metrics.result_process.as_deref().is_some_and(|process| process != CLIENT_PROCESS) {
        return Ok(());
    }
    let Some((index, key)) = metrics.result.iter().enumerate().find(|(_, key)| !keys.contains(key)) else {
        return Ok(());
    };
    let near = did_you_mean(key, keys.iter().map(String::as_str));
    let message = format!(
        "`{key}` is not a key the engine's result line prints{near} (documented in {}: {})",
        engine.profile.path.display(),
        keys.join(", ")
    );
    Err(source.error_at(&format!("metrics.result[{index}]"), message))
}

/// Profile metrics need the engine's profile `prefix` and, to match a block, the result key they match.
pub fn profile_metrics(source: &SourceFile, metrics: &MetricsDecl, prefix: Option<&str>) -> Result<(), SpecError> {
    let Some(profile) = &metrics.profile else { return Ok(()) };
    if prefix.is_none() {
        let message = "the engine profile sets no `profile_prefix`, so phase-profile lines cannot be found";
        return Err(source.error_at("metrics.profile", message));
    }
    if profile.phases.is_empty() {
        return Err(source.error_at("metrics.profile.phases", "no phases: map metric names to phase names"));
    }
    if let BlockSelector::Matching { result_key, within, .. } = &profile.block {
        if !(within.is_finite() && *within > 0.0 && *within <= 1.0) {
            return Err(
                source.error_at("metrics.profile.block", format!("within = {within} is not a fraction in (0, 1]"))
            );
        }
        if !metrics.result.contains(result_key) {
            let message = format!("`{result_key}` must also be listed in metrics.result to match blocks against it");
            return Err(source.error_at("metrics.profile.block", message));
        }
    }
    Ok(())
}

/// `[run]` templates may name params, `inputs.<name>` and the harness's names, and `rank` only under the
/// per-rank launcher. Plain `{{a}}` / `{{a.b}}` outside blocks are checked here; the rest at preflight.
pub fn run_templates(
    source: &SourceFile,
    run: &RunDecl,
    params: &[Param],
    inputs: &[InputDecl],
    launcher: LauncherKind,
) -> Result<(), SpecError> {
    let templates = run.args.iter().enumerate().map(|(i, text)| (format!("run.args[{i}]"), text.text()));
    let env = run.env.iter().map(|(name, text)| (format!("run.env.{name}"), text.text()));
    let services = super::validate_services::service_templates(&run.service);
    // `port` is the harness's when a service takes an automatic port.
    let auto_port = run.service.iter().any(|service| service.port.is_some());
    for (key, text) in templates.chain(env).chain(services) {
        for path in plain_variables(text) {
            let (first, rest) = path.split_once('.').unwrap_or((path, ""));
            let unknown = match first {
                "rank" if !launcher.starts_each_rank() => {
                    let (launcher, renderers) = (launcher.name(), LauncherKind::names_where(|l| l.starts_each_rank()));
                    let message = format!("`{{{{rank}}}}` has no value under the {launcher} launcher, which starts every rank with one command; only the {renderers} launcher renders it");
                    return Err(source.error_at(&key, message));
                }
                "inputs" => {
                    !rest.is_empty() && !inputs.iter().any(|input| input.name == rest.split('.').next().unwrap_or(rest))
                }
                _ => {
                    let harness = RESERVED_NAMES.contains(&first) || (auto_port && first == PORT_NAME);
                    !harness && !params.iter().any(|param| param.name == first)
                }
            };
            if unknown {
                let near = did_you_mean(first, params.iter().map(|param| param.name.as_str()));
                let message =
                    format!("unknown template variable `{path}` (not a parameter, input or harness name){near}");
                return Err(source.error_at(&key, message));
            }
        }
    }
    unset_values(source, run, params)
}

/// `[run] unset` names params of the grid and one of their values, which some `[run]` template uses.
fn unset_values(source: &SourceFile, run: &RunDecl, params: &[Param]) -> Result<(), SpecError> {
    for (name, value) in &run.unset {
        let key = format!("run.unset.{name}");
        let param = param_named(source, &key, params, name, "")?;
        if !param.values.iter().any(|known| known.is_written(value)) {
            return Err(source.error_at(&key, format!("`{value}` is not a value of `{name}`")));
        }
        let reference = format!("{{{{{name}}}}}");
        let used = run.args.iter().chain(run.env.values()).any(|text| text.text().contains(&reference));
        if !used {
            let message = format!("no `[run]` arg or env uses `{reference}`: unsetting `{name}` would change nothing");
            return Err(source.error_at(&key, message));
        }
    }
    Ok(())
}

/// The variable paths of `{{name}}` expressions in a template without blocks (inside a block `this` moves).
pub(super) fn plain_variables(text: &str) -> Vec<&str> {
    if text.contains("{{#") || text.contains("{{~#") {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let escaped = rest[..start].ends_with('\\');
        let Some(end) = rest[start..].find("}}") else { break };
        let inner = rest[start + 2..start + end].trim_matches(|c: char| c == '~' || c == '{' || c.is_whitespace());
        let is_path = inner
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        if !escaped && is_path && inner != "this" && inner != "else" {
            found.push(inner);
        }
        rest = &rest[start + end + 2..];
    }
    found
}

/// Longer than this is a sentence, not a unit symbol (`tok/s`, `GB/s`, `requests/s`).
const LONGEST_UNIT: usize = 24;

/// Each `[metrics] units` entry names a declared metric and a unit that prints on one line.
pub fn units(source: &SourceFile, metrics: &MetricsDecl) -> Result<(), SpecError> {
    for (metric, unit) in &metrics.units {
        let key = format!("metrics.units.{metric}");
        if !is_metric(metrics, metric) {
            let message = format!("{}: a unit is declared for a metric", unknown_metric(metric, metrics));
            return Err(source.error_at(&key, message));
        }
        let printable = !unit.trim().is_empty() && unit.trim() == unit && !unit.chars().any(char::is_control);
        if !printable || unit.chars().count() > LONGEST_UNIT {
            let message = format!(
                "unit `{unit}`: give a symbol of 1 to {LONGEST_UNIT} characters without leading or trailing space"
            );
            return Err(source.error_at(&key, message));
        }
    }
    Ok(())
}

/// A `[report]` pivot's rows and columns are params, its value a declared metric.
pub fn report(
    source: &SourceFile,
    report: &ReportConfig,
    metrics: &MetricsDecl,
    params: &[Param],
) -> Result<(), SpecError> {
    let Some(pivot) = &report.pivot else { return Ok(()) };
    for (field, name) in [("rows", &pivot.rows), ("columns", &pivot.columns)] {
        param_named(source, &format!("report.pivot.{field}"), params, name, "")?;
    }
    if pivot.rows == pivot.columns {
        return Err(source.error_at("report.pivot.columns", format!("`{}` is already the rows", pivot.columns)));
    }
    if !is_metric(metrics, &pivot.value) {
        return Err(source.error_at("report.pivot.value", unknown_metric(&pivot.value, metrics)));
    }
    Ok(())
}

/// Every variable name declared under `table` (`run.env`, `engine.env`, ...) is settable: a name that is
/// empty or holds `=` (or a NUL byte) cannot be set on a process, so every run (or build) given it would fail.
pub fn env_names<'a>(source: &SourceFile, table: &str, env: impl Iterator<Item = &'a String>) -> Result<(), SpecError> {
    for name in env {
        let reason = if name.is_empty() {
            "an empty variable name cannot be set"
        } else if name.contains('=') {
            "a variable name cannot hold `=` (it would end the name)"
        } else if name.contains('\0') {
            "a variable name cannot hold a NUL byte"
        } else {
            continue;
        };
        return Err(source.error_at(&format!("{table}.{name}"), format!("`{name}`: {reason}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_names_and_names_with_equals_are_refused_naming_the_key() {
        let source = SourceFile { path: "s.toml".into(), text: "[run.env]\n\"A=B\" = \"1\"\n".into() };
        let env = |name: &str| BTreeMap::from([(name.to_string(), "1")]);
        assert!(env_names(&source, "run.env", env("CUDA_VISIBLE_DEVICES").keys()).is_ok());
        let error = env_names(&source, "run.env", env("A=B").keys()).unwrap_err().to_string();
        assert!(error.starts_with("s.toml:2: `run.env.A=B`: `A=B`: a variable name cannot hold `=`"), "{error}");
        assert!(env_names(&source, "run.env", env("").keys()).unwrap_err().to_string().contains("empty variable name"));
    }
}
