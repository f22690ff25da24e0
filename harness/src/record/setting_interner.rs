//! `SettingInterner`: a result CSV's setting cells mapped to one shared label vector per distinct setting.

use rustc_hash::FxHashMap;

use crate::spec::{Param, ParamValue};

/// Types a setting's labels once per distinct cell text rather than once per run: the runs of a
/// million-row CSV share a few dozen label vectors.
pub(super) struct SettingInterner<'a> {
    /// The param columns' names, in CSV order.
    params: Vec<String>,
    declared: &'a [Param],
    /// Length-prefixed setting cells -> index into the settings.
    known: FxHashMap<Vec<u8>, u32>,
    /// The current row's key, reused across rows.
    key: Vec<u8>,
}

impl<'a> SettingInterner<'a> {
    pub fn new(params: &[String], declared: &'a [Param]) -> SettingInterner<'a> {
        SettingInterner { params: params.to_vec(), declared, known: FxHashMap::default(), key: Vec::new() }
    }

    /// The index into `settings` of the setting whose cells, as written in the file, are `raw` (the
    /// params' in order, then `variant`'s), appended to `settings` when new, typed from `cells()` (the
    /// same cells unquoted). Cells that type to labels already known (`1.0` and `1.00` of a float param)
    /// share their index.
    pub fn index<'c, C: AsRef<[u8]>>(
        &mut self,
        raw: impl Iterator<Item = &'c [u8]>,
        cells: impl FnOnce() -> Vec<C>,
        settings: &mut Vec<Vec<(String, ParamValue)>>,
    ) -> Result<u32, std::str::Utf8Error> {
        self.key.clear();
        for cell in raw {
            self.key.extend_from_slice(&(cell.len() as u64).to_le_bytes());
            self.key.extend_from_slice(cell);
        }
        if let Some(&index) = self.known.get(self.key.as_slice()) {
            return Ok(index);
        }
        let index = intern_labels(settings, self.labels(&cells())?);
        self.known.insert(self.key.clone(), index);
        Ok(index)
    }

    /// The typed labels of a setting's cells, `("variant", name)` last.
    fn labels<C: AsRef<[u8]>>(&self, cells: &[C]) -> Result<Vec<(String, ParamValue)>, std::str::Utf8Error> {
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

/// The index of `labels` in `settings`, appended when no setting has them.
pub(super) fn intern_labels(settings: &mut Vec<Vec<(String, ParamValue)>>, labels: Vec<(String, ParamValue)>) -> u32 {
    let index = settings.iter().position(|known| *known == labels).unwrap_or_else(|| {
        settings.push(labels);
        settings.len() - 1
    });
    u32::try_from(index).expect("fewer than 2^32 settings")
}
