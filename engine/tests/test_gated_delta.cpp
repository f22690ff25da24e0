// The gated-delta kernel against a double-precision host reference of the same recurrence
// written as plain matvecs: S *= decay; kv = k^T S; S += k ((v - kv) beta)^T; out = q^T S q_scale.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "gated_delta.h"

namespace {

// fp32 summation over a 64- or 128-row fold and thousands of recurrent steps stays well
// inside this; a structural bug (wrong row, missing decay) is off by order 1.
constexpr double kMaxRelativeError = 1e-4;

struct Case {
    int tokens, key_dim, value_dim;
};

void normalise(std::vector<float>& x, int offset, int n) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += double(x[offset + i]) * x[offset + i];
    for (int i = 0; i < n; ++i) x[offset + i] = float(x[offset + i] / std::sqrt(sum + 1e-6));
}

std::vector<double> reference(const Case& c, const std::vector<float>& qkv, int stride,
                              const std::vector<float>& beta, const std::vector<float>& decay, float q_scale) {
    const int dk = c.key_dim, dv = c.value_dim;
    std::vector<double> s(std::size_t(dk) * dv, 0.0), out(std::size_t(c.tokens) * dv, 0.0);
    for (int t = 0; t < c.tokens; ++t) {
        const float* q = qkv.data() + std::size_t(t) * stride;
        const float* k = q + dk;
        const float* v = k + dk;
        for (double& x : s) x *= decay[t];
        for (int j = 0; j < dv; ++j) {
            double kv = 0.0;
            for (int i = 0; i < dk; ++i) kv += double(k[i]) * s[std::size_t(i) * dv + j];
            const double delta = (v[j] - kv) * beta[t];
            for (int i = 0; i < dk; ++i) s[std::size_t(i) * dv + j] += double(k[i]) * delta;
        }
        for (int j = 0; j < dv; ++j) {
            double o = 0.0;
            for (int i = 0; i < dk; ++i) o += double(q[i]) * s[std::size_t(i) * dv + j];
            out[std::size_t(t) * dv + j] = o * q_scale;
        }
    }
    return out;
}

// Returns the worst error relative to the largest reference magnitude.
double run_case(const Case& c, std::mt19937& rng) {
    const int dk = c.key_dim, dv = c.value_dim;
    const int stride = 2 * dk + dv;
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f), unit(0.0f, 1.0f);
    std::vector<float> qkv(std::size_t(c.tokens) * stride), beta(c.tokens), decay(c.tokens);
    for (float& x : qkv) x = uni(rng);
    for (int t = 0; t < c.tokens; ++t) {
        normalise(qkv, t * stride, dk);
        normalise(qkv, t * stride + dk, dk);
        beta[t] = unit(rng);
        decay[t] = 0.85f + 0.15f * unit(rng);
    }
    const float q_scale = 1.0f / std::sqrt(float(dk));
    std::vector<float> state(std::size_t(dk) * dv, 0.0f), work(state.size(), 0.0f), delta(dv, 0.0f);
    std::vector<float> out(std::size_t(c.tokens) * dv, 0.0f);
    GatedDeltaSeq seq{c.tokens, dk, dv, qkv.data(), qkv.data() + dk, qkv.data() + 2 * dk, stride,
                      beta.data(), decay.data(), q_scale, out.data(), dv};
    gated_delta_run(seq, state.data(), work.data(), delta.data());

    const std::vector<double> ref = reference(c, qkv, stride, beta, decay, q_scale);
    double peak = 0.0, worst = 0.0;
    for (double r : ref) peak = std::max(peak, std::fabs(r));
    for (std::size_t i = 0; i < ref.size(); ++i) {
        if (!std::isfinite(out[i])) return INFINITY;
        worst = std::max(worst, std::fabs(out[i] - ref[i]) / peak);
    }
    return worst;
}

}  // namespace

int main() {
    // Odd key dims exercise the uneven pairwise fold.
    const Case cases[] = {{1, 4, 4}, {37, 7, 5}, {300, 64, 64}, {1000, 128, 128}, {200, 33, 96}};
    std::mt19937 rng(1234);
    int failures = 0;
    double worst_overall = 0.0;
    for (const Case& c : cases) {
        const double worst = run_case(c, rng);
        worst_overall = std::max(worst_overall, worst);
        const bool ok = worst <= kMaxRelativeError;
        failures += ok ? 0 : 1;
        std::printf("%s gated_delta tokens=%d key_dim=%d value_dim=%d worst_rel_error=%.3g\n", ok ? "ok  " : "FAIL",
                    c.tokens, c.key_dim, c.value_dim, worst);
    }
    std::printf("gated_delta kernel: worst relative error %.3g (bound %.0e), %d failure(s)\n", worst_overall,
                kMaxRelativeError, failures);
    return failures == 0 ? 0 : 1;
}
