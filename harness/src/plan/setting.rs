//! One point of the grid: a value for every parameter, and the kernel variant it runs.

use serde_json::{Map, Value};

use crate::declare::{Param, ParamValue};

/// A setting's params and values, in declaration order (a group's labels are a few of them).
pub type Labels = Vec<(String, ParamValue)>;

/// A setting is what the analysis compares; reps of it are its samples. A result CSV's row reads back
/// into one: its `param.*` cells typed as declared, its `variant` cell the variant.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Setting {
    pub values: Labels,
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

    /// `{ a = "1 b=2", b = 3 }` (and `variant` unless default): the values as a declaration writes them,
    /// so two settings whose labels are alike are told apart.
    pub fn as_written(&self) -> String {
        let mut parts: Vec<String> =
            self.values.iter().map(|(name, value)| format!("{name} = {}", value.written())).collect();
        if self.variant != super::DEFAULT_VARIANT {
            parts.push(format!("variant = {:?}", self.variant));
        }
        format!("{{ {} }}", parts.join(", "))
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
        labels_object(&self.values)
    }

    /// The value of param `name`, if the setting has it.
    pub fn value(&self, name: &str) -> Option<&ParamValue> {
        self.values.iter().find(|(param, _)| param == name).map(|(_, value)| value)
    }

    /// The labels of `names` that the setting has, in `names`' order (a group's labels).
    pub fn labels_of(&self, names: &[String]) -> Labels {
        names.iter().filter_map(|name| Some((name.clone(), self.value(name)?.clone()))).collect()
    }

    /// The setting without the params `dropped` names: what settings differing only in those share.
    pub fn without(&self, dropped: impl Fn(&str) -> bool) -> Setting {
        let values = self.values.iter().filter(|(name, _)| !dropped(name)).cloned().collect();
        Setting { values, variant: self.variant.clone() }
    }

    /// Whether the setting has every one of `labels` (a group's).
    pub fn has_all(&self, labels: &[(String, ParamValue)]) -> bool {
        labels.iter().all(|(name, value)| self.value(name) == Some(value))
    }

    /// The setting's place in declared grid order, to sort by: each value's position among its param's
    /// declared values (a value not declared after them, by its text), params in the setting's order, then
    /// the variant. What `report` and `compare` both list settings in, rather than the order runs happened.
    pub fn grid_rank(&self, declared: &[Param]) -> Vec<(usize, String)> {
        let rank = |(name, value): &(String, ParamValue)| {
            let param = declared.iter().find(|param| param.name == *name);
            let position = param.and_then(|param| param.values.iter().position(|v| v == value));
            (position.unwrap_or(usize::MAX), value.to_string())
        };
        self.values.iter().map(rank).chain([(usize::MAX, self.variant.clone())]).collect()
    }

    /// The value columns as text, in order, as the CSV writes them.
    pub fn value_texts(&self) -> Vec<String> {
        self.values.iter().map(|(_, value)| value.to_string()).collect()
    }
}

/// The values every setting of `grid` shares, in param order: stated once, they are left out of what
/// names one setting among the others (progress lines, run folders).
pub fn shared_values(grid: &[Setting]) -> Labels {
    let Some(first) = grid.first() else { return Labels::new() };
    let shared = |(name, value): &&(String, ParamValue)| grid.iter().all(|setting| setting.value(name) == Some(value));
    first.values.iter().filter(shared).cloned().collect()
}

/// `rows=512 tp=4`: each label as `name=value`, joined by `separator`.
pub fn labels_joined(labels: &[(String, ParamValue)], separator: &str) -> String {
    labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(separator)
}

/// Labels as a JSON object, param -> typed value (numbers stay numbers): a template context, or a group
/// in `analysis.json`.
pub fn labels_object(labels: &[(String, ParamValue)]) -> Map<String, Value> {
    labels.iter().map(|(name, value)| (name.clone(), serde_json::to_value(value).unwrap_or(Value::Null))).collect()
}
