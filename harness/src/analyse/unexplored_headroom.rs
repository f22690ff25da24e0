//! `unexplored_headroom`: how much better than the best evaluated setting a setting the search never ran
//! could be, bounded by how fast the evaluated settings change from a setting to its neighbour.

use crate::search::Space;

/// Neighbour pairs an axis needs before its largest change is taken as its slope: from fewer, the
/// largest seen says little of the largest there is.
const PAIRS_PER_AXIS: usize = 3;

/// The most an unexplored setting of `space` could beat the best of `evaluated` (space setting, value on
/// a log scale where lower is better), as a log ratio (0 when none could): a Lipschitz bound (as LIPO
/// bounds a function from its evaluations, Malherbe & Vayatis 2017) whose constant is the largest change
/// between two evaluated settings one step apart on one axis alone (a level on an ordered axis, any change
/// of an unordered one), a step on any axis costing it. `None` when an axis has fewer than
/// `PAIRS_PER_AXIS` such pairs: then nothing bounds what was not run.
pub fn unexplored_headroom(space: &Space, evaluated: &[(usize, f64)]) -> Option<f64> {
    // One constant for every axis, the largest of theirs: a constant per axis let a narrow basin along a
    // gentle axis through (benchmark: 1 of 8 "resolved" beyond the margin, against none with one constant).
    let slope = axis_slopes(space, evaluated)?.into_iter().fold(0.0, f64::max);
    let distance = |a: usize, b: usize| -> f64 {
        (space.point(a).iter().zip(space.point(b)).zip(space.axes()))
            .map(|((&x, &y), axis)| match axis.ordered {
                true => slope * f64::from(x.abs_diff(y)),
                false => slope * f64::from(u8::from(x != y)),
            })
            .sum()
    };
    let best = evaluated.iter().map(|(_, value)| *value).min_by(f64::total_cmp)?;
    let run: std::collections::HashSet<usize> = evaluated.iter().map(|(setting, _)| *setting).collect();
    let lowest_possible =
        |setting: usize| evaluated.iter().map(|&(at, value)| value - distance(setting, at)).max_by(f64::total_cmp);
    let headroom =
        (0..space.len()).filter(|setting| !run.contains(setting)).filter_map(lowest_possible).map(|low| best - low);
    Some(headroom.fold(0.0, f64::max))
}

/// Per axis, the largest change between evaluated settings that differ by one step on it alone; `None`
/// when an axis has too few such pairs.
fn axis_slopes(space: &Space, evaluated: &[(usize, f64)]) -> Option<Vec<f64>> {
    let mut slopes = vec![(0.0f64, 0usize); space.axes().len()];
    for (i, a) in evaluated.iter().enumerate() {
        for b in &evaluated[i + 1..] {
            let (pa, pb) = (space.point(a.0), space.point(b.0));
            let mut differing = (0..pa.len()).filter(|&axis| pa[axis] != pb[axis]);
            let (Some(axis), None) = (differing.next(), differing.next()) else { continue };
            if space.axes()[axis].ordered && pa[axis].abs_diff(pb[axis]) != 1 {
                continue;
            }
            let (slope, pairs) = &mut slopes[axis];
            (*slope, *pairs) = (slope.max((a.1 - b.1).abs()), *pairs + 1);
        }
    }
    slopes.into_iter().map(|(slope, pairs)| (pairs >= PAIRS_PER_AXIS).then_some(slope)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Axis;

    #[test]
    fn a_gap_next_to_the_best_leaves_headroom_and_a_covered_line_leaves_none() {
        let space = Space::full_grid(vec![Axis { levels: 5, ordered: true }]);
        // A line falling by 0.1 a step: the unexplored end could be 0.1 below the best evaluated.
        let gap = [(0, 0.4), (1, 0.3), (2, 0.2), (3, 0.1)];
        assert!((unexplored_headroom(&space, &gap).unwrap() - 0.1).abs() < 1e-12);
        let covered = [(0, 0.4), (1, 0.3), (2, 0.2), (3, 0.1), (4, 0.0)];
        assert_eq!(unexplored_headroom(&space, &covered), Some(0.0));
        assert_eq!(unexplored_headroom(&space, &[(0, 0.4), (1, 0.3), (3, 0.1)]), None, "one pair: no slope");
    }

    #[test]
    fn an_axis_never_stepped_along_leaves_the_space_unbounded() {
        let space = Space::full_grid(vec![Axis { levels: 5, ordered: true }, Axis { levels: 3, ordered: false }]);
        // Four neighbours along the first axis, none along the second.
        let line: Vec<(usize, f64)> = (0..5).map(|level| (level * 3, 0.1 * level as f64)).collect();
        assert_eq!(unexplored_headroom(&space, &line), None);
    }
}
