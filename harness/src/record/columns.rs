//! The result CSV's columns: params, fixed run columns, metrics, provenance. Prefixes keep a
//! parameter called `status` from colliding with the run's status.

use super::placement_columns::PlacementColumns;

/// Fixed columns written for every run, between the params and the metrics.
pub const RUN_COLUMNS: &[&str] = &["variant", "rep", "warmup", "order", "status", "error", "started_at", "duration_s"];
/// Fixed provenance columns, after the metrics.
pub const PROVENANCE_COLUMNS: &[&str] = &["host", "engine_commit", "engine_dirty", "variant_hash"];
/// Which attempt at its (setting, rep) the row is (1 for the first run, 2 for a failed run run again by
/// `--resume`), right after `rep`; CSVs written before it existed lack it and read as attempt 1.
pub const ATTEMPT_COLUMN: &str = "attempt";

pub const PARAM_PREFIX: &str = "param.";
pub const METRIC_PREFIX: &str = "metric.";
pub const TOOLCHAIN_PREFIX: &str = "toolchain.";

/// The column layout of one sweep's CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    pub params: Vec<String>,
    pub metrics: Vec<String>,
    pub toolchains: Vec<String>,
    /// Which placement columns the CSV has (every CSV written now the `Neutral` ones).
    pub placement: PlacementColumns,
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
        header.extend(self.placement.names().iter().map(|c| c.to_string()));
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
        Ok(Columns {
            params: with(PARAM_PREFIX),
            metrics: with(METRIC_PREFIX),
            toolchains: with(TOOLCHAIN_PREFIX),
            placement: PlacementColumns::of_header(header),
            attempt: header.iter().any(|column| column == ATTEMPT_COLUMN),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips() {
        let layouts = [PlacementColumns::Neutral, PlacementColumns::Slurm, PlacementColumns::None];
        for (placement, attempt) in layouts.into_iter().zip([true, false, false]) {
            let columns = Columns {
                params: vec!["status".into()],
                metrics: vec!["wall".into()],
                toolchains: vec!["mpicxx".into()],
                placement,
                attempt,
            };
            let header = columns.header();
            assert_eq!(header[0], "param.status");
            assert!(placement.names().iter().all(|name| header.iter().any(|column| column == name)), "{header:?}");
            assert_eq!(header[3] == "attempt", attempt, "{header:?}");
            assert_eq!(Columns::from_header(&header).unwrap(), columns);
        }
    }
}
