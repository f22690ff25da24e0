//! One usable run reduced to what a verdict needs: its setting, its round, its primary and control values.

/// A usable run of a setting, on the scale the verdicts are computed on (see `Scale`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSample {
    /// Index into the sweep's settings.
    pub setting: usize,
    /// The repetition, which is the round of an interleaved schedule: rep r of every setting runs in round r.
    pub round: u32,
    /// The primary metric (log-transformed when every value is positive).
    pub value: f64,
    /// The control metric on the same transform, when the sweep declares one and the run reported it.
    pub control: Option<f64>,
}
