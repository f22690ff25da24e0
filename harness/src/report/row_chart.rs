//! A chart of labelled rows over one horizontal value axis, drawn as plain SVG: the forest plots
//! (effect with 95% CI per setting, a line at no change), the ablation waterfall and a fit's residuals.

use std::fmt::Write;

use super::html_text::escape;
use super::row_mark::RowMark;

const WIDTH: f64 = 960.0;
const LABEL_WIDTH: f64 = 300.0;
const RIGHT: f64 = 40.0;
const TOP: f64 = 44.0;
const ROW: f64 = 30.0;
const BOTTOM: f64 = 56.0;
const LEGEND: f64 = 28.0;

/// The colours of a stack's parts, in order (then again).
const PALETTE: [&str; 8] = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d"];

/// Rows of marks with a title, the axis description (with its unit) and optionally a reference line
/// (ratio 1, difference 0) and a shaded band (the threshold of a practical change).
#[derive(Debug, Clone, PartialEq)]
pub struct RowChart {
    pub title: String,
    pub axis: String,
    pub rows: Vec<(String, RowMark)>,
    pub reference: Option<f64>,
    /// (low, high, what it means)
    pub band: Option<(f64, f64, String)>,
    /// The names of a stack's parts, drawn as a legend under the axis; empty without stacks.
    pub legend: Vec<String>,
}

impl RowChart {
    /// The chart as an `<svg>` element; None when no row has a finite value to draw.
    pub fn svg(&self) -> Option<String> {
        let mut values: Vec<f64> = self.rows.iter().flat_map(|(_, mark)| mark.values()).collect();
        values.extend(self.reference);
        values.extend(self.band.iter().flat_map(|(low, high, _)| [*low, *high]));
        values.retain(|v| v.is_finite());
        let low = values.iter().copied().fold(f64::INFINITY, f64::min);
        let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !low.is_finite() {
            return None;
        }
        let pad = ((high - low) * 0.06).max(high.abs().max(1.0) * 1e-3);
        let scale = Scale { low: low - pad, high: high + pad };
        let legend_height = if self.legend.is_empty() { 0.0 } else { LEGEND };
        let height = TOP + ROW * self.rows.len() as f64 + BOTTOM + legend_height;
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} \
             {height}\" font-family=\"sans-serif\" font-size=\"14\">\n<rect width=\"100%\" height=\"100%\" \
             fill=\"white\"/>\n<text x=\"{}\" y=\"26\" text-anchor=\"middle\" font-size=\"18\">{}</text>\n",
            WIDTH / 2.0,
            escape(&self.title)
        );
        let bottom = TOP + ROW * self.rows.len() as f64;
        if let Some((from, to, meaning)) = &self.band {
            let (x0, x1) = (scale.x(*from), scale.x(*to));
            writeln!(
                svg,
                "<rect x=\"{x0:.1}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#f2e6c9\"><title>{}</title></rect>",
                x1 - x0,
                bottom - TOP,
                escape(meaning)
            )
            .unwrap();
        }
        svg.push_str(&scale.axis(bottom, &self.axis));
        if let Some(reference) = self.reference {
            let x = scale.x(reference);
            writeln!(svg, "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{bottom}\" stroke=\"#444\" stroke-dasharray=\"4 3\"/>")
                .unwrap();
        }
        for (index, (label, mark)) in self.rows.iter().enumerate() {
            let y = TOP + ROW * (index as f64 + 0.5);
            writeln!(
                svg,
                "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                LABEL_WIDTH - 10.0,
                y + 5.0,
                escape(label)
            )
            .unwrap();
            svg.push_str(&mark_svg(mark, y, &scale));
        }
        svg.push_str(&legend_svg(&self.legend, bottom + BOTTOM + 14.0));
        svg.push_str("</svg>\n");
        Some(svg)
    }
}

/// A swatch and a name per part, in one line from the left of the plot area.
fn legend_svg(names: &[String], y: f64) -> String {
    let mut x = LABEL_WIDTH;
    let mut out = String::new();
    for (index, name) in names.iter().enumerate() {
        writeln!(
            out,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"14\" height=\"14\" fill=\"{}\"/>\n<text x=\"{:.1}\" y=\"{y:.1}\">{}</text>",
            y - 12.0,
            PALETTE[index % PALETTE.len()],
            x + 20.0,
            escape(name)
        )
        .unwrap();
        x += 40.0 + 8.0 * name.chars().count() as f64;
    }
    out
}

