//! A fixture repository with a known truth (not a measurement): 64 commits, a 3% slowdown from one of
//! them on, 1% noise a run; and the benchmark of `bisect` against a bisection that measures each commit
//! once (asv find's approach).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

use super::bisect;

const COMMITS: usize = 64;

/// One run of `commit` when the slowdown starts at `first_bad`.
fn timed(commit: usize, first_bad: usize, rng: &mut ChaCha8Rng) -> f64 {
    let slowdown = if commit >= first_bad { 1.03 } else { 1.0 };
    10.0 * slowdown * (1.0 + Normal::new(0.0, 0.01).unwrap().sample(rng))
}

/// asv find's bisection: each commit measured once, a probe bad when nearer the bad end's one run.
fn bisect_once_each(first_bad: usize, rng: &mut ChaCha8Rng) -> (usize, usize) {
    let (good_time, bad_time) = (timed(0, first_bad, rng), timed(COMMITS - 1, first_bad, rng));
    let (mut good, mut bad, mut builds) = (0, COMMITS - 1, 2);
    while bad - good > 1 {
        let probe = good + (bad - good) / 2;
        builds += 1;
        let time = timed(probe, first_bad, rng);
        if (time - bad_time).abs() < (time - good_time).abs() {
            bad = probe
        } else {
            good = probe
        }
    }
    (bad, builds)
}

/// Over `BISECT_SEEDS` repositories (default 20): how often each names the first bad commit, with the
/// builds and runs used. Prints markdown rows.
#[test]
#[ignore = "a benchmark: bench/history.sh"]
fn bisect_against_one_measurement_a_commit() {
    let seeds: u64 = std::env::var("BISECT_SEEDS").map_or(20, |n| n.parse().expect("a count"));
    let (mut right, mut right_once, mut builds, mut runs, mut undecided) = (0, 0, Vec::new(), Vec::new(), 0);
    for seed in 0..seeds {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let first_bad = rng.random_range(1..COMMITS);
        let bisection =
            bisect(COMMITS, 0.05, &mut |commit| Ok::<_, ()>(timed(commit, first_bad, &mut rng)), &mut |_| {})
                .expect("never fails");
        right += usize::from(bisection.first_bad == first_bad);
        undecided += bisection.probes.iter().filter(|probe| !probe.decided).count();
        builds.push(bisection.builds);
        runs.push(bisection.runs);
        right_once += usize::from(bisect_once_each(first_bad, &mut rng).0 == first_bad);
    }
    builds.sort_unstable();
    runs.sort_unstable();
    let median = |values: &[usize]| values[values.len() / 2];
    // A line of its own: the test harness writes the test's name before its first line.
    println!();
    println!("| method | first bad commit named | builds (median) | runs (median) |");
    println!("|---|---|---|---|");
    println!(
        "| bisect: rounds against both ends, error rate 0.05 ({undecided} probes left to their sign) | {right}/{seeds} | {} | {} |",
        median(&builds),
        median(&runs)
    );
    println!("| one run a commit (asv find) | {right_once}/{seeds} | 8 | 8 |");
}
