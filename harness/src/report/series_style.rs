//! The colour and marker of each series of a figure: the Okabe-Ito palette (Okabe & Ito 2008, safe for
//! the common colour-vision deficiencies) without its yellow, too faint on white, each colour paired
//! with its own marker shape.

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
/// colour-blind): a circle or a regular polygon (drawn by `Svg::marker`).
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
}
