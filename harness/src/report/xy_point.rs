//! One point of an x-y figure: a setting's mean at its swept value, with its interval.

/// A mean with its interval half-width; `best` labels a group's best setting (drawn filled, labelled).
#[derive(Debug, Clone, PartialEq)]
pub struct XyPoint {
    pub x: f64,
    pub y: f64,
    pub half_width: f64,
    pub best: Option<String>,
}
