//! `PlacementColumns`: which columns of a result CSV say where its runs were placed, after the
//! provenance columns: `scheduler`, `job`, `task` in every CSV written now; Slurm's own two in CSVs
//! written before they named no scheduler; none in CSVs written before either (these still read).

use super::placement::Placement;

/// The layout of a CSV's placement columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacementColumns {
    /// `scheduler`, `job`, `task`.
    Neutral,
    /// `slurm_job_id`, `slurm_array_task_id`.
    Slurm,
    None,
}

impl PlacementColumns {
    pub fn names(self) -> &'static [&'static str] {
        match self {
            PlacementColumns::Neutral => &["scheduler", "job", "task"],
            PlacementColumns::Slurm => &["slurm_job_id", "slurm_array_task_id"],
            PlacementColumns::None => &[],
        }
    }

    /// The layout whose every column `header` has.
    pub fn of_header(header: &[String]) -> PlacementColumns {
        let has = |layout: &PlacementColumns| layout.names().iter().all(|name| header.iter().any(|c| c == name));
        [PlacementColumns::Neutral, PlacementColumns::Slurm].into_iter().find(has).unwrap_or(PlacementColumns::None)
    }

    /// The cells that record `placement` in these columns.
    pub fn cells(self, placement: &Placement) -> Vec<String> {
        let Placement { scheduler, job, task } = placement.clone();
        match self {
            PlacementColumns::Neutral => vec![scheduler, job, task],
            PlacementColumns::Slurm => vec![job, task],
            PlacementColumns::None => Vec::new(),
        }
    }

    /// The placement `cells` (a row's cells in these columns, in order) record.
    pub fn placement(self, cells: &[&str]) -> Placement {
        let cell = |index: usize| cells.get(index).map_or_else(String::new, |cell| cell.to_string());
        match self {
            PlacementColumns::Neutral => Placement { scheduler: cell(0), job: cell(1), task: cell(2) },
            PlacementColumns::Slurm => Placement::of_slurm_columns(cell(0), cell(1)),
            PlacementColumns::None => Placement::default(),
        }
    }
}
