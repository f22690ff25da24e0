//! The one plotting layer of every figure: a small typed writer of SVG elements.
//!
//! Why hand-written SVG rather than plotters (which drew the sweep plot before): every figure needs ticks
//! exactly at the swept values on a log2 axis, hollow and filled markers of several shapes, labels beside
//! chosen points and a legend that explains the interval bars. plotters' log axes place their own ticks
//! (ours had to override its key points and still got its minor grid), its markers are circles and
//! crosses, and its text layout is its own; the forest plots and waterfalls were already plain SVG. One
//! layer of a few element writers, an `Axis` and a palette draws them all, writes deterministic text the
//! tests can read (`class="x-tick"`, `class="best"`), escapes every label, and drops a dependency.

use std::f64::consts::PI;
use std::fmt::Write;

use super::html_page::escape;
use super::series_style::MarkerShape;

/// Font size of tick labels and legend text; titles are larger.
pub const SMALL: f64 = 13.0;

/// An SVG document being written: its size and its elements in drawing order.
#[derive(Debug, Clone, PartialEq)]
pub struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    /// A white canvas with `title` centred at the top.
    pub fn new(width: f64, height: f64, title: &str) -> Svg {
        let mut svg = Svg { width, height, body: String::new() };
        svg.rect((0.0, 0.0), (width, height), "white", None);
        svg.text((width / 2.0, 26.0), title, "middle", 18.0, "title");
        svg
    }

    /// A straight line; `dash` as SVG writes it (`4 3`) or none.
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), colour: &str, width: f64, dash: Option<&str>) {
        let dash = dash.map_or_else(String::new, |dash| format!(" stroke-dasharray=\"{dash}\""));
        writeln!(
            self.body,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{colour}\" stroke-width=\"{width}\"{dash}/>"
        )
        .unwrap();
    }

    /// A line through `points` in order.
    pub fn polyline(&mut self, points: &[(f64, f64)], colour: &str, width: f64) {
        writeln!(
            self.body,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"{width}\"/>",
            points_attribute(points)
        )
        .unwrap();
    }

    /// A filled rectangle from its top-left corner; `tooltip` shown on hover.
    pub fn rect(&mut self, (x, y): (f64, f64), (width, height): (f64, f64), fill: &str, tooltip: Option<&str>) {
        let tooltip = tooltip.map_or_else(String::new, |text| format!("<title>{}</title>", escape(text)));
        writeln!(
            self.body,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{height:.1}\" fill=\"{fill}\">{tooltip}</rect>"
        )
        .unwrap();
    }

    /// Text at `(x, y)` (its baseline), anchored `start`, `middle` or `end`; `class` names its role.
    pub fn text(&mut self, (x, y): (f64, f64), text: &str, anchor: &str, size: f64, class: &str) {
        writeln!(
            self.body,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" font-size=\"{size}\" class=\"{class}\">{}</text>",
            escape(text)
        )
        .unwrap();
    }

    /// Text read bottom to top, centred on `(x, y)` (a vertical axis's title).
    pub fn vertical_text(&mut self, (x, y): (f64, f64), text: &str) {
        writeln!(
            self.body,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"middle\" font-size=\"15\" class=\"axis-title\" \
             transform=\"rotate(-90 {x:.1} {y:.1})\">{}</text>",
            escape(text)
        )
        .unwrap();
    }

    /// A point marker centred on `(x, y)` with about `radius`: filled with `colour`, or hollow (white inside)
    /// with a `colour` outline; `class` names it for readers of the DOM (`best`).
    pub fn marker(&mut self, shape: MarkerShape, at: (f64, f64), radius: f64, colour: &str, filled: bool, class: &str) {
        let (x, y) = at;
        let fill = if filled { colour } else { "white" };
        let (sides, turn) = match shape {
            MarkerShape::Circle => {
                let paint = format!("fill=\"{fill}\" stroke=\"{colour}\" stroke-width=\"2\" class=\"{class}\"");
                return writeln!(self.body, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{radius:.1}\" {paint}/>").unwrap();
            }
            MarkerShape::Square => (4, PI / 4.0),
            MarkerShape::Diamond => (4, 0.0),
            MarkerShape::TriangleUp => (3, -PI / 2.0),
            MarkerShape::TriangleDown => (3, PI / 2.0),
            MarkerShape::Pentagon => (5, -PI / 2.0),
            MarkerShape::Hexagon => (6, 0.0),
        };
        // Polygons reach further than a circle's edge at their corners: shrink them to a like area.
        let reach = radius * if sides == 3 { 1.35 } else { 1.2 };
        let corners: Vec<(f64, f64)> = (0..sides)
            .map(|i| {
                let angle = turn + 2.0 * PI * f64::from(i) / f64::from(sides);
                (x + reach * angle.cos(), y + reach * angle.sin())
            })
            .collect();
        self.polygon(&corners, fill, colour, class);
    }

    /// A closed shape through `points`, filled with `fill` and outlined with `stroke`; `class` names it.
    pub fn polygon(&mut self, points: &[(f64, f64)], fill: &str, stroke: &str, class: &str) {
        writeln!(
            self.body,
            "<polygon points=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"2\" class=\"{class}\"/>",
            points_attribute(points)
        )
        .unwrap();
    }

    /// A vertical interval from `top` to `bottom` at `x`, with caps `cap` wide.
    pub fn vertical_interval(&mut self, x: f64, (top, bottom): (f64, f64), colour: &str, cap: f64) {
        self.line((x, top), (x, bottom), colour, 1.5, None);
        for y in [top, bottom] {
            self.line((x - cap / 2.0, y), (x + cap / 2.0, y), colour, 1.5, None);
        }
    }

    /// A horizontal interval from `left` to `right` at `y`, with caps `cap` tall.
    pub fn horizontal_interval(&mut self, (left, right): (f64, f64), y: f64, colour: &str, cap: f64) {
        self.line((left, y), (right, y), colour, 1.5, None);
        for x in [left, right] {
            self.line((x, y - cap / 2.0), (x, y + cap / 2.0), colour, 1.5, None);
        }
    }

    /// The `<svg>` element: scalable (`viewBox`), so the page can fit it to its width.
    pub fn finish(self) -> String {
        let (width, height) = (self.width, self.height);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} \
             {height}\" font-family=\"sans-serif\" font-size=\"14\">\n{}</svg>\n",
            self.body
        )
    }
}

