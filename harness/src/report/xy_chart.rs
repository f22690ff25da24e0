//! An x-y figure on the one SVG layer: a measured value against a swept parameter, one series per other
//! setting (colour and marker shape from `SeriesStyle`), each point a mean with its interval bar, the
//! best setting of each group filled and labelled, and a fitted line when one was declared.

use super::axis::Axis;
use super::series_style::SeriesStyle;
use super::svg::{Svg, SMALL};

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 560.0;
const LEFT: f64 = 96.0;
/// The legend's own column right of the plot, so it never covers a point.
const LEGEND: f64 = 230.0;
const TOP: f64 = 48.0;
const BOTTOM: f64 = 70.0;
/// Pixels between series at one x, so their bars do not overlap.
const DODGE: f64 = 9.0;

/// What an x-y figure shows.
#[derive(Debug, Clone, PartialEq)]
pub struct XyChart {
    pub title: String,
    /// The swept parameter's axis, ticked at its values.
    pub x: Axis,
    pub x_name: String,
    /// The measured value with its unit: `prefill_tokens_per_s (tok/s)`.
    pub y_name: String,
    pub series: Vec<XySeries>,
    /// `y = fixed + per_unit · x`, drawn over the points (which are then not joined).
    pub fit: Option<(f64, f64)>,
    /// What the bars are: `95% CI of the mean`.
    pub interval: String,
}

impl XyChart {
    /// The figure as an `<svg>` element; None when no point is finite.
    pub fn svg(&self) -> Option<String> {
        let y = self.y_axis()?;
        let mut svg = Svg::new(WIDTH, HEIGHT, &self.title);
        let frame = Frame { x: &self.x, y: &y };
        frame.draw_axes(&mut svg, &self.x_name, &self.y_name);
        if let Some((fixed, per_unit)) = self.fit {
            let (from, to) = self.x_span();
            let line: Vec<(f64, f64)> =
                self.x.samples(from, to, 64).into_iter().map(|x| frame.at(x, fixed + per_unit * x, 0.0)).collect();
            svg.polyline(&line, "black", 1.5);
        }
        let count = self.series.len();
        for (index, series) in self.series.iter().enumerate() {
            let dodge = (index as f64 - (count as f64 - 1.0) / 2.0) * DODGE;
            self.draw_series(&mut svg, &frame, series, SeriesStyle::nth(index), dodge);
        }
        self.draw_legend(&mut svg);
        Some(svg.finish())
    }

    /// The measured axis over every bar's ends and the fitted line's.
    fn y_axis(&self) -> Option<Axis> {
        let points = self.series.iter().flat_map(|s| &s.points);
        let mut values: Vec<f64> = points.flat_map(|p| [p.y - p.half_width, p.y + p.half_width]).collect();
        if let Some((fixed, per_unit)) = self.fit {
            let (from, to) = self.x_span();
            values.extend([fixed + per_unit * from, fixed + per_unit * to]);
        }
        Axis::linear(values)
    }

    fn x_span(&self) -> (f64, f64) {
        let xs = self.series.iter().flat_map(|s| s.points.iter().map(|p| p.x));
        xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), x| (low.min(x), high.max(x)))
    }

    fn draw_series(&self, svg: &mut Svg, frame: &Frame, series: &XySeries, style: SeriesStyle, dodge: f64) {
        let at = |point: &XyPoint| frame.at(point.x, point.y, dodge);
        // Over a fitted line the points stand alone: a line joining them would hide the fit.
        if self.fit.is_none() {
            let line: Vec<(f64, f64)> = series.points.iter().map(at).collect();
            svg.polyline(&line, style.colour, 2.0);
        }
        for point in &series.points {
            let (x, y) = at(point);
            let (top, bottom) = (frame.py(point.y + point.half_width), frame.py(point.y - point.half_width));
            svg.vertical_interval(x, (top, bottom), style.colour, 8.0);
            match &point.best {
                Some(label) => {
                    svg.marker(style.shape, (x, y), 7.0, style.colour, true, "best");
                    svg.text((x, top - 8.0), label, "middle", SMALL, "best-label");
                }
                None => svg.marker(style.shape, (x, y), 5.0, style.colour, false, "point"),
            }
        }
    }

    /// A line and marker per series, then what a filled marker, a bar and the fitted line mean.
    fn draw_legend(&self, svg: &mut Svg) {
        let x = WIDTH - LEGEND + 16.0;
        let mut y = TOP + 12.0;
        // Writes one entry's text and returns the height of its row, for the entry's glyph.
        let mut next = |svg: &mut Svg, text: &str| {
            let row = y;
            svg.text((x + 34.0, row + 4.5), text, "start", SMALL, "legend");
            y += 24.0;
            row
        };
        for (index, series) in self.series.iter().enumerate() {
            let style = SeriesStyle::nth(index);
            let label = if series.label.is_empty() { "mean" } else { series.label.as_str() };
            let row = next(svg, label);
            svg.line((x, row), (x + 26.0, row), style.colour, 2.0, None);
            svg.marker(style.shape, (x + 13.0, row), 5.0, style.colour, false, "legend-marker");
        }
        if self.series.iter().flat_map(|s| &s.points).any(|p| p.best.is_some()) {
            let row = next(svg, "filled: best of its group");
            svg.marker(SeriesStyle::nth(0).shape, (x + 13.0, row), 7.0, "#444", true, "legend-marker");
        }
        let row = next(svg, &format!("bars: {}", self.interval));
        svg.vertical_interval(x + 13.0, (row - 9.0, row + 9.0), "#444", 8.0);
        if self.fit.is_some() {
            let row = next(svg, "least-squares fit");
            svg.line((x, row), (x + 26.0, row), "black", 1.5, None);
        }
    }
}

