//! The layering docs/ARCHITECTURE.md documents, checked on the source: each stage imports only the stages
//! its row of `ALLOWED` lists, and no two files import each other (directly or round a ring). Imports are
//! read from `crate::<stage>` and `super::<file>` paths outside each file's `#[cfg(test)]` tail, the way
//! rustc's `tidy` and rust-analyzer's architecture checks read the tree.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The allowed dependency graph: each stage and the stages it may import. Two arms over a common floor:
/// `declare` and `plan` (what a sweep is, and its settings) are read by both; the running arm starts
/// processes (`launch`), renders variants and builds them; the results arm extracts, records, analyses,
/// compares and reports; `runner` joins the arms. A module that is no stage (`ground`, `template`,
/// `expression`, `atomic_file`, ...) is the ground floor: importable by all, importing no stage.
const ALLOWED: [(&str, &[&str]); 14] = [
    ("declare", &[]),
    ("plan", &["declare"]),
    // The running arm.
    ("launch", &["declare"]),
    ("variants", &["declare", "launch"]),
    ("rebuild", &["declare", "launch", "variants"]),
    // The results arm.
    ("extract", &["declare"]),
    ("record", &["declare", "plan"]),
    ("analyse", &["declare", "plan", "record", "search"]),
    ("compare", &["declare", "plan", "record", "analyse"]),
    ("report", &["declare", "plan", "record", "analyse", "compare", "search", "history", "store"]),
    // A budgeted search's core, pure over plain data: a driver in `runner` will feed it.
    ("search", &[]),
    // Results across versions: change points, pure over plain data (a store and commands will feed it).
    ("history", &[]),
    // The results store of `sweep history`: result files in, each setting's series out.
    ("store", &["declare", "plan", "record", "history"]),
    // Both arms joined; a session compares nothing, so not `compare`.
    (
        "runner",
        &[
            "declare", "plan", "launch", "variants", "rebuild", "extract", "record", "analyse", "report", "search",
            "history",
        ],
    ),
];

/// The running arm's stages. `record` and `analyse` read back what a run left (its status, the environment
/// it started from) as ground types, never from the stages that made it.
const RUNNING_ARM: [&str; 3] = ["launch", "variants", "rebuild"];

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, as paths relative to `src/`.
fn rust_files(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a source folder reads") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(root, &path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path.strip_prefix(root).expect("under src").to_path_buf());
        }
    }
}

/// The file's text without its test module (tests may reach anywhere).
fn code_of(root: &Path, file: &Path) -> String {
    let text = fs::read_to_string(root.join(file)).expect("a source file reads");
    match text.find("#[cfg(test)]") {
        Some(tail) => text[..tail].to_string(),
        None => text,
    }
}

