//! `ProfileBlock`: phase-profile blocks parsed from an engine log, and the rule that picks the measured one.
//!
//! Lines look like `qwen_phase tag=<tag> rank=<r> phase=<name> seconds=<s> calls=<n> share=<f>`, closed by
//! `... phase=TOTAL seconds=<s>`; ranks interleave in one log. A tag does not identify a block (a run prints
//! several `tag=prefill` blocks, one of them decode-shaped), so selection can match a phase against a result.

use std::collections::HashMap;
use std::str::FromStr;

use crate::declare::BlockSelector;

/// The phase name that closes a block.
const TOTAL: &str = "TOTAL";

/// One phase line of a block.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    pub name: String,
    pub seconds: f64,
    pub calls: Option<u64>,
    pub share: Option<f64>,
}

/// The phases one rank printed for one measurement boundary, up to and including its TOTAL line.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileBlock {
    pub tag: String,
    pub rank: u32,
    pub phases: Vec<Phase>,
    pub total_seconds: f64,
}

impl ProfileBlock {
    /// Seconds of the named phase, if the block has it.
    pub fn phase_seconds(&self, name: &str) -> Option<f64> {
        self.phases.iter().find(|phase| phase.name == name).map(|phase| phase.seconds)
    }
}

/// Why no block was selected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProfileError {
    #[error("the log has {found} rank-{rank} profile block(s) tagged `{tag}`, so block index {wanted} does not exist")]
    NoTaggedBlock { tag: String, rank: u32, wanted: String, found: usize },

    #[error("the log has no rank-{rank} profile block with a `{phase}` phase")]
    NoPhase { rank: u32, phase: String },

    #[error("the run has no `{result_key}` result to match profile blocks against")]
    MissingResult { result_key: String },

    #[error(
        "no rank-{rank} profile block's `{phase}` matches {result_key}={value} within {within_percent}%: the \
         closest (tag `{closest_tag}`, {closest_seconds} s) is {distance_percent:.2}% away"
    )]
    NoMatch {
        rank: u32,
        phase: String,
        result_key: String,
        value: f64,
        within_percent: f64,
        closest_tag: String,
        closest_seconds: f64,
        distance_percent: f64,
    },
}

/// Every closed block with `prefix`, in the order their TOTAL lines appear. Malformed lines are skipped,
/// other output between lines is ignored, and a block left unclosed at the end of the log is dropped.
pub fn parse_profile_blocks(log: &str, prefix: &str) -> Vec<ProfileBlock> {
    let mut open: HashMap<u32, ProfileBlock> = HashMap::new();
    let mut closed = Vec::new();
    for (tag, rank, phase) in log.lines().filter_map(|line| parse_line(line, prefix)) {
        // A line from a different tag than the rank's open block means that block lost its TOTAL: restart.
        let mut block = open.remove(&rank).filter(|block| block.tag == tag).unwrap_or_else(|| ProfileBlock {
            tag,
            rank,
            phases: Vec::new(),
            total_seconds: 0.0,
        });
        if phase.name == TOTAL {
            block.total_seconds = phase.seconds;
            closed.push(block);
        } else {
            block.phases.push(phase);
            open.insert(rank, block);
        }
    }
    closed
}

/// The tag, rank and phase of a phase line, parsed from the `key=value` tokens after the `prefix`
/// token; `None` if anything required is missing or bad.
fn parse_line(line: &str, prefix: &str) -> Option<(String, u32, Phase)> {
    let mut tokens = line.trim_end_matches('\r').split_whitespace();
    tokens.by_ref().find(|token| *token == prefix)?;
    let fields: HashMap<&str, &str> = tokens.filter_map(|token| token.split_once('=')).collect();
    let phase = Phase {
        name: fields.get("phase")?.to_string(),
        seconds: fields.get("seconds")?.parse().ok()?,
        calls: optional_field(&fields, "calls")?,
        share: optional_field(&fields, "share")?,
    };
    Some((fields.get("tag")?.to_string(), fields.get("rank")?.parse().ok()?, phase))
}

/// `Some(None)` when absent (TOTAL lines carry neither calls nor share), `None` when present but malformed.
fn optional_field<T: FromStr>(fields: &HashMap<&str, &str>, key: &str) -> Option<Option<T>> {
    match fields.get(key) {
        None => Some(None),
        Some(value) => value.parse().ok().map(Some),
    }
}

/// Picks the block `selector` describes; `result_value` is the run's `result_key` value for `Matching`.
pub fn select_block<'a>(
    blocks: &'a [ProfileBlock],
    selector: &BlockSelector,
    result_value: Option<f64>,
) -> Result<&'a ProfileBlock, ProfileError> {
    match selector {
        BlockSelector::ByTag { tag, rank, index } => {
            let tagged: Vec<&ProfileBlock> = blocks.iter().filter(|b| b.tag == *tag && b.rank == *rank).collect();
            let picked = match index {
                Some(index) => tagged.get(*index),
                None => tagged.last(),
            };
            picked.copied().ok_or_else(|| ProfileError::NoTaggedBlock {
                tag: tag.clone(),
                rank: *rank,
                wanted: index.map_or("last".to_string(), |i| i.to_string()),
                found: tagged.len(),
            })
        }
        BlockSelector::Matching { rank, phase, result_key, within, tag } => {
            let value = result_value.ok_or_else(|| ProfileError::MissingResult { result_key: result_key.clone() })?;
            let (closest, seconds, distance) = blocks
                .iter()
                .filter(|block| block.rank == *rank && tag.as_ref().is_none_or(|tag| block.tag == *tag))
                .filter_map(|block| block.phase_seconds(phase).map(|s| (block, s, relative_distance(s, value))))
                .min_by(|a, b| a.2.total_cmp(&b.2))
                .ok_or_else(|| ProfileError::NoPhase { rank: *rank, phase: phase.clone() })?;
            if distance <= *within {
                return Ok(closest);
            }
            Err(ProfileError::NoMatch {
                rank: *rank,
                phase: phase.clone(),
                result_key: result_key.clone(),
                value,
                within_percent: within * 100.0,
                closest_tag: closest.tag.clone(),
                closest_seconds: seconds,
                distance_percent: distance * 100.0,
            })
        }
    }
}

