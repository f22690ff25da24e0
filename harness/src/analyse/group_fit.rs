//! A cost fit per group of settings (`fit = { x = "bytes", y = "latency_ns", by = ["topology"] }`): one
//! line per topology instead of one pooled over lines that differ.

use super::cost_model::{fit_fixed_plus_per_unit, CostFit};
use super::setting_summary::{first_seen_groups, Labels, SettingSummary};
use crate::declare::FitConfig;

/// The fit of one group's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupFit {
    /// The `by` params' values shared by the group.
    pub group: Labels,
    pub fit: CostFit,
    /// The middle point's leave-one-out relative error (the median x of an odd count of at least three
    /// points): the study's check of a two-end fit against the point between them.
    pub middle_error: Option<f64>,
}

impl GroupFit {
    /// One ordinary least squares fit (`fit_fixed_plus_per_unit`, with its leave-one-out errors) per
    /// distinct value of the `by` params, groups in the settings' order (declared grid order); a group
    /// with fewer than two distinct x has no line and is left out.
    pub fn per_group(settings: &[SettingSummary], config: &FitConfig) -> Vec<GroupFit> {
        let points = settings.iter().filter_map(|summary| {
            let point = summary.value_of(&config.x).zip(summary.value_of(&config.y))?;
            Some((summary.setting.labels_of(&config.by), point))
        });
        first_seen_groups(points)
            .into_iter()
            .filter_map(|(group, points)| {
                let fit = fit_fixed_plus_per_unit(&points)?;
                let middle_error = middle_error(&points, &fit);
                Some(GroupFit { group, fit, middle_error })
            })
            .collect()
    }
}

/// The leave-one-out error of the point with the median x, when the count is odd and at least three.
fn middle_error(points: &[(f64, f64)], fit: &CostFit) -> Option<f64> {
    if points.len() < 3 || points.len() % 2 == 0 {
        return None;
    }
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].0.total_cmp(&points[b].0));
    fit.loo_rel_errors.as_ref().map(|errors| errors[order[points.len() / 2]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::fixture_observation;
    use crate::declare::ParamValue;

    #[test]
    fn the_middle_point_is_the_median_x_in_any_input_order() {
        let points = [(3.0, 30.0), (1.0, 10.0), (2.0, 25.0)];
        let fit = fit_fixed_plus_per_unit(&points).unwrap();
        // Held out, x = 2 is predicted at 20 by the ends: |20 − 25| / 25.
        assert!((middle_error(&points, &fit).unwrap() - 0.2).abs() < 1e-12);
        let even = [(1.0, 1.0), (2.0, 2.0), (3.0, 3.5), (4.0, 4.0)];
        assert_eq!(middle_error(&even, &fit_fixed_plus_per_unit(&even).unwrap()), None);
    }

    #[test]
    fn each_topology_gets_its_own_line() {
        // ring: 2000 + 0.1·bytes exactly; mesh: 1000 + 0.05·bytes at 1 and 3 MB, 10% high in the middle.
        let points = [
            ("ring", 1e6, 102_000.0),
            ("ring", 2e6, 202_000.0),
            ("ring", 3e6, 302_000.0),
            ("mesh", 1e6, 51_000.0),
            ("mesh", 2e6, 111_000.0),
            ("mesh", 3e6, 151_000.0),
            ("star", 1e6, 7.0),
        ];
        let observations: Vec<_> = points
            .iter()
            .map(|(topology, bytes, ns)| {
                fixture_observation(&[("topology", topology), ("bytes", &bytes.to_string())], 1, &[("latency_ns", *ns)])
            })
            .collect();
        let settings = SettingSummary::summarise(&observations);
        let config = FitConfig { x: "bytes".into(), y: "latency_ns".into(), by: vec!["topology".into()] };
        let fits = GroupFit::per_group(&settings, &config);
        // star has one point: no line.
        assert_eq!(fits.len(), 2);
        assert_eq!(fits[0].group, vec![("topology".to_string(), ParamValue::Text("ring".into()))]);
        let ring = &fits[0].fit;
        assert!((ring.fixed - 2000.0).abs() < 1e-6 && (ring.per_unit - 0.1).abs() < 1e-12);
        assert!(ring.loo_max_rel_error().unwrap() < 1e-12);
        // mesh by hand: slope Sxy / Sxx = 1e11 / 2e12 = 0.05, intercept mean y − 0.05 · mean x = 104333.3 − 100000;
        // held out, the middle is predicted at 101000 by the ends: |101000 − 111000| / 111000.
        let mesh = &fits[1].fit;
        assert!((mesh.per_unit - 0.05).abs() < 1e-12 && (mesh.fixed - (104_333.333_333 - 100_000.0)).abs() < 1e-3);
        let errors = mesh.loo_rel_errors.clone().unwrap();
        assert!((errors[1] - 10_000.0 / 111_000.0).abs() < 1e-9, "{errors:?}");
        assert_eq!(fits[1].middle_error, Some(errors[1]));
    }
}
