//! `per-rank`: the harness starts one process per rank with `{{rank}}` rendered, each with its own log.

use crate::declare::Launcher;

pub struct PerRank;

impl Launcher for PerRank {
    fn name(&self) -> &'static str {
        "per-rank"
    }

    fn starts_each_rank(&self) -> bool {
        true
    }
}
