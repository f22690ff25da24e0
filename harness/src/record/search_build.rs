//! `SearchBuild`: a build a budgeted search caused, as its sidecar records it, so that a resumed search
//! and the report charge it as the search that made it did.

use serde::{Deserialize, Serialize};

/// A build-time tuple built for the first time by a search (a cache hit costs nothing and is not
/// recorded): the setting whose first run caused it, and the seconds it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchBuild {
    /// The setting's label, as the sidecar's `settings` list it.
    pub setting: String,
    pub seconds: f64,
}

impl SearchBuild {
    /// `builds` as (plan setting, seconds), the plan's settings labelled `labels`; a build of a setting
    /// the plan no longer holds (a resume filtered it out) is no search's to charge.
    pub fn charges(builds: &[SearchBuild], labels: &[String]) -> Vec<(usize, f64)> {
        let at = |build: &SearchBuild| labels.iter().position(|label| *label == build.setting);
        builds.iter().filter_map(|build| Some((at(build)?, build.seconds))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_are_charged_to_the_plan_setting_of_their_label() {
        let labels = vec!["block=8 x=1".to_string(), "block=16 x=1".to_string()];
        let builds = [
            SearchBuild { setting: "block=16 x=1".into(), seconds: 4.5 },
            SearchBuild { setting: "block=32 x=1".into(), seconds: 9.0 },
        ];
        assert_eq!(SearchBuild::charges(&builds, &labels), vec![(1, 4.5)]);
    }
}
