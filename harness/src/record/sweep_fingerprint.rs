//! `SweepFingerprint`: what makes a result CSV the record of one sweep, kept in its sidecar so that
//! `--resume` and the readers can tell a CSV of this sweep from another sweep's, or from a changed one's.

use serde::{Deserialize, Serialize};

use crate::declare::{Param, RecordedDeclaration, Sweep};

/// The sweep's name, its parameter grid, its CSV columns and a digest of its declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepFingerprint {
    pub name: String,
    /// The declared params with their typed values: the grid.
    pub params: Vec<Param>,
    /// The CSV's param columns (declared, derived, `ranks`), in order; empty when not recorded.
    pub param_columns: Vec<String>,
    /// The CSV's metric columns, in order; empty when not recorded.
    pub metrics: Vec<String>,
    /// sha256 of the declaration as the sidecar records it (`declaration_digest`).
    pub declaration: String,
}

impl SweepFingerprint {
    /// The fingerprint a sidecar of `sweep` carries.
    pub fn of(sweep: &Sweep) -> SweepFingerprint {
        SweepFingerprint {
            name: sweep.name.clone(),
            params: sweep.params.clone(),
            param_columns: sweep.recorded_params(),
            metrics: sweep.metric_names(),
            declaration: declaration_digest(&sweep.recorded),
        }
    }

    /// The first way a recorded fingerprint (`self`) differs from the `expected` one, as a reason to give.
    /// What a sidecar written before fingerprints (or before typed params) did not record is not compared.
    pub fn difference(&self, expected: &SweepFingerprint) -> Option<String> {
        let names = |params: &[Param]| params.iter().map(|param| param.name.clone()).collect::<Vec<_>>();
        if self.name != expected.name {
            Some(format!("it records sweep `{}`, not `{}`", self.name, expected.name))
        } else if !self.params.is_empty() && names(&self.params) != names(&expected.params) {
            Some(format!(
                "its parameters are [{}], not [{}]",
                names(&self.params).join(", "),
                names(&expected.params).join(", ")
            ))
        } else if let Some(param) = self.params.iter().zip(&expected.params).find(|(a, b)| a.values != b.values) {
            Some(format!("the values of `{}` differ from the declaration's", param.0.name))
        } else if let Some(reason) = self.columns_difference(&expected.param_columns, &expected.metrics, "this sweep") {
            Some(reason)
        } else if self.declaration != expected.declaration {
            Some("the declaration changed since the CSV was recorded (its digest differs)".to_string())
        } else {
            None
        }
    }

    /// How the recorded CSV columns differ from `params` and `metrics`, found in `found_in` (`the CSV`,
    /// `this sweep`), if they do. Columns a sidecar written before fingerprints did not record are not compared.
    pub fn columns_difference(&self, params: &[String], metrics: &[String], found_in: &str) -> Option<String> {
        [("param", &self.param_columns, params), ("metric", &self.metrics, metrics)].into_iter().find_map(
            |(kind, recorded, found)| {
                (!recorded.is_empty() && recorded.as_slice() != found).then(|| {
                    format!(
                        "its sidecar records {kind} columns [{}], {found_in} has [{}]",
                        recorded.join(", "),
                        found.join(", ")
                    )
                })
            },
        )
    }

    /// A short digest of the whole fingerprint, which marks the files written for results of this sweep.
    pub fn digest(&self) -> String {
        let text = serde_json::to_string(self).expect("a fingerprint serialises");
        crate::ground::sha256_hex(text.as_bytes())[..16].to_string()
    }
}

/// sha256 of a recorded declaration's JSON after one round trip through the sidecar's own types, so the
/// declaration loaded now and the one read back from a sidecar hash alike.
pub fn declaration_digest(decl: &RecordedDeclaration) -> String {
    let written = serde_json::to_value(decl).expect("a declaration serialises");
    let read_back: RecordedDeclaration = serde_json::from_value(written.clone()).unwrap_or_else(|_| decl.clone());
    let normal = serde_json::to_value(&read_back).unwrap_or(written);
    crate::ground::sha256_hex(normal.to_string().as_bytes())
}
