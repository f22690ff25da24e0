#include "model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <cblas.h>

#include "gated_delta.h"
#include "profile.h"
#include "tp.h"
#include "weights.h"

namespace {

constexpr float kNormEps = 1e-6f;
constexpr std::uint64_t kEmbeddingTensor = 1ULL << 40;
// Scales the softplus of the decay gate so decays stay in about (0.87, 1): a state that
// remembers for tens of tokens, like a trained model's.
constexpr float kDecayRate = 0.1f;
// Query rows per full-attention block: a compile-time option (`make TPE_ATTENTION_BLOCK=64`), so a
// build-time sweep has a real knob to turn.
#ifndef TPE_ATTENTION_BLOCK
#define TPE_ATTENTION_BLOCK 128
#endif
constexpr int kAttentionBlock = TPE_ATTENTION_BLOCK;
static_assert(kAttentionBlock > 0, "TPE_ATTENTION_BLOCK must be a positive row count");
constexpr int kPromptPattern[10] = {151, 9707, 11, 1879, 0, 2055, 315, 10896, 13, 198};

void rms_norm(const float* x, float* y, int rows, int cols) {
    PhaseScope scope(Phase::Norm);
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + static_cast<long>(r) * cols;
        float* yr = y + static_cast<long>(r) * cols;
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c) sum += xr[c] * xr[c];
        const float inv = 1.0f / std::sqrt(sum / static_cast<float>(cols) + kNormEps);
        for (int c = 0; c < cols; ++c) yr[c] = xr[c] * inv;
    }
}

void add_residual(float* x, const float* delta, std::size_t n) {
    PhaseScope scope(Phase::Norm);
    for (std::size_t i = 0; i < n; ++i) x[i] += delta[i];
}

void l2_normalise(float* x, int n) {
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) sum += x[i] * x[i];
    const float inv = 1.0f / std::sqrt(sum + kNormEps);
    for (int i = 0; i < n; ++i) x[i] *= inv;
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

float softplus(float x) { return std::log1p(std::exp(x)); }

// Causal softmax over one score row: only the first `valid` columns are visible.
void masked_softmax(float* row, int valid, int cols) {
    float peak = row[0];
    for (int c = 1; c < valid; ++c) peak = std::max(peak, row[c]);
    float sum = 0.0f;
    for (int c = 0; c < valid; ++c) {
        row[c] = std::exp(row[c] - peak);
        sum += row[c];
    }
    const float inv = 1.0f / sum;
    for (int c = 0; c < valid; ++c) row[c] *= inv;
    for (int c = valid; c < cols; ++c) row[c] = 0.0f;
}

}  // namespace

int attention_block() { return kAttentionBlock; }

Model::Model(const Config& cfg, int max_rows, int max_positions, MPI_Comm comm)
    : cfg_(cfg), comm_(comm), max_rows_(max_rows), max_positions_(max_positions) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &world_);
    local_heads_ = cfg.heads / world_;
    local_inter_ = cfg.intermediate / world_;
    const int h = cfg.hidden;
    const int dk = cfg.key_dim;
    const int dv = cfg.value_dim;
    const int head_rows = local_heads_ * dv;
    const int inter = cfg.intermediate;
    const int li = local_inter_;
    const auto identity = [](int c) { return c; };

    for (int l = 0; l < cfg.layers; ++l) {
        Layer layer;
        layer.full = cfg.pattern[l % cfg.pattern.size()] == 'F';
        const std::uint64_t tensor = static_cast<std::uint64_t>(l) * 4;
        const int cols = in_cols(layer);
        const int col_offset = rank * cols;  // heads are contiguous column blocks
        layer.w_in = random_shard(cfg.seed, tensor, h, cols, 0,
                                  [col_offset](int c) { return col_offset + c; }, 1.0f / std::sqrt(h));
        layer.w_out = random_shard(cfg.seed, tensor + 1, head_rows, h, rank * head_rows, identity,
                                   1.0f / std::sqrt(static_cast<float>(cfg.heads * dv)));
        // Global gate_up is [hidden x 2*intermediate], gate columns first; keep this rank's
        // slice of each side by side.
        layer.w_gate_up = random_shard(
            cfg.seed, tensor + 2, h, 2 * li, 0,
            [rank, li, inter](int c) { return c < li ? rank * li + c : inter + rank * li + (c - li); },
            1.0f / std::sqrt(h));
        layer.w_down = random_shard(cfg.seed, tensor + 3, li, h, rank * li, identity,
                                    1.0f / std::sqrt(static_cast<float>(inter)));
        if (layer.full) {
            layer.k_cache.assign(static_cast<std::size_t>(local_heads_) * max_positions * dk, 0.0f);
            layer.v_cache.assign(static_cast<std::size_t>(local_heads_) * max_positions * dv, 0.0f);
        } else {
            layer.state.assign(static_cast<std::size_t>(local_heads_) * dk * dv, 0.0f);
        }
        layers_.push_back(std::move(layer));
    }
    allocate_scratch(max_rows);
    work_.assign(static_cast<std::size_t>(dk) * dv, 0.0f);
    delta_.assign(dv, 0.0f);
}

