//! A figure of labelled rows over one horizontal value axis, on the one SVG layer: the forest plots
//! (effect with its interval per setting, a line at no change), the ablation's waterfall and per-variant
//! bars, the phase stacks and a fit's residuals.

use super::axis::Axis;
use super::series_style::OKABE_ITO;
use super::svg::{Svg, SMALL};

const WIDTH: f64 = 1000.0;
const LABEL_WIDTH: f64 = 300.0;
const RIGHT: f64 = 40.0;
const TOP: f64 = 44.0;
const ROW: f64 = 30.0;
const BOTTOM: f64 = 56.0;
const LEGEND: f64 = 28.0;

/// Okabe-Ito colours of a waterfall: totals grey, steps down vermillion, steps up blue; intervals' points blue.
const TOTAL: &str = "#999999";
const DOWN: &str = "#D55E00";
const UP: &str = "#0072B2";

/// Rows of marks with a title, the axis description (with its unit), optionally a reference line
/// (ratio 1, difference 0) and a shaded band (the threshold of a practical change).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RowChart {
    pub title: String,
    pub axis: String,
    pub rows: Vec<(String, RowMark)>,
    pub reference: Option<f64>,
    /// (low, high, what it means)
    pub band: Option<(f64, f64, String)>,
    /// The names of a stack's parts, drawn as a legend under the axis; empty without stacks.
    pub legend: Vec<String>,
    /// What a row's whiskers are (`97.5% simultaneous CI`), said in the legend; None without whiskers.
    pub interval: Option<String>,
}

impl RowChart {
    /// The chart as an `<svg>` element; None when no row has a finite value to draw.
    pub fn svg(&self) -> Option<String> {
        let band = self.band.iter().flat_map(|(low, high, _)| [*low, *high]);
        let axis =
            Axis::linear(self.rows.iter().flat_map(|(_, mark)| mark.values()).chain(self.reference).chain(band))?;
        let legend_rows = usize::from(!self.legend.is_empty()) + usize::from(self.interval.is_some());
        let bottom = TOP + ROW * self.rows.len() as f64;
        let height = bottom + BOTTOM + LEGEND * legend_rows as f64;
        let mut svg = Svg::new(WIDTH, height, &self.title);
        let x = |value: f64| LABEL_WIDTH + axis.fraction(value) * (WIDTH - LABEL_WIDTH - RIGHT);
        if let Some((from, to, meaning)) = &self.band {
            svg.rect((x(*from), TOP), (x(*to) - x(*from), bottom - TOP), "#f2e6c9", Some(meaning));
        }
        for (value, label) in axis.ticks() {
            svg.line((x(*value), TOP), (x(*value), bottom), "#e4e4e4", 1.0, None);
            svg.text((x(*value), bottom + 18.0), label, "middle", SMALL, "x-tick");
        }
        svg.line((LABEL_WIDTH, bottom), (WIDTH - RIGHT, bottom), "black", 1.0, None);
        svg.text(((LABEL_WIDTH + WIDTH - RIGHT) / 2.0, bottom + 42.0), &self.axis, "middle", 15.0, "axis-title");
        if let Some(reference) = self.reference {
            svg.line((x(reference), TOP), (x(reference), bottom), "#444", 1.0, Some("4 3"));
        }
        for (index, (label, mark)) in self.rows.iter().enumerate() {
            let y = TOP + ROW * (index as f64 + 0.5);
            svg.text((LABEL_WIDTH - 10.0, y + 5.0), label, "end", 14.0, "row-label");
            draw_mark(&mut svg, mark, y, &x);
        }
        let mut legend_y = bottom + BOTTOM + 14.0;
        if !self.legend.is_empty() {
            stack_legend(&mut svg, &self.legend, legend_y);
            legend_y += LEGEND;
        }
        if let Some(interval) = &self.interval {
            svg.horizontal_interval((LABEL_WIDTH, LABEL_WIDTH + 26.0), legend_y - 5.0, "black", 10.0);
            svg.text((LABEL_WIDTH + 34.0, legend_y), &format!("whiskers: {interval}"), "start", SMALL, "legend");
        }
        Some(svg.finish())
    }
}

/// What one row of a row chart shows on the value axis.
#[derive(Debug, Clone, PartialEq)]
pub enum RowMark {
    /// An estimate with its interval (a forest plot's row).
    Interval { estimate: f64, low: f64, high: f64 },
    /// The rows' pooled estimate with its interval, drawn as a diamond as wide as the interval (a forest
    /// plot's summary row, as meta-analyses draw it).
    Pooled { estimate: f64, low: f64, high: f64 },
    /// A bar from `from` to `to` (a waterfall step, a residual), with an interval around `to` when known.
    Bar { from: f64, to: f64, whisker: Option<(f64, f64)> },
    /// Parts of a whole laid end to end from 0 (phase seconds of one setting), one colour per part.
    Stack(Vec<f64>),
    /// Nothing could be estimated (one rep, no usable run): the row says so.
    Untested,
}

impl RowMark {
    /// A forest plot's row from `(estimate, low, high)`; `Untested` without an interval.
    pub fn interval(interval: Option<(f64, f64, f64)>) -> RowMark {
        interval.map_or(RowMark::Untested, |(estimate, low, high)| RowMark::Interval { estimate, low, high })
    }

    /// A bar from `from` to `to` with a whisker of `half_width` either side of `to` when known.
    pub fn bar(from: f64, to: f64, half_width: Option<f64>) -> RowMark {
        RowMark::Bar { from, to, whisker: half_width.map(|half| (to - half, to + half)) }
    }

