//! report stage: every report (a sweep's, an ablation's, a comparison's) as one typed `Document`, rendered
//! to the terminal, the summary's markdown and the self-contained HTML page; its figures drawn on one small
//! SVG layer; `analysis.json` and `compare --json` as data.

mod ablation_report;
mod analysis_json;
mod axis;
mod compare_thresholds;
mod comparison_report;
mod document;
mod finding;
mod findings;
mod history_report;
mod html_figures;
mod html_page;
mod metric_units;
mod number_format;
mod race_closing;
mod report_context;
mod resume_command;
mod row_chart;
mod search_report;
mod series_style;
mod setting_columns;
mod setting_tables;
mod svg;
mod sweep_document;
mod sweep_plot;
mod sweep_report;
mod table;
mod text;
mod trend_chart;
mod verdict_lines;
mod what_to_trust;

pub use ablation_report::ablation_document;
pub use analysis_json::{analysis_json, compare_json, ANALYSIS_SCHEMA_VERSION};
pub use compare_thresholds::threshold_named;
pub use comparison_report::{compare_document, machine_change_line};
pub use document::{markdown, terminal_text, Document};
pub use findings::check_findings;
pub use history_report::HistoryReport;
pub use html_figures::ablation_plot_svg;
pub use html_page::html_page;
pub use metric_units::MetricUnits;
pub use number_format::p_stated;
pub use race_closing::RaceClosing;
pub use report_context::{PlannedRuns, ReportContext};
pub use resume_command::ResumeCommand;
pub use sweep_plot::sweep_plot_svg;
pub use sweep_report::SweepReport;
