//! Test-only: seeded mutations of a valid input, byte by byte or node by node of its JSON, for the property
//! tests of the declaration, CSV and sidecar readers (deterministic, so a failing seed reproduces; AFL-style
//! havoc in miniature).

use std::fmt::Display;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

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

/// JSON values that change what a reader makes of a field when they land in its place.
fn json_tokens() -> [Value; 15] {
    [
        json!(0),
        json!(-1),
        json!(1),
        json!(2),
        json!(4_294_967_296u64),
        json!(1e300),
        json!(1.5),
        json!(-0.0),
        json!(""),
        json!(" "),
        json!(true),
        json!(null),
        json!([]),
        json!({}),
        json!("\u{0}"),
    ]
}

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

    /// `value` with one to three edits, each at a random node: replaced by a token or by a scalar found
    /// elsewhere in it (a label where a number was, a param name where a label was), removed from its object
    /// or array, or copied once more into its array.
    pub fn mutate_json(&mut self, value: &Value) -> Value {
        let mut value = value.clone();
        let tokens = json_tokens();
        for _ in 0..self.rng.random_range(1..=3) {
            let mut nodes = Vec::new();
            pointers(&value, String::new(), &mut nodes);
            let scalars: Vec<Value> =
                nodes.iter().filter_map(|at| value.pointer(at)).filter(|node| !is_container(node)).cloned().collect();
            let at = nodes[self.rng.random_range(0..nodes.len())].clone();
            let replacement = match self.rng.random_range(0..3) {
                0 => tokens[self.rng.random_range(0..tokens.len())].clone(),
                1 if !scalars.is_empty() => scalars[self.rng.random_range(0..scalars.len())].clone(),
                _ => {
                    self.remove_or_copy(&mut value, &at);
                    continue;
                }
            };
            if let Some(node) = value.pointer_mut(&at) {
                *node = replacement;
            }
        }
        value
    }

    /// Removes the node at `at` from its parent, or copies it once more when the parent is an array.
    fn remove_or_copy(&mut self, value: &mut Value, at: &str) {
        let Some((parent, key)) = at.rsplit_once('/') else { return };
        let key = key.replace("~1", "/").replace("~0", "~");
        let copy = self.rng.random_bool(0.5);
        match value.pointer_mut(parent) {
            Some(Value::Object(object)) => {
                object.remove(&key);
            }
            Some(Value::Array(array)) => {
                let index: usize = key.parse().expect("an array index");
                if copy {
                    array.insert(index, array[index].clone());
                } else {
                    array.remove(index);
                }
            }
            _ => {}
        }
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

/// The JSON pointer of every node under `value` (itself included), into `nodes`.
fn pointers(value: &Value, at: String, nodes: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                pointers(child, format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")), nodes);
            }
        }
        Value::Array(array) => {
            for (index, child) in array.iter().enumerate() {
                pointers(child, format!("{at}/{index}"), nodes);
            }
        }
        _ => {}
    }
    nodes.push(at);
}

fn is_container(value: &Value) -> bool {
    value.is_object() || value.is_array()
}

/// Rule 6 for a refused input: the error is one line and names the file.
pub fn assert_one_line_naming(error: &dyn Display, file: &Path, input: &[u8]) {
    let text = error.to_string();
    let input = String::from_utf8_lossy(input);
    assert!(!text.contains('\n'), "a multi-line error:\n{text}\nfor:\n{input}");
    assert!(text.starts_with(&file.display().to_string()), "the error does not name the file: {text}\nfor:\n{input}");
}
