//! The result CSV's columns: params, fixed run columns, metrics, provenance. Prefixes keep a
//! parameter called `status` from colliding with the run's status.

/// Fixed columns written for every run, between the params and the metrics.
pub const RUN_COLUMNS: &[&str] = &["variant", "rep", "warmup", "order", "status", "error", "started_at", "duration_s"];
/// Fixed provenance columns, after the metrics.
pub const PROVENANCE_COLUMNS: &[&str] = &["host", "engine_commit", "engine_dirty", "variant_hash"];
/// Which attempt at its (setting, rep) the row is (1 for the first run, 2 for a failed run run again by
/// `--resume`), right after `rep`; CSVs written before it existed lack it and read as attempt 1.
pub const ATTEMPT_COLUMN: &str = "attempt";
/// Which Slurm job and array task ran the row, after the provenance columns; CSVs written before
/// they existed lack them and still read.
pub const SLURM_COLUMNS: &[&str] = &["slurm_job_id", "slurm_array_task_id"];

pub const PARAM_PREFIX: &str = "param.";
pub const METRIC_PREFIX: &str = "metric.";
pub const TOOLCHAIN_PREFIX: &str = "toolchain.";

/// The column layout of one sweep's CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    pub params: Vec<String>,
    pub metrics: Vec<String>,
    pub toolchains: Vec<String>,
    /// Whether the CSV has the `SLURM_COLUMNS` (every CSV written now does).
    pub slurm: bool,
    /// Whether the CSV has the `ATTEMPT_COLUMN` (every CSV written now does).
    pub attempt: bool,
}

impl Columns {
    pub fn header(&self) -> Vec<String> {
        let prefixed =
            |prefix: &str, names: &[String]| names.iter().map(|n| format!("{prefix}{n}")).collect::<Vec<_>>();
        let mut header = prefixed(PARAM_PREFIX, &self.params);
        for column in RUN_COLUMNS {
            header.push(column.to_string());
            if *column == "rep" && self.attempt {
                header.push(ATTEMPT_COLUMN.to_string());
            }
        }
        header.extend(prefixed(METRIC_PREFIX, &self.metrics));
        header.extend(PROVENANCE_COLUMNS.iter().map(|c| c.to_string()));
        if self.slurm {
            header.extend(SLURM_COLUMNS.iter().map(|c| c.to_string()));
        }
        header.extend(prefixed(TOOLCHAIN_PREFIX, &self.toolchains));
        header.push("log_dir".to_string());
        header
    }

    /// Recovers the layout from a header, refusing files that lack the fixed columns.
    pub fn from_header(header: &[String]) -> Result<Columns, String> {
        for required in RUN_COLUMNS.iter().chain(PROVENANCE_COLUMNS) {
            if !header.iter().any(|column| column == required) {
                return Err(format!("no `{required}` column"));
            }
        }
        let with = |prefix: &str| header.iter().filter_map(|c| c.strip_prefix(prefix)).map(str::to_string).collect();
        let slurm = SLURM_COLUMNS.iter().all(|name| header.iter().any(|column| column == name));
        Ok(Columns {
            params: with(PARAM_PREFIX),
            metrics: with(METRIC_PREFIX),
            toolchains: with(TOOLCHAIN_PREFIX),
            slurm,
            attempt: header.iter().any(|column| column == ATTEMPT_COLUMN),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips() {
        for (slurm, attempt) in [(true, true), (false, false), (true, false)] {
            let columns = Columns {
                params: vec!["status".into()],
                metrics: vec!["wall".into()],
                toolchains: vec!["mpicxx".into()],
                slurm,
                attempt,
            };
            let header = columns.header();
            assert_eq!(header[0], "param.status");
            assert_eq!(header.iter().any(|column| column == "slurm_job_id"), slurm);
            assert_eq!(header[3] == "attempt", attempt, "{header:?}");
            assert_eq!(Columns::from_header(&header).unwrap(), columns);
        }
    }
}
