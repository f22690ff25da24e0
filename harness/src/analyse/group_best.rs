//! The best setting of each group, and the rivals too close to it to call.

use super::drift_bound::DriftBound;
use super::setting_summary::{Labels, SettingSummary};
use crate::spec::AnalysisConfig;

/// The winner of one group (one value of the `group_by` columns) and how every other setting fared.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupBest {
    /// The `group_by` labels shared by the group (empty when there is no grouping).
    pub group: Labels,
    /// Index into `SweepAnalysis::settings` of the best mean in the configured direction.
    pub best: usize,
    /// Every other setting of the group that has the primary metric, in setting order.
    pub rivals: Vec<Rival>,
}

/// A setting that lost to its group's best, and by how much relative to the noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rival {
    /// Index into `SweepAnalysis::settings`.
    pub setting: usize,
    /// |best mean − rival mean|.
    pub gap: f64,
    /// The larger of the two 95% half-widths combined in quadrature and drift bound × best mean.
    pub noise: f64,
}

impl Rival {
    /// A wash: the gap is inside the noise, so the data cannot tell the two apart.
    pub fn is_wash(&self) -> bool {
        self.gap < self.noise
    }
}

impl GroupBest {
    /// Settings of this group that are a wash with the best.
    pub fn washes(&self) -> impl Iterator<Item = usize> + '_ {
        self.rivals.iter().filter(|r| r.is_wash()).map(|r| r.setting)
    }

    /// Per group (first-seen order), the setting with the best primary mean (ties keep the first);
    /// a rival is a wash when |Δmean| < max(√(h_best² + h_rival²), drift × best mean), h being
    /// Student's t 95% half-widths. Settings without the primary metric take no part.
    pub fn per_group(
        settings: &[SettingSummary],
        config: &AnalysisConfig,
        drift: Option<&DriftBound>,
    ) -> Vec<GroupBest> {
        let mut groups: Vec<(Labels, Vec<usize>)> = Vec::new();
        for (index, summary) in settings.iter().enumerate().filter(|(_, s)| s.metric(&config.primary).is_some()) {
            let group = summary.labels_of(&config.group_by);
            match groups.iter_mut().find(|(known, _)| *known == group) {
                Some((_, members)) => members.push(index),
                None => groups.push((group, vec![index])),
            }
        }
        groups.into_iter().map(|(group, members)| Self::of_group(group, &members, settings, config, drift)).collect()
    }

    fn of_group(
        group: Labels,
        members: &[usize],
        settings: &[SettingSummary],
        config: &AnalysisConfig,
        drift: Option<&DriftBound>,
    ) -> GroupBest {
        let primary = |index: usize| settings[index].metric(&config.primary).expect("members have the primary metric");
        let best = members
            .iter()
            .copied()
            .reduce(|best, candidate| {
                if config.direction.is_better(primary(candidate).mean, primary(best).mean) {
                    candidate
                } else {
                    best
                }
            })
            .expect("a group has at least one member");
        let drift_noise = drift.map_or(0.0, |d| d.rel_range * primary(best).mean.abs());
        let rivals = members
            .iter()
            .filter(|&&index| index != best)
            .map(|&setting| Rival {
                setting,
                gap: (primary(best).mean - primary(setting).mean).abs(),
                noise: primary(best).combined_ci95(primary(setting)).max(drift_noise),
            })
            .collect();
        GroupBest { group, best, rivals }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::fixture_slice_sweep;
    use crate::spec::Direction;

    fn config(direction: Direction) -> AnalysisConfig {
        AnalysisConfig {
            primary: "prefill_tokens_per_s".into(),
            direction,
            group_by: vec!["rows".into()],
            control: None,
            equivalence_key: None,
            fit: None,
            rows_per_slice: None,
        }
    }

    fn slices(settings: &[SettingSummary], index: usize) -> String {
        settings[index].setting[1].1.to_string()
    }

    #[test]
    fn study_optimum_per_row_count_with_the_1024_wash() {
        let observations = fixture_slice_sweep();
        let settings = SettingSummary::summarise(&observations);
        let drift = DriftBound::of(&observations, "decode_tokens_per_s");
        let best = GroupBest::per_group(&settings, &config(Direction::Higher), drift.as_ref());
        let winners: Vec<_> = best.iter().map(|g| (g.group[0].1.to_string(), slices(&settings, g.best))).collect();
        let texts: Vec<_> = winners.iter().map(|(rows, slices)| (rows.as_str(), slices.as_str())).collect();
        assert_eq!(texts, vec![("512", "8"), ("1024", "2"), ("2048", "2")]);
        // 512: slices=1 (875.8) is a wash with slices=8 (879.6); slices=4 (431.4) is not.
        let washes_512: Vec<_> = best[0].washes().map(|i| slices(&settings, i)).collect();
        assert_eq!(washes_512, vec!["1"]);
        // 1024: 1138.77 vs 1140.13 is a wash; 2048: 1185.8 vs 1238.6 (4.3%) is beyond the 3% drift.
        assert_eq!(best[1].washes().count(), 1);
        assert_eq!(best[2].washes().count(), 0);
    }

    #[test]
    fn without_drift_the_noise_is_the_combined_interval() {
        let settings = SettingSummary::summarise(&fixture_slice_sweep());
        let best = GroupBest::per_group(&settings, &config(Direction::Higher), None);
        let rival = best[1].rivals[0];
        let expected = settings[3]
            .metric("prefill_tokens_per_s")
            .unwrap()
            .combined_ci95(settings[4].metric("prefill_tokens_per_s").unwrap());
        assert_eq!(rival.noise, expected);
    }

    #[test]
    fn lower_is_better_picks_the_minimum() {
        let settings = SettingSummary::summarise(&fixture_slice_sweep());
        let best = GroupBest::per_group(&settings, &config(Direction::Lower), None);
        assert_eq!(slices(&settings, best[0].best), "4");
    }
}
