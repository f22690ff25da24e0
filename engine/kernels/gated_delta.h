// Gated-delta linear-attention recurrence for one head.
#pragma once

// One head's token sequence. Rows are `stride` floats apart in q, k, v (they live inside the
// fused in-projection output) and `out_stride` apart in out.
struct GatedDeltaSeq {
    int tokens;
    int key_dim;
    int value_dim;
    const float* q;
    const float* k;
    const float* v;
    int stride;
    const float* beta;   // [tokens], write strength in (0, 1)
    const float* decay;  // [tokens], state decay in (0, 1)
    float q_scale;
    float* out;
    int out_stride;
};

// Advances the fp32 state S[key_dim][value_dim] over every token of `seq`, writing one output
// row per token. `work` is key_dim * value_dim floats of scratch and `delta` value_dim floats;
// the caller zeroes `work` once at allocation so an ablated variant never reads garbage.
void gated_delta_run(const GatedDeltaSeq& seq, float* state, float* work, float* delta);
