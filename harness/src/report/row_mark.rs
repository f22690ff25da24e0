//! What one row of a row chart shows.

/// One row's mark on the value axis.
#[derive(Debug, Clone, PartialEq)]
pub enum RowMark {
    /// An estimate with its interval (a forest plot's row).
    Interval { estimate: f64, low: f64, high: f64 },
    /// A bar from `from` to `to` (a waterfall step, a residual), with an interval around `to` when known.
    Bar { from: f64, to: f64, whisker: Option<(f64, f64)> },
    /// Parts of a whole laid end to end from 0 (phase seconds of one setting), one colour per part.
    Stack(Vec<f64>),
    /// Nothing could be estimated (one rep, no usable run): the row says so.
    Untested,
}

impl RowMark {
    /// A forest plot's row from `(estimate, low, high)`; `Untested` without an interval.
    pub fn interval(interval: Option<(f64, f64, f64)>) -> RowMark {
        interval.map_or(RowMark::Untested, |(estimate, low, high)| RowMark::Interval { estimate, low, high })
    }

    /// Every value the mark reaches, for the axis range.
    pub fn values(&self) -> Vec<f64> {
        match self {
            &RowMark::Interval { estimate, low, high } => vec![estimate, low, high],
            &RowMark::Bar { from, to, whisker } => {
                let mut values = vec![from, to];
                values.extend(whisker.map(|(low, high)| [low, high]).into_iter().flatten());
                values
            }
            RowMark::Stack(parts) => vec![0.0, parts.iter().sum()],
            RowMark::Untested => Vec::new(),
        }
    }
}
