//! The HTML page beside every summary, loaded in headless Chromium (Debian's `chromium`): it renders
//! to a non-trivial PNG, logs no console error, and its DOM holds the verdicts, the figures and the
//! tables. The sweeps run a FIXTURE engine; its values are fixture numbers, not measurements.
//! Without Chromium each test prints SKIP with the reason and passes.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{stderr, stdout, sweep, Workspace};

/// Chromium's flags for a quiet, offline, one-shot load: no sandbox (tests may run as root), no GPU,
/// no background fetches, a throwaway profile.
fn chromium(profile: &Path, extra: &[String], page: &Path) -> Option<Output> {
    let mut command = Command::new("timeout");
    command
        .args(["120", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()));
    command.output().ok()
}

/// A workspace when `chromium` runs here; else None after printing SKIP with the reason.
fn workspace_with_chromium() -> Option<Workspace> {
    let reason = match Command::new("chromium").arg("--version").output() {
        Ok(output) if output.status.success() => return Some(Workspace::new()),
        Ok(output) => format!("`chromium --version` failed: {}", stderr(&output).trim()),
        Err(error) => format!("no chromium ({error}); install it with scripts/install-deps.sh"),
    };
    println!("SKIP: {reason}");
    None
}

/// A 5 x 2 sweep over a numeric `size` with a baseline (`tbo = 0`) and a fit of the value over size.
fn fixture_sweep(workspace: &Workspace, name: &str, value_template: &str) -> PathBuf {
    workspace.write_fixture_profile("1");
    let spec = workspace.write_sweep(
        name,
        &format!(
            "name = \"{name}\"\n[engine]\nprofile = \"fixture\"\n[params]\nsize = [1, 2, 4, 8, 16]\ntbo = [0, 1]\n\
             [reps]\ncount = 3\n[run]\nargs = [\"0\", \"ok\", \"m\", \"{value_template}\"]\n[metrics]\n\
             result = [\"value\", \"seconds\"]\nunits = {{ value = \"tok/s\" }}\n[analysis]\nprimary = \"value\"\ndirection = \"higher\"\n\
             group_by = [\"size\"]\nbaseline = {{ tbo = 0 }}\nrelative = {{ value = \"ratio\" }}\n\
             fit = {{ x = \"size\", y = \"value\" }}\n"
        ),
    );
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    workspace.result_csv(name)
}

/// The page's DOM as Chromium built it, after checking the load logged no console error.
fn loaded_dom(workspace: &Workspace, page: &Path) -> String {
    let profile = workspace.path().join("chromium-dom");
    let flags = ["--enable-logging=stderr".to_string(), "--v=0".to_string(), "--dump-dom".to_string()];
    let output = chromium(&profile, &flags, page).expect("timeout and chromium run");
    assert!(output.status.success(), "chromium failed: {}", stderr(&output));
    let log = stderr(&output);
    let errors: Vec<&str> = log.lines().filter(|l| l.contains("Uncaught") || l.contains("ERROR:CONSOLE")).collect();
    assert!(errors.is_empty(), "console errors loading {}: {errors:?}", page.display());
    stdout(&output)
}

/// With `SWEEP_KEEP_PAGE=<dir>`, copies a page or screenshot there to look at after the test.
fn keep(file: &Path, name: &str) {
    if let Some(dir) = std::env::var_os("SWEEP_KEEP_PAGE") {
        std::fs::copy(file, Path::new(&dir).join(name)).unwrap();
    }
}

/// The text of every SVG `<text>` of `class` in `svg`, in document order.
fn texts<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
    let marker = format!("class=\"{class}\">");
    svg.split(marker.as_str()).skip(1).map(|text| text.split('<').next().unwrap()).collect()
}

