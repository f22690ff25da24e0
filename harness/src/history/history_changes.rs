//! `history_changes`: every change across a history of versions: the machine's first (the control
//! metric's series, else the median of every series by version), then each setting's with the machine
//! taken out, so a machine change is one event and never a regression per setting.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::benjamini_hochberg::adjusted;
use super::change_point::{ChangeKind, ChangePoint};
use super::step_search::{largest_step, permutation_p, Step};
use super::version_series::VersionSeries;

/// The changes of `settings` (each a series over the same versions) read at false discovery rate
/// `level`, and the machine's change at `level` (from `control`, else across the settings);
/// `permutations` per test, seeded by `seed`.
pub fn history_changes(
    settings: &[VersionSeries],
    control: Option<&VersionSeries>,
    level: f64,
    permutations: usize,
    seed: u64,
) -> Vec<ChangePoint> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let common = match control {
        Some(control) => centred(&control.means),
        None => median_by_version(settings),
    };
    let mut search = Segments { permutations, rng: &mut rng };
    // The machine's further changes at the level shared among the segments a series can hold (4 versions
    // each at the least: a step needs two on each side).
    let machine_beside = level / (common.len() / 4).max(1) as f64;
    let mut changes = search.changes(&common, 0..common.len(), 0, ChangeKind::Machine, (level, machine_beside));
    let tested_settings: Vec<ChangePoint> = (settings.iter().enumerate())
        .filter_map(|(index, series)| {
            tested(&series.less(&common).means, index, ChangeKind::Setting, permutations, search.rng)
        })
        .collect();
    let q = adjusted(&tested_settings.iter().map(|change| change.p).collect::<Vec<_>>());
    let found = tested_settings.into_iter().zip(q).map(|(change, q)| ChangePoint { q, ..change });
    // Beside each setting's change found, its other changes: each side searched again at the level
    // shared among the settings (Bonferroni), as binary segmentation recurses (Scott & Knott 1974).
    let beside = level / settings.len().max(1) as f64;
    for change in found.filter(|change| change.q <= level) {
        let means = settings[change.series].less(&common).means;
        let (series, at) = (change.series, change.at);
        changes.extend(search.changes(&means, 0..at, series, ChangeKind::Setting, (beside, beside)));
        changes.push(change);
        changes.extend(search.changes(&means, at..means.len(), series, ChangeKind::Setting, (beside, beside)));
    }
    changes
}

/// Binary segmentation over segments of a series, with its permutations and draws.
struct Segments<'r> {
    permutations: usize,
    rng: &'r mut ChaCha8Rng,
}

impl Segments<'_> {
    /// The changes of `means[versions]`, in order: its largest step if significant at `levels.0`, then the
    /// same search on each side of it at `levels.1` (a segment's versions are exchangeable when it holds
    /// no change).
    fn changes(
        &mut self,
        means: &[f64],
        versions: std::ops::Range<usize>,
        series: usize,
        kind: ChangeKind,
        levels: (f64, f64),
    ) -> Vec<ChangePoint> {
        let (from, to) = (versions.start, versions.end);
        let tested = tested(&means[versions], series, kind, self.permutations, self.rng);
        let Some(change) = tested.filter(|change| change.p <= levels.0) else { return Vec::new() };
        let at = from + change.at;
        let mut found = self.changes(means, from..at, series, kind, (levels.1, levels.1));
        found.push(ChangePoint { at, ..change });
        found.extend(self.changes(means, at..to, series, kind, (levels.1, levels.1)));
        found
    }
}

/// The largest step of `means` as a change of `series`, with its permutation p (`q` = `p` until adjusted).
fn tested(
    means: &[f64],
    series: usize,
    kind: ChangeKind,
    permutations: usize,
    rng: &mut ChaCha8Rng,
) -> Option<ChangePoint> {
    let step = largest_step(means)?;
    let p = permutation_p(means, &step, permutations, rng);
    let (low, high) = interval(&step);
    Some(ChangePoint { series, kind, at: step.at, ratio: step.difference.exp(), low, high, df: step.df, p, q: p })
}

/// The 95% interval of the step's ratio.
fn interval(step: &Step) -> (f64, f64) {
    let t = crate::student_t::two_sided_critical(0.95, step.df).expect("df above 0");
    ((step.difference - t * step.standard_error).exp(), (step.difference + t * step.standard_error).exp())
}

fn centred(means: &[f64]) -> Vec<f64> {
    let mean = means.iter().sum::<f64>() / means.len() as f64;
    means.iter().map(|value| value - mean).collect()
}

/// Per version, the median over the settings of their centred series: what every setting shares (a
/// change in a few settings leaves it alone).
fn median_by_version(settings: &[VersionSeries]) -> Vec<f64> {
    let centred: Vec<Vec<f64>> = settings.iter().map(|series| centred(&series.means)).collect();
    let versions = settings.first().map_or(0, |series| series.means.len());
    (0..versions)
        .map(|version| {
            let mut values: Vec<f64> = centred.iter().map(|series| series[version]).collect();
            values.sort_by(f64::total_cmp);
            let middle = values.len() / 2;
            if values.len() % 2 == 0 {
                (values[middle - 1] + values[middle]) / 2.0
            } else {
                values[middle]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn a_series_that_changed_twice_shows_both_changes_and_the_others_none() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let settings: Vec<VersionSeries> = (0..20)
            .map(|setting| {
                let means = (0..24).map(|version| {
                    let steps = if setting == 5 {
                        0.04 * f64::from(u8::from(version >= 8) + u8::from(version >= 16))
                    } else {
                        0.0
                    };
                    steps + rng.random_range(-0.004..0.004)
                });
                VersionSeries { means: means.collect() }
            })
            .collect();
        let changes = history_changes(&settings, None, 0.05, 999, 1);
        let found: Vec<(usize, usize)> = changes.iter().map(|change| (change.series, change.at)).collect();
        assert_eq!(found, vec![(5, 8), (5, 16)], "{changes:?}");
        assert!(changes.iter().all(|change| change.kind == ChangeKind::Setting && change.p >= 1.0 / 1000.0));
    }
}
