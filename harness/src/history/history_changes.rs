//! `history_changes`: every change across a history of versions: the machine's first (the control
//! metric's series, else the median of every series by version), then each setting's with the machine
//! taken out, so a machine change is one event and never a regression per setting.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::benjamini_hochberg::adjusted;
use super::change_point::{ChangeKind, ChangePoint};
use super::step_search::{largest_step, permutation_p, Step};
use super::version_series::VersionSeries;
use statrs::distribution::{ContinuousCDF, StudentsT};

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
    let mut changes: Vec<ChangePoint> = tested(&common, 0, ChangeKind::Machine, permutations, &mut rng)
        .filter(|change| change.p <= level)
        .into_iter()
        .collect();
    let tested_settings: Vec<ChangePoint> = (settings.iter().enumerate())
        .filter_map(|(index, series)| {
            tested(&series.less(&common).means, index, ChangeKind::Setting, permutations, &mut rng)
        })
        .collect();
    let q = adjusted(&tested_settings.iter().map(|change| change.p).collect::<Vec<_>>());
    let found = tested_settings.into_iter().zip(q).map(|(change, q)| ChangePoint { q, ..change });
    changes.extend(found.filter(|change| change.q <= level));
    changes
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
    let t = StudentsT::new(0.0, 1.0, step.df).expect("df above 0").inverse_cdf(0.975);
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
