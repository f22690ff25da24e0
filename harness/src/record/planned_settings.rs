//! `planned_settings`: the settings a sidecar plans, read back from their labels (`Setting::label`),
//! typed by its declared params, in plan order: what a search's replay numbers its space by.

use super::sidecar::Sidecar;
use crate::declare::ParamValue;
use crate::plan::{Setting, DEFAULT_VARIANT};

/// The sidecar's settings in plan order; a value of a param it does not type (a derived one) is text.
pub fn planned_settings(sidecar: &Sidecar) -> Vec<Setting> {
    sidecar.settings.iter().map(|label| setting_of(label, sidecar)).collect()
}

/// `slices=4 rows=512` back into its values: each part starts where a space is followed by `name=`.
fn setting_of(label: &str, sidecar: &Sidecar) -> Setting {
    let mut parts: Vec<(String, String)> = Vec::new();
    for word in label.split(' ') {
        match word.split_once('=').filter(|(name, _)| is_name(name)) {
            Some((name, value)) => parts.push((name.to_string(), value.to_string())),
            None => match parts.last_mut() {
                Some((_, value)) => *value = format!("{value} {word}"),
                None => parts.push((String::new(), word.to_string())),
            },
        }
    }
    let mut variant = DEFAULT_VARIANT.to_string();
    let mut values = Vec::with_capacity(parts.len());
    for (name, text) in parts {
        if name == "variant" {
            variant = text;
            continue;
        }
        let declared = sidecar.params.iter().find(|param| param.name == name);
        let typed = declared.and_then(|param| param.values.iter().find(|value| value.to_string() == text));
        values.push((name, typed.cloned().unwrap_or(ParamValue::Text(text))));
    }
    Setting { values, variant }
}

fn is_name(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_back_as_the_settings_that_printed_them() {
        let slices = crate::declare::Param {
            name: "slices".to_string(),
            values: vec![ParamValue::Int(2), ParamValue::Int(4)],
            is_list: true,
        };
        let mut sidecar = crate::record::test_sidecar::declaring(&[slices]);
        let setting = Setting {
            values: vec![
                ("slices".to_string(), ParamValue::Int(4)),
                ("mode".to_string(), ParamValue::Text("a b".to_string())),
            ],
            variant: DEFAULT_VARIANT.to_string(),
        };
        sidecar.settings = vec![setting.label()];
        assert_eq!(planned_settings(&sidecar), [setting]);
    }
}
