//! `search_space`: the settings a search may run as a `Space` of level indices, one axis per parameter
//! that varies on its own (a zipped or derived parameter follows another and is no axis of its own).

use std::collections::HashMap;

use crate::declare::ParamValue;
use crate::plan::Setting;
use crate::search::{Axis, Space};

/// The space of `settings` (numbered by their position) and its axes' parameter names: every parameter
/// whose values differ among them and are not a function of the axes before it. Numbers are ordered axes,
/// their levels in ascending order (so neighbouring levels are alike); other values are unordered, in
/// first-seen order.
pub fn search_space(settings: &[&Setting]) -> (Space, Vec<String>) {
    let names: Vec<&str> =
        settings.first().map_or_else(Vec::new, |s| s.values.iter().map(|(n, _)| n.as_str()).collect());
    let (mut axes, mut columns, mut named): (Vec<Axis>, Vec<Vec<u16>>, Vec<String>) = Default::default();
    for name in names {
        let values: Vec<&ParamValue> =
            settings.iter().map(|s| s.value(name).expect("every setting has every param")).collect();
        let (axis, column) = levels(&values);
        if axis.levels > 1 && !follows(&columns, &column) {
            axes.push(axis);
            columns.push(column);
            named.push(name.to_string());
        }
    }
    let points = (0..settings.len()).map(|setting| columns.iter().map(|column| column[setting]).collect()).collect();
    (Space::new(axes, points), named)
}

/// The axis of `values` (one per setting) and each setting's level on it.
fn levels(values: &[&ParamValue]) -> (Axis, Vec<u16>) {
    let ordered = values.iter().all(|value| value.as_f64().is_some());
    let mut distinct: Vec<&ParamValue> = Vec::new();
    for value in values {
        if !distinct.contains(value) {
            distinct.push(value);
        }
    }
    if ordered {
        distinct.sort_by(|a, b| a.as_f64().unwrap_or(0.0).total_cmp(&b.as_f64().unwrap_or(0.0)));
    }
    let level = |value: &&ParamValue| distinct.iter().position(|known| known == value).expect("a seen value") as u16;
    (Axis { levels: distinct.len() as u16, ordered }, values.iter().map(level).collect())
}

/// Whether `column`'s level is a function of the levels on `axes` (a zip partner or a derived value).
fn follows(axes: &[Vec<u16>], column: &[u16]) -> bool {
    let mut seen: HashMap<Vec<u16>, u16> = HashMap::new();
    column.iter().enumerate().all(|(setting, &level)| {
        let key: Vec<u16> = axes.iter().map(|axis| axis[setting]).collect();
        *seen.entry(key).or_insert(level) == level
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(values: &[(&str, ParamValue)]) -> Setting {
        Setting { values: values.iter().map(|(n, v)| (n.to_string(), v.clone())).collect(), variant: "default".into() }
    }

    #[test]
    fn numbers_are_ordered_by_value_and_a_zipped_param_is_no_axis() {
        let settings: Vec<Setting> = [(128, 2, "a"), (32, 8, "b"), (64, 4, "a"), (32, 8, "a")]
            .iter()
            .map(|&(tile, zipped, kind)| {
                setting(&[
                    ("tile", ParamValue::Int(tile)),
                    ("rows", ParamValue::Int(zipped)),
                    ("kind", ParamValue::Text(kind.into())),
                    ("fixed", ParamValue::Int(1)),
                ])
            })
            .collect();
        let (space, names) = search_space(&settings.iter().collect::<Vec<_>>());
        assert_eq!(names, ["tile", "kind"]);
        assert_eq!(space.axes(), [Axis { levels: 3, ordered: true }, Axis { levels: 2, ordered: false }]);
        assert_eq!(space.point(0), [2, 0], "128 is the largest tile");
        assert_eq!(space.point(1), [0, 1]);
        assert_eq!(space.setting_at(&[0, 0]), Some(3));
    }
}
