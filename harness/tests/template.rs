//! `sweep template` and `[ablation] sources` on the reference kernel (engine/kernels/gated_delta.cpp, in a
//! temporary copy): templates derived by selectors round-trip, remove what the hand-written template
//! (kernel-variants/gated_delta/gated_delta.cpp.hbs) removes, follow an upstream edit, and every bad
//! selector is a one-line error with exit 2.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{csv_rows, repo_root, stderr, stdout, Workspace};
use serde_json::json;

const GROUPS: [&str; 2] = ["broadcast_rows", "rank1_update"];
/// The subsets of `GROUPS` the factorial design ablates.
const SUBSETS: [&[&str]; 4] = [&[], &["broadcast_rows"], &["rank1_update"], &["broadcast_rows", "rank1_update"]];
/// The kernel's own markers, used as begin/end selectors.
const MARKER_SELECTORS: [&str; 2] = [
    "broadcast_rows=ABLATE-BEGIN broadcast_rows..ABLATE-END broadcast_rows",
    "rank1_update=ABLATE-BEGIN rank1_update..ABLATE-END rank1_update",
];
/// Selectors of the statements themselves, for the kernel without markers.
const STATEMENT_SELECTORS: [&str; 2] = [r"broadcast_rows=^\s*broadcast_rows\(", r"rank1_update=^\s*for .*\baxpy\("];
/// Where an upstream edit lands: the top of the per-token loop, above both groups.
const LOOP_HEAD: &str = "    for (int t = 0; t < seq.tokens; ++t) {\n";
const UPSTREAM_LINES: &str =
    "        // upstream: a new prologue\n        const int unused_a = 0;\n        (void)unused_a;\n";

fn shipped_kernel() -> String {
    fs::read_to_string(repo_root().join("engine/kernels/gated_delta.cpp")).unwrap()
}

/// Lines of `text` without the kernel's `// ABLATE-` marker comments.
fn without_markers(text: &str) -> String {
    text.split_inclusive('\n').filter(|line| !line.contains("// ABLATE-")).collect()
}

fn render(template: &str, ablated: &[&str]) -> String {
    let flags: serde_json::Map<String, serde_json::Value> =
        GROUPS.iter().map(|group| (group.to_string(), json!(ablated.contains(group)))).collect();
    sweep::template::Template::parse(template).unwrap().render(&json!({ "ablate": flags })).unwrap()
}

/// The hand-written template's rendering with `ablated` removed, markers dropped.
fn hand_written(ablated: &[&str]) -> String {
    let template = fs::read_to_string(repo_root().join("kernel-variants/gated_delta/gated_delta.cpp.hbs")).unwrap();
    without_markers(&render(&template, ablated))
}

/// A temporary folder holding one kernel text.
struct Kernel {
    dir: tempfile::TempDir,
}

