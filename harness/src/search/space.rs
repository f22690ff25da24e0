//! `Space`: the settings a search may run (the grid that `where` allows), each a point of level indices.

use std::collections::HashMap;

use super::axis::Axis;

#[derive(Debug, Clone)]
pub struct Space {
    axes: Vec<Axis>,
    /// Per setting, its level on each axis; settings are numbered by their position here.
    points: Vec<Vec<u16>>,
    at: HashMap<Vec<u16>, usize>,
}

impl Space {
    /// The space of `points` over `axes` (each point one level per axis, below the axis's levels).
    pub fn new(axes: Vec<Axis>, points: Vec<Vec<u16>>) -> Space {
        debug_assert!(points.iter().all(
            |point| point.len() == axes.len() && point.iter().zip(&axes).all(|(level, axis)| *level < axis.levels)
        ));
        let at = points.iter().enumerate().map(|(index, point)| (point.clone(), index)).collect();
        Space { axes, points, at }
    }

    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    pub fn point(&self, setting: usize) -> &[u16] {
        &self.points[setting]
    }

    /// Every combination of the axes' levels, the last axis fastest (a test's space).
    #[cfg(test)]
    pub fn full_grid(axes: Vec<Axis>) -> Space {
        let mut points = vec![Vec::new()];
        for axis in &axes {
            let longer = |point: Vec<u16>| (0..axis.levels).map(move |level| [point.clone(), vec![level]].concat());
            points = points.into_iter().flat_map(longer).collect();
        }
        Space::new(axes, points)
    }

    /// How far apart two settings are: the Euclidean distance over the ordered axes, each level scaled
    /// to [0, 1] (an unordered axis has no "near", so it does not count).
    pub fn distance(&self, a: usize, b: usize) -> f64 {
        let pairs = self.points[a].iter().zip(&self.points[b]).zip(&self.axes);
        let scaled = pairs
            .filter(|(_, axis)| axis.ordered && axis.levels > 1)
            .map(|((&x, &y), axis)| (f64::from(x) - f64::from(y)) / f64::from(axis.levels - 1));
        scaled.map(|step| step * step).sum::<f64>().sqrt()
    }

    /// The setting at `point`, if the space allows it.
    pub fn setting_at(&self, point: &[u16]) -> Option<usize> {
        self.at.get(point).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_scales_each_ordered_axis_to_one_and_ignores_unordered_ones() {
        let axes = vec![
            Axis { levels: 5, ordered: true },
            Axis { levels: 3, ordered: true },
            Axis { levels: 4, ordered: false },
        ];
        let space = Space::full_grid(axes);
        let at = |point: &[u16]| space.setting_at(point).unwrap();
        assert_eq!(space.distance(at(&[0, 0, 0]), at(&[4, 0, 3])), 1.0);
        assert!((space.distance(at(&[0, 0, 1]), at(&[4, 2, 1])) - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(space.distance(at(&[2, 1, 0]), at(&[2, 1, 3])), 0.0);
    }
}
