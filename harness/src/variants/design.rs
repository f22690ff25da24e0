//! `design_variants`: which subsets of the ablation groups become variants, in which order.

use crate::declare::{Design, VariantName};

/// Expands `groups` into variants: baseline first, then by subset size, then declaration order.
pub fn design_variants(groups: &[String], design: Design) -> Vec<VariantName> {
    let mut subsets = match design {
        Design::Factorial => all_subsets(groups.len()),
        Design::OneAtATime => one_at_a_time_subsets(groups.len()),
    };
    // Sorting index lists lexicographically within a size keeps declaration order.
    subsets.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    subsets
        .into_iter()
        .map(|subset| VariantName::ablating(subset.into_iter().map(|i| groups[i].clone()).collect()))
        .collect()
}

fn all_subsets(count: usize) -> Vec<Vec<usize>> {
    (0..1usize << count).map(|mask| (0..count).filter(|i| mask & (1 << i) != 0).collect()).collect()
}

fn one_at_a_time_subsets(count: usize) -> Vec<Vec<usize>> {
    let mut subsets = vec![Vec::new()];
    subsets.extend((0..count).map(|i| vec![i]));
    // With one group, "all groups" is that group alone: no duplicate variant.
    if count > 1 {
        subsets.push((0..count).collect());
    }
    subsets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    fn names(variants: &[VariantName]) -> Vec<String> {
        variants.iter().map(VariantName::to_string).collect()
    }

    #[test]
    fn factorial_of_two_groups_is_four_variants_baseline_first() {
        let variants = design_variants(&groups(&["broadcast_rows", "rank1_update"]), Design::Factorial);
        assert_eq!(names(&variants), ["baseline", "broadcast_rows", "rank1_update", "broadcast_rows+rank1_update"]);
        assert_eq!(variants[3].ablated(), groups(&["broadcast_rows", "rank1_update"]));
        assert!(variants[0].ablated().is_empty());
    }

    #[test]
    fn factorial_orders_by_size_then_declaration() {
        let variants = design_variants(&groups(&["c", "a", "b"]), Design::Factorial);
        assert_eq!(names(&variants), ["baseline", "c", "a", "b", "c+a", "c+b", "a+b", "c+a+b"]);
    }

    #[test]
    fn one_at_a_time_is_baseline_each_group_and_all() {
        let variants = design_variants(&groups(&["x", "y", "z"]), Design::OneAtATime);
        assert_eq!(names(&variants), ["baseline", "x", "y", "z", "x+y+z"]);
    }

    #[test]
    fn one_at_a_time_with_one_group_has_no_duplicate_all() {
        let variants = design_variants(&groups(&["x"]), Design::OneAtATime);
        assert_eq!(names(&variants), ["baseline", "x"]);
    }
}
