//! One usable run reduced to what a verdict needs: its setting, its round, its primary and control values.

use super::setting_index::SettingIndex;
use super::setting_summary::SettingSummary;
use crate::record::RecordedRun;

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

impl RunSample {
    /// The usable runs of `settings` that report `metric`, as raw samples (the metric and the `control`
    /// metric as measured, untransformed).
    pub fn collect<R: RecordedRun>(
        observations: &[R],
        settings: &[SettingSummary],
        metric: &str,
        control: Option<&str>,
    ) -> Vec<RunSample> {
        let index = SettingIndex::of(settings.iter().map(|s| s.id));
        let mut samples = Vec::with_capacity(observations.len());
        samples.extend(observations.iter().filter(|o| o.is_usable()).filter_map(|o| {
            let setting = index.get(o.setting_id())?;
            let value = o.metric(metric)?;
            let control = control.and_then(|c| o.metric(c));
            Some(RunSample { setting, round: o.rep(), value, control })
        }));
        samples
    }
}
