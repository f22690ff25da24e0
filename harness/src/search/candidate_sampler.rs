//! `CandidateSampler`: new candidates drawn around the elites, as irace samples them: a parent elite
//! chosen by rank, each ordered level drawn from a normal around the parent's whose spread shrinks each
//! iteration, each unordered level kept with a probability that grows with the iterations.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::Distribution;
use rand_distr::Normal;

use super::space::Space;

pub struct CandidateSampler {
    /// Per axis, the spread (in levels) of an ordered level drawn around its parent's.
    spread: Vec<f64>,
}

/// Draws before a new candidate is taken at random instead (a corner of the space nearly full).
const DRAWS: usize = 200;

impl CandidateSampler {
    /// Spreads of half each axis's range, as irace starts (its `sd = (upper - lower) / 2`).
    pub fn new(space: &Space) -> CandidateSampler {
        CandidateSampler { spread: space.axes().iter().map(|axis| f64::from(axis.levels.max(2) - 1) / 2.0).collect() }
    }

    /// After an iteration that drew `drawn` new candidates: each spread times `(1 / drawn)^(1 / axes)`,
    /// irace's schedule, so the model closes in on the elites as the search goes on.
    pub fn shrink(&mut self, drawn: usize) {
        let factor = (1.0 / drawn.max(1) as f64).powf(1.0 / self.spread.len().max(1) as f64);
        self.spread.iter_mut().for_each(|spread| *spread *= factor);
    }

    /// A setting of `space` not `taken`, drawn around a parent among `elites` (best first, chosen with
    /// weight `elites - rank`); `keep` is the chance an unordered level stays its parent's. The spread
    /// widens draw by draw, then a random setting not taken; `None` when every setting is taken.
    pub fn draw(
        &self,
        space: &Space,
        elites: &[usize],
        keep: f64,
        taken: impl Fn(usize) -> bool,
        rng: &mut ChaCha8Rng,
    ) -> Option<usize> {
        if !elites.is_empty() {
            for draw in 0..DRAWS {
                let parent = space.point(elites[rank_weighted(elites.len(), rng)]);
                // Wider and wider: once the spread is small, the parent and its neighbours are taken.
                let widen = 1.0 + draw as f64 / 10.0;
                let point = self.near(space, parent, keep, widen, rng);
                if let Some(setting) = space.setting_at(&point).filter(|&setting| !taken(setting)) {
                    return Some(setting);
                }
            }
        }
        random_untaken(space.len(), taken, rng)
    }

    fn near(&self, space: &Space, parent: &[u16], keep: f64, widen: f64, rng: &mut ChaCha8Rng) -> Vec<u16> {
        let axes = space.axes().iter().zip(parent).zip(&self.spread);
        axes.map(|((axis, &level), &spread)| {
            let top = axis.levels - 1;
            if axis.ordered {
                let normal = Normal::new(f64::from(level), (spread * widen).max(1e-9)).expect("a positive spread");
                (normal.sample(rng).round().clamp(0.0, f64::from(top))) as u16
            } else if top == 0 || rng.random_bool(keep) {
                level
            } else {
                // Another level, uniformly.
                let other = rng.random_range(0..top);
                if other >= level {
                    other + 1
                } else {
                    other
                }
            }
        })
        .collect()
    }
}

/// A rank in `0..count` drawn with weight `count - rank` (irace's choice of a parent).
fn rank_weighted(count: usize, rng: &mut ChaCha8Rng) -> usize {
    let total = count * (count + 1) / 2;
    let mut ticket = rng.random_range(0..total);
    (0..count)
        .find(|&rank| {
            let weight = count - rank;
            let found = ticket < weight;
            ticket = ticket.saturating_sub(weight);
            found
        })
        .expect("a ticket below the total")
}

/// A setting below `count` not `taken`, uniformly: tries at random, then scans from a random start.
pub fn random_untaken(count: usize, taken: impl Fn(usize) -> bool, rng: &mut ChaCha8Rng) -> Option<usize> {
    if count == 0 {
        return None;
    }
    for _ in 0..DRAWS {
        let setting = rng.random_range(0..count);
        if !taken(setting) {
            return Some(setting);
        }
    }
    let start = rng.random_range(0..count);
    (0..count).map(|offset| (start + offset) % count).find(|&setting| !taken(setting))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Axis;
    use rand::SeedableRng;

    fn grid(levels: &[u16], ordered: bool) -> Space {
        let axes: Vec<Axis> = levels.iter().map(|&levels| Axis { levels, ordered }).collect();
        Space::full_grid(axes)
    }

    #[test]
    fn candidates_drawn_around_one_elite_after_shrinking_stay_near_it() {
        let space = grid(&[20, 20], true);
        let mut sampler = CandidateSampler::new(&space);
        sampler.shrink(30);
        let elite = space.setting_at(&[10, 10]).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..100 {
            let drawn = sampler.draw(&space, &[elite], 0.5, |s| s == elite, &mut rng).unwrap();
            let point = space.point(drawn);
            assert!(point.iter().all(|&level| level.abs_diff(10) <= 6), "{point:?}");
        }
    }

    #[test]
    fn every_setting_is_drawn_once_before_none_is_left() {
        let space = grid(&[3, 2], false);
        let sampler = CandidateSampler::new(&space);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut taken = vec![false; space.len()];
        for _ in 0..space.len() {
            let drawn = sampler.draw(&space, &[0], 0.9, |s| taken[s], &mut rng).unwrap();
            taken[drawn] = true;
        }
        assert!(taken.iter().all(|&t| t));
        assert_eq!(sampler.draw(&space, &[0], 0.9, |s| taken[s], &mut rng), None);
    }

    #[test]
    fn the_best_elite_is_the_likeliest_parent() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut counts = [0; 3];
        (0..6000).for_each(|_| counts[rank_weighted(3, &mut rng)] += 1);
        assert!(counts[0] > counts[1] && counts[1] > counts[2], "{counts:?}");
    }
}
