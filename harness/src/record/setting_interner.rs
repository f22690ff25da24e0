//! `SettingInterner`: a result CSV's setting cells mapped to one shared label vector per distinct setting.

use std::collections::HashMap;

use crate::spec::{Param, ParamValue};

/// Types a setting's labels once per distinct cell text rather than once per run: the runs of a
/// million-row CSV share a few dozen label vectors.
pub(super) struct SettingInterner<'a> {
    /// The param columns' names, in CSV order.
    params: Vec<String>,
    declared: &'a [Param],
    /// Length-prefixed setting cells -> index into the settings.
    known: HashMap<Vec<u8>, u32>,
    /// The current row's key, reused across rows.
    key: Vec<u8>,
}

impl<'a> SettingInterner<'a> {
    pub fn new(params: &[String], declared: &'a [Param]) -> SettingInterner<'a> {
        SettingInterner { params: params.to_vec(), declared, known: HashMap::new(), key: Vec::new() }
    }

    /// The index into `settings` of the setting whose cells are `cells` (the params' in order, then
    /// `variant`'s), appended to `settings` when new. Cells that type to labels already known (`1.0` and
    /// `1.00` of a float param) share their index.
    pub fn index<'c>(
        &mut self,
        cells: impl Iterator<Item = &'c [u8]> + Clone,
        settings: &mut Vec<Vec<(String, ParamValue)>>,
    ) -> Result<u32, std::str::Utf8Error> {
        self.key.clear();
        for cell in cells.clone() {
            self.key.extend_from_slice(&(cell.len() as u64).to_le_bytes());
            self.key.extend_from_slice(cell);
        }
        if let Some(&index) = self.known.get(self.key.as_slice()) {
            return Ok(index);
        }
        let labels = self.labels(cells)?;
        let index = match settings.iter().position(|known| *known == labels) {
            Some(index) => index,
            None => {
                settings.push(labels);
                settings.len() - 1
            }
        };
        let index = u32::try_from(index).expect("fewer than 2^32 settings");
        self.known.insert(self.key.clone(), index);
        Ok(index)
    }

    /// The typed labels of a setting's cells, `("variant", name)` last.
    fn labels<'c>(
        &self,
        mut cells: impl Iterator<Item = &'c [u8]>,
    ) -> Result<Vec<(String, ParamValue)>, std::str::Utf8Error> {
        let values_of =
            |name: &str| self.declared.iter().find(|param| param.name == name).map_or(&[][..], |p| &p.values[..]);
        let mut next = || std::str::from_utf8(cells.next().expect("a cell per param and the variant's"));
        let mut labels = Vec::with_capacity(self.params.len() + 1);
        for name in &self.params {
            labels.push((name.clone(), ParamValue::typed_by(values_of(name), next()?)));
        }
        labels.push(("variant".to_string(), ParamValue::Text(next()?.to_string())));
        Ok(labels)
    }
}
