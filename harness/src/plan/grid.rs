//! Expands `[params]` into settings: the cartesian product of axes, where a zip group is one axis.

use crate::declare::{Param, ParamValue};

/// One axis of the product: a lone param, or a zip group whose lists move together.
struct Axis<'a> {
    names: Vec<&'a str>,
    /// Each point gives one value per name.
    points: Vec<Vec<&'a ParamValue>>,
}

/// All settings in declaration order; the first param varies slowest.
pub fn expand(params: &[Param], zip: &[Vec<String>]) -> Vec<Vec<(String, ParamValue)>> {
    let axes = axes(params, zip);
    let mut settings: Vec<Vec<(&str, &ParamValue)>> = vec![Vec::new()];
    for axis in &axes {
        settings = settings
            .iter()
            .flat_map(|prefix| {
                axis.points.iter().map(move |point| {
                    let mut next = prefix.clone();
                    next.extend(axis.names.iter().copied().zip(point.iter().copied()));
                    next
                })
            })
            .collect();
    }
    settings.into_iter().map(|setting| in_param_order(params, setting)).collect()
}

fn axes<'a>(params: &'a [Param], zip: &'a [Vec<String>]) -> Vec<Axis<'a>> {
    let mut axes: Vec<Axis<'a>> = Vec::new();
    for param in params {
        match zip.iter().find(|group| group.contains(&param.name)) {
            Some(group) if group[0] != param.name => {} // joined the axis of the group's first member
            Some(group) => axes.push(zip_axis(params, group)),
            None => {
                axes.push(Axis { names: vec![&param.name], points: param.values.iter().map(|v| vec![v]).collect() })
            }
        }
    }
    axes
}

fn zip_axis<'a>(params: &'a [Param], group: &'a [String]) -> Axis<'a> {
    let members: Vec<&Param> = group.iter().filter_map(|name| params.iter().find(|p| &p.name == name)).collect();
    let length = members.first().map_or(0, |param| param.values.len());
    Axis {
        names: members.iter().map(|param| param.name.as_str()).collect(),
        points: (0..length).map(|i| members.iter().map(|param| &param.values[i]).collect()).collect(),
    }
}

/// Zip groups gather their members onto one axis; put columns back in declaration order.
fn in_param_order(params: &[Param], setting: Vec<(&str, &ParamValue)>) -> Vec<(String, ParamValue)> {
    params
        .iter()
        .filter_map(|param| setting.iter().find(|(name, _)| *name == param.name))
        .map(|(name, value)| (name.to_string(), (*value).clone()))
        .collect()
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