int Model::head_cols(bool full) const {
    return 2 * cfg_.key_dim + cfg_.value_dim + (full ? 0 : kGateCols);
}

int Model::in_cols(const Layer& layer) const { return local_heads_ * head_cols(layer.full); }

std::vector<float> Model::prompt(int rows) const {
    std::vector<float> x(static_cast<std::size_t>(rows) * cfg_.hidden);
    for (int r = 0; r < rows; ++r) {
        const std::uint64_t token = static_cast<std::uint64_t>(kPromptPattern[r % 10]);
        const std::uint64_t base = splitmix64(cfg_.seed ^ splitmix64(kEmbeddingTensor + token));
        for (int c = 0; c < cfg_.hidden; ++c) {
            x[static_cast<std::size_t>(r) * cfg_.hidden + c] = hash_uniform(splitmix64(base + c));
        }
    }
    return x;
}

void Model::allocate_scratch(int rows) {
    const std::size_t r = rows;
    const int widest_in = local_heads_ * head_cols(false);
    normed_.assign(r * cfg_.hidden, 0.0f);
    proj_.assign(r * widest_in, 0.0f);
    attn_.assign(r * local_heads_ * cfg_.value_dim, 0.0f);
    partial_.assign(r * cfg_.hidden, 0.0f);
    gate_up_.assign(r * 2 * local_inter_, 0.0f);
    act_.assign(r * local_inter_, 0.0f);
    beta_.assign(r * local_heads_, 0.0f);
    decay_.assign(r * local_heads_, 0.0f);
    scores_.assign(static_cast<std::size_t>(std::min(rows, kAttentionBlock)) * max_positions_, 0.0f);
}

void Model::gated_delta(Layer& layer, int rows) {
    const int dk = cfg_.key_dim;
    const int dv = cfg_.value_dim;
    const int per_head = head_cols(false);
    const int cols = in_cols(layer);
    {
        PhaseScope scope(Phase::Elementwise);
        for (int r = 0; r < rows; ++r) {
            for (int h = 0; h < local_heads_; ++h) {
                float* head = proj_.data() + static_cast<long>(r) * cols + h * per_head;
                l2_normalise(head, dk);       // q
                l2_normalise(head + dk, dk);  // k
                const float* gates = head + 2 * dk + dv;
                beta_[static_cast<std::size_t>(h) * rows + r] = sigmoid(gates[0]);
                decay_[static_cast<std::size_t>(h) * rows + r] = std::exp(-kDecayRate * softplus(gates[1]));
            }
        }
    }
    PhaseScope scope(Phase::GatedDelta);
    for (int h = 0; h < local_heads_; ++h) {
        const float* head = proj_.data() + h * per_head;
        GatedDeltaSeq seq{};
        seq.tokens = rows;
        seq.key_dim = dk;
        seq.value_dim = dv;
        seq.q = head;
        seq.k = head + dk;
        seq.v = head + 2 * dk;
        seq.stride = cols;
        seq.beta = beta_.data() + static_cast<std::size_t>(h) * rows;
        seq.decay = decay_.data() + static_cast<std::size_t>(h) * rows;
        seq.q_scale = 1.0f / std::sqrt(static_cast<float>(dk));
        seq.out = attn_.data() + h * dv;
        seq.out_stride = local_heads_ * dv;
        gated_delta_run(seq, layer.state.data() + static_cast<std::size_t>(h) * dk * dv, work_.data(),
                        delta_.data());
    }
}

