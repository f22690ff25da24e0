//! Benjamini-Hochberg adjusted p-values (Benjamini & Hochberg 1995): the false discovery rate of the
//! changes reported across many series is at most the level they are read at.

/// Each p's adjusted value, in the order given: `min over j >= rank of p_(j) * m / j`, capped at 1.
pub fn adjusted(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![1.0; m];
    let mut running = 1.0f64;
    for (rank, &index) in order.iter().enumerate().rev() {
        running = running.min(p[index] * m as f64 / (rank + 1) as f64);
        adjusted[index] = running.min(1.0);
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjusted_values_match_the_step_up_rule() {
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.2), "BH") = 0.04 0.05333 0.05333 0.2
        let q = adjusted(&[0.01, 0.04, 0.03, 0.2]);
        let expected = [0.04, 0.04 * 4.0 / 3.0, 0.04 * 4.0 / 3.0, 0.2];
        assert!(q.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-12), "{q:?}");
    }
}
