//! `SettingInterner`: a result CSV's setting cells mapped to a `SettingId`, typed once per distinct setting.

use rustc_hash::FxHashMap;

use super::recorded_grid::RecordedGrid;
use super::stored_runs::Labels;
use crate::plan::SettingId;
use crate::spec::{Param, ParamValue};

/// Types a setting's labels once per distinct cell text rather than once per run: the runs of a
/// million-row CSV map to a few dozen settings.
pub(super) struct SettingInterner<'a> {
    /// The param columns' names, in CSV order.
    params: Vec<String>,
    declared: &'a [Param],
    /// Length-prefixed setting cells -> their setting.
    known: FxHashMap<Vec<u8>, SettingId>,
    /// The current row's key, reused across rows.
    key: Vec<u8>,
}

impl<'a> SettingInterner<'a> {
    pub fn new(params: &[String], declared: &'a [Param]) -> SettingInterner<'a> {
        SettingInterner { params: params.to_vec(), declared, known: FxHashMap::default(), key: Vec::new() }
    }

    /// The setting whose cells, as written in the file, are `raw` (the params' in order, then `variant`'s),
    /// its labels typed from `cells()` (the same cells unquoted) and stored in `settings` at its id when
    /// new: its id in `grid` when that lists the settings, else first-seen; why the row is refused (a
    /// setting outside the grid), if it is. Cells that type to labels already known (`1.0` and `1.00` of a
    /// float param) share their id.
    pub fn id<'c, C: AsRef<[u8]>>(
        &mut self,
        raw: impl Iterator<Item = &'c [u8]>,
        cells: impl FnOnce() -> Vec<C>,
        settings: &mut Vec<Labels>,
        grid: Option<&RecordedGrid>,
    ) -> Result<SettingId, String> {
        self.key.clear();
        for cell in raw {
            self.key.extend_from_slice(&(cell.len() as u64).to_le_bytes());
            self.key.extend_from_slice(cell);
        }
        if let Some(&id) = self.known.get(self.key.as_slice()) {
            return Ok(id);
        }
        let labels = self.labels(&cells()).map_err(|_| "a setting cell is not valid UTF-8".to_string())?;
        let planned = grid.map(|grid| grid.setting_id(&labels)).transpose()?;
        let id = match planned.flatten() {
            Some(id) => place_labels(settings, id, labels),
            None => intern_labels(settings, labels),
        };
        self.known.insert(self.key.clone(), id);
        Ok(id)
    }

    /// The typed labels of a setting's cells, `("variant", name)` last.
    fn labels<C: AsRef<[u8]>>(&self, cells: &[C]) -> Result<Labels, std::str::Utf8Error> {
        let values_of =
            |name: &str| self.declared.iter().find(|param| param.name == name).map_or(&[][..], |p| &p.values[..]);
        let mut cells = cells.iter().map(|cell| std::str::from_utf8(cell.as_ref()));
        let mut next = || cells.next().expect("a cell per param and the variant's");
        let mut labels = Vec::with_capacity(self.params.len() + 1);
        for name in &self.params {
            labels.push((name.clone(), ParamValue::typed_by(values_of(name), next()?)));
        }
        labels.push(("variant".to_string(), ParamValue::Text(next()?.to_string())));
        Ok(labels)
    }
}

/// The id of `labels` among settings numbered first-seen: their position, appended when no setting has them.
pub(super) fn intern_labels(settings: &mut Vec<Labels>, labels: Labels) -> SettingId {
    let index = settings.iter().position(|known| *known == labels).unwrap_or_else(|| {
        settings.push(labels);
        settings.len() - 1
    });
    SettingId::new(index)
}

/// Stores a planned setting's labels at its id (settings before it no row has recorded yet stay empty).
pub(super) fn place_labels(settings: &mut Vec<Labels>, id: SettingId, labels: Labels) -> SettingId {
    if settings.len() <= id.index() {
        settings.resize(id.index() + 1, Labels::new());
    }
    settings[id.index()] = labels;
    id
}
