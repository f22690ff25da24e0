//! A fixture search space with a known truth (not a measurement): a smooth landscape with pairwise
//! interactions, a wide local optimum far from a narrow global one, and 1% multiplicative noise; and the
//! benchmark of the search against random search on it.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

use super::{Axis, IteratedRace, Space};

/// A generated space and every setting's true mean time.
pub struct FixtureSpace {
    pub space: Space,
    pub truth: Vec<f64>,
}

impl FixtureSpace {
    /// The full grid of `levels` (the last `unordered` axes unordered), its landscape drawn from `seed`.
    pub fn generate(levels: &[u16], unordered: usize, seed: u64) -> FixtureSpace {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let ordered = levels.len() - unordered;
        let axes: Vec<Axis> =
            levels.iter().enumerate().map(|(i, &levels)| Axis { levels, ordered: i < ordered }).collect();
        let mut points = vec![Vec::new()];
        for axis in &axes {
            points = points
                .into_iter()
                .flat_map(|p: Vec<u16>| (0..axis.levels).map(move |l| [p.clone(), vec![l]].concat()))
                .collect();
        }
        let unit = |point: &[u16]| -> Vec<f64> {
            point[..ordered].iter().zip(&axes).map(|(&l, a)| f64::from(l) / f64::from(a.levels - 1)).collect()
        };
        let centre: Vec<f64> = (0..ordered).map(|_| rng.random()).collect();
        let weights: Vec<f64> = (0..ordered).map(|_| rng.random_range(0.5..1.5)).collect();
        let pairs: Vec<(usize, usize, f64, f64)> = (0..ordered)
            .flat_map(|i| (i + 1..ordered).map(move |j| (i, j)))
            .map(|(i, j)| (i, j, rng.random_range(0.0..1.0), rng.random_range(-0.5..0.5)))
            .collect();
        let local: Vec<f64> = (0..ordered).map(|_| rng.random()).collect();
        // The global optimum across the space from the local one.
        let global: Vec<f64> =
            local.iter().map(|&x| (x + 0.5 + rng.random_range(-0.15..0.15)).rem_euclid(1.0)).collect();
        let level_effects: Vec<Vec<f64>> =
            levels[ordered..].iter().map(|&n| (0..n).map(|_| rng.random_range(0.0..0.05)).collect()).collect();
        let crossed: Vec<f64> = levels[ordered..].iter().map(|_| rng.random_range(-0.1..0.1)).collect();
        let truth = points
            .iter()
            .map(|point| {
                let u = unit(point);
                let distance = |to: &[f64]| u.iter().zip(to).map(|(a, b)| (a - b).powi(2)).sum::<f64>();
                let smooth: f64 = u.iter().zip(&centre).zip(&weights).map(|((x, c), w)| w * (x - c).powi(2)).sum();
                let interaction: f64 = pairs.iter().map(|&(i, j, w, o)| w * (u[i] - u[j] + o).powi(2)).sum();
                let categorical: f64 = point[ordered..]
                    .iter()
                    .enumerate()
                    .map(|(k, &l)| {
                        level_effects[k][usize::from(l)]
                            + crossed[k] * f64::from(l) * u[0] / f64::from(levels[ordered + k])
                    })
                    .sum();
                10.0 * (1.5 + 0.15 * smooth + 0.05 * interaction + categorical
                    - 0.25 * (-distance(&local) / (2.0 * 0.3f64.powi(2))).exp()
                    - 0.35 * (-distance(&global) / (2.0 * 0.12f64.powi(2))).exp())
            })
            .collect();
        FixtureSpace { space: Space::new(axes, points), truth }
    }

    /// One noisy run of `setting`: its truth times 1 + N(0, `noise`).
    pub fn run(&self, setting: usize, noise: f64, rng: &mut ChaCha8Rng) -> f64 {
        self.truth[setting] * (1.0 + Normal::new(0.0, noise).unwrap().sample(rng))
    }

    /// How much slower `setting` is than the true best, as a fraction.
    pub fn regret(&self, setting: usize) -> f64 {
        let best = self.truth.iter().copied().fold(f64::INFINITY, f64::min);
        self.truth[setting] / best - 1.0
    }
}

/// The search's pick after spending `budget` runs on `fixture`.
fn searched(fixture: &FixtureSpace, budget: usize, seed: u64) -> (usize, usize) {
    let mut search = IteratedRace::new(fixture.space.clone(), budget, seed);
    let mut noise = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    while let Some(round) = search.next_round() {
        for setting in round {
            let value = fixture.run(setting, 0.01, &mut noise);
            search.observe(setting, Some(value));
        }
    }
    (search.finalists()[0], search.used())
}

/// Random search's pick: `budget / 3` settings drawn at random, 3 runs each, the lowest mean.
fn random_search(fixture: &FixtureSpace, budget: usize, seed: u64) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let drawn = rand::seq::index::sample(&mut rng, fixture.space.len(), (budget / 3).min(fixture.space.len()));
    let mean =
        |setting: usize, rng: &mut ChaCha8Rng| (0..3).map(|_| fixture.run(setting, 0.01, rng)).sum::<f64>() / 3.0;
    let scored: Vec<(f64, usize)> = drawn.iter().map(|setting| (mean(setting, &mut rng), setting)).collect();
    scored.into_iter().min_by(|a, b| a.0.total_cmp(&b.0)).expect("a setting drawn").1
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Over 20 seeds of two fixture spaces, a budget of a tenth of the grid's runs at 3 reps: the median
/// regret of the search and of random search, and how often each names the true best. Prints figures.
#[test]
#[ignore = "a benchmark: bench/search.sh"]
fn search_against_random_search_on_fixture_spaces() {
    let seeds: u64 = std::env::var("SEARCH_SEEDS").map_or(20, |n| n.parse().expect("a count"));
    let spaces = [
        (&[8u16, 6, 5, 4, 3][..], 1),
        (&[6, 5, 4, 4, 4, 2][..], 2),
        (&[10, 8, 6, 3][..], 1),
        (&[5, 5, 5, 5, 4][..], 1),
    ];
    for (levels, unordered) in spaces {
        let (mut ours, mut random, mut found, mut found_random, mut runs) = (vec![], vec![], 0, 0, vec![]);
        for seed in 0..seeds {
            let fixture = FixtureSpace::generate(levels, unordered, seed);
            let budget = fixture.space.len() * 3 / 10;
            let (best, used) = searched(&fixture, budget, seed);
            let picked = random_search(&fixture, budget, seed);
            ours.push(fixture.regret(best));
            random.push(fixture.regret(picked));
            found += usize::from(fixture.regret(best) == 0.0);
            found_random += usize::from(fixture.regret(picked) == 0.0);
            runs.push(used as f64 / budget as f64);
            if std::env::var("SEARCH_VERBOSE").is_ok() {
                println!("  seed {seed}: regret {:.4} (random {:.4})", fixture.regret(best), fixture.regret(picked));
            }
        }
        println!(
            "space {levels:?} ({} settings): median regret search {:.4} vs random {:.4}; true best found {found}/{seeds} vs {found_random}/{seeds}; budget used (median) {:.2}",
            levels.iter().map(|&l| usize::from(l)).product::<usize>(),
            median(ours),
            median(random),
            median(runs)
        );
    }
}
