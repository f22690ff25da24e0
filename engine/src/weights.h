// Deterministic random weights: every element is a hash of (seed, tensor, global row, global
// column), so a rank's shard holds exactly the elements of the unsharded matrix and runs with
// different rank counts compute the same model.
#pragma once

#include <cstdint>
#include <vector>

inline std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Uniform in [-1, 1) from a hash.
inline float hash_uniform(std::uint64_t h) {
    return static_cast<float>(static_cast<double>(h >> 40) / static_cast<double>(1ULL << 23) - 1.0);
}

// Fills a [rows x cols] row-major shard. Shard element (r, c) is element
// (r + row_offset, col_of(c)) of the global tensor, scaled uniform in [-scale, scale).
template <typename ColMap>
std::vector<float> random_shard(std::uint64_t seed, std::uint64_t tensor, int rows, int cols,
                                int row_offset, ColMap col_of, float scale) {
    std::vector<float> out(static_cast<std::size_t>(rows) * cols);
    const std::uint64_t base = splitmix64(seed ^ splitmix64(tensor));
    for (int r = 0; r < rows; ++r) {
        const std::uint64_t row_hash = splitmix64(base ^ static_cast<std::uint64_t>(r + row_offset));
        for (int c = 0; c < cols; ++c) {
            out[static_cast<std::size_t>(r) * cols + c] =
                scale * hash_uniform(splitmix64(row_hash + static_cast<std::uint64_t>(col_of(c))));
        }
    }
    return out;
}
