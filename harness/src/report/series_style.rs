//! The colour and marker of each series of a figure: the Okabe-Ito palette (Okabe & Ito 2008, safe for
//! the common colour-vision deficiencies) without its yellow, too faint on white, each colour paired
//! with its own marker shape.

use std::f64::consts::PI;

/// Okabe-Ito blue, vermillion, bluish green, orange, reddish purple, sky blue and black.
pub const OKABE_ITO: [&str; 7] = ["#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000"];

/// How one series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesStyle {
    pub colour: &'static str,
    pub shape: MarkerShape,
}

impl SeriesStyle {
    /// The style of series `index`: colours in palette order; shapes shift by one every time the colours
    /// come round again, so no two of the first 49 series look alike.
    pub fn nth(index: usize) -> SeriesStyle {
        let shapes = MarkerShape::ALL.len();
        SeriesStyle {
            colour: OKABE_ITO[index % OKABE_ITO.len()],
            shape: MarkerShape::ALL[(index + index / OKABE_ITO.len()) % shapes],
        }
    }
}

/// The marker of a series, so series differ by shape as well as by colour (readable in grey and to the
/// colour-blind): a circle or a regular polygon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerShape {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Pentagon,
    Hexagon,
}

impl MarkerShape {
    pub const ALL: [MarkerShape; 7] = [
        MarkerShape::Circle,
        MarkerShape::Square,
        MarkerShape::TriangleUp,
        MarkerShape::Diamond,
        MarkerShape::TriangleDown,
        MarkerShape::Pentagon,
        MarkerShape::Hexagon,
    ];

    /// The marker centred on `(x, y)` with about `radius`: filled with `colour`, or hollow (white inside)
    /// with a `colour` outline; `class` names it for readers of the DOM (`best`).
    pub fn svg(self, (x, y): (f64, f64), radius: f64, colour: &str, filled: bool, class: &str) -> String {
        let fill = if filled { colour } else { "white" };
        let paint = format!("fill=\"{fill}\" stroke=\"{colour}\" stroke-width=\"2\" class=\"{class}\"");
        let (sides, turn) = match self {
            MarkerShape::Circle => return format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{radius:.1}\" {paint}/>\n"),
            MarkerShape::Square => (4, PI / 4.0),
            MarkerShape::Diamond => (4, 0.0),
            MarkerShape::TriangleUp => (3, -PI / 2.0),
            MarkerShape::TriangleDown => (3, PI / 2.0),
            MarkerShape::Pentagon => (5, -PI / 2.0),
            MarkerShape::Hexagon => (6, 0.0),
        };
        // Polygons reach further than a circle's edge at their corners: shrink them to a like area.
        let reach = radius * if sides == 3 { 1.35 } else { 1.2 };
        let corners: Vec<String> = (0..sides)
            .map(|i| {
                let angle = turn + 2.0 * PI * f64::from(i) / f64::from(sides);
                format!("{:.1},{:.1}", x + reach * angle.cos(), y + reach * angle.sin())
            })
            .collect();
        format!("<polygon points=\"{}\" {paint}/>\n", corners.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_early_series_look_alike() {
        let styles: Vec<SeriesStyle> = (0..49).map(SeriesStyle::nth).collect();
        for (i, a) in styles.iter().enumerate() {
            assert!(styles[i + 1..].iter().all(|b| a != b), "series {i} repeats");
        }
        assert!(!OKABE_ITO.contains(&"#F0E442"), "no faint yellow");
    }

    #[test]
    fn hollow_and_filled_markers() {
        let hollow = MarkerShape::Circle.svg((10.0, 20.0), 5.0, "#0072B2", false, "point");
        assert_eq!(hollow, "<circle cx=\"10.0\" cy=\"20.0\" r=\"5.0\" fill=\"white\" stroke=\"#0072B2\" stroke-width=\"2\" class=\"point\"/>\n");
        let filled = MarkerShape::TriangleUp.svg((0.0, 0.0), 5.0, "#D55E00", true, "best");
        assert!(filled.starts_with("<polygon points=\"") && filled.contains("fill=\"#D55E00\""), "{filled}");
        assert_eq!(filled.matches(',').count(), 3, "three corners");
    }
}
