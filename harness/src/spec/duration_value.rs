//! Durations written as text in declarations (`"90s"`, `"10m"`, `"1h 30m"`).

use std::time::Duration;

use serde::{Deserialize, Deserializer};

/// Deserializes a humantime duration, rejecting zero (a zero timeout would kill every run at once).
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    let text = String::deserialize(deserializer)?;
    let duration = humantime::parse_duration(&text)
        .map_err(|error| serde::de::Error::custom(format!("invalid duration `{text}`: {error} (write e.g. \"90s\" or \"10m\")")))?;
    if duration.is_zero() {
        return Err(serde::de::Error::custom(format!("invalid duration `{text}`: must be more than zero")));
    }
    Ok(duration)
}

/// The same, for optional overrides.
pub fn deserialize_option<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    deserialize(deserializer).map(Some)
}