/// The names following `prefix` (`crate::` or `super::`): `crate::analyse::x` gives `analyse`, then `x`.
fn paths_after<'a>(code: &'a str, prefix: &str) -> Vec<(&'a str, Option<&'a str>)> {
    let word = |text: &'a str| -> &'a str {
        let end = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len());
        &text[..end]
    };
    code.match_indices(prefix)
        .filter(|(at, _)| !code[..*at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
        .map(|(at, _)| {
            let rest = &code[at + prefix.len()..];
            let first = word(rest);
            let second = rest[first.len()..].strip_prefix("::").map(word).filter(|w| !w.is_empty());
            (first, second)
        })
        .collect()
}

fn stage_of(file: &Path) -> Option<&str> {
    let first = file.components().next()?.as_os_str().to_str()?;
    ALLOWED.iter().map(|(stage, _)| *stage).find(|stage| *stage == first)
}

fn is_stage(name: &str) -> bool {
    ALLOWED.iter().any(|(stage, _)| *stage == name)
}

/// Every `crate::<stage>` import of the library outside tests, as (importing file, imported stage). The
/// binary's `crate::` is its own folder, and it may use every stage.
fn stage_imports() -> Vec<(PathBuf, String)> {
    let root = source_root();
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    let mut imports: Vec<(PathBuf, String)> = files
        .iter()
        .filter(|file| !file.starts_with("bin"))
        .flat_map(|file| {
            let code = code_of(&root, file);
            let stages: Vec<String> =
                paths_after(&code, "crate::").into_iter().map(|(first, _)| first.to_string()).collect();
            stages.into_iter().filter(|other| is_stage(other)).map(move |other| (file.clone(), other))
        })
        .collect();
    imports.sort();
    imports.dedup();
    imports
}

fn shown(imports: &[(PathBuf, String)]) -> String {
    imports
        .iter()
        .map(|(file, other)| format!("{} imports crate::{other}", file.display()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_stage_import_is_an_edge_of_the_allowed_graph() {
    let allowed = |file: &Path, other: &str| match stage_of(file) {
        Some(stage) => stage == other || ALLOWED.iter().any(|(from, to)| *from == stage && to.contains(&other)),
        None => false,
    };
    let wrong: Vec<(PathBuf, String)> =
        stage_imports().into_iter().filter(|(file, other)| !allowed(file, other)).collect();
    assert!(wrong.is_empty(), "imports outside the allowed graph:\n{}", shown(&wrong));
}

#[test]
fn record_and_analyse_import_nothing_of_the_running_arm() {
    let results = |file: &Path| matches!(stage_of(file), Some("record" | "analyse"));
    let wrong: Vec<(PathBuf, String)> = stage_imports()
        .into_iter()
        .filter(|(file, other)| results(file) && RUNNING_ARM.contains(&other.as_str()))
        .collect();
    assert!(wrong.is_empty(), "the results arm reaching into the running arm:\n{}", shown(&wrong));
}

#[test]
fn the_allowed_graph_has_no_ring_and_a_row_per_stage_folder() {
    let graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = ALLOWED
        .iter()
        .map(|(stage, imports)| (PathBuf::from(stage), imports.iter().map(PathBuf::from).collect()))
        .collect();
    assert!(rings_of(&graph).is_empty(), "the allowed graph itself has a ring");
    let unknown: Vec<&str> = ALLOWED.iter().flat_map(|(_, to)| to.iter().copied()).filter(|s| !is_stage(s)).collect();
    assert!(unknown.is_empty(), "allowed imports of no stage: {unknown:?}");
    // Every folder but the binary's and the ground floor's is a stage, so a new stage cannot go unchecked.
    let folders: BTreeSet<String> = fs::read_dir(source_root())
        .expect("src reads")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.is_dir() && !path.ends_with("bin") && !path.ends_with("ground"))
        .filter_map(|path| Some(path.file_name()?.to_str()?.to_string()))
        .collect();
    let stages: BTreeSet<String> = ALLOWED.iter().map(|(stage, _)| stage.to_string()).collect();
    assert_eq!(folders, stages, "every stage folder has a row in ALLOWED");
}

#[test]
fn no_two_files_import_each_other() {
    let root = source_root();
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    let known: BTreeSet<&PathBuf> = files.iter().collect();
    let mut graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for file in &files {
        let code = code_of(&root, file);
        let folder = file.parent().unwrap_or(Path::new(""));
        let siblings = paths_after(&code, "super::").into_iter().map(|(name, _)| folder.join(format!("{name}.rs")));
        // A binary's `crate::` is its own folder (`bin/sweep/`): `crate::run_command` is a file there.
        let binary = file.starts_with("bin").then(|| file.iter().take(2).collect::<PathBuf>());
        let staged = paths_after(&code, "crate::").into_iter().filter_map(|(first, second)| match &binary {
            Some(folder) => Some(folder.join(format!("{first}.rs"))),
            None => Some(Path::new(first).join(format!("{}.rs", second?))),
        });
        let targets = siblings.chain(staged).filter(|target| target != file && known.contains(target));
        graph.insert(file.clone(), targets.collect());
    }
    let rings = rings_of(&graph);
    let shown: Vec<String> = rings
        .iter()
        .map(|ring| ring.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" <-> "))
        .collect();
    assert!(rings.is_empty(), "files importing each other:\n{}", shown.join("\n"));
}

/// Strongly connected components of more than one file (Tarjan 1972).
fn rings_of(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'g PathBuf, usize>,
        low: BTreeMap<&'g PathBuf, usize>,
        stack: Vec<&'g PathBuf>,
        rings: Vec<Vec<PathBuf>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, node: &'g PathBuf) {
            let order = self.index.len();
            self.index.insert(node, order);
            self.low.insert(node, order);
            self.stack.push(node);
            for next in self.graph.get(node).into_iter().flatten() {
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[next].min(self.low[node]);
                    self.low.insert(node, low);
                } else if self.stack.contains(&next) {
                    let low = self.index[next].min(self.low[node]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let at = self.stack.iter().position(|n| *n == node).expect("on the stack");
                let ring: Vec<PathBuf> = self.stack.drain(at..).cloned().collect();
                if ring.len() > 1 {
                    self.rings.push(ring);
                }
            }
        }
    }
    let mut walk = Walk { graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), rings: Vec::new() };
    for node in graph.keys() {
        if !walk.index.contains_key(node) {
            walk.visit(node);
        }
    }
    walk.rings
}

