//! The time unit a metric's name declares (`latency_ns`, `us_per_call`, `prefill_seconds`), so a fit of
//! time against bytes can be read as a bandwidth.

/// A unit of time recognised in a metric name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Nanoseconds,
    Microseconds,
    Milliseconds,
    Seconds,
}

impl TimeUnit {
    /// The unit named by the last or first `_`-separated word of `name` (`ns`, `us`, `ms`, `s`,
    /// `seconds`; a last word after `per` is a rate); None when neither names one, so a bandwidth is
    /// never guessed.
    pub fn of_metric(name: &str) -> Option<TimeUnit> {
        let words: Vec<&str> = name.split('_').collect();
        let unit = |word: &str| match word {
            "ns" => Some(TimeUnit::Nanoseconds),
            "us" => Some(TimeUnit::Microseconds),
            "ms" => Some(TimeUnit::Milliseconds),
            "s" | "sec" | "seconds" => Some(TimeUnit::Seconds),
            _ => None,
        };
        // `tokens_per_s` is a rate, not a time.
        let is_rate = words.len() >= 2 && words[words.len() - 2] == "per";
        let last = words.last().filter(|_| !is_rate).and_then(|w| unit(w));
        last.or_else(|| words.first().and_then(|w| unit(w)))
    }

    /// Seconds in one of this unit.
    pub fn seconds(self) -> f64 {
        match self {
            TimeUnit::Nanoseconds => 1e-9,
            TimeUnit::Microseconds => 1e-6,
            TimeUnit::Milliseconds => 1e-3,
            TimeUnit::Seconds => 1.0,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Nanoseconds => "ns",
            TimeUnit::Microseconds => "us",
            TimeUnit::Milliseconds => "ms",
            TimeUnit::Seconds => "s",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_read_from_the_first_or_last_word() {
        assert_eq!(TimeUnit::of_metric("latency_ns"), Some(TimeUnit::Nanoseconds));
        assert_eq!(TimeUnit::of_metric("us_per_call"), Some(TimeUnit::Microseconds));
        assert_eq!(TimeUnit::of_metric("prefill_seconds"), Some(TimeUnit::Seconds));
        assert_eq!(TimeUnit::of_metric("prefill_tokens_per_s"), None, "a rate is not a time");
        assert_eq!(TimeUnit::of_metric("wall"), None);
        assert_eq!(TimeUnit::of_metric("bus_width"), None, "a unit inside a word is not a unit");
    }
}
