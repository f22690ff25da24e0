//! Holm's step-down adjustment: family-wise error control over every test a set of verdicts rests on.

/// Holm (1979) adjusted p-values, returned in input order. With the p-values sorted ascending,
/// p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted value of p₍ᵢ₎ is maxⱼ≤ᵢ min(1, (m − j + 1)·p₍ⱼ₎). Rejecting every
/// hypothesis whose adjusted p-value is below alpha keeps the probability of any false rejection at
/// or below alpha whatever the dependence between the tests (R: `p.adjust(p, "holm")`).
pub fn holm_adjust(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![0.0; m];
    let mut running_max: f64 = 0.0;
    for (rank, &index) in order.iter().enumerate() {
        let scaled = ((m - rank) as f64 * p_values[index]).min(1.0);
        running_max = running_max.max(scaled);
        adjusted[index] = running_max;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    #[test]
    fn matches_r_p_adjust_holm() {
        // R 4.3: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
        assert!(close(&holm_adjust(&[0.01, 0.04, 0.03, 0.005]), &[0.03, 0.06, 0.06, 0.02]));
        // p.adjust(c(0.5, 0.001, 0.2), "holm") = 0.500 0.003 0.400
        assert!(close(&holm_adjust(&[0.5, 0.001, 0.2]), &[0.5, 0.003, 0.4]));
    }

    #[test]
    fn adjusted_values_are_capped_at_one_and_never_below_the_raw_value() {
        let raw = [0.9, 0.6, 0.7];
        let adjusted = holm_adjust(&raw);
        assert!(adjusted.iter().all(|&p| p <= 1.0));
        assert!(adjusted.iter().zip(raw).all(|(a, r)| *a >= r));
    }

    #[test]
    fn one_test_is_not_adjusted_and_none_is_empty() {
        assert_eq!(holm_adjust(&[0.03]), vec![0.03]);
        assert!(holm_adjust(&[]).is_empty());
    }
}