/// One series of an x-y figure, the settings that share every label but the x axis's: a labelled line of
/// points, sorted by x.
#[derive(Debug, Clone, PartialEq)]
pub struct XySeries {
    pub label: String,
    pub points: Vec<XyPoint>,
}

/// One point of an x-y figure, a setting's mean at its swept value: the mean with its interval
/// half-width; `best` labels a group's best setting (drawn filled, labelled).
#[derive(Debug, Clone, PartialEq)]
pub struct XyPoint {
    pub x: f64,
    pub y: f64,
    pub half_width: f64,
    pub best: Option<String>,
}

/// The plot area between the margins, and its two axes.
struct Frame<'a> {
    x: &'a Axis,
    y: &'a Axis,
}

impl Frame<'_> {
    const RIGHT: f64 = WIDTH - LEGEND;
    const FLOOR: f64 = HEIGHT - BOTTOM;

    /// Pixel position of `(x, y)`, moved `dodge` pixels sideways.
    fn at(&self, x: f64, y: f64, dodge: f64) -> (f64, f64) {
        (self.px(x) + dodge, self.py(y))
    }

    fn px(&self, x: f64) -> f64 {
        LEFT + self.x.fraction(x) * (Self::RIGHT - LEFT)
    }

    fn py(&self, y: f64) -> f64 {
        Self::FLOOR - self.y.fraction(y) * (Self::FLOOR - TOP)
    }

    /// Grid lines and labelled ticks of both axes, the frame, and the axis titles.
    fn draw_axes(&self, svg: &mut Svg, x_name: &str, y_name: &str) {
        for (value, label) in self.y.ticks() {
            let py = self.py(*value);
            svg.line((LEFT, py), (Self::RIGHT, py), "#e4e4e4", 1.0, None);
            svg.text((LEFT - 8.0, py + 4.5), label, "end", SMALL, "y-tick");
        }
        for (value, label) in self.x.ticks() {
            let px = self.px(*value);
            svg.line((px, TOP), (px, Self::FLOOR), "#e4e4e4", 1.0, None);
            svg.text((px, Self::FLOOR + 20.0), label, "middle", SMALL, "x-tick");
        }
        svg.line((LEFT, Self::FLOOR), (Self::RIGHT, Self::FLOOR), "black", 1.0, None);
        svg.line((LEFT, TOP), (LEFT, Self::FLOOR), "black", 1.0, None);
        svg.text(((LEFT + Self::RIGHT) / 2.0, HEIGHT - 20.0), &self.x.title(x_name), "middle", 15.0, "axis-title");
        svg.vertical_text((24.0, (TOP + Self::FLOOR) / 2.0), y_name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(x: f64, y: f64, best: Option<&str>) -> XyPoint {
        XyPoint { x, y, half_width: 1.0, best: best.map(String::from) }
    }

    #[test]
    fn ticks_at_the_swept_values_the_best_filled_and_labelled() {
        let chart = XyChart {
            title: "value vs rows".into(),
            x: Axis::at_values(&[512.0, 1024.0, 2048.0]).unwrap(),
            x_name: "rows".into(),
            y_name: "value (tok/s)".into(),
            series: vec![
                XySeries {
                    label: "slices=1".into(),
                    points: vec![point(512.0, 10.0, Some("best")), point(2048.0, 9.0, None)],
                },
                XySeries {
                    label: "slices=2".into(),
                    points: vec![point(512.0, 8.0, None), point(1024.0, 12.0, Some("best"))],
                },
            ],
            fit: None,
            interval: "95% CI of the mean".into(),
        };
        let svg = chart.svg().unwrap();
        let ticks: Vec<&str> = svg.split("class=\"x-tick\">").skip(1).map(|t| t.split('<').next().unwrap()).collect();
        assert_eq!(ticks, ["512", "1024", "2048"]);
        assert!(svg.contains(">rows (log2 scale)</text>"));
        assert_eq!(svg.matches("class=\"best\"").count(), 2, "one filled marker per group's best");
        assert_eq!(svg.matches("class=\"best-label\">best</text>").count(), 2);
        assert!(svg.contains(">bars: 95% CI of the mean</text>") && svg.contains(">filled: best of its group</text>"));
        assert!(svg.contains("stroke=\"#0072B2\"") && svg.contains("<polygon"), "Okabe-Ito colours, two marker shapes");
    }
}