/// `x,y x,y ...`: a polyline's or polygon's points, to a tenth of a pixel.
fn points_attribute(points: &[(f64, f64)]) -> String {
    let points: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
    points.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_in_order_and_text_escaped() {
        let mut svg = Svg::new(100.0, 50.0, "a <b>");
        svg.line((0.0, 1.0), (2.0, 3.0), "black", 1.0, Some("4 3"));
        svg.text((5.0, 6.0), "x & y", "end", SMALL, "x-tick");
        let text = svg.finish();
        assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"50\""));
        assert!(text.contains(">a &lt;b&gt;</text>") && text.contains("class=\"x-tick\">x &amp; y</text>"));
        assert!(text.contains("stroke-dasharray=\"4 3\"") && text.ends_with("</svg>\n"));
    }

    #[test]
    fn hollow_and_filled_markers() {
        let marker = |shape, colour, filled, class| {
            let mut svg = Svg::new(0.0, 0.0, "");
            let start = svg.body.len();
            svg.marker(shape, (10.0, 20.0), 5.0, colour, filled, class);
            svg.body[start..].to_string()
        };
        let hollow = marker(MarkerShape::Circle, "#0072B2", false, "point");
        assert_eq!(hollow, "<circle cx=\"10.0\" cy=\"20.0\" r=\"5.0\" fill=\"white\" stroke=\"#0072B2\" stroke-width=\"2\" class=\"point\"/>\n");
        let filled = marker(MarkerShape::TriangleUp, "#D55E00", true, "best");
        assert!(filled.starts_with("<polygon points=\"") && filled.contains("fill=\"#D55E00\""), "{filled}");
        assert_eq!(filled.matches(',').count(), 3, "three corners");
    }
}
