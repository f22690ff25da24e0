//! `EngineChange`: a resume that added rows of another engine to a result CSV, accepted by the user
//! (`--accept-engine-change`), as its sidecar records it so that its summary can say so.

use serde::{Deserialize, Serialize};

use super::engine_fingerprint::EngineFingerprint;

/// When the change was accepted, what differed, and the engine the earlier rows came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineChange {
    /// The UTC stamp of the resume that accepted it (`20250101T120000Z`).
    pub at: String,
    /// What differs, as `EngineFingerprint::difference` says it.
    pub change: String,
    pub previous: EngineFingerprint,
}
