//! The schedulers a sweep may run under, each a probe of the variables it sets in a job (a file each);
//! a new scheduler is a file and its probe in `PROBES`.

mod slurm;

use super::placement::Placement;

/// Reads a job's placement from the environment (`var`), if it is this scheduler's job.
type Probe = fn(&dyn Fn(&str) -> Option<String>) -> Option<Placement>;

/// Every scheduler's probe, tried in order.
const PROBES: &[Probe] = &[slurm::probe];

/// Where this process runs: the first scheduler that sees its job in `var`, else a local run.
pub fn placement(var: &dyn Fn(&str) -> Option<String>) -> Placement {
    PROBES.iter().find_map(|probe| probe(var)).unwrap_or_default()
}