#[test]
fn the_sweep_page_renders_in_chromium_trust_block_first_then_verdicts_figures_and_tables() {
    let Some(workspace) = workspace_with_chromium() else { return };
    let csv = fixture_sweep(&workspace, "sizes", "{{size}}{{tbo}}{{rep}}");
    let output = sweep(workspace.path(), &["report", csv.to_str().unwrap(), "--html"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let page = PathBuf::from(stdout(&output).trim());
    assert_eq!(page, csv.with_extension("html"), "report --html prints the page beside the CSV");

    // 1280 px: the width the page must read at.
    let png = workspace.path().join("page.png");
    let flags = [format!("--screenshot={}", png.display()), "--window-size=1280,2400".to_string()];
    let shot = chromium(&workspace.path().join("chromium-shot"), &flags, &page).expect("timeout and chromium run");
    assert!(shot.status.success(), "chromium failed: {}", stderr(&shot));
    let image = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert!(image.starts_with(b"\x89PNG"), "not a PNG");
    assert!(image.len() > 20_000, "a near-empty screenshot: {} bytes", image.len());
    keep(&png, "report.png");
    keep(&page, "report.html");

    let dom = loaded_dom(&workspace, &page);
    let order: Vec<usize> = [
        "<section id=\"what-to-trust\">",
        "<section id=\"verdicts\">",
        "<section id=\"fit\">",
        "<section id=\"figures\">",
        "<section id=\"value\">",
        "<section id=\"best-per-group\">",
    ]
    .iter()
    .map(|section| dom.find(section).unwrap_or_else(|| panic!("no {section}")))
    .collect();
    assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "what to trust, verdicts, fit, figures, tables: {order:?}");
    let trust = &dom[order[0]..order[1]];
    assert!(trust.contains("All 30 runs finished ok."), "{trust}");
    let verdicts = &dom[order[1]..order[2]];
    assert!(verdicts.contains("<li>size=1: ") && verdicts.contains(" tok/s)"), "a verdict with its unit: {verdicts}");
    assert!(dom[order[2]..].contains("Verdict: one line fits"));
    assert!(dom.matches("<svg").count() >= 3, "the sweep plot, the forest plot and the residuals");
    assert!(dom.contains("value vs tbo=0 (") && dom.contains("simultaneous CI)"), "the baseline-relative forest plot");
    let whiskers = dom.split("class=\"legend\">whiskers: ").nth(1).expect("the forest plot's intervals are labelled");
    assert!(whiskers.split('<').next().unwrap().ends_with("% simultaneous CI"), "{whiskers}");
    assert!(dom.contains("Residuals of the fit value"), "the fit's residuals");
    for table in ["<section id=\"value\">", "<section id=\"best-per-group\">", "<section id=\"vs-tbo-0\">"] {
        let section = dom.split(table).nth(1).unwrap_or_else(|| panic!("no {table}"));
        assert!(section.split("</section>").next().unwrap().contains("<table>"), "no table in {table}");
    }
    assert!(dom.contains("<th>mean ± 95% CI (tok/s)</th>"), "the declared unit heads the column");
    assert!(dom.contains("<th>fixture</th><td>fixture-toolkit 1</td>"), "the toolchain in the provenance");

    // The sweep plot: ticks at the swept sizes on a log2 axis, each group's best filled and labelled.
    let plot = dom[order[3]..].split("</svg>").next().unwrap();
    assert_eq!(texts(plot, "x-tick"), ["1", "2", "4", "8", "16"], "ticks at the swept values");
    assert!(plot.contains(">size (log2 scale)</text>") && plot.contains(">value (tok/s)</text>"));
    assert_eq!(plot.matches("class=\"best\"").count(), 5, "one best marked per size");
    assert_eq!(texts(plot, "best-label").len(), 5);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(csv.with_extension("analysis.json")).unwrap()).unwrap();
    // The bars are at the verdicts' simultaneous level (they were 95% beside verdicts made at 99.38%).
    let bars = plot.split("class=\"legend\">bars: ").nth(1).expect("the interval bars are labelled");
    let bars = bars.split('<').next().unwrap();
    let level: f64 = bars.strip_suffix("% CI of the mean").and_then(|level| level.parse().ok()).expect(bars);
    assert!((level / 100.0 - json["level"].as_f64().unwrap()).abs() < 5e-5, "{bars} at level {}", json["level"]);
    assert_eq!((json["unit"].as_str(), json["units"]["seconds"].as_str()), (Some("tok/s"), Some("s")));
}

#[test]
fn compare_writes_a_forest_plot_of_b_over_a() {
    let Some(workspace) = workspace_with_chromium() else { return };
    let a = fixture_sweep(&workspace, "a", "{{size}}{{tbo}}{{rep}}");
    let b = fixture_sweep(&workspace, "b", "{{size}}{{tbo}}{{rep}}.5");
    let page = workspace.path().join("compare.html");
    let args = ["compare", a.to_str().unwrap(), b.to_str().unwrap(), "--html", page.to_str().unwrap()];
    let output = sweep(workspace.path(), &args);
    assert!(page.is_file(), "no page: {}", stderr(&output));
    keep(&page, "compare.html");
    let dom = loaded_dom(&workspace, &page);
    assert!(
        dom.contains("value: B/A per setting and overall (") && dom.contains("simultaneous CI)"),
        "the forest plot"
    );
    assert_eq!(dom.matches("class=\"pooled\"").count(), 1, "the overall B/A as a diamond");
    let rows: Vec<usize> = [">size=1 tbo=0<", ">size=2 tbo=0<", ">size=16 tbo=1<", ">overall (random effects)<"]
        .iter()
        .map(|label| dom.find(label).unwrap_or_else(|| panic!("no row {label}")))
        .collect();
    assert!(rows.windows(2).all(|pair| pair[0] < pair[1]), "rows in grid order");
    assert!(dom.contains("<title>within the 2.0% --threshold of A</title>"), "the threshold band");
    assert!(dom.contains("<th>B/A (") && dom.contains(" CI)</th>"), "the comparison table");
    assert!(dom.contains("<th>mean A (tok/s)</th>"), "the unit recorded with A");
}
