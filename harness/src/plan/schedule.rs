//! Orders runs: interleaved rounds (each shuffled by a recorded seed), fully shuffled, or blocked.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::planned_run::PlannedRun;
use super::setting_id::SettingId;
use crate::declare::RunOrder;

/// Schedules `warmup` rounds then `reps` rounds of `settings` settings.
///
/// ChaCha8 is used rather than `StdRng` because its output is fixed across `rand` versions, so a
/// recorded seed reproduces the order on any later build.
pub fn schedule(settings: usize, reps: u32, warmup: u32, order: RunOrder, seed: u64) -> Vec<PlannedRun> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rounds = (1..=warmup).map(|rep| (rep, true)).chain((1..=reps).map(|rep| (rep, false)));
    let mut pairs: Vec<(usize, u32, bool)> = Vec::new();
    match order {
        RunOrder::Interleaved => {
            for (rep, warmup) in rounds {
                let mut round: Vec<usize> = (0..settings).collect();
                round.shuffle(&mut rng);
                pairs.extend(round.into_iter().map(|setting| (setting, rep, warmup)));
            }
        }
        RunOrder::Shuffled => {
            pairs = rounds.flat_map(|(rep, warmup)| (0..settings).map(move |s| (s, rep, warmup))).collect();
            pairs.shuffle(&mut rng);
        }
        RunOrder::Blocked => {
            let rounds: Vec<(u32, bool)> = rounds.collect();
            pairs = (0..settings).flat_map(|s| rounds.iter().map(move |&(rep, warmup)| (s, rep, warmup))).collect();
        }
    }
    pairs
        .into_iter()
        .enumerate()
        .map(|(index, (setting, rep, warmup))| PlannedRun {
            order: index + 1,
            setting: SettingId::new(setting),
            rep,
            warmup,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_interleaved_round_holds_every_setting_exactly_once() {
        let runs = schedule(12, 3, 0, RunOrder::Interleaved, 7);
        assert_eq!(runs.len(), 36);
        for round in runs.chunks(12) {
            let settings: BTreeSet<usize> = round.iter().map(|run| run.setting.index()).collect();
            assert_eq!(settings.len(), 12);
            assert!(round.iter().all(|run| run.rep == round[0].rep));
        }
        assert_eq!(runs.iter().map(|r| r.order).collect::<Vec<_>>(), (1..=36).collect::<Vec<_>>());
    }

    #[test]
    fn the_seed_reproduces_the_order_and_another_seed_changes_it() {
        let a = schedule(12, 3, 0, RunOrder::Interleaved, 42);
        assert_eq!(a, schedule(12, 3, 0, RunOrder::Interleaved, 42));
        assert_ne!(a, schedule(12, 3, 0, RunOrder::Interleaved, 43));
    }

    #[test]
    fn warmup_rounds_come_first() {
        let runs = schedule(3, 2, 1, RunOrder::Interleaved, 1);
        assert!(runs[..3].iter().all(|run| run.warmup && run.rep == 1));
        assert!(runs[3..].iter().all(|run| !run.warmup));
    }

    #[test]
    fn blocked_runs_all_reps_of_a_setting_back_to_back() {
        let runs = schedule(2, 3, 0, RunOrder::Blocked, 1);
        let order: Vec<(usize, u32)> = runs.iter().map(|r| (r.setting.index(), r.rep)).collect();
        assert_eq!(order, [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]);
    }

    #[test]
    fn shuffled_keeps_every_pair_once() {
        let runs = schedule(4, 3, 0, RunOrder::Shuffled, 9);
        let pairs: BTreeSet<(usize, u32)> = runs.iter().map(|r| (r.setting.index(), r.rep)).collect();
        assert_eq!(pairs.len(), 12);
    }
}
