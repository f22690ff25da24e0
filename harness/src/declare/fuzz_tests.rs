//! Property tests of the declaration reader: thousands of seeded mutations of a valid sweep never panic,
//! every refusal is one line naming the file, and inputs that are invalid by construction are refused.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use super::{load_sweep, SpecError, Sweep};
use crate::mutation::{assert_one_line_naming, Mutator};

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
}

#[test]
fn the_base_sweep_is_valid() {
    Folder::new().load(SWEEP.as_bytes()).unwrap();
}

#[test]
fn mutated_sweeps_never_panic_and_every_refusal_is_one_line_naming_the_file() {
    let folder = Folder::new();
    let mut mutator = Mutator::new(0x5eed_70a1);
    let mut refused = 0;
    for _ in 0..1500 {
        let input = mutator.mutate(SWEEP.as_bytes());
        if let Err(error) = folder.load(&input) {
            assert_one_line_naming(&error, &folder.sweep, &input);
            refused += 1;
        }
    }
    assert!(refused > 750, "only {refused} of 1500 mutations were refused: the mutations are too mild");
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
