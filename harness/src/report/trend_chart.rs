//! A small chart of one setting's metric across a history's versions, on the one SVG layer: each
//! version's geometric mean with its 95% interval, joined in order, and the latest change marked.

use super::axis::Axis;
use super::series_style::{MarkerShape, OKABE_ITO};
use super::svg::{Svg, SMALL};
use crate::history::VersionMean;

/// Small: a page holds one per setting.
const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 260.0;
/// Room for the value axis's title and tick labels.
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
/// Room for the title above the plot, and for the versions' numbers and the legend below it.
const TOP: f64 = 44.0;
const BOTTOM: f64 = 60.0;

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
        let axis = Axis::linear(reached)?;
        let mut svg = Svg::new(WIDTH, HEIGHT, &self.title);
        let bottom = HEIGHT - BOTTOM;
        let y = |value: f64| bottom - axis.fraction(value) * (bottom - TOP);
        let step = (WIDTH - LEFT - RIGHT) / self.versions.len().max(1) as f64;
        let x = |version: usize| LEFT + step * (version as f64 + 0.5);
        for (value, label) in axis.ticks() {
            svg.line((LEFT, y(*value)), (WIDTH - RIGHT, y(*value)), "#e4e4e4", 1.0, None);
            svg.text((LEFT - 6.0, y(*value) + 4.0), label, "end", SMALL, "y-tick");
        }
        svg.line((LEFT, bottom), (WIDTH - RIGHT, bottom), "black", 1.0, None);
        svg.vertical_text((16.0, (TOP + bottom) / 2.0), &self.axis);
        for version in 0..self.versions.len() {
            svg.text((x(version), bottom + 16.0), &(version + 1).to_string(), "middle", SMALL, "x-tick");
        }
        if let Some(at) = self.change_at {
            let between = (x(at - 1) + x(at)) / 2.0;
            svg.line((between, TOP), (between, bottom), OKABE_ITO[1], 2.0, Some("6 4"));
            svg.text((between + 4.0, TOP + 12.0), "latest change", "start", SMALL, "change");
        }
        let points: Vec<(f64, f64)> = (self.means.iter().enumerate())
            .filter_map(|(version, mean)| Some((x(version), y(mean.as_ref()?.mean))))
            .collect();
        svg.polyline(&points, OKABE_ITO[0], 1.5);
        for (version, mean) in self.means.iter().enumerate() {
            let Some(mean) = mean else { continue };
            if let Some((low, high)) = mean.interval {
                svg.vertical_interval(x(version), (y(high), y(low)), "black", 8.0);
            }
            svg.marker(MarkerShape::Circle, (x(version), y(mean.mean)), 4.0, OKABE_ITO[0], true, "point");
        }
        svg.text(
            (WIDTH / 2.0, HEIGHT - 14.0),
            "version (numbered in the order added); bars: 95% CI",
            "middle",
            SMALL,
            "legend",
        );
        Some(svg.finish())
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
