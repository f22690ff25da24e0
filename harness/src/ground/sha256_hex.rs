//! `sha256_hex`: the one digest sweep writes (journal entries, build marks, sweep and shard fingerprints).

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes` in lower-case hex, the spelling journals and sidecars store.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}
