//! `RecordedGrid`: what a sidecar says the rows of its CSV may hold (the planned settings with their
//! declared, typed values, the reps and the columns), so a row outside it is refused by line, never analysed
//! as a setting of its own.

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::columns::Columns;
use super::sidecar::Sidecar;
use super::sweep_fingerprint::SweepFingerprint;
use crate::declare::Param;
use crate::plan::{Setting, SettingId};

/// The grid of one sidecar.
#[derive(Debug, Clone)]
pub(super) struct RecordedGrid {
    sidecar: PathBuf,
    fingerprint: SweepFingerprint,
    /// The declared params with their typed values, which type the CSV's param columns.
    pub declared: Vec<Param>,
    /// The planned settings' labels (`Setting::label`) and their ids: their positions, the plan's order.
    settings: FxHashMap<String, SettingId>,
    reps: u32,
    warmup: u32,
}

impl RecordedGrid {
    pub fn of(sidecar: &Sidecar, path: &Path) -> RecordedGrid {
        RecordedGrid {
            sidecar: path.to_path_buf(),
            fingerprint: sidecar.fingerprint(),
            declared: sidecar.params.clone(),
            settings: sidecar
                .settings
                .iter()
                .enumerate()
                .map(|(id, label)| (label.clone(), SettingId::new(id)))
                .collect(),
            reps: sidecar.reps,
            warmup: sidecar.sweep.reps.warmup,
        }
    }

    /// Why the CSV's columns are not the ones its sidecar records, if they are not.
    pub fn columns_refusal(&self, columns: &Columns) -> Option<String> {
        let fingerprint = &self.fingerprint;
        match fingerprint.params.iter().find(|param| !columns.params.contains(&param.name)) {
            Some(param) => Some(format!("no column `param.{}`, which its sidecar declares", param.name)),
            None => fingerprint.columns_difference(&columns.params, &columns.metrics, "the CSV"),
        }
    }

    /// The planned id of a row's setting, `None` when the sidecar lists no settings (an old one); why it
    /// is not one its sidecar planned, if not.
    pub fn setting_id(&self, setting: &Setting) -> Result<Option<SettingId>, String> {
        for (name, value) in &setting.values {
            let Some(param) = self.declared.iter().find(|param| param.name == *name) else { continue };
            if !param.values.contains(value) {
                let allowed: Vec<String> = param.values.iter().map(ToString::to_string).collect();
                return Err(format!(
                    "`{name}` is `{value}`, not one of the values its sidecar {} declares ({})",
                    self.sidecar.display(),
                    allowed.join(", ")
                ));
            }
        }
        let label = setting.label();
        match self.settings.get(&label) {
            Some(&id) => Ok(Some(id)),
            None if self.settings.is_empty() => Ok(None),
            None => Err(format!("setting `{label}` is not in the grid its sidecar {} plans", self.sidecar.display())),
        }
    }

    /// Whether the sidecar lists its settings (every one written now does): rows then take their ids.
    pub fn lists_settings(&self) -> bool {
        !self.settings.is_empty()
    }

    /// Why a row's rep is outside the reps its sidecar plans, if it is.
    pub fn rep_refusal(&self, rep: u32, warmup: bool) -> Option<String> {
        let (last, what) = if warmup { (self.warmup, "warmup rounds") } else { (self.reps, "reps") };
        (rep == 0 || rep > last)
            .then(|| format!("rep {rep} is outside the {last} {what} its sidecar {} plans", self.sidecar.display()))
    }
}
