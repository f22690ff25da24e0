//! The self-contained HTML page beside every summary: the summary's verdicts first, then the figures
//! (inline SVG), the summary's tables and the provenance; no script, no stylesheet or font to fetch.

use std::fmt::Write;

use super::html_figures::{
    ablation_waterfall_svg, compare_forest_svg, fit_residuals_svg, phase_stack_svg, relative_forest_svgs,
};
use super::html_text::escape;
use super::markdown_html::MarkdownSection;
use super::plot::{ablation_plot_svg, sweep_plot_svg};
use super::run_summary::fit_summary;
use crate::analyse::{AblationAnalysis, AnalysisConfig, SweepAnalysis};
use crate::compare::Comparison;
use crate::record::Sidecar;

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}\
h1{font-size:1.4em;word-break:break-all}h2{font-size:1.15em;border-bottom:1px solid #ddd;padding-bottom:2px}\
table{border-collapse:collapse;margin:0.5em 0 1em;font-size:0.9em;font-variant-numeric:tabular-nums}\
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f4f4f4}\
tbody tr:nth-child(even){background:#fafafa}code{background:#f2f2f2;padding:0 3px}\
#verdicts li{margin:0.3em 0}figure{margin:1em 0}figcaption{color:#555;font-size:0.9em}";

/// A page under construction: its title and its body's parts in order.
#[derive(Debug, Clone, PartialEq)]
pub struct HtmlPage {
    title: String,
    body: Vec<String>,
    /// How many parts lead the page (the summary's opening and verdicts), before the figures.
    lead: usize,
}

impl HtmlPage {
    /// The page of a sweep: verdicts, the primary metric against the swept param, baseline-relative
    /// forest plots, the fit's residuals, the summary's tables and the provenance.
    pub fn sweep(
        analysis: &SweepAnalysis,
        config: &AnalysisConfig,
        summary: &str,
        sidecar: Option<&Sidecar>,
        title: &str,
    ) -> String {
        let mut figures: Vec<(String, Option<String>)> = vec![(
            format!("{} against the swept parameter: mean with its 95% CI per setting.", config.primary),
            sweep_plot_svg(analysis, config),
        )];
        figures.extend(relative_forest_svgs(analysis, config).into_iter().map(|svg| {
            (
                "Each setting against its baseline partner, with its simultaneous interval (compatible with the \
                 Holm-corrected tests); dashed: no change."
                    .to_string(),
                Some(svg),
            )
        }));
        let phases = sidecar.map(profile_phases).unwrap_or_default();
        figures.push((
            "Where each setting's time goes: the mean seconds of each profile phase.".to_string(),
            phase_stack_svg(analysis, &phases),
        ));
        figures.push((
            "How far each setting lies from the fitted line, as a share of its measured value.".to_string(),
            fit_residuals_svg(analysis, config),
        ));
        let mut page = HtmlPage::of_summary(title, summary, figures, sidecar);
        // The fit's verdict leads with the others (the summary has it further down, beside the tables).
        if let Some(fit) = fit_summary(analysis, config) {
            let lead: String = MarkdownSection::split(&fit).iter().map(|s| s.html.clone()).collect();
            page.body.insert(page.lead, format!("<section id=\"fit-verdict\">\n{lead}</section>\n"));
        }
        page.render()
    }

    /// The page of an ablation: the per-variant table and additivity verdict, the waterfall and the
    /// per-variant bars, the pairwise interactions and the provenance.
    pub fn ablation(
        analysis: &AblationAnalysis,
        summary: &str,
        unit: Option<&str>,
        sidecar: Option<&Sidecar>,
        title: &str,
    ) -> String {
        let figures = vec![
            (
                "From the baseline, each group ablated alone, then what the groups do together (the interaction), \
                 ending at all groups ablated; whiskers are 95% intervals."
                    .to_string(),
                ablation_waterfall_svg(analysis, unit),
            ),
            ("The scope metric per variant: mean with its 95% CI.".to_string(), ablation_plot_svg(analysis, unit)),
        ];
        HtmlPage::of_summary(title, summary, figures, sidecar).render()
    }

    /// The page of `sweep compare`: the verdict table and gate, and B/A per setting as a forest plot.
    pub fn comparison(comparison: &Comparison, label_a: &str, label_b: &str, markdown: &str, title: &str) -> String {
        let figure = (
            "B/A per setting with its simultaneous interval (compatible with the Holm-corrected tests); dashed: no \
             change; shaded: changes within the threshold."
                .to_string(),
            compare_forest_svg(comparison, label_a, label_b),
        );
        HtmlPage::of_summary(title, markdown, vec![figure], None).render()
    }

    /// The summary's lead and verdicts, the figures that could be drawn, the summary's other sections.
    fn of_summary(
        title: &str,
        summary: &str,
        figures: Vec<(String, Option<String>)>,
        sidecar: Option<&Sidecar>,
    ) -> HtmlPage {
        let (first, rest): (Vec<MarkdownSection>, Vec<MarkdownSection>) = MarkdownSection::split(summary)
            .into_iter()
            .partition(|s| s.heading.as_deref().is_none_or(|heading| heading == "Verdicts"));
        let mut page = HtmlPage { title: title.to_string(), body: Vec::new(), lead: first.len() };
        page.body.extend(first.iter().map(MarkdownSection::render));
        page.body.push(figures_html(figures));
        page.body.extend(rest.iter().map(MarkdownSection::render));
        if let Some(sidecar) = sidecar {
            page.body.push(provenance_html(sidecar));
        }
        page
    }

    fn render(&self) -> String {
        let title = escape(&self.title);
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n\
             <style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n{}</body>\n</html>\n",
            self.body.concat()
        )
    }
}

