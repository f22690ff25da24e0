//! `near_name`: the declared name a misspelt one most likely meant (`grup_by` -> `group_by`), by edit
//! distance, for the "did you mean" of an error.

/// The candidate closest to `name` within a third of its length (at least one edit), if any.
pub fn near_name<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|candidate| *candidate != name)
        .map(|candidate| (strsim::damerau_levenshtein(name, candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// `; did you mean `x`?` when a candidate is near `name`, else nothing.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    near_name(name, candidates).map_or(String::new(), |near| format!("; did you mean `{near}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_its_name_and_a_stranger_finds_none() {
        let keys = ["primary", "group_by", "control"];
        assert_eq!(near_name("grup_by", keys), Some("group_by"));
        assert_eq!(near_name("gruop_by", keys), Some("group_by"));
        assert_eq!(near_name("colour", keys), None);
        assert_eq!(did_you_mean("rep", ["reps", "run"]), "; did you mean `reps`?");
        assert_eq!(did_you_mean("zzz", ["reps"]), "");
    }
}
