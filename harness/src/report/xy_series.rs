//! One series of an x-y figure: the settings that share every label but the x axis's.

use super::xy_point::XyPoint;

/// A labelled line of points, sorted by x.
#[derive(Debug, Clone, PartialEq)]
pub struct XySeries {
    pub label: String,
    pub points: Vec<XyPoint>,
}
