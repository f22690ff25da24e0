//! `SearchBudget`: what a search may spend, written as a number of engine runs (`budget = 400`) or a
//! duration (`budget = "6h"`).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::de::{Unexpected, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::duration_value;

/// A search's budget, as given: runs, or wall time (runs' `duration_s` plus the builds the search caused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchBudget {
    Runs(u64),
    Duration(Duration),
}

impl SearchBudget {
    /// The budget in runs, when it was given in runs.
    pub fn runs(self) -> Option<u64> {
        match self {
            SearchBudget::Runs(runs) => Some(runs),
            SearchBudget::Duration(_) => None,
        }
    }

    /// The budget as the declaration spells it: `400` or `"6h"` (for `analysis.json`).
    pub fn as_json(self) -> serde_json::Value {
        serde_json::to_value(self).expect("a budget serializes")
    }
}

impl fmt::Display for SearchBudget {
    /// `400 runs`, `1 run` or `6h`.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchBudget::Runs(runs) => formatter.write_str(&crate::plural::counted(*runs as usize, "run")),
            SearchBudget::Duration(duration) => write!(formatter, "{}", humantime::format_duration(*duration)),
        }
    }
}

/// `--budget 400` or `--budget 6h`: a whole number is runs, anything else a duration.
impl FromStr for SearchBudget {
    type Err = String;

    fn from_str(text: &str) -> Result<SearchBudget, String> {
        match text.parse::<u64>() {
            Ok(0) => Err("must be at least 1 run".to_string()),
            Ok(runs) if runs > super::MAX_RUNS => {
                Err(format!("more than the {} runs a sweep may plan", super::MAX_RUNS))
            }
            Ok(runs) => Ok(SearchBudget::Runs(runs)),
            Err(_) => duration_value::parse(text).map(SearchBudget::Duration),
        }
    }
}

impl Serialize for SearchBudget {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SearchBudget::Runs(runs) => serializer.serialize_u64(*runs),
            SearchBudget::Duration(_) => serializer.serialize_str(&self.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for SearchBudget {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SearchBudget, D::Error> {
        deserializer.deserialize_any(BudgetVisitor)
    }
}

/// A whole number of runs, or a duration's text.
struct BudgetVisitor;

impl Visitor<'_> for BudgetVisitor {
    type Value = SearchBudget;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a number of runs (`400`) or a duration (`\"6h\"`)")
    }

    fn visit_u64<E: serde::de::Error>(self, runs: u64) -> Result<SearchBudget, E> {
        Ok(SearchBudget::Runs(runs))
    }

    fn visit_i64<E: serde::de::Error>(self, runs: i64) -> Result<SearchBudget, E> {
        let runs = u64::try_from(runs).map_err(|_| E::invalid_value(Unexpected::Signed(runs), &self))?;
        Ok(SearchBudget::Runs(runs))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<SearchBudget, E> {
        duration_value::parse(text).map(SearchBudget::Duration).map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, Serialize)]
    struct Table {
        budget: SearchBudget,
    }

    fn parsed(text: &str) -> Result<SearchBudget, String> {
        toml::from_str::<Table>(text).map(|table| table.budget).map_err(|error| error.to_string())
    }

    #[test]
    fn a_number_is_runs_and_a_text_a_duration_each_written_back_as_given() {
        assert_eq!(parsed("budget = 400"), Ok(SearchBudget::Runs(400)));
        assert_eq!(parsed("budget = \"6h\""), Ok(SearchBudget::Duration(Duration::from_secs(6 * 3600))));
        assert_eq!(parsed("budget = \"1h 30m\"").unwrap().to_string(), "1h 30m");
        assert_eq!(SearchBudget::Runs(1).to_string(), "1 run");
        assert_eq!(SearchBudget::Runs(400).as_json(), serde_json::json!(400));
        assert_eq!(SearchBudget::Duration(Duration::from_secs(90)).as_json(), serde_json::json!("1m 30s"));
        let back: Table = serde_json::from_str(
            &serde_json::to_string(&Table { budget: parsed("budget = \"6h\"").unwrap() }).unwrap(),
        )
        .unwrap();
        assert_eq!(back.budget, SearchBudget::Duration(Duration::from_secs(6 * 3600)));
    }

    #[test]
    fn zero_garbage_and_other_types_are_refused_saying_what_to_write() {
        assert!(parsed("budget = \"0s\"").unwrap_err().contains("must be more than zero"));
        assert!(parsed("budget = \"six hours\"").unwrap_err().contains("invalid duration `six hours`"));
        assert!(parsed("budget = 1.5").unwrap_err().contains("a number of runs (`400`) or a duration"));
        assert!(parsed("budget = -3").unwrap_err().contains("a number of runs (`400`) or a duration"));
        assert!(parsed("").unwrap_err().contains("missing field `budget`"));
    }

    #[test]
    fn the_command_line_takes_both_forms_and_refuses_zero() {
        assert_eq!("150".parse(), Ok(SearchBudget::Runs(150)));
        assert_eq!("45m".parse(), Ok(SearchBudget::Duration(Duration::from_secs(45 * 60))));
        assert_eq!("0".parse::<SearchBudget>(), Err("must be at least 1 run".to_string()));
        assert!("0s".parse::<SearchBudget>().unwrap_err().contains("more than zero"));
        assert!("soon".parse::<SearchBudget>().unwrap_err().contains("invalid duration"));
    }
}
