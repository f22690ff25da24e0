//! The machine's drift as a control shows it run by run, with the settings' own effect on the control taken
//! out: `report`'s covariate when the runs are interleaved, whether or not the settings move the control.

/// Runs on either side of a run whose control levels make its drift track: a window of 5 runs follows a
/// drift of period 40 runs to 98% of its amplitude and averages the control's own noise over 5 runs.
const HALF_WINDOW: usize = 2;

/// Backfitting rounds at most: the settings run in shuffled order, so their effects and the drift are
/// nearly orthogonal and a few rounds converge (`CONVERGED`).
const ROUNDS: usize = 8;

/// A round that moves no setting's effect by more than this share of the controls' spread (their mean
/// absolute deviation) ends the backfitting: what is left to move is a thousandth of the noise and drift
/// the track is made of (a million-run sweep stops after 3-4 rounds instead of 8).
const CONVERGED: f64 = 1e-3;

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
    if included.iter().all(|&w| w > 0.0) {
        // Every run kept (the usual case): read the runs where they are.
        return backfitted_drift(controls.len(), |j| controls[j], |j| setting_of[j] as usize, settings);
    }
    let kept: Vec<u32> = (0..controls.len() as u32).filter(|&i| included[i as usize] > 0.0).collect();
    let drift = backfitted_drift(
        kept.len(),
        |j| controls[kept[j] as usize],
        |j| setting_of[kept[j] as usize] as usize,
        settings,
    );
    spread_to_every_run(&kept, &drift, controls.len())
}

/// The drift of `runs` runs, run j's control `control(j)` and setting `setting(j)`: setting effects and
/// the running mean fitted in turn until no effect moves (`CONVERGED`). The drift is the only array a
/// round writes: a million-run sweep's track costs a few passes.
fn backfitted_drift(
    runs: usize,
    control: impl Fn(usize) -> f64,
    setting: impl Fn(usize) -> usize,
    settings: usize,
) -> Vec<f64> {
    let tolerance = CONVERGED * mean_absolute_deviation((0..runs).map(&control));
    let mut effect = vec![0.0; settings];
    let mut drift = vec![0.0; runs];
    for _ in 0..ROUNDS {
        let moved = set_setting_means(&mut effect, (0..runs).map(|j| (setting(j), control(j) - drift[j])));
        running_mean(|j| control(j) - effect[setting(j)], HALF_WINDOW, &mut drift);
        if moved <= tolerance {
            break;
        }
    }
    drift
}

/// The mean of |x − mean(x)| (0 without values).
fn mean_absolute_deviation(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let (sum, n) = values.clone().fold((0.0, 0usize), |(sum, n), v| (sum + v, n + 1));
    let mean = sum / n.max(1) as f64;
    values.map(|v| (v - mean).abs()).sum::<f64>() / n.max(1) as f64
}

/// Sets each setting's effect to the mean of its (setting, control less drift) values (0 for a setting
/// without any); returns the largest change.
fn set_setting_means(effect: &mut [f64], values: impl Iterator<Item = (usize, f64)>) -> f64 {
    let mut sums = vec![(0.0, 0usize); effect.len()];
    for (s, value) in values {
        sums[s] = (sums[s].0 + value, sums[s].1 + 1);
    }
    let mut moved: f64 = 0.0;
    for (effect, (sum, n)) in effect.iter_mut().zip(sums) {
        let mean = if n == 0 { 0.0 } else { sum / n as f64 };
        moved = moved.max((mean - *effect).abs());
        *effect = mean;
    }
    moved
}

/// Writes into `out` the mean of the values `value(j)` within `half` positions either way (fewer at the
/// ends), by a sliding sum over the window.
fn running_mean(value: impl Fn(usize) -> f64, half: usize, out: &mut [f64]) {
    let n = out.len();
    let mut sum: f64 = (0..half.min(n)).map(&value).sum();
    for (i, out) in out.iter_mut().enumerate() {
        if i + half < n {
            sum += value(i + half);
        }
        if i > half {
            sum -= value(i - half - 1);
        }
        let (low, high) = (i.saturating_sub(half), (i + half + 1).min(n));
        *out = sum / (high - low) as f64;
    }
}

/// The track over every run: a kept run's own, a run left out the last kept run's before it (or the
/// first kept run's).
fn spread_to_every_run(kept: &[u32], drift: &[f64], runs: usize) -> Vec<f64> {
    let mut track = Vec::with_capacity(runs);
    let mut next = 0;
    for run in 0..runs {
        while next + 1 < kept.len() && kept[next + 1] as usize <= run {
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
