//! Expands a sweep into settings and schedules its runs (interleaved by default, seeded).

mod grid;
mod plan_error;
mod planned_run;
mod recorded_values;
mod schedule;
mod setting;
mod setting_id;

pub use plan_error::PlanError;
pub use planned_run::PlannedRun;
pub use setting::{labels_joined, labels_object, Labels, Setting};
pub use setting_id::SettingId;

use std::collections::HashMap;
use std::path::Path;

use crate::declare::Sweep;

/// The variant name of a plain sweep, where no kernel is rendered.
pub const DEFAULT_VARIANT: &str = "default";

/// Command-line choices that narrow or reshape the declared plan.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    pub reps: Option<u32>,
    /// `key=value` pairs a setting must all match.
    pub filters: Vec<String>,
    /// `(i, n)`: keep reps with `(rep - 1) % n == i - 1`, so every shard runs every setting.
    pub shard: Option<(u32, u32)>,
    /// Seed override; else the declaration's, else drawn now (and recorded).
    pub seed: Option<u64>,
    /// A budgeted search: its driver chooses the runs round by round, so none is scheduled here and `reps`
    /// is the most rounds a setting may run.
    pub search: bool,
}

/// Settings and the order their runs happen in.
#[derive(Debug, Clone)]
pub struct Plan {
    pub settings: Vec<Setting>,
    pub runs: Vec<PlannedRun>,
    pub seed: u64,
    pub reps: u32,
    /// The values every setting of the declared grid shares (filters aside, so a resume with another
    /// filter names each setting alike): stated once, progress lines and run folders name the others.
    pub fixed: Labels,
}

impl Plan {
    /// Plans `sweep` for each of `variants` (use `[DEFAULT_VARIANT]` for a plain sweep).
    pub fn new(sweep: &Sweep, variants: &[String], options: &PlanOptions) -> Result<Plan, PlanError> {
        let reps = options.reps.unwrap_or(sweep.reps.count);
        if reps == 0 {
            return Err(PlanError::ZeroReps);
        }
        let filters = parse_filters(sweep, &options.filters)?;
        let mut points = Vec::new();
        for values in grid::expand(&sweep.params, &sweep.zip) {
            let values = recorded_values::with_recorded(sweep, values)?;
            if recorded_values::admitted(sweep, &values)? {
                points.push(values);
            }
        }
        let grid: Vec<Setting> = variants
            .iter()
            .flat_map(|variant| {
                points.iter().map(|values| Setting { values: values.clone(), variant: variant.clone() })
            })
            .collect();
        // The whole grid, not the filtered plan: a later `--resume` with another filter adds settings.
        refuse_settings_printing_alike(&grid, sweep.file())?;
        let fixed = setting::shared_values(&grid);
        let settings: Vec<Setting> = grid.into_iter().filter(|setting| matches_filters(setting, &filters)).collect();
        if settings.is_empty() {
            return Err(PlanError::NothingSelected {
                filters: options.filters.join(" "),
                file: sweep.file().display().to_string(),
            });
        }
        let seed = options.seed.or(sweep.reps.seed).unwrap_or_else(rand::random);
        if options.search {
            return Ok(Plan { settings, runs: Vec::new(), seed, reps, fixed });
        }
        let rounds = u64::from(reps) + u64::from(sweep.reps.warmup);
        let runs = settings.len() as u64 * rounds;
        if runs > crate::declare::MAX_RUNS {
            let settings = settings.len();
            return Err(PlanError::TooManyRuns { reps, settings, rounds, runs, max: crate::declare::MAX_RUNS });
        }
        if let Some((index, count)) = options.shard.filter(|&(_, count)| count > reps) {
            return Err(PlanError::ShardBeyondReps { index, count, reps, empty: reps + 1 });
        }
        let mut runs = schedule::schedule(settings.len(), reps, sweep.reps.warmup, sweep.reps.order, seed);
        if let Some((index, count)) = options.shard {
            runs.retain(|run| run.warmup || (run.rep - 1) % count == index - 1);
        }
        Ok(Plan { settings, runs, seed, reps, fixed })
    }

    /// `setting` without the values the whole grid shares: what tells it from the others, short.
    pub fn varying(&self, setting: &Setting) -> Setting {
        setting.without(|name| self.fixed.iter().any(|(fixed, _)| fixed == name))
    }
}

