//! Test-only: `FuzzCampaign`, one reader fed seeded mutations of a valid input for a number of cases (the
//! unit tests, in CI) or for a time (the ignored `*_for_a_time` tests `bench/fuzz.sh` runs), counting what
//! the reader made of each; `Outcome`: what it made of one (refused, accepted, accepted inconsistently).

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::test_mutation::Mutator;

/// What a reader made of one input.
pub enum Outcome {
    Refused,
    Accepted,
    /// Accepted, but what it read is not what the input says, or does not hold together: why.
    Inconsistent(String),
}

impl Outcome {
    /// A refusal, unless it does not name `file` (an OS error names it last: `permission denied: x.json`).
    /// It may quote a line end of the input: the binary prints every error on one line, escaping it.
    pub fn refusal(error: &dyn fmt::Display, file: &Path) -> Outcome {
        let text = error.to_string();
        match text.contains(&file.display().to_string()) {
            true => Outcome::Refused,
            false => Outcome::Inconsistent(format!("a refusal that does not name {}: {text}", file.display())),
        }
    }
}

/// How long a campaign runs.
#[derive(Debug, Clone, Copy)]
enum Budget {
    Cases(u64),
    Time(Duration),
}

impl Budget {
    /// The time `bench/fuzz.sh` gives each reader: `SWEEP_FUZZ_SECONDS`, 60 when unset.
    fn from_env() -> Budget {
        let seconds = std::env::var("SWEEP_FUZZ_SECONDS").ok().and_then(|text| text.parse().ok()).unwrap_or(60);
        Budget::Time(Duration::from_secs(seconds))
    }

    fn allows(&self, tried: u64, started: Instant) -> bool {
        match self {
            Budget::Cases(cases) => tried < *cases,
            Budget::Time(time) => started.elapsed() < *time,
        }
    }
}

/// The tally of one reader's campaign, with the first few inputs that failed it.
pub struct FuzzCampaign {
    reader: &'static str,
    /// The mutator's seed: a campaign run again with it tries the same inputs.
    seed: u64,
    elapsed: Duration,
    tried: u64,
    refused: u64,
    accepted: u64,
    inconsistent: u64,
    panics: u64,
    /// Each failing input (escaped: every byte shows) and what went wrong, up to `KEPT_FAILURES`.
    failures: Vec<String>,
}

/// Enough failing inputs to see a pattern without flooding the test's output.
const KEPT_FAILURES: usize = 3;

impl FuzzCampaign {
    /// Feeds `judge` `cases` inputs that `input` draws from a mutator seeded with `seed`.
    pub fn run(
        reader: &'static str,
        seed: u64,
        cases: u64,
        input: impl FnMut(&mut Mutator) -> Vec<u8>,
        judge: impl Fn(&[u8]) -> Outcome,
    ) -> FuzzCampaign {
        FuzzCampaign::spend(reader, seed, Budget::Cases(cases), input, judge)
    }

    /// The campaign `bench/fuzz.sh` runs: for `SWEEP_FUZZ_SECONDS` on a random seed, its tally printed, then
    /// checked as `assert_sound` checks it.
    pub fn run_for_a_time(
        reader: &'static str,
        input: impl FnMut(&mut Mutator) -> Vec<u8>,
        judge: impl Fn(&[u8]) -> Outcome,
    ) {
        let campaign = FuzzCampaign::spend(reader, rand::random(), Budget::from_env(), input, judge);
        println!("\n{campaign}");
        campaign.assert_sound();
    }

    /// Feeds `judge` the inputs `input` draws from a mutator seeded with `seed`, until `budget` is spent.
    fn spend(
        reader: &'static str,
        seed: u64,
        budget: Budget,
        mut input: impl FnMut(&mut Mutator) -> Vec<u8>,
        judge: impl Fn(&[u8]) -> Outcome,
    ) -> FuzzCampaign {
        let mut mutator = Mutator::new(seed);
        let mut campaign = FuzzCampaign {
            reader,
            seed,
            elapsed: Duration::ZERO,
            tried: 0,
            refused: 0,
            accepted: 0,
            inconsistent: 0,
            panics: 0,
            failures: Vec::new(),
        };
        let started = Instant::now();
        while budget.allows(campaign.tried, started) {
            let bytes = input(&mut mutator);
            campaign.tried += 1;
            match catch_unwind(AssertUnwindSafe(|| judge(&bytes))) {
                Ok(Outcome::Refused) => campaign.refused += 1,
                Ok(Outcome::Accepted) => campaign.accepted += 1,
                Ok(Outcome::Inconsistent(why)) => {
                    campaign.inconsistent += 1;
                    campaign.keep(&bytes, &format!("accepted inconsistently: {why}"));
                }
                Err(_) => {
                    campaign.panics += 1;
                    campaign.keep(&bytes, "panicked (its message is above)");
                }
            }
        }
        campaign.elapsed = started.elapsed();
        campaign
    }

    fn keep(&mut self, bytes: &[u8], what: &str) {
        if self.failures.len() < KEPT_FAILURES {
            self.failures.push(format!("{what}, on:\n{}", bytes.escape_ascii()));
        }
    }

    /// Fails the test when an input panicked the reader or was accepted inconsistently, showing the first.
    pub fn assert_sound(&self) {
        assert!(self.panics == 0 && self.inconsistent == 0, "{self}\n{}", self.failures.join("\n\n"));
    }

    /// Fails the test when fewer than `share` of the inputs were refused: mutations that mild test little.
    pub fn assert_refuses_at_least(&self, share: f64) {
        assert!(self.refused as f64 >= share * self.tried as f64, "too few refusals: {self}");
    }
}

/// `csv reader: 60.0 s, 51234 cases: 40001 refused, 11233 accepted, 0 inconsistent, 0 panics (seed 0x5eed)`.
impl fmt::Display for FuzzCampaign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {:.1} s, {} cases: {} refused, {} accepted, {} inconsistent, {} panics (seed {:#x})",
            self.reader,
            self.elapsed.as_secs_f64(),
            self.tried,
            self.refused,
            self.accepted,
            self.inconsistent,
            self.panics,
            self.seed
        )
    }
}
