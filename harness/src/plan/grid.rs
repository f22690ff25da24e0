//! Expands `[params]` into settings: the cartesian product of axes, where a zip group is one axis.

use crate::declare::{Param, ParamValue};

/// All settings in declaration order; the first param varies slowest.
pub fn expand(params: &[Param], zip: &[Vec<String>]) -> Vec<Vec<(String, ParamValue)>> {
    // Each param's axis, by the position of the param that leads it: its own, or its zip group's first
    // member's (a group's lists move together, so the group is one axis).
    let axis_of: Vec<Option<usize>> = params
        .iter()
        .enumerate()
        .map(|(index, param)| match zip.iter().find(|group| group.contains(&param.name)) {
            Some(group) => params.iter().position(|leader| leader.name == group[0]),
            None => Some(index),
        })
        .collect();
    // Each setting as the point it takes on every axis (indexed by the axis's leader).
    let mut points: Vec<Vec<usize>> = vec![vec![0; params.len()]];
    for axis in (0..params.len()).filter(|&index| axis_of[index] == Some(index)) {
        points = points
            .iter()
            .flat_map(|prefix| {
                (0..params[axis].values.len()).map(move |point| {
                    let mut next = prefix.clone();
                    next[axis] = point;
                    next
                })
            })
            .collect();
    }
    let setting = |points: &[usize]| {
        let values = params.iter().zip(&axis_of);
        values.filter_map(|(param, axis)| Some((param.name.clone(), param.values[points[(*axis)?]].clone()))).collect()
    };
    points.iter().map(|points| setting(points)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(name: &str, values: &[i64]) -> Param {
        Param { name: name.into(), values: values.iter().map(|v| ParamValue::Int(*v)).collect(), is_list: true }
    }

    fn render(settings: &[Vec<(String, ParamValue)>]) -> Vec<String> {
        settings.iter().map(|s| s.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")).collect()
    }

    #[test]
    fn cartesian_product_varies_the_first_param_slowest() {
        let settings = expand(&[list("slices", &[1, 4]), list("rows", &[512, 1024, 2048])], &[]);
        assert_eq!(
            render(&settings),
            [
                "slices=1 rows=512",
                "slices=1 rows=1024",
                "slices=1 rows=2048",
                "slices=4 rows=512",
                "slices=4 rows=1024",
                "slices=4 rows=2048"
            ]
        );
    }

    #[test]
    fn zip_groups_move_together_and_keep_declaration_order() {
        let params = [list("rows", &[512, 4096]), list("slices", &[1, 4]), list("new", &[128, 32])];
        let settings = expand(&params, &[vec!["rows".into(), "new".into()]]);
        assert_eq!(
            render(&settings),
            [
                "rows=512 slices=1 new=128",
                "rows=512 slices=4 new=128",
                "rows=4096 slices=1 new=32",
                "rows=4096 slices=4 new=32"
            ]
        );
    }

    #[test]
    fn a_scalar_param_appears_in_every_setting() {
        let scalar = Param { name: "new".into(), values: vec![ParamValue::Int(8)], is_list: false };
        let settings = expand(&[list("slices", &[1, 2]), scalar], &[]);
        assert_eq!(render(&settings), ["slices=1 new=8", "slices=2 new=8"]);
    }

    #[test]
    fn no_params_is_one_empty_setting() {
        assert_eq!(expand(&[], &[]), vec![Vec::new()]);
    }
}