void Model::full_attention(Layer& layer, int rows) {
    PhaseScope scope(Phase::FullAttention);
    const int dk = cfg_.key_dim;
    const int dv = cfg_.value_dim;
    const int per_head = head_cols(true);
    const int cols = in_cols(layer);
    const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
    for (int h = 0; h < local_heads_; ++h) {
        const float* head = proj_.data() + h * per_head;
        float* k_cache = layer.k_cache.data() + static_cast<std::size_t>(h) * max_positions_ * dk;
        float* v_cache = layer.v_cache.data() + static_cast<std::size_t>(h) * max_positions_ * dv;
        for (int r = 0; r < rows; ++r) {
            const float* src = head + static_cast<long>(r) * cols;
            std::copy(src + dk, src + 2 * dk, k_cache + static_cast<long>(position_ + r) * dk);
            std::copy(src + 2 * dk, src + 2 * dk + dv, v_cache + static_cast<long>(position_ + r) * dv);
        }
        // Query blocks bound the score buffer and skip most of the causally masked columns.
        for (int begin = 0; begin < rows; begin += kAttentionBlock) {
            const int block = std::min(kAttentionBlock, rows - begin);
            const int context = position_ + begin + block;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, block, context, dk, scale,
                        head + static_cast<long>(begin) * cols, cols, k_cache, dk, 0.0f, scores_.data(), context);
            for (int r = 0; r < block; ++r) {
                masked_softmax(scores_.data() + static_cast<long>(r) * context, position_ + begin + r + 1, context);
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, block, dv, context, 1.0f, scores_.data(), context,
                        v_cache, dv, 0.0f, attn_.data() + static_cast<long>(begin) * local_heads_ * dv + h * dv,
                        local_heads_ * dv);
        }
    }
}

void Model::attention_block(Layer& layer, std::vector<float>& x, int rows, int slices) {
    const int h = cfg_.hidden;
    rms_norm(x.data(), normed_.data(), rows, h);
    gemm(normed_.data(), rows, h, layer.w_in.data(), in_cols(layer), proj_.data());
    if (layer.full) {
        full_attention(layer, rows);
    } else {
        gated_delta(layer, rows);
    }
    // lin.out / full.out
    row_parallel(attn_.data(), rows, local_heads_ * cfg_.value_dim, layer.w_out.data(), h, partial_.data(),
                 slices, comm_);
    add_residual(x.data(), partial_.data(), static_cast<std::size_t>(rows) * h);
}

void Model::mlp_block(Layer& layer, std::vector<float>& x, int rows, int slices) {
    const int h = cfg_.hidden;
    const int li = local_inter_;
    rms_norm(x.data(), normed_.data(), rows, h);
    gemm(normed_.data(), rows, h, layer.w_gate_up.data(), 2 * li, gate_up_.data());
    {
        PhaseScope scope(Phase::Elementwise);  // SwiGLU
        for (int r = 0; r < rows; ++r) {
            const float* gate = gate_up_.data() + static_cast<long>(r) * 2 * li;
            const float* up = gate + li;
            float* out = act_.data() + static_cast<long>(r) * li;
            for (int c = 0; c < li; ++c) out[c] = gate[c] * sigmoid(gate[c]) * up[c];
        }
    }
    // mlp.down
    row_parallel(act_.data(), rows, li, layer.w_down.data(), h, partial_.data(), slices, comm_);
    add_residual(x.data(), partial_.data(), static_cast<std::size_t>(rows) * h);
}

// Always on (not an assert that NDEBUG removes): past these bounds forward writes outside the
// scratch buffers and the KV cache, which are sized once in the constructor.
void Model::check_forward_bounds(const std::vector<float>& x, int rows) const {
    const bool rows_ok = rows >= 1 && rows <= max_rows_;
    const bool positions_ok = rows_ok && position_ <= max_positions_ - rows;
    const bool input_ok = x.size() >= static_cast<std::size_t>(rows) * cfg_.hidden;
    if (rows_ok && positions_ok && input_ok) return;
    std::fprintf(stderr, "tp-engine: forward called with %d rows at position %d (max rows %d, max positions %d, "
                 "input %zu floats)\n", rows, position_, max_rows_, max_positions_, x.size());
    MPI_Abort(comm_, 3);
}

void Model::reset() {
    for (Layer& layer : layers_) {
        std::fill(layer.state.begin(), layer.state.end(), 0.0f);
        std::fill(layer.k_cache.begin(), layer.k_cache.end(), 0.0f);
        std::fill(layer.v_cache.begin(), layer.v_cache.end(), 0.0f);
    }
    position_ = 0;
}

void Model::forward(std::vector<float>& x, int rows, int slices) {
    check_forward_bounds(x, rows);
    StackScope stack;
    for (Layer& layer : layers_) {
        attention_block(layer, x, rows, slices);
        mlp_block(layer, x, rows, slices);
    }
    const std::size_t n = static_cast<std::size_t>(rows) * cfg_.hidden;
    rms_norm(x.data(), x.data(), rows, cfg_.hidden);
    // The final hidden-state reduce (the study's 129th collective). Every rank already holds
    // the same values; averaging them makes the next token's input bit-identical on every rank
    // even if an MPI implementation rounds a sum differently on different ranks.
    all_reduce_sum(x.data(), n, comm_);
    {
        PhaseScope scope(Phase::Norm);
        const float inv = 1.0f / static_cast<float>(world_);
        for (std::size_t i = 0; i < n; ++i) x[i] *= inv;
    }
    position_ += rows;
}