/// `<section id="figures">` with one `<figure>` per drawn SVG; empty when nothing could be drawn.
fn figures_html(figures: Vec<(String, Option<String>)>) -> String {
    let drawn: String = figures
        .into_iter()
        .filter_map(|(caption, svg)| {
            Some(format!("<figure>\n{}<figcaption>{}</figcaption>\n</figure>\n", svg?, escape(&caption)))
        })
        .collect();
    if drawn.is_empty() {
        return String::new();
    }
    format!("<section id=\"figures\">\n<h2>Figures</h2>\n{drawn}</section>\n")
}

/// The metrics the sweep read from the engine's phase profile (`[metrics.profile] phases`).
fn profile_phases(sidecar: &Sidecar) -> Vec<String> {
    let phases = sidecar.sweep.rest.get("metrics").and_then(|m| m.get("profile")?.get("phases")?.as_object());
    phases.map(|phases| phases.keys().cloned().collect()).unwrap_or_default()
}

/// Where the numbers come from: host, engine commit, toolchain versions, the sweep version, the seed
/// and the command line, as the sidecar recorded them.
fn provenance_html(sidecar: &Sidecar) -> String {
    let provenance = &sidecar.provenance;
    let dirty = if provenance.engine_dirty { " (uncommitted changes)" } else { "" };
    let mut rows: Vec<(String, String)> = vec![
        ("host".into(), provenance.host.clone()),
        ("engine commit".into(), format!("{}{dirty}", provenance.engine_commit)),
    ];
    rows.extend(provenance.toolchain.iter().map(|(name, version)| (name.clone(), version.clone())));
    if !provenance.slurm_job_id.is_empty() {
        rows.push(("slurm job".into(), provenance.slurm_job_id.clone()));
    }
    rows.extend([
        ("sweep version".into(), sidecar.sweep_version.clone()),
        ("seed".into(), sidecar.seed.to_string()),
        ("command line".into(), sidecar.command_line.join(" ")),
    ]);
    let mut out = String::from("<section id=\"provenance\">\n<h2>Provenance</h2>\n<table>\n<tbody>\n");
    for (key, value) in rows {
        writeln!(out, "<tr><th>{}</th><td>{}</td></tr>", escape(&key), escape(&value)).unwrap();
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse_sweep;
    use crate::analyse::fixtures::{fixture_slice_config, fixture_slice_sweep};
    use crate::report::run_summary_markdown;
    use crate::spec::ReportConfig;

    #[test]
    fn the_slice_sweep_page_leads_with_its_verdicts_then_figures_then_tables() {
        let config = fixture_slice_config();
        let analysis = analyse_sweep(&fixture_slice_sweep(), &config, true, &[]);
        let summary = run_summary_markdown(&analysis, &config, &ReportConfig::default(), None, "t");
        let page = HtmlPage::sweep(&analysis, &config, &summary, None, "slices <forced>");
        assert!(page.contains("<title>slices &lt;forced&gt;</title>"));
        let order: Vec<usize> =
            ["<section id=\"verdicts\">", "<section id=\"figures\">", "<svg", "<section id=\"best-per-group\">"]
                .iter()
                .map(|part| page.find(part).unwrap_or_else(|| panic!("no {part}")))
                .collect();
        assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{order:?}");
        assert!(page.contains("<li>rows=2048: resolved: slices=2 is best"));
        assert!(!page.contains("<script") && !page.contains("<link"), "self-contained, no script");
    }

    /// Failure reasons are the engine's own error lines: markup in one must stay text on the page.
    #[test]
    fn markup_in_a_failure_reason_is_escaped() {
        let config = fixture_slice_config();
        let analysis = analyse_sweep(&fixture_slice_sweep(), &config, true, &[]);
        let summary = "## Failed runs\n\n| reason | runs |\n| --- | --- |\n| <img src=x onerror=alert(1)> | 3 |\n";
        let page = HtmlPage::sweep(&analysis, &config, summary, None, "t");
        assert!(page.contains("<td>&lt;img src=x onerror=alert(1)&gt;</td>"));
        assert!(!page.contains("<img"));
    }

    #[test]
    fn the_ablation_page_has_its_table_verdict_and_waterfall() {
        use crate::analyse::analyse_ablation;
        use crate::analyse::fixtures::{fixture_ablation, fixture_names};
        let groups = fixture_names(&["broadcast_rows", "rank1_update"]);
        let analysis = analyse_ablation(&fixture_ablation(), &groups, &fixture_names(&["gated_delta"]), 0.05, false);
        let summary = crate::report::ablation_markdown(&analysis, "t");
        let page = HtmlPage::ablation(&analysis, &summary, Some("s"), None, "gated_delta ablation");
        let table = page.find("<td>broadcast_rows+rank1_update</td>").expect("the variant table");
        let verdict = page.find("additive within 5.0%").expect("the additivity verdict");
        let waterfall = page.find(">ablate broadcast_rows<").expect("the waterfall");
        assert!(table < verdict && verdict < waterfall, "the verdict leads, the figures follow");
    }
}
