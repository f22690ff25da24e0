//! `GridDriver`: every planned run in one batch, in the planned order.

use super::driver::Driver;
use super::progress::Progress;
use crate::plan::PlannedRun;
use crate::record::RunTable;

pub struct GridDriver {
    todo: Option<Vec<PlannedRun>>,
}

impl GridDriver {
    pub fn new(todo: &[PlannedRun]) -> GridDriver {
        GridDriver { todo: Some(todo.to_vec()) }
    }
}

impl Driver for GridDriver {
    fn reads_results(&self) -> bool {
        false
    }

    fn next_batch(&mut self, _: Option<&RunTable>, _: &Progress) -> Option<Vec<PlannedRun>> {
        self.todo.take()
    }
}
