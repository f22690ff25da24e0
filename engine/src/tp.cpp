#include "tp.h"

#include <cstdint>
#include <memory>
#include <vector>

#include <cblas.h>

#include "profile.h"

namespace {

// The emulated link every all-reduce crosses, or none (the default: the real path).
std::unique_ptr<EmulatedLink> g_link;

// Sends one all-reduce's payload over the emulated link (blocking for its fixed term); 0 without one.
std::uint64_t link_send(std::size_t count) {
    return g_link ? g_link->send(count * sizeof(float)) : 0;
}

void link_wait(std::uint64_t ticket) {
    if (g_link) g_link->wait(ticket);
}

// The GEMM of a slice runs in this many chunks with an MPI_Test between them: OpenMPI's
// non-blocking collectives only advance inside MPI calls, so without polling the in-flight
// all-reduce would sit idle until the final wait.
constexpr int kPollChunks = 4;

void poll(std::vector<MPI_Request>& pending) {
    if (pending.empty()) return;
    PhaseScope scope(Phase::AllReduce);
    int done = 0;
    MPI_Testall(static_cast<int>(pending.size()), pending.data(), &done, MPI_STATUSES_IGNORE);
}

void gemm_polling(const float* a, int rows, int k, const float* w, int n, float* out,
                  std::vector<MPI_Request>& pending) {
    for (int c = 0; c < kPollChunks; ++c) {
        const int begin = rows * c / kPollChunks;
        const int end = rows * (c + 1) / kPollChunks;
        if (end > begin) {
            gemm(a + static_cast<long>(begin) * k, end - begin, k, w, n, out + static_cast<long>(begin) * n);
        }
        poll(pending);
    }
}

// Over the emulated link a slice's sum is computed at once (a blocking MPI_Allreduce, the same
// host work whatever the slice count) and then crosses the link while the next slice's GEMM runs:
// the emulated link carries the collective as an offloaded engine would, so the slice count
// changes only what the link models (alphas paid, bytes hidden), not how the reduction is progressed.
void row_parallel_over_link(const float* a, int rows, int k, const float* w, int n, float* out, int slices,
                            MPI_Comm comm) {
    std::vector<std::uint64_t> transfers;
    transfers.reserve(slices);
    for (int s = 0; s < slices; ++s) {
        const int begin = static_cast<int>(static_cast<long>(rows) * s / slices);
        const int end = static_cast<int>(static_cast<long>(rows) * (s + 1) / slices);
        float* slice_out = out + static_cast<long>(begin) * n;
        gemm(a + static_cast<long>(begin) * k, end - begin, k, w, n, slice_out);
        PhaseScope scope(Phase::AllReduce);
        const int count = (end - begin) * n;
        MPI_Allreduce(MPI_IN_PLACE, slice_out, count, MPI_FLOAT, MPI_SUM, comm);
        transfers.push_back(link_send(static_cast<std::size_t>(count)));
    }
    PhaseScope scope(Phase::AllReduce);
    for (const std::uint64_t transfer : transfers) link_wait(transfer);
}

void row_parallel_overlapped(const float* a, int rows, int k, const float* w, int n, float* out,
                             int slices, MPI_Comm comm) {
    std::vector<MPI_Request> pending;
    pending.reserve(slices);
    for (int s = 0; s < slices; ++s) {
        const int begin = static_cast<int>(static_cast<long>(rows) * s / slices);
        const int end = static_cast<int>(static_cast<long>(rows) * (s + 1) / slices);
        float* slice_out = out + static_cast<long>(begin) * n;
        gemm_polling(a + static_cast<long>(begin) * k, end - begin, k, w, n, slice_out, pending);
        PhaseScope scope(Phase::AllReduce);
        pending.emplace_back();
        MPI_Iallreduce(MPI_IN_PLACE, slice_out, (end - begin) * n, MPI_FLOAT, MPI_SUM, comm, &pending.back());
    }
    PhaseScope scope(Phase::AllReduce);
    MPI_Waitall(static_cast<int>(pending.size()), pending.data(), MPI_STATUSES_IGNORE);
}

}  // namespace

int slices_for_rows(int rows, int min_rows_per_slice, int ceiling) {
    int slices = 1;
    while (slices * 2 <= ceiling && rows / (slices * 2) >= min_rows_per_slice) slices *= 2;
    return slices;
}

int resolve_slices(int rows, const SlicePolicy& policy) {
    const int wanted = policy.forced >= 0
                           ? policy.forced
                           : slices_for_rows(rows, policy.min_rows_per_slice, policy.ceiling);
    if (wanted <= 1 || rows / wanted < kMinRowsPerForcedSlice) return 1;
    return wanted;
}

void gemm(const float* a, int rows, int k, const float* w, int n, float* out) {
    PhaseScope scope(Phase::Projections);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, n, k, 1.0f, a, k, w, n, 0.0f, out, n);
}

void use_emulated_link(const LinkConfig& config) {
    g_link.reset();
    if (config.enabled) g_link = std::make_unique<EmulatedLink>(config);
}

void all_reduce_sum(float* buf, std::size_t count, MPI_Comm comm) {
    PhaseScope scope(Phase::AllReduce);
    MPI_Allreduce(MPI_IN_PLACE, buf, static_cast<int>(count), MPI_FLOAT, MPI_SUM, comm);
    link_wait(link_send(count));
}

void row_parallel(const float* a, int rows, int k, const float* w, int n, float* out, int slices,
                  MPI_Comm comm) {
    if (slices <= 1) {
        gemm(a, rows, k, w, n, out);
        all_reduce_sum(out, static_cast<std::size_t>(rows) * n, comm);
        return;
    }
    if (g_link) {
        row_parallel_over_link(a, rows, k, w, n, out, slices, comm);
    } else {
        row_parallel_overlapped(a, rows, k, w, n, out, slices, comm);
    }
}