/// A result CSV tells its settings apart by their labels (`Setting::label`: its sidecar lists them so,
/// and reading and resuming match rows by them), so two settings that print alike would be one: the
/// second's rows would read as the first's recorded twice. Refused before anything runs.
fn refuse_settings_printing_alike(grid: &[Setting], file: &Path) -> Result<(), PlanError> {
    let mut seen: HashMap<String, &Setting> = HashMap::with_capacity(grid.len());
    for setting in grid {
        if let Some(first) = seen.insert(setting.label(), setting) {
            return Err(PlanError::SettingsPrintAlike {
                file: file.display().to_string(),
                first: first.as_written(),
                second: setting.as_written(),
                label: setting.label(),
            });
        }
    }
    Ok(())
}

/// Parses `I/N` for `--shard`.
pub fn parse_shard(text: &str) -> Result<(u32, u32), PlanError> {
    let malformed = || PlanError::MalformedShard { shard: text.to_string() };
    let (index, count) = text.split_once('/').ok_or_else(malformed)?;
    let (index, count): (u32, u32) = (index.parse().map_err(|_| malformed())?, count.parse().map_err(|_| malformed())?);
    if index == 0 || index > count {
        return Err(malformed());
    }
    Ok((index, count))
}

fn parse_filters(sweep: &Sweep, filters: &[String]) -> Result<Vec<(String, String)>, PlanError> {
    let parse = |filter: &String| {
        let (key, value) =
            filter.split_once('=').ok_or_else(|| PlanError::MalformedFilter { filter: filter.clone() })?;
        if !sweep.params.iter().any(|param| param.name == key) {
            return Err(PlanError::UnknownFilterKey {
                filter: filter.clone(),
                key: key.to_string(),
                file: sweep.file().display().to_string(),
                known: sweep.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
            });
        }
        Ok((key.to_string(), value.to_string()))
    };
    filters.iter().map(parse).collect()
}

/// Whether every filter's value, read as the type of the setting's value, equals it (`slices=8.0`
/// selects the float 8 and the int 8 is selected by `slices=8` only).
fn matches_filters(setting: &Setting, filters: &[(String, String)]) -> bool {
    filters.iter().all(|(key, text)| {
        setting.values.iter().any(|(name, value)| name == key && value.parse_like(text).as_ref() == Some(value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::ParamValue;

    #[test]
    fn filters_match_typed_values() {
        let setting = |value: ParamValue| Setting { values: vec![("slices".into(), value)], variant: "default".into() };
        let filter = |text: &str| vec![("slices".to_string(), text.to_string())];
        assert!(matches_filters(&setting(ParamValue::Float(8.0)), &filter("8.0")));
        assert!(matches_filters(&setting(ParamValue::Float(8.0)), &filter("8")));
        assert!(matches_filters(&setting(ParamValue::Int(8)), &filter("8")));
        assert!(!matches_filters(&setting(ParamValue::Int(8)), &filter("8.0")));
        assert!(matches_filters(&setting(ParamValue::Text("8.0".into())), &filter("8.0")));
        assert!(!matches_filters(&setting(ParamValue::Text("8.0".into())), &filter("8")));
    }

    #[test]
    fn two_settings_that_print_alike_are_refused_naming_both() {
        let text = |value: &str| ParamValue::Text(value.to_string());
        let setting = |a: &str, b: &str| Setting {
            values: vec![("a".into(), text(a)), ("b".into(), text(b))],
            variant: DEFAULT_VARIANT.into(),
        };
        let file = Path::new("sweeps/x.toml");
        let grid = [setting("1 b=2", "3"), setting("1", "3"), setting("1 b=2", "2 b=3"), setting("1", "2 b=3")];
        let error = refuse_settings_printing_alike(&grid, file).unwrap_err().to_string();
        assert!(error.contains(r#"{ a = "1 b=2", b = "3" } and { a = "1", b = "2 b=3" }"#), "{error}");
        assert!(error.starts_with("sweeps/x.toml: settings "), "{error}");
        assert!(error.contains("both print as `a=1 b=2 b=3`"), "{error}");
        assert!(refuse_settings_printing_alike(&grid[..2], file).is_ok());
    }

    #[test]
    fn shard_parses_and_refuses_out_of_range() {
        assert_eq!(parse_shard("2/3").unwrap(), (2, 3));
        assert!(parse_shard("0/3").is_err());
        assert!(parse_shard("4/3").is_err());
        assert!(parse_shard("x").is_err());
    }
}
