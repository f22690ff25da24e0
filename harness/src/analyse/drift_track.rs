//! The machine's drift as a control shows it run by run, with the settings' own effect on the control taken
//! out: what removes drift when the settings move the control.

/// Runs on either side of a run whose control levels make its drift track: a window of 5 runs follows a
/// drift of period 40 runs to 98% of its amplitude and averages the control's own noise over 5 runs.
const HALF_WINDOW: usize = 2;

/// Backfitting rounds: the settings run in shuffled order, so their effects and the drift are nearly
/// orthogonal and a few rounds converge.
const ROUNDS: usize = 8;

/// The drift track of `controls` (one per run, in the order the runs ran; `setting_of` each run's setting
/// among `settings`; runs of weight 0 in `included` take no part and get their neighbours' level).
///
/// A control the settings move cannot be a covariate: its setting means carry the settings' effect on it
/// as well as the drift each setting met, and the adjustment would move the settings by the former. Its
/// runs still show the drift, and the settings ran interleaved, so the two are told apart by an additive
/// model, control = setting effect + smooth drift over the run order, fitted by backfitting (Hastie &
/// Tibshirani 1990) with a running mean of `2 * HALF_WINDOW + 1` runs as the smoother. The track is the
/// fitted drift: each setting's mean of it is the drift that setting met (the between-settings
/// correction the covariate gives when nothing moves the control), and it varies within settings.
pub fn drift_track(controls: &[f64], setting_of: &[u32], settings: usize, included: &[f64]) -> Vec<f64> {
    let kept: Vec<usize> = (0..controls.len()).filter(|&i| included[i] > 0.0).collect();
    let mut effect = vec![0.0; settings];
    let mut drift = vec![0.0; kept.len()];
    for _ in 0..ROUNDS {
        effect = setting_means(kept.iter().zip(&drift).map(|(&i, d)| (setting_of[i], controls[i] - d)), settings);
        let level: Vec<f64> = kept.iter().map(|&i| controls[i] - effect[setting_of[i] as usize]).collect();
        drift = running_mean(&level, HALF_WINDOW);
    }
    spread_to_every_run(&kept, &drift, controls.len())
}

/// The mean of each setting's values (0 for a setting without any).
fn setting_means(values: impl Iterator<Item = (u32, f64)>, settings: usize) -> Vec<f64> {
    let mut sums = vec![(0.0, 0usize); settings];
    for (setting, value) in values {
        let sum = &mut sums[setting as usize];
        *sum = (sum.0 + value, sum.1 + 1);
    }
    sums.into_iter().map(|(sum, n)| if n == 0 { 0.0 } else { sum / n as f64 }).collect()
}

/// The mean of the values within `half` positions either way (fewer at the ends).
fn running_mean(values: &[f64], half: usize) -> Vec<f64> {
    let mut prefix = Vec::with_capacity(values.len() + 1);
    prefix.push(0.0);
    for value in values {
        prefix.push(prefix.last().copied().unwrap_or(0.0) + value);
    }
    (0..values.len())
        .map(|i| {
            let (low, high) = (i.saturating_sub(half), (i + half + 1).min(values.len()));
            (prefix[high] - prefix[low]) / (high - low) as f64
        })
        .collect()
}

/// The track over every run: a kept run's own, a run left out the last kept run's before it (or the
/// first kept run's).
fn spread_to_every_run(kept: &[usize], drift: &[f64], runs: usize) -> Vec<f64> {
    let mut track = Vec::with_capacity(runs);
    let mut next = 0;
    for run in 0..runs {
        while next + 1 < kept.len() && kept[next + 1] <= run {
            next += 1;
        }
        track.push(drift.get(next).copied().unwrap_or(0.0));
    }
    track
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two settings alternating, the first moving the control by +0.1, under a drift rising 0.01 a run: the
    /// track recovers the drift (up to a constant) and not the settings' difference.
    #[test]
    fn the_track_follows_the_drift_and_not_the_settings_effect() {
        let setting_of: Vec<u32> = (0..40).map(|i| i % 2).collect();
        let controls: Vec<f64> = (0..40).map(|i| 0.01 * i as f64 + if i % 2 == 0 { 0.1 } else { 0.0 }).collect();
        let track = drift_track(&controls, &setting_of, 2, &[1.0; 40]);
        let offset = track[20] - 0.2;
        for (i, level) in track.iter().enumerate().skip(HALF_WINDOW).take(36) {
            assert!((level - offset - 0.01 * i as f64).abs() < 1e-3, "run {i}: {level} in {track:?}");
        }
    }

    #[test]
    fn a_run_left_out_takes_its_neighbours_level() {
        let track = drift_track(&[1.0, 1.0, 9.0, 1.0], &[0, 0, 0, 0], 1, &[1.0, 1.0, 0.0, 1.0]);
        assert_eq!(track[2], track[1]);
        assert!(track.iter().all(|level| level.abs() < 1e-12), "{track:?}");
    }
}
