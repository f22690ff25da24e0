//! `VariantName`: a kernel variant as the groups it ablates; its name is derived from them.

use std::fmt;

/// The variant that ablates some of the declared groups, kept in declaration order. Its name is
/// `baseline` when nothing is ablated, else the groups joined by `+`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VariantName {
    ablated: Vec<String>,
}

impl VariantName {
    pub const BASELINE: &'static str = "baseline";

    /// The variant ablating `ablated` (declared groups in declaration order).
    pub fn ablating(ablated: Vec<String>) -> VariantName {
        VariantName { ablated }
    }

    pub fn ablated(&self) -> &[String] {
        &self.ablated
    }

    /// The variant a recorded name stands for: `None` for a name `sweep` never writes for these
    /// groups (an unknown group, or known groups out of declaration order).
    pub fn parse(name: &str, groups: &[String]) -> Option<VariantName> {
        if name == Self::BASELINE {
            return Some(VariantName::default());
        }
        let indices: Vec<usize> =
            name.split('+').map(|part| groups.iter().position(|g| g == part)).collect::<Option<_>>()?;
        let ordered = indices.windows(2).all(|pair| pair[0] < pair[1]);
        ordered.then(|| VariantName::ablating(indices.into_iter().map(|i| groups[i].clone()).collect()))
    }

    /// The declaration indices of its groups, for ordering variants as a design lists them.
    pub fn group_indices(&self, groups: &[String]) -> Vec<usize> {
        self.ablated.iter().filter_map(|group| groups.iter().position(|g| g == group)).collect()
    }
}

impl fmt::Display for VariantName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ablated.is_empty() {
            f.write_str(Self::BASELINE)
        } else {
            f.write_str(&self.ablated.join("+"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn names_round_trip_through_parse() {
        let groups = names(&["broadcast_rows", "rank1_update"]);
        for ablated in [vec![], names(&["rank1_update"]), groups.clone()] {
            let variant = VariantName::ablating(ablated.clone());
            assert_eq!(VariantName::parse(&variant.to_string(), &groups).unwrap().ablated(), ablated);
        }
        assert_eq!(VariantName::ablating(groups.clone()).to_string(), "broadcast_rows+rank1_update");
        assert_eq!(VariantName::default().to_string(), "baseline");
    }

    #[test]
    fn names_sweep_never_writes_are_not_variants() {
        let groups = names(&["a", "b"]);
        assert_eq!(VariantName::parse("b+a", &groups), None);
        assert_eq!(VariantName::parse("a+c", &groups), None);
        assert_eq!(VariantName::parse("default", &groups), None);
    }
}
