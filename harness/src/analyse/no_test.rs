//! Why two settings could not be compared: the reason a verdict says "cannot tell".

use serde::Serialize;

/// The data leave no test of a difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum NoTest {
    /// A setting has a single usable run (or none): nothing measures its spread.
    #[serde(rename = "1 rep")]
    OneRep,
    /// The model's parameters (settings, round blocks, the covariate slope) use up every run.
    #[serde(rename = "no residual degrees of freedom")]
    NoResidualDf,
    /// The fit left no noise at all: an interval would have zero width, a p-value would be 0.
    #[serde(rename = "zero standard error")]
    ZeroStdError,
    /// A setting of few runs has one far from the others (set aside by the straggler screen), and the
    /// verdict differs as the one or the others are right: the runs cannot say which.
    #[serde(rename = "runs disagree")]
    RunsDisagree,
    /// Every run of each setting gave the same value: the settings differ by value alone (identical to
    /// measurement resolution when their values are equal), and there is no noise to test.
    #[serde(rename = "no spread")]
    NoSpread,
}

impl std::fmt::Display for NoTest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoTest::OneRep => "1 rep",
            NoTest::NoResidualDf => "no residual degrees of freedom",
            NoTest::ZeroStdError => "zero standard error",
            NoTest::RunsDisagree => "runs disagree: a run far from its setting's one or two others decides the verdict",
            NoTest::NoSpread => "no spread: every run of each setting gave the same value",
        })
    }
}
