//! Property tests of the declaration reader: thousands of seeded mutations of a valid sweep never panic,
//! every refusal names the file, what is accepted holds together (`inconsistency`), and inputs
//! that are invalid by construction are refused. `declaration_parser_for_a_time` runs the campaign for a
//! time (`bench/fuzz.sh`).

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{load_sweep, ParamValue, RecordedDeclaration, SpecError, Sweep};
use crate::test_fuzz_campaign::{FuzzCampaign, Outcome};
use crate::test_mutation::{assert_one_line_naming, Mutator};

const PROFILE: &str = "tree = \".\"\nprogram = \"true\"\nlauncher = \"local\"\nranks = 1\ntimeout = \"10s\"\n\
                       [result]\nprefix = \"r\"\n";

/// Valid; `primary = ...` is its last line, so every strict prefix lacks a required key.
const SWEEP: &str = r#"name = "fz"
zip = [["a", "b"]]

[engine]
profile = "fz"
timeout = "5s"

[params]
a = [1, 2]
b = ["x", "y"]
c = 1.5
d = [4, 8]

[reps]
count = 3
warmup = 1

[run]
args = ["--a", "{{a}}", "{{b}}"]

[metrics]
result = ["v", "w"]

[metrics.derived]
ratio = "v / w"

[[checks]]
metric = "v"
equals = "{{a}}"

[analysis]
primary = "v""#;

/// A folder holding `sweeps/engines/fz.toml`; each case is written to `sweeps/x.toml`.
struct Folder {
    _dir: tempfile::TempDir,
    sweep: PathBuf,
}

impl Folder {
    fn new() -> Folder {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sweeps/engines")).unwrap();
        std::fs::write(dir.path().join("sweeps/engines/fz.toml"), PROFILE).unwrap();
        let sweep = dir.path().join("sweeps/x.toml");
        Folder { _dir: dir, sweep }
    }

    /// Loads `bytes` as the sweep; a panic fails the test showing the input.
    fn load(&self, bytes: &[u8]) -> Result<Sweep, SpecError> {
        std::fs::write(&self.sweep, bytes).unwrap();
        catch_unwind(AssertUnwindSafe(|| load_sweep(&self.sweep)))
            .unwrap_or_else(|_| panic!("load_sweep panicked on:\n{}", String::from_utf8_lossy(bytes)))
    }

    /// What the declaration reader makes of `bytes`.
    fn judge(&self, bytes: &[u8]) -> Outcome {
        std::fs::write(&self.sweep, bytes).unwrap();
        match load_sweep(&self.sweep) {
            Err(error) => Outcome::refusal(&error, &self.sweep),
            Ok(sweep) => inconsistency(&sweep).map_or(Outcome::Accepted, Outcome::Inconsistent),
        }
    }
}

/// `SWEEP` mutated byte by byte, or node by node of its tables (a TOML edit that still parses: a value of
/// another type or from another key, a key or element removed, an element twice).
fn mutated_sweep(mutator: &mut Mutator) -> Vec<u8> {
    let tables: serde_json::Value = toml::from_str(SWEEP).expect("SWEEP is TOML");
    match mutator.position(1) {
        0 => mutator.mutate(SWEEP.as_bytes()),
        // A null has no TOML spelling: that edit becomes a byte mutation.
        _ => toml::to_string(&mutator.mutate_json(&tables))
            .map_or_else(|_| mutator.mutate(SWEEP.as_bytes()), String::into_bytes),
    }
}

/// How an accepted sweep does not hold together, if it does not: the tables its sidecar records typed do
/// not read back as they were, a param has no value, or two of its values print alike (one label, one CSV
/// cell, for two settings; in a zip group, two of the group's tuples).
fn inconsistency(sweep: &Sweep) -> Option<String> {
    if let Some(why) = recorded_difference(&sweep.recorded) {
        Some(why)
    } else if let Some(param) = sweep.params.iter().find(|param| param.values.is_empty()) {
        Some(format!("param `{}` has no value", param.name))
    } else {
        printed_alike(sweep).map(|(names, printed)| format!("two values of {names:?} print as {printed:?}"))
    }
}

/// The first param, or zip group, two of whose values (tuples of values) print alike, with that print.
fn printed_alike(sweep: &Sweep) -> Option<(Vec<String>, Vec<String>)> {
    let zipped: Vec<&String> = sweep.zip.iter().flatten().collect();
    let alone =
        sweep.params.iter().filter(|param| !zipped.contains(&&param.name)).map(|param| vec![param.name.clone()]);
    alone.chain(sweep.zip.iter().cloned()).find_map(|names| {
        let mut printed = HashSet::new();
        let tuples = printed_tuples(sweep, &names);
        tuples.into_iter().find(|tuple| !printed.insert(tuple.clone())).map(|tuple| (names, tuple))
    })
}

