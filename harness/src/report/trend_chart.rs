//! A small chart of one setting's metric across a history's versions, on the one SVG layer: each
//! version's geometric mean with its 95% interval, joined in order, and the latest change marked.

use super::axis::Axis;
use super::series_style::{MarkerShape, OKABE_ITO};
use super::svg::{Svg, SMALL};
use crate::history::VersionMean;

/// The canvas (width, height): small, a page holds one per setting.
const SIZE: (f64, f64) = (560.0, 260.0);
/// Room left of the plot (the value axis's title and ticks) and right of it.
const SIDES: (f64, f64) = (70.0, 20.0);
/// Room above the plot (the title) and below it (the versions' numbers and the legend).
const ABOVE_BELOW: (f64, f64) = (44.0, 60.0);

/// One setting's chart: `title`, the value axis's description, each version (label, mean) and the first
/// version after its latest change, if one was found. Versions are numbered from 1 under their points
/// (labels such as `cann: CANN 8.1.RC1, commit 0123456789ab` would overlap; the table names them).
#[derive(Debug, Clone, PartialEq)]
pub struct TrendChart<'a> {
    pub title: String,
    pub axis: String,
    pub versions: &'a [String],
    pub means: &'a [Option<VersionMean>],
    pub change_at: Option<usize>,
}

impl TrendChart<'_> {
    /// The chart as an `<svg>` element; None when no version has a mean.
    pub fn svg(&self) -> Option<String> {
        let reached = self.means.iter().flatten().flat_map(|mean| {
            let (low, high) = mean.interval.unwrap_or((mean.mean, mean.mean));
            [mean.mean, low, high]
        });
        let frame = Frame {
            axis: Axis::linear(reached)?,
            step: (SIZE.0 - SIDES.0 - SIDES.1) / self.versions.len().max(1) as f64,
            bottom: SIZE.1 - ABOVE_BELOW.1,
        };
        let mut svg = Svg::new(SIZE.0, SIZE.1, &self.title);
        self.draw_axes(&mut svg, &frame);
        if let Some(at) = self.change_at {
            let between = (frame.x(at - 1) + frame.x(at)) / 2.0;
            svg.line((between, ABOVE_BELOW.0), (between, frame.bottom), OKABE_ITO[1], 2.0, Some("6 4"));
            svg.text((between + 4.0, ABOVE_BELOW.0 + 12.0), "latest change", "start", SMALL, "change");
        }
        self.draw_means(&mut svg, &frame);
        let legend = "version (numbered in the order added); bars: 95% CI";
        svg.text((SIZE.0 / 2.0, SIZE.1 - 14.0), legend, "middle", SMALL, "legend");
        Some(svg.finish())
    }

    /// The value axis (grid lines, ticks, title) and the versions' numbers under the plot.
    fn draw_axes(&self, svg: &mut Svg, frame: &Frame) {
        let (left, right) = (SIDES.0, SIZE.0 - SIDES.1);
        for (value, label) in frame.axis.ticks() {
            svg.line((left, frame.y(*value)), (right, frame.y(*value)), "#e4e4e4", 1.0, None);
            svg.text((left - 6.0, frame.y(*value) + 4.0), label, "end", SMALL, "y-tick");
        }
        svg.line((left, frame.bottom), (right, frame.bottom), "black", 1.0, None);
        svg.vertical_text((16.0, (ABOVE_BELOW.0 + frame.bottom) / 2.0), &self.axis);
        for version in 0..self.versions.len() {
            svg.text((frame.x(version), frame.bottom + 16.0), &(version + 1).to_string(), "middle", SMALL, "x-tick");
        }
    }

    /// Each version's mean joined in order, with its interval.
    fn draw_means(&self, svg: &mut Svg, frame: &Frame) {
        let points: Vec<(f64, f64)> = (self.means.iter().enumerate())
            .filter_map(|(version, mean)| Some((frame.x(version), frame.y(mean.as_ref()?.mean))))
            .collect();
        svg.polyline(&points, OKABE_ITO[0], 1.5);
        for (version, mean) in self.means.iter().enumerate() {
            let Some(mean) = mean else { continue };
            if let Some((low, high)) = mean.interval {
                svg.vertical_interval(frame.x(version), (frame.y(high), frame.y(low)), "black", 8.0);
            }
            svg.marker(MarkerShape::Circle, (frame.x(version), frame.y(mean.mean)), 4.0, OKABE_ITO[0], true, "point");
        }
    }
}

/// Where a version and a value go on the canvas: the value axis, the width a version takes, the plot's
/// bottom edge.
struct Frame {
    axis: Axis,
    step: f64,
    bottom: f64,
}

impl Frame {
    fn x(&self, version: usize) -> f64 {
        SIDES.0 + self.step * (version as f64 + 0.5)
    }

    fn y(&self, value: f64) -> f64 {
        self.bottom - self.axis.fraction(value) * (self.bottom - ABOVE_BELOW.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_intervals_labels_and_the_latest_change() {
        let versions: Vec<String> = ["v1", "v2", "v3"].map(String::from).to_vec();
        let means = [VersionMean::of(&[10.0, 11.0]), None, VersionMean::of(&[20.0, 21.0, 22.0])];
        let chart = TrendChart {
            title: "k=2".into(),
            axis: "tps".into(),
            versions: &versions,
            means: &means,
            change_at: Some(2),
        };
        let svg = chart.svg().unwrap();
        assert_eq!(svg.matches("class=\"point\"").count(), 2, "no point where a version has no run");
        assert!(svg.contains("class=\"x-tick\">3<") && svg.contains("class=\"x-tick\">2<"), "{svg}");
        assert!(svg.contains("class=\"change\">latest change<") && svg.contains("stroke-dasharray=\"6 4\""));
        let unmarked = TrendChart { change_at: None, ..chart };
        assert!(!unmarked.svg().unwrap().contains("latest change"));
        let empty = TrendChart { means: &[None, None, None], ..unmarked };
        assert_eq!(empty.svg(), None);
    }
}
