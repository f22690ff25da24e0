//! Which candidates of a race are beaten: each compared with the race's best on the rounds both ran
//! (rounds are blocks, so a drift shared by a round cancels), by a one-sided paired t-test on the log
//! scale (a machine's drift scales every time alike) when every value is positive.

use crate::student_t::upper_p;

/// Per candidate (rows of `values`, one value per round of the race, lower is better; a candidate with a
/// failed run holds `None`), whether it is beaten: worse than the lowest mean at one-sided level `alpha`
/// by a paired t-test over the rounds (as irace's races eliminate, here with Student's paired t rather
/// than Friedman's ranks: the values are measurements on one scale). A failed candidate is beaten.
pub fn beaten(values: &[Vec<Option<f64>>], alpha: f64) -> Vec<bool> {
    let positive = values.iter().flatten().flatten().all(|&value| value > 0.0);
    let on_scale = |value: Option<f64>| value.map(|value| if positive { value.ln() } else { value });
    let values: Vec<Vec<Option<f64>>> = values.iter().map(|row| row.iter().copied().map(on_scale).collect()).collect();
    let means: Vec<Option<f64>> = values.iter().map(|row| mean(row)).collect();
    let best =
        (0..values.len()).filter_map(|c| Some((c, means[c]?))).min_by(|a, b| a.1.total_cmp(&b.1)).map(|(c, _)| c);
    let Some(best) = best else { return vec![true; values.len()] };
    (0..values.len())
        .map(|c| match means[c] {
            None => true,
            Some(_) if c == best => false,
            Some(_) => paired_p(&values[c], &values[best]) < alpha,
        })
        .collect()
}

/// The mean of a candidate's values, `None` when one failed (or it has none).
pub fn mean(row: &[Option<f64>]) -> Option<f64> {
    let values: Option<Vec<f64>> = row.iter().copied().collect();
    values.filter(|values| !values.is_empty()).map(|values| values.iter().sum::<f64>() / values.len() as f64)
}

/// One-sided p that `rival` is no worse than `best` (paired by round); 1 below two rounds.
fn paired_p(rival: &[Option<f64>], best: &[Option<f64>]) -> f64 {
    let diffs: Vec<f64> = rival.iter().zip(best).map(|(r, b)| r.unwrap() - b.unwrap()).collect();
    let n = diffs.len() as f64;
    if diffs.len() < 2 {
        return 1.0;
    }
    let mean = diffs.iter().sum::<f64>() / n;
    let variance = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0);
    if variance == 0.0 {
        return if mean > 0.0 { 0.0 } else { 1.0 };
    }
    let t = mean / (variance / n).sqrt();
    upper_p(t, n - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[&[f64]]) -> Vec<Vec<Option<f64>>> {
        values.iter().map(|row| row.iter().map(|&v| Some(v)).collect()).collect()
    }

    #[test]
    fn a_rival_clearly_slower_in_every_round_is_beaten_and_a_close_one_is_not() {
        let values = rows(&[&[1.0, 1.1, 0.9, 1.0], &[2.0, 2.1, 1.9, 2.05], &[1.01, 1.08, 0.93, 0.99]]);
        assert_eq!(beaten(&values, 0.05), vec![false, true, false]);
    }

    #[test]
    fn a_drift_shared_by_a_round_cancels_in_the_pairs() {
        // Each round is 10x the one before, but the rival is 1% slower in every one.
        let best: Vec<f64> = (0..4).map(|r| 10f64.powi(r)).collect();
        let rival: Vec<f64> = best.iter().enumerate().map(|(r, b)| b * 1.01 + 1e-3 * r as f64).collect();
        assert_eq!(beaten(&rows(&[&best, &rival]), 0.05), vec![false, true]);
    }

    #[test]
    fn a_candidate_whose_run_failed_is_beaten() {
        let mut values = rows(&[&[1.0, 1.0], &[0.5, 0.5]]);
        values[1][1] = None;
        assert_eq!(beaten(&values, 0.05), vec![false, true]);
    }
}