/// The values of the params `names`, printed, position by position (a zip group's tuples).
fn printed_tuples(sweep: &Sweep, names: &[String]) -> Vec<Vec<String>> {
    let params = names.iter().filter_map(|name| sweep.params.iter().find(|param| param.name == *name));
    let values: Vec<&[ParamValue]> = params.map(|param| &param.values[..]).collect();
    let count = values.iter().map(|values| values.len()).min().unwrap_or(0);
    (0..count).map(|at| values.iter().map(|values| values[at].to_string()).collect()).collect()
}

/// How the tables of `decl` a sidecar records typed (`RecordedDeclaration`: what `report` and `--resume` read back)
/// differ from what their JSON reads back as, if they do.
fn recorded_difference(decl: &RecordedDeclaration) -> Option<String> {
    read_back_difference("analysis", &decl.analysis)
        .or_else(|| read_back_difference("reps", &decl.reps))
        .or_else(|| read_back_difference("ablation", &decl.ablation))
        .or_else(|| read_back_difference("report", &decl.report))
}

/// How `table`'s JSON reads back as another, if it does.
fn read_back_difference<T: Serialize + DeserializeOwned>(name: &str, table: &T) -> Option<String> {
    let recorded = match serde_json::to_value(table) {
        Ok(recorded) => recorded,
        Err(error) => return Some(format!("its [{name}] does not serialise: {error}")),
    };
    match serde_json::from_value::<T>(recorded.clone()) {
        Err(error) => Some(format!("its recorded [{name}] does not read back: {error}")),
        Ok(read) if serde_json::to_value(&read).ok() != Some(recorded) => {
            Some(format!("its recorded [{name}] reads back as another"))
        }
        Ok(_) => None,
    }
}

#[test]
fn the_base_sweep_is_valid() {
    let folder = Folder::new();
    folder.load(SWEEP.as_bytes()).unwrap();
    assert!(matches!(folder.judge(SWEEP.as_bytes()), Outcome::Accepted));
}

#[test]
fn mutated_sweeps_never_panic_and_what_is_accepted_holds_together() {
    let folder = Folder::new();
    let campaign =
        FuzzCampaign::run("declaration parser", 0x5eed_70a1, 1500, mutated_sweep, |bytes| folder.judge(bytes));
    campaign.assert_sound();
    campaign.assert_refuses_at_least(0.5);
}

#[test]
#[ignore = "a timed campaign: bench/fuzz.sh runs it for SWEEP_FUZZ_SECONDS"]
fn declaration_parser_for_a_time() {
    let folder = Folder::new();
    FuzzCampaign::run_for_a_time("declaration parser", mutated_sweep, |bytes| folder.judge(bytes));
}

#[test]
fn every_strict_prefix_is_refused() {
    let folder = Folder::new();
    for end in 0..SWEEP.len() {
        let input = &SWEEP.as_bytes()[..end];
        let error = folder.load(input).err().unwrap_or_else(|| panic!("accepted the prefix:\n{}", &SWEEP[..end]));
        assert_one_line_naming(&error, &folder.sweep, input);
    }
}

#[test]
fn a_nul_byte_anywhere_is_refused() {
    let folder = Folder::new();
    let mut mutator = Mutator::new(0x00_b17e);
    for _ in 0..300 {
        let mut input = SWEEP.as_bytes().to_vec();
        input.insert(mutator.position(input.len()), 0);
        let error = folder.load(&input).err().unwrap_or_else(|| panic!("accepted a NUL in:\n{input:?}"));
        assert_one_line_naming(&error, &folder.sweep, &input);
    }
}

#[test]
fn out_of_range_numbers_are_refused_wherever_they_go() {
    let folder = Folder::new();
    let keys = ["count = 3", "warmup = 1", "c = 1.5", "a = [1, 2]", "d = [4, 8]", "timeout = \"5s\""];
    let bad = [
        "count = 0",
        "count = 10001",
        "count = -1",
        "count = nan",
        "warmup = 4294967295",
        "c = nan",
        "c = -inf",
        "a = [1, \"2\"]",
        "a = [nan, 2]",
        "d = [4, 4.0]",
        "d = [4, \"4\"]",
        "timeout = \"300000000000y\"",
        "timeout = \"0s\"",
    ];
    for (key, replacement) in keys.iter().flat_map(|key| bad.iter().map(move |bad| (key, bad))) {
        if key.split(' ').next() != replacement.split(' ').next() {
            continue;
        }
        let input = SWEEP.replacen(key, replacement, 1);
        let error = folder.load(input.as_bytes()).err().unwrap_or_else(|| panic!("accepted `{replacement}`"));
        assert_one_line_naming(&error, &folder.sweep, input.as_bytes());
    }
}
