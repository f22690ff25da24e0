//! A count with its noun, singular for one (`1 rank`, `2 ranks`), for every message that counts.

/// `1 run`, `3 runs`, `0 runs`: `noun` is the singular, its plural adds `s` (every noun counted so far).
pub fn counted(count: usize, noun: &str) -> String {
    format!("{count} {noun}{}", if count == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "1 ranks" and "All 1 runs" were printed: one is singular.
    #[test]
    fn one_is_singular_and_any_other_count_plural() {
        assert_eq!(counted(1, "rank"), "1 rank");
        assert_eq!(counted(2, "rank"), "2 ranks");
        assert_eq!(counted(0, "run"), "0 runs");
        assert_eq!(counted(1, "finished run"), "1 finished run");
    }
}
