//! The result CSV's columns: params, fixed run columns, metrics, provenance. Prefixes keep a
//! parameter called `status` from colliding with the run's status.

/// Fixed columns written for every run, between the params and the metrics.
pub const RUN_COLUMNS: &[&str] = &["variant", "rep", "warmup", "order", "status", "error", "started_at", "duration_s"];
/// Fixed provenance columns, after the metrics.
pub const PROVENANCE_COLUMNS: &[&str] = &["host", "engine_commit", "engine_dirty", "variant_hash"];

pub const PARAM_PREFIX: &str = "param.";
pub const METRIC_PREFIX: &str = "metric.";
pub const TOOLCHAIN_PREFIX: &str = "toolchain.";

/// The column layout of one sweep's CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    pub params: Vec<String>,
    pub metrics: Vec<String>,
    pub toolchains: Vec<String>,
}

impl Columns {
    pub fn header(&self) -> Vec<String> {
        let prefixed =
            |prefix: &str, names: &[String]| names.iter().map(|n| format!("{prefix}{n}")).collect::<Vec<_>>();
        let mut header = prefixed(PARAM_PREFIX, &self.params);
        header.extend(RUN_COLUMNS.iter().map(|c| c.to_string()));
        header.extend(prefixed(METRIC_PREFIX, &self.metrics));
        header.extend(PROVENANCE_COLUMNS.iter().map(|c| c.to_string()));
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
        Ok(Columns { params: with(PARAM_PREFIX), metrics: with(METRIC_PREFIX), toolchains: with(TOOLCHAIN_PREFIX) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips() {
        let columns =
            Columns { params: vec!["status".into()], metrics: vec!["wall".into()], toolchains: vec!["mpicxx".into()] };
        let header = columns.header();
        assert_eq!(header[0], "param.status");
        assert_eq!(Columns::from_header(&header).unwrap(), columns);
    }
}
