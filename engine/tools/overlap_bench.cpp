// Measures what one row-parallel projection + all-reduce costs serial vs sliced, for the
// default of TPE_MIN_ROWS_PER_SLICE. Whole engine runs on a shared box are too noisy to see a
// few percent, so this times the projection alone, every (rows, slices) setting interleaved
// round by round inside one process, and reports medians.
//   usage: mpirun.sh -n 2 build/overlap-bench [K N [ROUNDS]]   (K x N local weight, default 1024 512 11)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cblas.h>
#include <mpi.h>

#include "tp.h"

namespace {

constexpr int kRows[] = {256, 512, 1024, 2048, 4096, 8192};
constexpr int kSlices[] = {1, 2, 4, 8};
constexpr int kRowCount = sizeof kRows / sizeof kRows[0];
constexpr int kSliceCount = sizeof kSlices / sizeof kSlices[0];
constexpr int kCallsPerSample = 3;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    openblas_set_num_threads(1);
    const int k = argc > 2 ? std::atoi(argv[1]) : 1024;
    const int n = argc > 2 ? std::atoi(argv[2]) : 512;
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 11;
    const int max_rows = kRows[kRowCount - 1];
    std::vector<float> a(static_cast<std::size_t>(max_rows) * k, 0.5f);
    std::vector<float> w(static_cast<std::size_t>(k) * n, 0.25f);
    std::vector<float> out(static_cast<std::size_t>(max_rows) * n);
    std::vector<double> samples[kRowCount][kSliceCount];

    for (int round = 0; round < rounds; ++round) {
        for (int ri = 0; ri < kRowCount; ++ri) {
            for (int si = 0; si < kSliceCount; ++si) {
                MPI_Barrier(MPI_COMM_WORLD);
                const double start = MPI_Wtime();
                for (int c = 0; c < kCallsPerSample; ++c) {
                    row_parallel(a.data(), kRows[ri], k, w.data(), n, out.data(), kSlices[si], MPI_COMM_WORLD);
                }
                double per_call = (MPI_Wtime() - start) / kCallsPerSample;
                MPI_Allreduce(MPI_IN_PLACE, &per_call, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                samples[ri][si].push_back(per_call);
            }
        }
    }
    if (rank == 0) {
        std::printf("row_parallel k=%d n=%d, median us per call over %d rounds\n%6s", k, n, rounds, "rows");
        for (int s : kSlices) std::printf("  slices=%-3d", s);
        std::printf("\n");
        for (int ri = 0; ri < kRowCount; ++ri) {
            std::printf("%6d", kRows[ri]);
            for (int si = 0; si < kSliceCount; ++si) std::printf(" %11.1f", median(samples[ri][si]) * 1e6);
            std::printf("\n");
        }
    }
    MPI_Finalize();
    return 0;
}