#[test]
fn a_ring_is_found_where_there_is_one() {
    let a = PathBuf::from("a.rs");
    let b = PathBuf::from("b.rs");
    let c = PathBuf::from("c.rs");
    let graph = BTreeMap::from([
        (a.clone(), BTreeSet::from([b.clone()])),
        (b.clone(), BTreeSet::from([a.clone()])),
        (c.clone(), BTreeSet::from([a.clone()])),
    ]);
    assert_eq!(rings_of(&graph).len(), 1);
    assert_eq!(paths_after("use crate::analyse::holm::x; super::y", "crate::"), vec![("analyse", Some("holm"))]);
}

/// The `*Decl` types loading checks in place and the checked `Sweep` holds as they are (their fields
/// compiled as they are read: `Template`s, `Pattern`s, `Expression`s, `Selector`s). Every other `*Decl`
/// is a raw declaration that loading turns into a checked type (`SweepDecl` into `Sweep`, `AblationDecl`
/// into `KernelAblation`, `CheckDecl` into `Check`, ...), and only `declare` may read it.
const CHECKED_IN_PLACE: [&str; 10] = [
    "MetricsDecl",
    "RegexMetricDecl",
    "ProfileMetricsDecl",
    "RunDecl",
    "ServiceDecl",
    "ReadyDecl",
    "RepsDecl",
    "InputDecl",
    "TemplateDecl",
    "SourceDecl",
];

/// The raw declaration types (`SweepDecl`) and `.decl` field reads in `code`.
fn raw_declarations(code: &str) -> Vec<String> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let words = code.split(|c: char| !is_word(c)).filter(|word| word.starts_with(|c: char| c.is_ascii_uppercase()));
    let types = words.filter(|word| word.ends_with("Decl") && !CHECKED_IN_PLACE.contains(word)).map(str::to_string);
    let fields = code
        .match_indices(".decl")
        .filter(|(at, found)| !code[at + found.len()..].starts_with(is_word))
        .map(|_| ".decl".to_string());
    types.chain(fields).collect()
}

#[test]
fn only_declare_reads_a_raw_declaration() {
    let root = source_root();
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    let read: Vec<String> = files
        .iter()
        .filter(|file| !file.starts_with("declare"))
        .flat_map(|file| raw_declarations(&code_of(&root, file)).into_iter().map(move |raw| (file.clone(), raw)))
        .map(|(file, raw)| format!("{} reads {raw}", file.display()))
        .collect();
    assert!(read.is_empty(), "raw declarations read outside declare:\n{}", read.join("\n"));
}

#[test]
fn a_raw_declaration_is_found_where_there_is_one() {
    let code = "fn f(d: &SweepDecl, m: &MetricsDecl) { sweep.decl.build; x.declared; decl.result }";
    assert_eq!(raw_declarations(code), ["SweepDecl", ".decl"]);
}
