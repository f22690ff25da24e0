//! Which setting columns (params, then the variant) get a table column: those that vary; the constant
//! ones are stated once.

use super::table::Table;
use crate::declare::ParamValue;
use crate::plan::{labels_joined, Labels, Setting};

/// The setting columns of a set of settings, split into those that vary and those fixed throughout.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingColumns {
    pub varying: Vec<String>,
    pub fixed: Vec<(String, ParamValue)>,
}

impl SettingColumns {
    /// Columns in first-seen order; a column is fixed when every setting has it with one value.
    pub fn of<'a>(settings: impl IntoIterator<Item = &'a Setting>) -> SettingColumns {
        let settings: Vec<&Setting> = settings.into_iter().collect();
        let names =
            first_seen(settings.iter().flat_map(|s| s.values.iter().map(|(name, _)| name.as_str())).chain([VARIANT]));
        let mut columns = SettingColumns { varying: Vec::new(), fixed: Vec::new() };
        for name in names {
            let values: Vec<Option<ParamValue>> = settings.iter().map(|s| s.column(name)).collect();
            match &values[..] {
                [Some(first), ..] if settings.len() > 1 && values.iter().all(|v| v.as_ref() == Some(first)) => {
                    columns.fixed.push((name.to_string(), first.clone()))
                }
                _ => columns.varying.push(name.to_string()),
            }
        }
        columns
    }

    /// The varying columns minus some (e.g. the group columns shown elsewhere in the row).
    pub fn without(&self, shown: &[String]) -> SettingColumns {
        let varying = self.varying.iter().filter(|c| !shown.contains(c)).cloned().collect();
        SettingColumns { varying, fixed: self.fixed.clone() }
    }

    /// One cell per varying column (empty when the setting lacks it).
    pub fn cells(&self, setting: &impl ColumnValues) -> Vec<String> {
        self.varying.iter().map(|c| setting.column(c).map(|v| v.to_string()).unwrap_or_default()).collect()
    }

    /// `slices=8 variant=x`: the varying labels as one phrase.
    pub fn label(&self, setting: &impl ColumnValues) -> String {
        let labels: Vec<String> =
            self.varying.iter().filter_map(|c| setting.column(c).map(|v| format!("{c}={v}"))).collect();
        labels.join(" ")
    }

    /// The varying values as numbers (`slices=8 mode=a` -> [8, NaN]), for ordering settings by value.
    pub fn numbers(&self, setting: &impl ColumnValues) -> Vec<f64> {
        self.varying.iter().map(|c| setting.column(c).and_then(|v| v.as_f64()).unwrap_or(f64::NAN)).collect()
    }

    /// "Fixed: variant=baseline." or nothing; a search's `searched` parameters are not fixed even where
    /// its finalists share them.
    pub fn fixed_line(&self, searched: &[String]) -> Option<String> {
        let fixed: Vec<_> = self.fixed.iter().filter(|(name, _)| !searched.contains(name)).cloned().collect();
        (!fixed.is_empty()).then(|| format!("Fixed: {}.", labels_joined(&fixed, ", ")))
    }

    /// A table whose first columns are these setting columns, followed by `rest`.
    pub fn table(&self, rest: &[String]) -> Table {
        Table::new(self.varying.iter().chain(rest).cloned().collect())
    }
}

/// A group's name in a sentence: `rows=512 tp=4`, or `all settings` without grouping.
pub fn group_name(labels: &[(String, ParamValue)]) -> String {
    match labels.is_empty() {
        true => "all settings".to_string(),
        false => labels_joined(labels, " "),
    }
}

/// The distinct items, first seen first.
pub fn first_seen<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut distinct = Vec::new();
    for item in items {
        if !distinct.contains(&item) {
            distinct.push(item);
        }
    }
    distinct
}

/// The column that shows a setting's variant.
const VARIANT: &str = "variant";

/// What has a value per setting column: a setting, or a group's labels (a few of its params).
pub trait ColumnValues {
    fn column(&self, name: &str) -> Option<ParamValue>;
}

impl ColumnValues for Setting {
    fn column(&self, name: &str) -> Option<ParamValue> {
        match name {
            VARIANT => Some(ParamValue::Text(self.variant.clone())),
            _ => self.value(name).cloned(),
        }
    }
}

impl ColumnValues for Labels {
    fn column(&self, name: &str) -> Option<ParamValue> {
        self.iter().find(|(known, _)| known == name).map(|(_, value)| value.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(labels: &[(&str, &str)], variant: &str) -> Setting {
        let values = labels.iter().map(|(k, v)| (k.to_string(), ParamValue::infer(v))).collect();
        Setting { values, variant: variant.into() }
    }

    #[test]
    fn constant_columns_are_fixed() {
        let settings = [setting(&[("rows", "512")], "baseline"), setting(&[("rows", "1024")], "baseline")];
        let columns = SettingColumns::of(&settings);
        assert_eq!(columns.varying, vec!["rows"]);
        assert_eq!(columns.fixed_line(&[]).unwrap(), "Fixed: variant=baseline.");
        assert_eq!(columns.label(&settings[1]), "rows=1024");
    }

    #[test]
    fn a_single_setting_shows_all_its_columns() {
        let settings = [setting(&[("rows", "512")], "default")];
        assert_eq!(SettingColumns::of(&settings).varying, vec!["rows", "variant"]);
    }
}
