// Gated-delta recurrence, written with the same structure as the Ascend kernel on purpose:
// k^T S and q^T S are a broadcast of the vector across key rows, an elementwise multiply with
// S and a pairwise fold over key rows, and the rank-1 update is one Axpy per key row. It is
// not a matvec because the ablation study removes these groups to price their instructions.
//
// The ABLATE markers delimit the groups an ablation template removes; with a group removed
// the kernel must still compile and run. Keep this file free of double braces (handlebars).
#include "gated_delta.h"

#include <algorithm>

namespace {

void scale(float* x, float factor, int n) {
    for (int i = 0; i < n; ++i) x[i] *= factor;
}

// work[i][:] = x[i] for every key row i. maybe_unused: an ablated variant drops every call.
[[maybe_unused]] void broadcast_rows(float* work, const float* x, int rows, int cols) {
    for (int i = 0; i < rows; ++i) std::fill(work + i * cols, work + (i + 1) * cols, x[i]);
}

void multiply(float* work, const float* s, int n) {
    for (int i = 0; i < n; ++i) work[i] *= s[i];
}

// Pairwise tree sum over rows, in place; the total lands in row 0.
void fold_rows(float* work, int rows, int cols) {
    for (int n = rows; n > 1;) {
        const int half = (n + 1) / 2;
        for (int i = 0; i + half < n; ++i) {
            float* dst = work + i * cols;
            const float* src = work + (i + half) * cols;
            for (int j = 0; j < cols; ++j) dst[j] += src[j];
        }
        n = half;
    }
}

[[maybe_unused]] void axpy(float a, const float* x, float* y, int n) {
    for (int j = 0; j < n; ++j) y[j] += a * x[j];
}

}  // namespace

void gated_delta_run(const GatedDeltaSeq& seq, float* state, float* work, float* delta) {
    const int dk = seq.key_dim;
    const int dv = seq.value_dim;
    const int n = dk * dv;
    for (int t = 0; t < seq.tokens; ++t) {
        // maybe_unused: ablating the broadcast_rows and rank1_update groups removes every use.
        [[maybe_unused]] const float* q = seq.q + static_cast<long>(t) * seq.stride;
        [[maybe_unused]] const float* k = seq.k + static_cast<long>(t) * seq.stride;
        const float* v = seq.v + static_cast<long>(t) * seq.stride;
        float* out = seq.out + static_cast<long>(t) * seq.out_stride;

        scale(state, seq.decay[t], n);

        // kv_mem = k^T S, left in row 0 of work.
        // ABLATE-BEGIN broadcast_rows
        broadcast_rows(work, k, dk, dv);
        // ABLATE-END broadcast_rows
        multiply(work, state, n);
        fold_rows(work, dk, dv);

        for (int j = 0; j < dv; ++j) delta[j] = (v[j] - work[j]) * seq.beta[t];

        // S += k delta^T, one Axpy per key row.
        // ABLATE-BEGIN rank1_update
        for (int i = 0; i < dk; ++i) axpy(k[i], delta, state + i * dv, dv);
        // ABLATE-END rank1_update

        // out = q^T S, scaled.
        // ABLATE-BEGIN broadcast_rows
        broadcast_rows(work, q, dk, dv);
        // ABLATE-END broadcast_rows
        multiply(work, state, n);
        fold_rows(work, dk, dv);
        for (int j = 0; j < dv; ++j) out[j] = work[j] * seq.q_scale;
    }
}
