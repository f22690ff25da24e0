//! `sweep ablate --show`: which instructions a variant removes, as a diff, before any machine time is spent.

use super::ablation::Ablation;
use super::runner_error::RunnerError;
use crate::plan::Plan;
use crate::spec::VariantName;
use crate::variants;

impl Ablation<'_> {
    /// The unified diff of `variant`'s sources against the shipped ones, params from the first setting;
    /// empty when it renders them unchanged. Any subset of the groups may be shown, designed or not.
    pub fn show(&self, plan: &Plan, variant: &str) -> Result<String, RunnerError> {
        let groups = &self.decl.groups;
        let ablated = ablated_groups(variant, groups)
            .ok_or_else(|| RunnerError::UnknownVariant { name: variant.to_string(), groups: groups.join(", ") })?;
        let files = self.render_ablating(&ablated, &plan.settings[0].context())?;
        let name = VariantName::ablating(ablated).to_string();
        Ok(variants::source_diff(&self.sweep.engine.tree, &files, &name)?)
    }
}

/// `baseline`, `all` (also `both` when there are two groups), or groups joined by `+` in any order; the
/// groups come back in declaration order, as the variant's name lists them.
fn ablated_groups(variant: &str, groups: &[String]) -> Option<Vec<String>> {
    match variant {
        VariantName::BASELINE => return Some(Vec::new()),
        "all" => return Some(groups.to_vec()),
        "both" if groups.len() == 2 => return Some(groups.to_vec()),
        _ => {}
    }
    let named: Vec<&str> = variant.split('+').collect();
    if named.iter().any(|name| !groups.iter().any(|group| group == name)) {
        return None;
    }
    Some(groups.iter().filter(|group| named.contains(&group.as_str())).cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups() -> Vec<String> {
        vec!["broadcast_rows".to_string(), "rank1_update".to_string()]
    }

    #[test]
    fn both_all_and_any_order_name_the_groups_in_declaration_order() {
        for name in ["both", "all", "rank1_update+broadcast_rows", "broadcast_rows+rank1_update"] {
            assert_eq!(ablated_groups(name, &groups()).unwrap(), groups(), "{name}");
        }
        assert_eq!(ablated_groups("rank1_update", &groups()).unwrap(), ["rank1_update"]);
        assert!(ablated_groups("baseline", &groups()).unwrap().is_empty());
    }

    #[test]
    fn unknown_groups_and_both_of_three_are_refused() {
        assert_eq!(ablated_groups("rank1_updat", &groups()), None);
        let three = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(ablated_groups("both", &three), None);
    }
}
