//! `SettingInterner`: a result CSV's setting cells mapped to a `SettingId`, typed once per distinct setting.

use rustc_hash::FxHashMap;

use super::recorded_grid::RecordedGrid;
use crate::declare::ParamValue;
use crate::plan::{Setting, SettingId};

/// Types a setting's labels once per distinct cell text rather than once per run: the runs of a
/// million-row CSV map to a few dozen settings.
pub(super) struct SettingInterner<'a> {
    /// The param columns' names, in CSV order.
    params: &'a [String],
    /// The sidecar's grid: it types the params (inferred without one) and refuses settings outside it.
    grid: Option<&'a RecordedGrid>,
    /// Length-prefixed setting cells -> their setting.
    known: FxHashMap<Vec<u8>, SettingId>,
    /// The current row's key, reused across rows.
    key: Vec<u8>,
}

impl<'a> SettingInterner<'a> {
    pub fn new(params: &'a [String], grid: Option<&'a RecordedGrid>) -> SettingInterner<'a> {
        SettingInterner { params, grid, known: FxHashMap::default(), key: Vec::new() }
    }

    /// The setting whose cells, as written in the file, are `raw` (the params' in order, then `variant`'s),
    /// typed from `cells()` (the same cells unquoted) and stored in `settings` at its id when new: its id
    /// in `grid` when that lists the settings, else first-seen; why the row is refused (a setting outside
    /// the grid), if it is. Cells that type to a setting already known (`1.0` and `1.00` of a float param)
    /// share its id.
    pub fn id<'c, C: AsRef<[u8]>>(
        &mut self,
        raw: impl Iterator<Item = &'c [u8]>,
        cells: impl FnOnce() -> Vec<C>,
        settings: &mut Vec<Setting>,
    ) -> Result<SettingId, String> {
        self.key.clear();
        for cell in raw {
            self.key.extend_from_slice(&(cell.len() as u64).to_le_bytes());
            self.key.extend_from_slice(cell);
        }
        if let Some(&id) = self.known.get(self.key.as_slice()) {
            return Ok(id);
        }
        let setting = self.setting(&cells()).map_err(|_| "a setting cell is not valid UTF-8".to_string())?;
        let planned = self.grid.map(|grid| grid.setting_id(&setting)).transpose()?;
        let id = match planned.flatten() {
            Some(id) => place_setting(settings, id, setting),
            None => intern_setting(settings, setting),
        };
        self.known.insert(self.key.clone(), id);
        Ok(id)
    }

    /// The setting a row's cells (the params', then the variant's) name, its values typed as declared.
    fn setting<C: AsRef<[u8]>>(&self, cells: &[C]) -> Result<Setting, std::str::Utf8Error> {
        let declared = self.grid.map_or(&[][..], |grid| &grid.declared[..]);
        let values_of =
            |name: &str| declared.iter().find(|param| param.name == name).map_or(&[][..], |p| &p.values[..]);
        let mut cells = cells.iter().map(|cell| std::str::from_utf8(cell.as_ref()));
        let mut next = || cells.next().expect("a cell per param and the variant's");
        let mut values = Vec::with_capacity(self.params.len());
        for name in self.params {
            values.push((name.clone(), ParamValue::typed_by(values_of(name), next()?)));
        }
        Ok(Setting { values, variant: next()?.to_string() })
    }
}

/// The id of `setting` among settings numbered first-seen: its position, appended when new.
pub(super) fn intern_setting(settings: &mut Vec<Setting>, setting: Setting) -> SettingId {
    let index = settings.iter().position(|known| *known == setting).unwrap_or_else(|| {
        settings.push(setting);
        settings.len() - 1
    });
    SettingId::new(index)
}

/// Stores a planned setting at its id (settings before it no row has recorded yet stay default).
pub(super) fn place_setting(settings: &mut Vec<Setting>, id: SettingId, setting: Setting) -> SettingId {
    if settings.len() <= id.index() {
        settings.resize(id.index() + 1, Setting::default());
    }
    settings[id.index()] = setting;
    id
}
