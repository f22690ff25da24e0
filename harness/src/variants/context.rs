//! The render context of one variant: the sweep's parameters plus one `ablate.<group>` flag per group.

use serde_json::{Map, Value};

/// `params` plus `ablate: {group: bool}` with every group present, so strict mode rejects a misspelt
/// group in an expression (`TemplateTarget::check_groups` covers `#if`/`#unless`, which strict mode does not).
pub fn variant_context(groups: &[String], ablated: &[String], params: &Map<String, Value>) -> Value {
    let flags: Map<String, Value> =
        groups.iter().map(|group| (group.clone(), Value::Bool(ablated.contains(group)))).collect();
    let mut context = params.clone();
    context.insert("ablate".to_string(), Value::Object(flags));
    Value::Object(context)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::Template;
    use serde_json::json;

    fn groups() -> Vec<String> {
        vec!["broadcast_rows".to_string(), "rank1_update".to_string()]
    }

    #[test]
    fn every_group_has_a_flag_and_params_survive() {
        let params = json!({"rows": 512}).as_object().unwrap().clone();
        let context = variant_context(&groups(), &["rank1_update".to_string()], &params);
        assert_eq!(context, json!({"rows": 512, "ablate": {"broadcast_rows": false, "rank1_update": true}}));
    }

    #[test]
    fn misspelt_group_in_an_expression_is_an_error() {
        let context = variant_context(&groups(), &[], &Map::new());
        assert!(Template::parse("{{ablate.broadcast_row}}").unwrap().render(&context).is_err());
        assert_eq!(Template::parse("{{ablate.broadcast_rows}}").unwrap().render(&context).unwrap(), "false");
    }

    /// Strict mode does not reach `#if`/`#unless` arguments: a misspelt group there renders as "not
    /// ablated". `TemplateTarget::check_groups` exists for this; this test pins the handlebars behaviour.
    #[test]
    fn strict_mode_does_not_check_if_unless_arguments() {
        let context = variant_context(&groups(), &[], &Map::new());
        assert_eq!(
            Template::parse("{{#unless ablate.broadcast_row}}x{{/unless}}").unwrap().render(&context).unwrap(),
            "x"
        );
    }
}
