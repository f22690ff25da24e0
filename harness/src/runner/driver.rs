//! `Driver`: what chooses a session's next runs from the results so far. The grid hands over every run
//! at once, a race round by round; a search would propose settings the same way. The session runs each
//! batch and grows the in-memory table the driver reads as rows land, never re-reading the CSV.

use super::progress::Progress;
use crate::plan::PlannedRun;
use crate::record::RunTable;

pub trait Driver {
    /// Whether `next_batch` reads the results: the session then holds them as a `RunTable` that grows by
    /// each row written (a driver that does not read them spares every run that cost).
    fn reads_results(&self) -> bool;

    /// The runs to do next, or `None` when the driver is done. `results` holds every run recorded so far
    /// (read once when the session starts driving, then grown row by row) when `reads_results`.
    fn next_batch(&mut self, results: Option<&RunTable>, progress: &Progress) -> Option<Vec<PlannedRun>>;

    /// The builds the last batch caused, as (plan setting whose run caused it, seconds): a driver that
    /// spends a budget charges them; the others ignore them.
    fn built(&mut self, _builds: &[(usize, f64)]) {}
}
