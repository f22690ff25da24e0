//! `bisect`: the first bad commit between a good and a bad one, each probe decided by repeated rounds
//! against both ends rather than by one measurement (asv find's), so noise cannot send it down the wrong
//! half but at a stated error rate.

/// How one probe was decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probe {
    pub commit: usize,
    /// Rounds run (each one run of the good end, the probe and the bad end, interleaved).
    pub rounds: usize,
    pub bad: bool,
    /// The probe's mean position between the ends (log scale; -0.5 at the good end, 0.5 at the bad).
    pub position: f64,
    /// Whether the sequential test decided it (else its sign did, at the last look).
    pub decided: bool,
}

#[derive(Debug, Clone)]
pub struct Bisection {
    pub first_bad: usize,
    pub probes: Vec<Probe>,
    /// Builds: both ends and every probe.
    pub builds: usize,
    pub runs: usize,
    /// Every round's `log bad - log good`, in the order run: what the ends differ by, for a check that
    /// they do (if they do not, every probe's position is noise).
    pub gaps: Vec<f64>,
}

/// Bisects commits `0..commits` (0 good, the last bad, a slowdown between) with `run(commit)` one timed
/// run of a commit; the first error `run` returns (a failed build or run) ends the bisection with it,
/// and `decided` hears of each probe as it is decided. Each probe runs rounds of (good end, probe, bad
/// end) and is decided by a paired t of its position against the ends' midpoint (the variance pooled with
/// the earlier probes' rounds), at each of `LOOKS`, each look at level `error_rate / (probes * looks)`
/// (Bonferroni over the probes and their looks, so the whole bisection goes wrong with probability at
/// most `error_rate` while every probe is decided).
pub fn bisect<E>(
    commits: usize,
    error_rate: f64,
    run: &mut dyn FnMut(usize) -> Result<f64, E>,
    decided: &mut dyn FnMut(&Probe),
) -> Result<Bisection, E> {
    let (mut good, mut bad) = (0, commits - 1);
    let probes_needed = probes_needed(commits);
    let look_level = error_rate / (probes_needed.max(1) * LOOKS.len()) as f64;
    let mut probes = Vec::new();
    let mut runs = 0;
    // The rounds' noise is the machine's, the same at every probe: earlier probes' spread is pooled in.
    let mut earlier = Spread::default();
    let mut gaps = Vec::new();
    while bad - good > 1 {
        let commit = good + (bad - good) / 2;
        let probe = decide(commit, commits - 1, look_level, (&mut earlier, &mut gaps), run)?;
        runs += probe.rounds * 3;
        if probe.bad {
            bad = commit
        } else {
            good = commit
        }
        decided(&probe);
        probes.push(probe);
    }
    Ok(Bisection { first_bad: bad, builds: 2 + probes.len(), runs, probes, gaps })
}

/// The probes a bisection of `commits` makes at most, one a halving: the bits of `commits - 1` (one more
/// than it needs when that is a power of two, which only makes each look's level more conservative).
fn probes_needed(commits: usize) -> usize {
    (usize::BITS - commits.saturating_sub(1).leading_zeros()) as usize
}

/// The most runs a bisection of `commits` can take: every probe left to its last look.
pub fn most_runs(commits: usize) -> usize {
    probes_needed(commits) * LOOKS[LOOKS.len() - 1] * 3
}

/// The rounds after which a probe is tested (about half as many again each time): few looks, so each is
/// spent a larger share of the error rate; a probe undecided at the last goes by its sign.
const LOOKS: [usize; 8] = [3, 4, 6, 9, 13, 19, 28, 40];

/// The squared deviations of rounds from their probe's mean, and their degrees of freedom.
#[derive(Debug, Default, Clone, Copy)]
struct Spread {
    squares: f64,
    df: f64,
}

/// Rounds of the ends (`0` and `last`) and `commit` until the probe is shown on one side of the ends'
/// midpoint: each round's `2 probe - good - bad` (log scale; the ends' gap if the probe is bad, minus it
/// if good), by a one-sided-each-way t at `look_level`. Each round's gap between the ends is added to
/// `all_gaps`.
fn decide<E>(
    commit: usize,
    last: usize,
    look_level: f64,
    (earlier, all_gaps): (&mut Spread, &mut Vec<f64>),
    run: &mut dyn FnMut(usize) -> Result<f64, E>,
) -> Result<Probe, E> {
    let (mut sides, mut gaps) = (Vec::new(), Vec::new());
    loop {
        let (good, probe, bad) = (run(0)?.ln(), run(commit)?.ln(), run(last)?.ln());
        sides.push(2.0 * probe - good - bad);
        gaps.push(bad - good);
        all_gaps.push(bad - good);
        let rounds = sides.len();
        if !LOOKS.contains(&rounds) {
            continue;
        }
        let mean = sides.iter().sum::<f64>() / rounds as f64;
        let here = Spread { squares: sides.iter().map(|side| (side - mean).powi(2)).sum(), df: (rounds - 1) as f64 };
        let (squares, df) = (earlier.squares + here.squares, earlier.df + here.df);
        let t = mean / (squares / df / rounds as f64).sqrt().max(1e-12);
        let critical = crate::student_t::one_sided_critical(1.0 - look_level, df).expect("df above 0");
        let decided = t.abs() > critical;
        if decided || rounds == LOOKS[LOOKS.len() - 1] {
            let gap = gaps.iter().sum::<f64>() / rounds as f64;
            let position = mean / (2.0 * gap.abs().max(1e-12)) * gap.signum();
            (earlier.squares, earlier.df) = (squares, df);
            return Ok(Probe { commit, rounds, bad: position > 0.0, position, decided });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Normal};

    #[test]
    fn a_3_percent_slowdown_under_1_percent_noise_is_found_in_one_build_per_halving() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let noise = Normal::new(0.0, 0.01).unwrap();
        let mut run =
            |commit: usize| Ok::<_, ()>(if commit >= 37 { 1.03 } else { 1.0 } * (1.0 + noise.sample(&mut rng)));
        let mut heard = Vec::new();
        let bisection = bisect(64, 0.05, &mut run, &mut |probe| heard.push(*probe)).unwrap();
        assert_eq!(heard, bisection.probes, "each probe heard of as it is decided");
        assert_eq!(bisection.first_bad, 37);
        assert_eq!(bisection.builds, 2 + 6);
        assert!(bisection.probes.iter().all(|probe| probe.decided), "{:?}", bisection.probes);
        assert_eq!(bisection.gaps.len() * 3, bisection.runs);
    }

    #[test]
    fn a_failed_run_ends_the_bisection_with_its_error() {
        let mut runs = 0;
        let mut run = |commit: usize| {
            runs += 1;
            if commit == 31 {
                Err(format!("commit {commit} did not build"))
            } else {
                Ok(1.0)
            }
        };
        assert_eq!(bisect(64, 0.05, &mut run, &mut |_| {}).unwrap_err(), "commit 31 did not build");
        assert_eq!(runs, 2, "stopped at the first error");
    }
}