/// |measured - expected| / |expected|; infinite when the expected value is zero and they differ.
fn relative_distance(measured: f64, expected: f64) -> f64 {
    if measured == expected {
        0.0
    } else {
        (measured - expected).abs() / expected.abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../tests/fixtures/qwen_phase_decoys_fixture.log");

    /// The run's own `prefill_seconds` result, read from the fixture's result line.
    fn prefill_seconds() -> f64 {
        let line = FIXTURE.lines().find(|l| l.contains("prefill_seconds=")).unwrap();
        let token = line.split_whitespace().find_map(|t| t.strip_prefix("prefill_seconds=")).unwrap();
        token.parse().unwrap()
    }

    fn timed_prefill() -> BlockSelector {
        BlockSelector::Matching {
            rank: 0,
            phase: "STACK.r".to_string(),
            result_key: "prefill_seconds".to_string(),
            within: 0.05,
            tag: None,
        }
    }

    #[test]
    fn fixture_parses_into_closed_blocks_for_every_rank() {
        let blocks = parse_profile_blocks(FIXTURE, "qwen_phase");
        // warmup, decoy prefill, timed prefill, decode: four closed blocks per rank; the cut-off one dropped.
        assert_eq!(blocks.len(), 16);
        for rank in 0..4 {
            let tags: Vec<_> = blocks.iter().filter(|b| b.rank == rank).map(|b| b.tag.as_str()).collect();
            assert_eq!(tags, ["warmup", "prefill", "prefill", "decode"], "rank {rank}");
        }
        let crlf_rank = blocks.iter().find(|b| b.rank == 1 && b.tag == "warmup").unwrap();
        assert_eq!(crlf_rank.total_seconds, 0.4250);
        assert_eq!(crlf_rank.phases[0].share, Some(0.97));
    }

    #[test]
    fn matching_selector_picks_the_timed_prefill_not_the_decoy() {
        let blocks = parse_profile_blocks(FIXTURE, "qwen_phase");
        let picked = select_block(&blocks, &timed_prefill(), Some(prefill_seconds())).unwrap();
        assert_eq!(picked.rank, 0);
        assert_eq!(picked.phase_seconds("STACK.r"), Some(3.9142));
        assert_eq!(picked.phase_seconds("gated_delta"), Some(2.2023));
    }

    #[test]
    fn first_prefill_block_by_tag_is_the_decode_shaped_decoy() {
        let blocks = parse_profile_blocks(FIXTURE, "qwen_phase");
        let first = BlockSelector::ByTag { tag: "prefill".to_string(), rank: 0, index: Some(0) };
        let decoy = select_block(&blocks, &first, None).unwrap();
        assert_eq!(decoy.phase_seconds("STACK.r"), Some(0.0617));
        let last = BlockSelector::ByTag { tag: "prefill".to_string(), rank: 0, index: None };
        assert_eq!(select_block(&blocks, &last, None).unwrap().phase_seconds("STACK.r"), Some(3.9142));
    }

    #[test]
    fn matching_is_restricted_to_the_declared_rank() {
        // Rank 2's STACK.r (3.9480) is nearer prefill_seconds than rank 0's, but only rank 0 holds the result.
        let blocks = parse_profile_blocks(FIXTURE, "qwen_phase");
        let picked = select_block(&blocks, &timed_prefill(), Some(3.9484)).unwrap();
        assert_eq!((picked.rank, picked.phase_seconds("STACK.r")), (0, Some(3.9142)));
    }

    #[test]
    fn no_match_names_the_closest_block_and_its_distance() {
        let blocks = parse_profile_blocks(FIXTURE, "qwen_phase");
        let error = select_block(&blocks, &timed_prefill(), Some(5.0)).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("3.9142") && message.contains("21.72%"), "{message}");
        let missing = select_block(&blocks, &timed_prefill(), None).unwrap_err();
        assert_eq!(missing, ProfileError::MissingResult { result_key: "prefill_seconds".to_string() });
    }

    #[test]
    fn by_tag_out_of_range_says_how_many_exist() {
        let blocks = parse_profile_blocks(FIXTURE, "qwen_phase");
        let selector = BlockSelector::ByTag { tag: "prefill".to_string(), rank: 0, index: Some(5) };
        let message = select_block(&blocks, &selector, None).unwrap_err().to_string();
        assert!(message.contains("2 rank-0 profile block(s)"), "{message}");
    }

    #[test]
    fn prefix_selects_the_engine_and_malformed_lines_are_skipped() {
        let log = "tpe_phase tag=p rank=0 phase=A seconds=1.5 calls=2 share=0.5\n\
                   tpe_phase tag=p rank=0 phase=B seconds=oops\n\
                   tpe_phase tag=p rank=0 phase=C seconds=1 calls=many\n\
                   tpe_phase tag=p rank=0 phase=D seconds=1 calls=2.5\n\
                   qwen_phase tag=p rank=0 phase=Q seconds=9\n\
                   noise tpe_phase tag=p rank=0 phase=TOTAL seconds=2.0\n";
        let blocks = parse_profile_blocks(log, "tpe_phase");
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].phases, [Phase { name: "A".to_string(), seconds: 1.5, calls: Some(2), share: Some(0.5) }]);
        assert_eq!(blocks[0].total_seconds, 2.0);
    }
}
