//! The trigamma function, its inverse and the tetragamma function: what fitting a variance prior needs
//! beyond statrs' digamma.

/// ψ₁(x) = d²/dx² ln Γ(x) for x > 0: the recurrence ψ₁(x) = ψ₁(x + 1) + 1/x² up to x ≥ 8, then the
/// asymptotic series 1/x + 1/(2x²) + Σ B₂ₖ/x^(2k+1) (Abramowitz & Stegun 6.4.12), accurate to ~1e-12.
pub fn trigamma(mut x: f64) -> f64 {
    let mut shifted = 0.0;
    while x < 8.0 {
        shifted += 1.0 / (x * x);
        x += 1.0;
    }
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    let series = inv
        + inv2 / 2.0
        + inv
            * inv2
            * (1.0 / 6.0 - inv2 * (1.0 / 30.0 - inv2 * (1.0 / 42.0 - inv2 * (1.0 / 30.0 - inv2 * 5.0 / 66.0))));
    shifted + series
}

/// ψ₂(x) = d³/dx³ ln Γ(x) for x > 0: ψ₂(x) = ψ₂(x + 1) − 2/x³ up to x ≥ 8, then the asymptotic series
/// −1/x² − 1/x³ − Σ (2k + 1) B₂ₖ / x^(2k+2) (Abramowitz & Stegun 6.4.13).
pub fn tetragamma(mut x: f64) -> f64 {
    let mut shifted = 0.0;
    while x < 8.0 {
        shifted -= 2.0 / (x * x * x);
        x += 1.0;
    }
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    let series = -inv2
        - inv2 * inv
        - inv2 * inv2 * (0.5 - inv2 * (1.0 / 6.0 - inv2 * (1.0 / 6.0 - inv2 * (3.0 / 10.0 - inv2 * 5.0 / 6.0))));
    shifted + series
}

/// The y > 0 with ψ₁(y) = `x`, by Newton's method on 1/ψ₁ as limma's `trigammaInverse` does (Smyth 2004,
/// appendix): start at 0.5 + 1/x, step y += ψ₁(y)(1 − ψ₁(y)/x)/ψ₂(y) until the relative step is below
/// 1e-8. Huge and tiny `x` use the limits ψ₁(y) ≈ 1/y² as y → 0 and ψ₁(y) ≈ 1/y as y → ∞.
pub fn trigamma_inverse(x: f64) -> f64 {
    if x > 1e7 {
        return 1.0 / x.sqrt();
    }
    if x < 1e-6 {
        return 1.0 / x;
    }
    let mut y = 0.5 + 1.0 / x;
    for _ in 0..50 {
        let tri = trigamma(y);
        let step = tri * (1.0 - tri / x) / tetragamma(y);
        y += step;
        if -step / y < 1e-8 {
            break;
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trigamma_matches_known_values() {
        // ψ₁(1) = π²/6; ψ₁(1/2) = π²/2; R: trigamma(3.7) = 0.3100378577; trigamma(50) = 0.0202013332
        assert!((trigamma(1.0) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-11);
        assert!((trigamma(0.5) - std::f64::consts::PI.powi(2) / 2.0).abs() < 1e-11);
        assert!((trigamma(3.7) - 0.310_037_857_7).abs() < 1e-9, "{}", trigamma(3.7));
        assert!((trigamma(50.0) - 0.020_201_333_2).abs() < 1e-9, "{}", trigamma(50.0));
    }

    #[test]
    fn tetragamma_matches_known_values() {
        // ψ₂(1) = −2ζ(3) = −2.4041138063; R: psigamma(4.2, 2) = −0.0717648506
        assert!((tetragamma(1.0) + 2.404_113_806_3).abs() < 1e-9);
        assert!((tetragamma(4.2) + 0.071_764_850_6).abs() < 1e-9, "{}", tetragamma(4.2));
    }

    #[test]
    fn the_inverse_inverts() {
        for y in [0.01, 0.3, 1.0, 2.5, 17.0, 400.0] {
            let back = trigamma_inverse(trigamma(y));
            assert!((back - y).abs() / y < 1e-6, "{y} -> {back}");
        }
    }
}
