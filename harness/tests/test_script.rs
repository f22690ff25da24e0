//! scripts/test.sh's ending: its total line is honest about a build that failed before any test ran.

use std::path::Path;
use std::process::Command;

/// The total line `scripts/test-total.awk` prints for a cargo test log.
fn total_of(log: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("log");
    std::fs::write(&file, log).expect("log written");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/test-total.awk");
    let output = Command::new("awk").arg("-f").arg(script).arg(&file).output().expect("awk runs");
    String::from_utf8(output.stdout).expect("utf-8")
}

/// After a compile error the script printed "TOTAL: 0 passed, 0 failed, 0 ignored", which reads as a pass.
#[test]
fn test_script_after_a_build_failure_says_no_test_ran_not_0_failed() {
    let total = total_of("error[E0063]: missing field\nerror: could not compile `sweep` (lib test)\n");
    assert_eq!(total, "TOTAL: no test ran (a build failed: see above)\n");
}

#[test]
fn test_script_sums_every_test_binary() {
    let log = "test result: ok. 5 passed; 0 failed; 1 ignored; 0 measured\n\
               test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured\n";
    assert_eq!(total_of(log), "TOTAL: 8 passed, 2 failed, 1 ignored (2 test binaries)\n");
}
