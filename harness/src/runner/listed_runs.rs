//! `ListedRuns`: the runs one array task of a search's round runs (`sweep run --runs-file`): each run's
//! setting by its label (as the sidecar lists settings, so a task that plans the same declaration finds
//! it whatever order its grid has), its rep and its order, written by the search and read by the task.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::runner_error::RunnerError;
use crate::confined_dir::ConfinedDir;
use crate::plan::{Plan, PlannedRun, SettingId};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedRuns {
    runs: Vec<Listed>,
}

/// One run as the file lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Listed {
    setting: String,
    rep: u32,
    order: usize,
    #[serde(default)]
    warmup: bool,
}

impl ListedRuns {
    /// `runs` of `plan`, in their order.
    pub fn of(plan: &Plan, runs: &[PlannedRun]) -> ListedRuns {
        let listed = runs.iter().map(|run| Listed {
            setting: plan.settings[run.setting.index()].label(),
            rep: run.rep,
            order: run.order,
            warmup: run.warmup,
        });
        ListedRuns { runs: listed.collect() }
    }

    /// Writes the list to `path`, a new file in `folder` (no link there followed).
    pub fn write(&self, folder: &ConfinedDir, path: &Path) -> Result<(), RunnerError> {
        let text = serde_json::to_string_pretty(self).expect("plain data serialises");
        let written = folder.create_new(path).and_then(|mut file| file.write_all(text.as_bytes()));
        written.map_err(RunnerError::io(path))
    }

    /// Reads the list `path` holds.
    pub fn read(path: &Path) -> Result<ListedRuns, RunnerError> {
        // Bounded and opened as a regular file only, as every file sweep reads back as data.
        let text = crate::read_limit::ReadLimit::JOURNAL.read_to_string(path).map_err(RunnerError::io(path))?;
        serde_json::from_str(&text).map_err(|error| listed_error(path, error.to_string()))
    }

    /// The runs as runs of `plan`; a setting `plan` does not have (the declaration changed since the
    /// list was written) is refused, naming it.
    pub fn resolve(&self, plan: &Plan, path: &Path) -> Result<Vec<PlannedRun>, RunnerError> {
        let index: HashMap<String, usize> =
            plan.settings.iter().enumerate().map(|(at, setting)| (setting.label(), at)).collect();
        let resolved = self.runs.iter().map(|listed| {
            let Some(&setting) = index.get(&listed.setting) else {
                return Err(listed_error(path, format!("`{}` is not a setting of the declaration", listed.setting)));
            };
            let setting = SettingId::new(setting);
            Ok(PlannedRun { order: listed.order, setting, rep: listed.rep, warmup: listed.warmup })
        });
        resolved.collect()
    }
}

fn listed_error(path: &Path, reason: String) -> RunnerError {
    RunnerError::ListedRuns { path: path.to_path_buf(), reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanOptions;

    fn plan() -> Plan {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sweeps/slices.toml");
        let sweep = crate::declare::load_sweep(&file).unwrap();
        Plan::new(&sweep, &["default".to_string()], &PlanOptions::default()).unwrap()
    }

    #[test]
    fn listed_runs_written_and_read_back_are_the_same_runs_of_the_plan() {
        let plan = plan();
        let runs = [plan.runs[3], plan.runs[0]];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("task-1.runs.json");
        ListedRuns::of(&plan, &runs).write(&ConfinedDir::open(dir.path()).unwrap(), &path).unwrap();
        assert_eq!(ListedRuns::read(&path).unwrap().resolve(&plan, &path).unwrap(), runs);
    }

    #[test]
    fn a_setting_the_plan_lacks_is_refused_naming_the_file_and_the_setting() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("task-1.runs.json");
        std::fs::write(&path, r#"{"runs": [{"setting": "slices=99", "rep": 1, "order": 1}]}"#).unwrap();
        let error = ListedRuns::read(&path).unwrap().resolve(&plan(), &path).unwrap_err();
        assert!(error.is_bad_input());
        assert!(error.to_string().contains("task-1.runs.json: `slices=99` is not a setting"), "{error}");
        std::fs::write(&path, "{").unwrap();
        assert!(ListedRuns::read(&path).unwrap_err().to_string().contains("task-1.runs.json: "));
    }
}
