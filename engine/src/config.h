// Command-line and environment configuration of tp-engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "link.h"

// How the row-parallel projections pick their overlap slice count (see tp.h).
struct SlicePolicy {
    int forced = -1;               // TPE_OVERLAP_SLICES; -1 when unset
    // TPE_MIN_ROWS_PER_SLICE. Measured on 2 CPU ranks (README): serial beat every split up to
    // 8192 rows, so the rule first splits at 16384 rows.
    int min_rows_per_slice = 8192;
    int ceiling = 4;               // TPE_OVERLAP_CEILING
};

struct Config {
    // Model shape. Every layer has an MLP; `pattern` (cycled over the layers) says which
    // attention it has: 'L' gated-delta linear attention, 'F' full softmax attention.
    // The defaults are the tiny preset.
    int hidden = 256;
    int layers = 4;
    std::string pattern = "LLLF";
    int heads = 8;       // attention heads, split across ranks
    int key_dim = 64;    // per-head query/key width
    int value_dim = 128; // per-head value width
    int intermediate = 512;  // MLP width, split across ranks
    std::uint64_t seed = 1;

    int rows = 512;       // prompt rows (prefill)
    int new_tokens = 8;   // decode steps
    // --prefill-reps N: with N > 1, one untimed warm prefill, then N timed ones of the same prompt
    // (state reset between them, as the study's --resident-bench); prefill_seconds is their median.
    int prefill_reps = 1;

    LinkConfig link;  // --link-alpha-us and --link-gbps, together; off without them

    bool help = false;
    bool allreduce_bench = false;
    std::vector<std::size_t> bench_bytes;

    SlicePolicy slices;
    bool phase_profile = false;  // TPE_PHASE_PROFILE=1
};

// Parses argv and the TPE_* environment and validates the result against the world size.
// Deterministic, so every rank reaches the same verdict. On failure returns false and sets
// `error` to one sentence.
bool parse_config(int argc, char** argv, int world, Config& cfg, std::string& error);

const char* usage_text();
