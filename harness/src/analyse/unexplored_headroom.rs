//! `unexplored_headroom`: how much better than the best evaluated setting a setting the search never ran
//! could be, bounded by how fast the evaluated settings change from a setting to its neighbour.

use crate::search::Space;

/// The most an unexplored setting of `space` could beat the best of `evaluated` (space setting, value on
/// a log scale where lower is better), as a log ratio (0 when none could): a Lipschitz bound (as LIPO
/// bounds a function from its evaluations, Malherbe & Vayatis 2017) whose constant is the largest change
/// between two evaluated neighbours (one level apart on one axis), and whose distance counts level steps
/// on ordered axes and any change of an unordered one as one step. `None` without two evaluated
/// neighbours: then nothing bounds what was not run.
pub fn unexplored_headroom(space: &Space, evaluated: &[(usize, f64)]) -> Option<f64> {
    let distance = |a: usize, b: usize| -> f64 {
        (space.point(a).iter().zip(space.point(b)).zip(space.axes()))
            .map(|((&x, &y), axis)| match axis.ordered {
                true => f64::from(x.abs_diff(y)),
                false => f64::from(u8::from(x != y)),
            })
            .sum()
    };
    let slope = (evaluated.iter().enumerate())
        .flat_map(|(i, a)| evaluated[i + 1..].iter().map(move |b| (a, b)))
        .filter(|(a, b)| distance(a.0, b.0) == 1.0)
        .map(|(a, b)| (a.1 - b.1).abs())
        .max_by(f64::total_cmp)?;
    let best = evaluated.iter().map(|(_, value)| *value).min_by(f64::total_cmp)?;
    let run: std::collections::HashSet<usize> = evaluated.iter().map(|(setting, _)| *setting).collect();
    let lowest_possible = |setting: usize| {
        evaluated.iter().map(|&(at, value)| value - slope * distance(setting, at)).max_by(f64::total_cmp)
    };
    let headroom =
        (0..space.len()).filter(|setting| !run.contains(setting)).filter_map(lowest_possible).map(|low| best - low);
    Some(headroom.fold(0.0, f64::max))
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
        assert_eq!(unexplored_headroom(&space, &[(0, 0.4), (2, 0.2)]), None, "no neighbours: no slope");
    }
}
