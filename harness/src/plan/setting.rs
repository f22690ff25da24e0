//! One point of the grid: a value for every parameter, and the kernel variant it runs.

use serde_json::{Map, Value};

use crate::spec::ParamValue;

/// A setting is what the analysis compares; reps of it are its samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub values: Vec<(String, ParamValue)>,
    /// `default` for a plain sweep; the ablated groups (or `baseline`) for an ablation.
    pub variant: String,
}

impl Setting {
    /// `slices=4 rows=512` (and ` variant=...` unless default), for progress lines and dry runs.
    pub fn label(&self) -> String {
        let mut parts: Vec<String> = self.values.iter().map(|(name, value)| format!("{name}={value}")).collect();
        if self.variant != super::DEFAULT_VARIANT {
            parts.push(format!("variant={}", self.variant));
        }
        parts.join(" ")
    }

    /// A file-name-safe form of the label, for run directories.
    pub fn slug(&self) -> String {
        self.label()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '=' || c == '.' || c == '-' { c } else { '_' })
            .collect()
    }

    /// The params as a template context object (numbers stay numbers).
    pub fn context(&self) -> Map<String, Value> {
        self.values
            .iter()
            .map(|(name, value)| (name.clone(), serde_json::to_value(value).unwrap_or(Value::Null)))
            .collect()
    }

    /// Param values then `("variant", name)`: the setting as a recorded run reads back.
    pub fn labels(&self) -> Vec<(String, ParamValue)> {
        let mut labels = self.values.clone();
        labels.push(("variant".to_string(), ParamValue::Text(self.variant.clone())));
        labels
    }

    /// The setting a recorded run's `labels` (`labels`' form) name; `None` for labels without a variant.
    pub fn from_labels(labels: &[(String, ParamValue)]) -> Option<Setting> {
        let ((_, variant), values) = labels.split_last()?;
        let variant = variant.as_text().unwrap_or(super::DEFAULT_VARIANT).to_string();
        Some(Setting { values: values.to_vec(), variant })
    }

    /// The value columns as text, in order, as the CSV writes them.
    pub fn value_texts(&self) -> Vec<String> {
        self.values.iter().map(|(_, value)| value.to_string()).collect()
    }
}