fn mark_svg(mark: &RowMark, y: f64, scale: &Scale) -> String {
    let whisker = |low: f64, high: f64| {
        let (x0, x1) = (scale.x(low), scale.x(high));
        format!(
            "<line x1=\"{x0:.1}\" y1=\"{y:.1}\" x2=\"{x1:.1}\" y2=\"{y:.1}\" stroke=\"black\" stroke-width=\"1.5\"/>\n\
             <line x1=\"{x0:.1}\" y1=\"{:.1}\" x2=\"{x0:.1}\" y2=\"{:.1}\" stroke=\"black\"/>\n\
             <line x1=\"{x1:.1}\" y1=\"{:.1}\" x2=\"{x1:.1}\" y2=\"{:.1}\" stroke=\"black\"/>\n",
            y - 6.0,
            y + 6.0,
            y - 6.0,
            y + 6.0
        )
    };
    let rect = |from: f64, to: f64, fill: &str| {
        let (x0, x1) = (scale.x(from.min(to)), scale.x(from.max(to)));
        format!(
            "<rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\"/>\n",
            y - ROW * 0.32,
            (x1 - x0).max(1.0),
            ROW * 0.64
        )
    };
    match *mark {
        RowMark::Interval { estimate, low, high } => format!(
            "{}<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"5\" fill=\"#1f5fa8\"/>\n",
            whisker(low, high),
            scale.x(estimate)
        ),
        RowMark::Bar { from, to, whisker: interval } => {
            // Totals stand on zero (grey); steps are coloured by their direction.
            let fill = if from == 0.0 {
                "#9a9a9a"
            } else if to < from {
                "#d9534f"
            } else {
                "#4a90d9"
            };
            rect(from, to, fill) + &interval.map_or_else(String::new, |(low, high)| whisker(low, high))
        }
        RowMark::Stack(ref parts) => {
            let mut start = 0.0;
            let mut out = String::new();
            for (index, part) in parts.iter().enumerate() {
                out.push_str(&rect(start, start + part, PALETTE[index % PALETTE.len()]));
                start += part;
            }
            out
        }
        RowMark::Untested => format!(
            "<text x=\"{}\" y=\"{:.1}\" fill=\"#777\">untested (no interval)</text>\n",
            LABEL_WIDTH + 8.0,
            y + 5.0
        ),
    }
}

/// The value axis: linear from `low` to `high` over the plot area.
struct Scale {
    low: f64,
    high: f64,
}

impl Scale {
    fn x(&self, value: f64) -> f64 {
        LABEL_WIDTH + (value - self.low) / (self.high - self.low) * (WIDTH - LABEL_WIDTH - RIGHT)
    }

    /// Ticks at 1, 2 or 5 times a power of ten (about six of them), a grid line each, and the title.
    fn axis(&self, bottom: f64, title: &str) -> String {
        let rough = (self.high - self.low) / 6.0;
        let power = 10f64.powf(rough.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|s| *s >= rough).unwrap_or(10.0 * power);
        let decimals = (-step.log10().floor()).max(0.0) as usize;
        let mut out = format!(
            "<line x1=\"{LABEL_WIDTH}\" y1=\"{bottom}\" x2=\"{}\" y2=\"{bottom}\" stroke=\"black\"/>\n",
            WIDTH - RIGHT
        );
        let mut tick = (self.low / step).ceil() * step;
        while tick <= self.high {
            let x = self.x(tick);
            // A tick at zero reached by steps from below prints as 0, not -0.
            let shown = if tick.abs() < step * 1e-9 { 0.0 } else { tick };
            let label = format!("{shown:.decimals$}");
            writeln!(
                out,
                "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{bottom}\" stroke=\"#e4e4e4\"/>\n\
                 <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"12\">{label}</text>",
                bottom + 16.0
            )
            .unwrap();
            tick += step;
        }
        writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            (LABEL_WIDTH + WIDTH - RIGHT) / 2.0,
            bottom + 42.0,
            escape(title)
        )
        .unwrap();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_labels_reference_and_band_are_drawn_and_escaped() {
        let chart = RowChart {
            title: "B/A <per setting>".into(),
            axis: "ratio".into(),
            rows: vec![
                ("rows=512".into(), RowMark::Interval { estimate: 1.02, low: 0.98, high: 1.06 }),
                ("rows=1024".into(), RowMark::Untested),
            ],
            reference: Some(1.0),
            band: Some((0.95, 1.05, "within 5%".into())),
            legend: Vec::new(),
        };
        let svg = chart.svg().unwrap();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("B/A &lt;per setting&gt;"));
        assert!(svg.contains(">rows=512</text>") && svg.contains("untested (no interval)"));
        assert!(svg.contains("stroke-dasharray") && svg.contains("<title>within 5%</title>"));
        assert!(svg.contains(">1.00</text>"), "a tick at the reference");
    }

    #[test]
    fn no_chart_without_a_value() {
        let chart = RowChart {
            title: "t".into(),
            axis: "x".into(),
            rows: vec![("a".into(), RowMark::Untested)],
            reference: None,
            band: None,
            legend: Vec::new(),
        };
        assert_eq!(chart.svg(), None);
    }
}
