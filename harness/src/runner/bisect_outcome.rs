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
        let mut lines = vec![
            format!("first bad commit: {} {}", range.short(bisection.first_bad), self.subject),
            format!(
                "  {} commits from good {} to bad {}; metric {}",
                range.shas.len(),
                range.short(0),
                range.short(range.shas.len() - 1),
                self.metric
            ),
            String::new(),
        ];
        lines.extend(self.probe_table());
        lines.push(String::new());
        lines.push(format!(
            "cost: {} builds ({} built now, the rest from the cache), {} runs",
            self.builds(),
            self.built_now,
            bisection.runs
        ));
        lines.extend(self.ends.map(|ends| {
            let p = p_stated(ends.p);
            let (ratio, rounds, t, df) = (ends.ratio, ends.rounds, ends.t, ends.df);
            format!("ends: bad / good = {ratio:.4} over {rounds} rounds (paired t = {t:.2}, df {df}, {p})")
        }));
        lines.push(format!("error rate: {} (the bisection names a wrong commit at most this often)", self.error_rate));
        lines.push(format!("method: {METHOD}"));
        lines.join("\n") + "\n"
    }

    /// One line a probe, in the order probed, under a header and above what `position` means.
    fn probe_table(&self) -> Vec<String> {
        let header = "probe  commit        rounds  position  decided        verdict".to_string();
        let rows = self.bisection.probes.iter().enumerate().map(|(number, probe)| {
            let decided = if probe.decided { "yes" } else { "no: by sign" };
            let verdict = if probe.bad { "bad" } else { "good" };
            let (commit, rounds, position) = (self.range.short(probe.commit), probe.rounds, probe.position);
            format!("{:>5}  {commit}  {rounds:>6}  {position:>+8.2}  {decided:<13}  {verdict}", number + 1)
        });
        let legend = "(position: between the ends on a log scale, -0.50 at the good end, +0.50 at the bad)".to_string();
        std::iter::once(header).chain(rows).chain(std::iter::once(legend)).collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Probe;

    fn outcome() -> BisectOutcome {
        let shas = (0..8).map(|commit| format!("{commit}{}", "a".repeat(39))).collect();
        let range = CommitRange { repository: "/r".into(), prefix: String::new(), shas };
        let probe = |commit, bad, decided| Probe { commit, rounds: 40, bad, position: 0.1, decided };
        let probes = vec![probe(3, true, true), probe(1, false, true), probe(2, true, false)];
        let bisection = Bisection { first_bad: 2, probes, builds: 5, runs: 360, gaps: vec![0.03; 120] };
        let ends = EndsGap { rounds: 120, ratio: 1.03, t: 90.0, df: 119.0, p: 1e-300 };
        BisectOutcome {
            range,
            bisection,
            subject: "slow path".into(),
            ends: Some(ends),
            metric: "wall".into(),
            error_rate: 0.05,
            built_now: 2,
            paths: ResultPaths::for_csv(std::path::Path::new("/r/results/s/bisect/x.csv")),
        }
    }

    #[test]
    fn the_text_names_the_commit_each_probe_the_cost_and_never_p_equals_0() {
        let text = outcome().text();
        assert!(text.starts_with("first bad commit: 2aaaaaaaaaaa slow path\n"), "{text}");
        assert!(text.contains("    3  2aaaaaaaaaaa      40     +0.10  no: by sign    bad\n"), "{text}");
        assert!(text.contains("cost: 5 builds (2 built now, the rest from the cache), 360 runs"), "{text}");
        assert!(text.contains("p < 0.001") && !text.contains("p = 0"), "{text}");
    }

    #[test]
    fn the_json_holds_full_shas_and_every_probe() {
        let json = outcome().json();
        assert_eq!(json["first_bad"]["sha"], format!("2{}", "a".repeat(39)));
        assert_eq!(json["probes"].as_array().unwrap().len(), 3);
        assert_eq!(json["probes"][2]["decided"], false);
        assert_eq!(json["ends"]["differ"], true);
        assert_eq!(json["results"], "/r/results/s/bisect/x.csv");
    }
}
