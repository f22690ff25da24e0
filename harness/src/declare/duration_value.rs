//! Durations written as text in declarations (`"90s"`, `"10m"`, `"1h 30m"`).

use std::time::Duration;

use serde::{Deserialize, Deserializer};

/// The longest timeout or grace a declaration may give: far beyond any run, far below where adding it
/// to a clock overflows.
const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Deserializes a humantime duration, rejecting zero (a zero timeout would kill every run at once) and
/// anything over `MAX_DURATION`.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse(&text).map_err(serde::de::Error::custom)
}

/// A humantime duration (`"90s"`, `"6h"`) of more than zero and at most `MAX_DURATION`, or why not.
pub fn parse(text: &str) -> Result<Duration, String> {
    let duration = humantime::parse_duration(text).map_err(|error| {
        // humantime lists every unit in a parenthesised run-on; name the bad unit and show good forms instead.
        let reason = match error {
            humantime::DurationError::UnknownUnit { unit, .. } if !unit.is_empty() => format!("unknown unit `{unit}`"),
            humantime::DurationError::UnknownUnit { .. } => "a unit is missing".to_string(),
            other => other.to_string(),
        };
        format!("invalid duration `{text}`: {reason}; write e.g. \"90s\", \"10m\" or \"1h 30m\"")
    })?;
    if duration.is_zero() {
        return Err(format!("invalid duration `{text}`: must be more than zero"));
    }
    if duration > MAX_DURATION {
        return Err(format!("invalid duration `{text}`: must be at most 30 days"));
    }
    Ok(duration)
}

/// The same, for optional overrides.
pub fn deserialize_option<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    deserialize(deserializer).map(Some)
}
