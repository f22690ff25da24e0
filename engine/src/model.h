// The decoder stack: random weights from a seed, this rank's 1/N of every head and of the MLP.
#pragma once

#include <vector>

#include <mpi.h>

#include "config.h"

// The gated-delta in-projection carries two scalars per head and token after q, k and v:
// the write strength (beta) and the decay gate.
constexpr int kGateCols = 2;

// Query rows per full-attention block, as compiled (TPE_ATTENTION_BLOCK); printed with the result.
int attention_block();

class Model {
public:
    // `max_rows` bounds the rows of one forward call; `max_positions` bounds prompt plus decoded
    // rows (the full-attention KV cache size). All memory is allocated here, not in forward.
    Model(const Config& cfg, int max_rows, int max_positions, MPI_Comm comm);

    // Runs `rows` rows through the stack at the next positions. x is [rows x hidden], the same
    // on every rank, and is replaced by the final normalised hidden state. `slices` is the
    // overlap slice count of the row-parallel projections (1 = serial). 1 <= rows <= max_rows and
    // the positions so far plus rows <= max_positions, checked: a violation aborts the job.
    void forward(std::vector<float>& x, int rows, int slices);

    // Forgets every processed row (KV caches, gated-delta states, position), so the next forward
    // computes exactly what the first one did: a repeated prefill of the same prompt.
    void reset();

    // Embeddings of `rows` prompt rows: a fixed 10-token pattern repeated, like the study's prompt.
    std::vector<float> prompt(int rows) const;

private:
    struct Layer {
        bool full;                      // full attention, else gated delta
        std::vector<float> w_in;        // [hidden x in_cols], column-parallel
        std::vector<float> w_out;       // [local_heads*value_dim x hidden], row-parallel
        std::vector<float> w_gate_up;   // [hidden x 2*local_inter], column-parallel
        std::vector<float> w_down;      // [local_inter x hidden], row-parallel
        std::vector<float> state;       // gated delta: [local_heads][key_dim][value_dim]
        std::vector<float> k_cache;     // full attention: [local_heads][max_positions][key_dim]
        std::vector<float> v_cache;     // full attention: [local_heads][max_positions][value_dim]
    };

    int in_cols(const Layer& layer) const;
    int head_cols(bool full) const;
    void allocate_scratch(int rows);
    void attention_block(Layer& layer, std::vector<float>& x, int rows, int slices);
    void mlp_block(Layer& layer, std::vector<float>& x, int rows, int slices);
    void gated_delta(Layer& layer, int rows);
    void full_attention(Layer& layer, int rows);
    void check_forward_bounds(const std::vector<float>& x, int rows) const;

    Config cfg_;
    MPI_Comm comm_;
    int world_;
    int local_heads_;
    int local_inter_;
    int max_rows_;
    int max_positions_;
    int position_ = 0;  // rows already processed
    std::vector<Layer> layers_;

    // Scratch for max_rows rows.
    std::vector<float> normed_, proj_, attn_, partial_, gate_up_, act_, beta_, decay_, scores_;
    std::vector<float> work_, delta_;  // gated-delta kernel scratch, zeroed once
};
