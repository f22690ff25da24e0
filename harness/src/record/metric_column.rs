//! `MetricColumn`: one metric of a `RunTable`, read in place over the runs the analysis reads.

/// A metric's values for the runs `RunTable::runs` returns, in that order; NaN where a run reported none.
#[derive(Debug, Clone, Copy)]
pub struct MetricColumn<'a> {
    pub name: &'a str,
    pub(super) values: &'a [f64],
    /// The table's current runs when attempts superseded some (`RunTable::current_runs`), else every run.
    pub(super) current: Option<&'a [u32]>,
}

impl MetricColumn<'_> {
    /// The values, one per current run, in file order: a sequential read of the column.
    pub fn values(&self) -> Box<dyn Iterator<Item = f64> + '_> {
        match self.current {
            Some(current) => Box::new(current.iter().map(|&run| self.values[run as usize])),
            None => Box::new(self.values.iter().copied()),
        }
    }
}