    /// Every value the mark reaches, for the axis range.
    pub fn values(&self) -> Vec<f64> {
        match self {
            &RowMark::Interval { estimate, low, high } | &RowMark::Pooled { estimate, low, high } => {
                vec![estimate, low, high]
            }
            &RowMark::Bar { from, to, whisker } => {
                whisker.map_or(vec![from, to], |(low, high)| vec![from, to, low, high])
            }
            RowMark::Stack(parts) => vec![0.0, parts.iter().sum()],
            RowMark::Untested => Vec::new(),
        }
    }
}

/// A swatch and a name per part, in one line from the left of the plot area.
fn stack_legend(svg: &mut Svg, names: &[String], y: f64) {
    let mut x = LABEL_WIDTH;
    for (index, name) in names.iter().enumerate() {
        svg.rect((x, y - 12.0), (14.0, 14.0), OKABE_ITO[index % OKABE_ITO.len()], None);
        svg.text((x + 20.0, y), name, "start", SMALL, "legend");
        x += 40.0 + 8.0 * name.chars().count() as f64;
    }
}

fn draw_mark(svg: &mut Svg, mark: &RowMark, y: f64, x: &dyn Fn(f64) -> f64) {
    let bar = |svg: &mut Svg, from: f64, to: f64, fill: &str| {
        let (left, right) = (x(from.min(to)), x(from.max(to)));
        svg.rect((left, y - ROW * 0.32), ((right - left).max(1.0), ROW * 0.64), fill, None);
    };
    match *mark {
        RowMark::Interval { estimate, low, high } => {
            svg.horizontal_interval((x(low), x(high)), y, "black", 12.0);
            svg.marker(super::series_style::MarkerShape::Circle, (x(estimate), y), 5.0, UP, true, "point");
        }
        RowMark::Pooled { estimate, low, high } => {
            let half = ROW * 0.32;
            let corners = [(x(low), y), (x(estimate), y - half), (x(high), y), (x(estimate), y + half)];
            svg.polygon(&corners, UP, "black", "pooled");
        }
        RowMark::Bar { from, to, whisker } => {
            // Totals stand on zero (grey); steps are coloured by their direction.
            let fill = match (from == 0.0, to < from) {
                (true, _) => TOTAL,
                (false, true) => DOWN,
                (false, false) => UP,
            };
            bar(svg, from, to, fill);
            if let Some((low, high)) = whisker {
                svg.horizontal_interval((x(low), x(high)), y, "black", 12.0);
            }
        }
        RowMark::Stack(ref parts) => {
            let mut start = 0.0;
            for (index, part) in parts.iter().enumerate() {
                bar(svg, start, start + part, OKABE_ITO[index % OKABE_ITO.len()]);
                start += part;
            }
        }
        RowMark::Untested => {
            svg.text((LABEL_WIDTH + 8.0, y + 5.0), "untested (no interval)", "start", 14.0, "untested")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(rows: Vec<(String, RowMark)>) -> RowChart {
        RowChart {
            title: "B/A <per setting>".into(),
            axis: "ratio".into(),
            rows,
            reference: Some(1.0),
            band: Some((0.95, 1.05, "within 5%".into())),
            legend: Vec::new(),
            interval: Some("97.5% simultaneous CI".into()),
        }
    }

    #[test]
    fn rows_labels_reference_band_and_interval_legend() {
        let svg = chart(vec![
            ("rows=512".into(), RowMark::Interval { estimate: 1.02, low: 0.98, high: 1.06 }),
            ("rows=1024".into(), RowMark::Untested),
        ])
        .svg()
        .unwrap();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("B/A &lt;per setting&gt;"));
        assert!(svg.contains(">rows=512</text>") && svg.contains("untested (no interval)"));
        assert!(svg.contains("stroke-dasharray") && svg.contains("<title>within 5%</title>"));
        assert!(svg.contains("class=\"x-tick\">1.00</text>"), "a tick at the reference");
        assert!(svg.contains(">whiskers: 97.5% simultaneous CI</text>"), "the intervals are labelled");
    }

    #[test]
    fn a_pooled_row_is_a_diamond_as_wide_as_its_interval() {
        let svg = chart(vec![
            ("rows=512".into(), RowMark::Interval { estimate: 1.02, low: 0.98, high: 1.06 }),
            ("overall".into(), RowMark::Pooled { estimate: 1.0, low: 0.9, high: 1.1 }),
        ])
        .svg()
        .unwrap();
        let diamond = svg.lines().find(|line| line.contains("class=\"pooled\"")).expect("a pooled diamond");
        let points: Vec<(f64, f64)> = diamond
            .split('"')
            .nth(1)
            .unwrap()
            .split(' ')
            .map(|point| {
                let (x, y) = point.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect();
        let (left, top, right, bottom) = (points[0], points[1], points[2], points[3]);
        assert!(left.0 < top.0 && top.0 < right.0 && top.0 == bottom.0, "{diamond}");
        assert!(left.1 == right.1 && top.1 < left.1 && left.1 < bottom.1, "{diamond}");
        assert!(svg.find(">rows=512<").unwrap() < svg.find(">overall<").unwrap());
    }

    #[test]
    fn no_chart_without_a_value() {
        let only_untested = RowChart { reference: None, band: None, ..chart(vec![("a".into(), RowMark::Untested)]) };
        assert_eq!(only_untested.svg(), None);
    }
}
