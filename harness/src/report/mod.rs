//! report stage: markdown tables in the style of the source study, rendered from analysis results.

mod ablation;
mod analysis_json;
mod comparison;
mod group_fits;
mod html_figures;
mod html_page;
mod html_text;
mod markdown_html;
mod markdown_table;
mod number_format;
mod pivot_table;
mod planned_runs;
mod plot;
mod relative_effects;
mod row_chart;
mod row_mark;
mod run_summary;
mod setting_columns;
mod verdict_lines;

pub use ablation::{ablation_groups_markdown, ablation_markdown};
pub use analysis_json::{analysis_json, setting_object, ANALYSIS_SCHEMA_VERSION};
pub use comparison::{compare_json, compare_markdown};
pub use html_page::HtmlPage;
pub use markdown_table::MarkdownTable;
pub use planned_runs::PlannedRuns;
pub use plot::{ablation_plot_svg, sweep_plot_svg, unit_from_name};
pub use run_summary::run_summary_markdown;
