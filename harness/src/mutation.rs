//! Test-only: seeded byte-level mutations of a valid input, for the property tests of the declaration and
//! CSV readers (deterministic, so a failing seed reproduces; AFL-style havoc in miniature).

use std::fmt::Display;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Bytes that change the structure of TOML or CSV text when they land somewhere new.
const STRUCTURAL: &[&[u8]] = &[
    b"\"",
    b"'",
    b"[",
    b"]",
    b"[[",
    b"]]",
    b"{",
    b"}",
    b"=",
    b",",
    b".",
    b"\n",
    b"\r",
    b"#",
    b"\\",
    b"-",
    b"0",
    b"9",
    b"nan",
    b"inf",
    b"-inf",
    b"1e999",
    b"4294967295",
    b"18446744073709551616",
    b"true",
    b"\"\"",
    b"\xff",
    b"\0",
];

/// A deterministic stream of mutated copies of one input.
pub struct Mutator {
    rng: ChaCha8Rng,
}

impl Mutator {
    pub fn new(seed: u64) -> Mutator {
        Mutator { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// `input` with one to three random edits: replace, insert, delete or duplicate a span, or truncate.
    pub fn mutate(&mut self, input: &[u8]) -> Vec<u8> {
        let mut bytes = input.to_vec();
        for _ in 0..self.rng.random_range(1..=3) {
            self.edit(&mut bytes);
        }
        bytes
    }

    /// A position in `0..=len`.
    pub fn position(&mut self, len: usize) -> usize {
        self.rng.random_range(0..=len)
    }

    /// One of `choices`.
    pub fn pick<'a, T: ?Sized>(&mut self, choices: &[&'a T]) -> &'a T {
        choices[self.rng.random_range(0..choices.len())]
    }

    fn edit(&mut self, bytes: &mut Vec<u8>) {
        let at = self.position(bytes.len());
        let end = (at + self.rng.random_range(1..=8)).min(bytes.len());
        match self.rng.random_range(0..5) {
            0 => {
                let token = self.pick(STRUCTURAL);
                bytes.splice(at..end, token.iter().copied());
            }
            1 => {
                let token = self.pick(STRUCTURAL);
                bytes.splice(at..at, token.iter().copied());
            }
            2 => {
                bytes.drain(at..end);
            }
            3 => {
                let span: Vec<u8> = bytes[at..end].to_vec();
                bytes.splice(at..at, span);
            }
            _ => bytes.truncate(at),
        }
    }
}

/// Rule 6 for a refused input: the error is one line and names the file.
pub fn assert_one_line_naming(error: &dyn Display, file: &Path, input: &[u8]) {
    let text = error.to_string();
    let input = String::from_utf8_lossy(input);
    assert!(!text.contains('\n'), "a multi-line error:\n{text}\nfor:\n{input}");
    assert!(text.starts_with(&file.display().to_string()), "the error does not name the file: {text}\nfor:\n{input}");
}
