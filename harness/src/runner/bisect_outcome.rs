//! `BisectOutcome`: what `sweep bisect` found and what it cost, as text for people and JSON for machines.

use serde_json::{json, Value};

use super::commit_range::CommitRange;
use super::ends_gap::EndsGap;
use super::runner_error::RunnerError;
use crate::atomic_file::write_atomic;
use crate::history::Bisection;
use crate::record::ResultPaths;
use crate::report::p_stated;

/// How each probe is decided, as `history::bisect` does it (its doc comment is the longer account).
pub const METHOD: &str = "repeated rounds of (good end, probe, bad end), interleaved; each probe decided by a \
     paired t of its rounds' 2 log probe - log good - log bad (variance pooled across probes), at 8 looks, each \
     at the error rate / (probes x looks): Bonferroni over probes and looks; a probe undecided at round 40 goes \
     by its sign";

/// A finished bisection.
#[derive(Debug, Clone)]
pub struct BisectOutcome {
    pub range: CommitRange,
    pub bisection: Bisection,
    /// The first bad commit's subject line.
    pub subject: String,
    /// Whether the ends measured apart; `None` with no rounds (the bad end is the good end's child).
    pub ends: Option<EndsGap>,
    pub metric: String,
    pub error_rate: f64,
    /// Of the commits built, how many were built by this bisection (the rest were in the cache).
    pub built_now: usize,
    /// The CSV of every run, the folder of their logs, and this outcome's JSON (`analysis`).
    pub paths: ResultPaths,
}

impl BisectOutcome {
    /// Whether the ends differ at the error rate; a bisection of two adjacent commits has nothing to test.
    pub fn ends_differ(&self) -> bool {
        self.ends.is_none_or(|ends| ends.differ(self.error_rate))
    }

    /// The builds charged: the distinct commits built or taken from the cache (both ends and each probe),
    /// none when there was nothing to run.
    pub fn builds(&self) -> usize {
        if self.bisection.runs == 0 {
            0
        } else {
            self.bisection.builds
        }
    }

    /// The report: the first bad commit, each probe's evidence, the cost, the ends' gap and the method.
    pub fn text(&self) -> String {
        let (range, bisection) = (&self.range, &self.bisection);
        let last = range.shas.len() - 1;
        let mut lines = vec![
            format!("first bad commit: {} {}", range.short(bisection.first_bad), self.subject),
            format!(
                "  {} commits from good {} to bad {}; metric {}",
                range.shas.len(),
                range.short(0),
                range.short(last),
                self.metric
            ),
            String::new(),
            "probe  commit        rounds  position  decided        verdict".to_string(),
        ];
        for (number, probe) in bisection.probes.iter().enumerate() {
            let decided = if probe.decided { "yes" } else { "no: by sign" };
            let verdict = if probe.bad { "bad" } else { "good" };
            lines.push(format!(
                "{:>5}  {}  {:>6}  {:>+8.2}  {decided:<13}  {verdict}",
                number + 1,
                range.short(probe.commit),
                probe.rounds,
                probe.position
            ));
        }
        lines.push("(position: between the ends on a log scale, -0.50 at the good end, +0.50 at the bad)".to_string());
        lines.push(String::new());
        lines.push(format!(
            "cost: {} builds ({} built now, the rest from the cache), {} runs",
            self.builds(),
            self.built_now,
            bisection.runs
        ));
        if let Some(ends) = &self.ends {
            lines.push(format!(
                "ends: bad / good = {:.4} over {} rounds (paired t = {:.2}, df {}, {})",
                ends.ratio,
                ends.rounds,
                ends.t,
                ends.df,
                p_stated(ends.p)
            ));
        }
        lines.push(format!("error rate: {} (the bisection names a wrong commit at most this often)", self.error_rate));
        lines.push(format!("method: {METHOD}"));
        lines.join("\n") + "\n"
    }

    /// Writes `json()` beside the runs' CSV (`<stamp>.analysis.json`), atomically.
    pub fn write(&self) -> Result<(), RunnerError> {
        let path = &self.paths.analysis;
        let text = serde_json::to_string_pretty(&self.json()).unwrap_or_default() + "\n";
        write_atomic(path, text.as_bytes(), None).map_err(RunnerError::io(path))
    }

    /// The same as one JSON object.
    pub fn json(&self) -> Value {
        let (range, bisection) = (&self.range, &self.bisection);
        let probes: Vec<Value> = bisection
            .probes
            .iter()
            .map(|probe| {
                json!({
                    "commit": range.shas[probe.commit],
                    "rounds": probe.rounds,
                    "position": probe.position,
                    "decided": probe.decided,
                    "verdict": if probe.bad { "bad" } else { "good" },
                })
            })
            .collect();
        let ends = self.ends.map(|ends| {
            json!({
                "ratio": ends.ratio, "rounds": ends.rounds, "t": ends.t, "df": ends.df, "p": ends.p,
                "differ": ends.differ(self.error_rate),
            })
        });
        json!({
            "first_bad": { "sha": range.shas[bisection.first_bad], "subject": self.subject },
            "good": range.shas[0],
            "bad": range.shas[range.shas.len() - 1],
            "commits": range.shas.len(),
            "metric": self.metric,
            "probes": probes,
            "builds": self.builds(),
            "built_now": self.built_now,
            "runs": bisection.runs,
            "ends": ends,
            "error_rate": self.error_rate,
            "method": METHOD,
            "results": self.paths.csv.display().to_string(),
        })
    }
}