impl Kernel {
    fn new(text: &str) -> Kernel {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("gated_delta.cpp"), text).unwrap();
        Kernel { dir }
    }

    fn source(&self) -> PathBuf {
        self.dir.path().join("gated_delta.cpp")
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("gated_delta.cpp.hbs")
    }

    /// `sweep template gated_delta.cpp --group .. -o gated_delta.cpp.hbs`.
    fn template(&self, selectors: &[&str]) -> Output {
        let mut args = vec!["template".to_string(), self.source().display().to_string()];
        for selector in selectors {
            args.extend(["--group".to_string(), selector.to_string()]);
        }
        args.extend(["-o".to_string(), self.out().display().to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::sweep(self.dir.path(), &args)
    }

    /// The template written by a successful `template`.
    fn derived(&self, selectors: &[&str]) -> String {
        let output = self.template(selectors);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        fs::read_to_string(self.out()).unwrap()
    }
}

#[test]
fn marker_selectors_round_trip_and_remove_what_the_hand_written_template_removes() {
    let kernel = Kernel::new(&shipped_kernel());
    let template = kernel.derived(&MARKER_SELECTORS);
    assert_eq!(render(&template, &[]), shipped_kernel(), "nothing ablated must be the kernel byte for byte");
    for ablated in SUBSETS {
        assert_eq!(without_markers(&render(&template, ablated)), hand_written(ablated), "ablating {ablated:?}");
    }
    // Begin/end blocks include their marker lines: ablated, the markers go too.
    assert!(!render(&template, &["rank1_update"]).contains("ABLATE-BEGIN rank1_update"));
}

#[test]
fn statement_selectors_on_the_kernel_without_markers_match_the_hand_written_template() {
    let unmarked = without_markers(&shipped_kernel());
    let kernel = Kernel::new(&unmarked);
    let template = kernel.derived(&STATEMENT_SELECTORS);
    assert_eq!(render(&template, &[]), unmarked);
    for ablated in SUBSETS {
        assert_eq!(render(&template, ablated), hand_written(ablated), "ablating {ablated:?}");
    }
    // Both calls of the loop are one group: two blocks.
    assert_eq!(template.matches("{{#unless ablate.broadcast_rows}}").count(), 2, "{template}");
}

#[test]
fn after_an_upstream_edit_above_the_groups_the_selectors_pick_the_same_statements() {
    let upstream = |text: &str| text.replacen(LOOP_HEAD, &format!("{LOOP_HEAD}{UPSTREAM_LINES}"), 1);
    let unmarked = without_markers(&shipped_kernel());
    let before = Kernel::new(&unmarked).derived(&STATEMENT_SELECTORS);
    let edited = upstream(&unmarked);
    assert_ne!(edited, unmarked, "the edit must land");
    let after = Kernel::new(&edited).derived(&STATEMENT_SELECTORS);
    assert_eq!(render(&after, &[]), edited);
    for ablated in SUBSETS {
        assert_eq!(render(&after, ablated), upstream(&render(&before, ablated)), "ablating {ablated:?}");
    }
    // A line range written for the old text now selects a different statement: why selectors match text.
    let line = unmarked.lines().position(|l| l.contains("broadcast_rows(work, k")).unwrap() + 1;
    let by_range = Kernel::new(&edited).derived(&[&format!("broadcast_rows={line}-{line}"), STATEMENT_SELECTORS[1]]);
    assert!(render(&by_range, &["broadcast_rows"]).contains("broadcast_rows(work, k"));
}

#[test]
fn printed_without_an_output_file() {
    let kernel = Kernel::new(&shipped_kernel());
    let output = common::sweep(
        kernel.dir.path(),
        &["template", "gated_delta.cpp", "--group", STATEMENT_SELECTORS[0], "--group", STATEMENT_SELECTORS[1]],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(render(&stdout(&output), &[]), shipped_kernel());
    assert!(!kernel.out().exists());

    let over_itself = ["template", "gated_delta.cpp", "--group", STATEMENT_SELECTORS[0], "-o", "./gated_delta.cpp"];
    let output = common::sweep(kernel.dir.path(), &over_itself);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(fs::read_to_string(kernel.source()).unwrap(), shipped_kernel(), "the source was overwritten");
}

#[test]
fn bad_selectors_are_one_line_errors_naming_the_selector_and_write_nothing() {
    let kernel = Kernel::new(&shipped_kernel());
    let lines = shipped_kernel().lines().count();
    let past_end = format!("rank1_update=70-{}", lines + 1);
    let cases: [(&[&str], &str, &str); 6] = [
        (&[r"broadcast_rows=^\s*no_such_call\("], r"^\s*no_such_call\(", "matches no line"),
        (&[r"rank1_update=^\s*for .*\baxpy\(", "broadcast_rows=69-71"], "69-71", "overlaps group"),
        (&[&past_end], &past_end[13..], "past the end of the file"),
        (&[r"broadcast_rows=^\s*broadcast_rows("], r"^\s*broadcast_rows(", "invalid regex"),
        (&["rank1_update=ABLATE-BEGIN rank1_update..^no end$"], "ABLATE-BEGIN rank1_update..^no end$", "no end line"),
        (&["rank-1=1-2"], "rank-1=1-2", "NAME=SELECTOR"),
    ];
    for (selectors, named, reason) in cases {
        let output = kernel.template(selectors);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{selectors:?}: {message}");
        assert_eq!(message.trim_end().lines().count(), 1, "{message}");
        assert!(message.contains(&format!("`{named}`")) && message.contains(reason), "{selectors:?}: {message}");
        assert!(!kernel.out().exists(), "{selectors:?} wrote a template");
    }
}

/// The shipped `sweeps/gated_delta.toml` with its templates replaced by `ablation_tail`, shrunk to one rep of
/// the tiny preset, written in a workspace as `sweeps/<name>.toml`.
fn declaration(name: &str, ablation_tail: &str) -> (Workspace, String) {
    let shipped = fs::read_to_string(repo_root().join("sweeps/gated_delta.toml")).unwrap();
    let templates = shipped.lines().find(|line| line.starts_with("templates = ")).expect("shipped templates line");
    let mut text = shipped.clone();
    for (from, to) in [
        ("name = \"gated_delta\"", format!("name = \"{name}\"")),
        ("\"small\"", "\"tiny\"".to_string()),
        ("rows = 2048", "rows = 256".to_string()),
        ("count = 3", "count = 1".to_string()),
        ("tolerance = 0.05", "tolerance = 1e9".to_string()),
        (templates, ablation_tail.to_string()),
    ] {
        assert!(text.contains(from), "the shipped declaration has no `{from}`");
        text = text.replacen(from, &to, 1);
    }
    let ws = Workspace::new();
    let relative = ws.write_sweep(name, &text);
    (ws, relative)
}

const SOURCES: &str = r#"sources = [
    { target = "kernels/gated_delta.cpp", groups = { broadcast_rows = '^\s*broadcast_rows\(', rank1_update = { begin = 'ABLATE-BEGIN rank1_update', end = 'ABLATE-END rank1_update' } } },
]"#;

#[test]
fn declared_sources_check_and_show_exactly_what_a_variant_removes_without_building() {
    let (ws, decl) = declaration("gd_sources", SOURCES);
    let output = common::sweep(ws.path(), &["check", &decl]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("ok (4 settings x 1 rep)"), "{}", stdout(&output));

    let output = common::sweep(ws.path(), &["ablate", &decl, "--show", "both"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let diff = stdout(&output);
    assert!(
        diff.starts_with(
            "--- a/kernels/gated_delta.cpp (shipped)\n+++ b/kernels/gated_delta.cpp (broadcast_rows+rank1_update)\n"
        ),
        "{diff}"
    );
    let removed: Vec<&str> = diff.lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).collect();
    assert_eq!(
        removed,
        [
            "-        broadcast_rows(work, k, dk, dv);",
            "-        // ABLATE-BEGIN rank1_update",
            "-        for (int i = 0; i < dk; ++i) axpy(k[i], delta, state + i * dv, dv);",
            "-        // ABLATE-END rank1_update",
            "-        broadcast_rows(work, q, dk, dv);",
        ]
    );
    assert!(!diff.lines().any(|l| l.starts_with('+') && !l.starts_with("+++")), "an ablation only removes: {diff}");
    assert!(!ws.path().join("results").exists(), "--show must not build or run");

    let output = common::sweep(ws.path(), &["ablate", &decl, "--show", "rank1_updat"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("`rank1_updat` is not a variant"), "{}", stderr(&output));
}

#[test]
fn declared_sources_ablate_end_to_end_on_the_reference_engine() {
    common::ensure_engine_built();
    let (ws, decl) = declaration("gd_sources_run", SOURCES);
    let output = common::sweep(ws.path(), &["ablate", &decl, "--isolation", "copy", "--jobs", "2"]);
    assert_eq!(output.status.code(), Some(0), "{}\n{}", stdout(&output), stderr(&output));
    let rows = csv_rows(&ws.result_csv("gd_sources_run"));
    let mut variants: Vec<&str> = rows.iter().map(|row| row["variant"].as_str()).collect();
    variants.sort();
    assert_eq!(variants, ["baseline", "broadcast_rows", "broadcast_rows+rank1_update", "rank1_update"]);
    assert!(rows.iter().all(|row| row["status"] == "ok"), "{rows:?}");
}

/// `file:line: `key`: message`, one line, exit 2.
fn assert_declaration_error(output: &Output, decl: &str, key: &str, says: &str) {
    let message = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert_eq!(message.trim_end().lines().count(), 1, "{message}");
    let located = message.split(&format!("{decl}:")).nth(1).unwrap_or_else(|| panic!("no `{decl}:` in {message}"));
    let (line, rest) = located.split_once(": ").unwrap();
    assert!(line.parse::<usize>().is_ok(), "no line number: {message}");
    assert!(rest.starts_with(&format!("`{key}`: ")) && rest.contains(says), "{message}");
}

#[test]
fn bad_declared_sources_are_refused_at_load_with_file_line_and_key() {
    let cases = [
        (
            SOURCES.replace("rank1_update = {", "rank1_updat = {"),
            "ablation.sources[0].groups.rank1_updat",
            "not a declared group",
        ),
        (
            SOURCES.replace(r"broadcast_rows\(", "broadcast_rows("),
            "ablation.sources[0].groups.broadcast_rows",
            "invalid regex",
        ),
        (
            SOURCES.replace(r"^\s*broadcast_rows\(", r"^\s*no_such_call\("),
            "ablation.sources[0].groups.broadcast_rows",
            "matches no line",
        ),
        (
            SOURCES.replace("ABLATE-END rank1_update", "ABLATE-END broadcast_rows"),
            "ablation.sources[0].groups.broadcast_rows",
            "overlaps",
        ),
    ];
    for (index, (tail, key, says)) in cases.iter().enumerate() {
        let (ws, decl) = declaration(&format!("bad{index}"), tail);
        let output = common::sweep(ws.path(), &["check", &decl]);
        assert_declaration_error(&output, &decl, key, says);
    }
    let only_one = SOURCES
        .replace(", rank1_update = { begin = 'ABLATE-BEGIN rank1_update', end = 'ABLATE-END rank1_update' }", "");
    let (ws, decl) = declaration("uncovered", &only_one);
    assert_declaration_error(
        &common::sweep(ws.path(), &["check", &decl]),
        &decl,
        "ablation.groups[1]",
        "has a selector in no source",
    );
}

#[test]
fn a_template_that_mentions_no_declared_group_is_refused() {
    let kernel = Kernel::new(&shipped_kernel());
    kernel.derived(&STATEMENT_SELECTORS[..1]);
    let (ws, decl) = declaration(
        "template_uncovered",
        &format!(
            "templates = [{{ template = \"{}\", target = \"kernels/gated_delta.cpp\" }}]",
            Path::new(&kernel.out()).display()
        ),
    );
    let output = common::sweep(ws.path(), &["check", &decl]);
    assert_declaration_error(&output, &decl, "ablation.groups[1]", "no template mentions `ablate.rank1_update`");
}

#[test]
fn a_declared_source_edited_upstream_is_never_stale_and_loses_the_same_statements() {
    let tree = tempfile::tempdir().unwrap();
    fs::create_dir_all(tree.path().join("kernels")).unwrap();
    let kernel = tree.path().join("kernels/gated_delta.cpp");
    fs::write(&kernel, shipped_kernel()).unwrap();
    let (ws, decl) = declaration("gd_upstream", SOURCES);
    let text = fs::read_to_string(ws.path().join(&decl)).unwrap();
    let pointed = format!("profile = \"reference\"\ntree = \"{}\"", tree.path().display());
    fs::write(ws.path().join(&decl), text.replacen("profile = \"reference\"", &pointed, 1)).unwrap();
    let removed = || {
        let output = common::sweep(ws.path(), &["ablate", &decl, "--show", "all"]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        stdout(&output).lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).map(str::to_string).collect()
    };
    let before: Vec<String> = removed();
    fs::write(&kernel, shipped_kernel().replacen(LOOP_HEAD, &format!("{LOOP_HEAD}{UPSTREAM_LINES}"), 1)).unwrap();
    let output = common::sweep(ws.path(), &["check", &decl]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(removed(), before);
    assert_eq!(before.len(), 5, "{before:?}");
}
