// Slice rule, fallback gate, and the overlapped row-parallel projection against the serial one
// and against a double-precision host reference. Run under mpirun with 1 and 2 ranks.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <cblas.h>
#include <mpi.h>

#include "tp.h"

namespace {

constexpr double kTolerance = 1e-5;  // relative to the largest output magnitude
int g_rank = 0;
int g_failures = 0;

void check(bool ok, const char* what) {
    if (!ok) ++g_failures;
    if (g_rank == 0 && !ok) std::printf("FAIL %s\n", what);
}

// Prints a group's summary line: "ok" only if the group added no failure.
void report(int failures_before, const char* summary) {
    if (g_rank == 0) std::printf("%s %s\n", g_failures == failures_before ? "ok  " : "FAIL", summary);
}

void test_slice_rule() {
    const int before = g_failures;
    struct Row {
        int rows, min_rows, ceiling, want;
    };
    const Row table[] = {
        {512, 1024, 4, 1}, {1024, 1024, 4, 1}, {2047, 1024, 4, 1}, {2048, 1024, 4, 2}, {4096, 1024, 4, 4},
        {65536, 1024, 4, 4}, {65536, 1024, 8, 8}, {1024, 512, 4, 2}, {2048, 512, 4, 4}, {4096, 512, 4, 4},
        {4096, 1024, 0, 1}, {4096, 1024, 1, 1}, {4096, 1024, 3, 2}, {1, 1, 4, 1}, {7, 1, 4, 4},
    };
    for (const Row& r : table) {
        char what[128];
        std::snprintf(what, sizeof what, "slices_for_rows(%d, min %d, ceiling %d) == %d", r.rows, r.min_rows,
                      r.ceiling, r.want);
        check(slices_for_rows(r.rows, r.min_rows, r.ceiling) == r.want, what);
    }
    report(before, "slice rule table");
}

void test_resolve_and_gate() {
    const int before = g_failures;
    struct Row {
        int rows, forced, min_rows, ceiling, want;
    };
    const Row table[] = {
        {512, 8, 1024, 4, 1},    // the study's control: 64 rows per slice < 96, serial
        {512, 4, 1024, 4, 4},    // 128 rows per slice passes the gate
        {768, 8, 1024, 4, 8},    // exactly 96 rows per slice passes; forced is not capped by the ceiling
        {767, 8, 1024, 4, 1},
        {100, 2, 1024, 4, 1},
        {512, 0, 1024, 4, 1},    // 0 and 1 disable slicing
        {4096, 1, 1024, 4, 1},
        {4096, -1, 1024, 4, 4},  // unset: the rule
        {2048, -1, 1024, 4, 2},
        {512, -1, 64, 4, 4},     // rule with a small minimum still meets the gate at 128 rows
        {256, -1, 64, 4, 1},     // rule says 4 (64 rows each); the gate falls back to serial, not to 2
        {1, -1, 1024, 4, 1},     // decode-sized
    };
    for (const Row& r : table) {
        SlicePolicy p;
        p.forced = r.forced;
        p.min_rows_per_slice = r.min_rows;
        p.ceiling = r.ceiling;
        char what[128];
        std::snprintf(what, sizeof what, "resolve_slices(rows %d, forced %d, min %d, ceiling %d) == %d", r.rows,
                      r.forced, r.min_rows, r.ceiling, r.want);
        check(resolve_slices(r.rows, p) == r.want, what);
    }
    report(before, "resolve_slices and the fallback gate");
}

std::vector<float> random_matrix(int rank, int tag, std::size_t n) {
    std::mt19937 rng(1000 * rank + tag);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    std::vector<float> m(n);
    for (float& x : m) x = uni(rng);
    return m;
}

double worst_relative(const std::vector<float>& got, const std::vector<double>& want) {
    double peak = 1e-30, worst = 0.0;
    for (double w : want) peak = std::max(peak, std::fabs(w));
    for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]) / peak);
    return worst;
}

// Every rank can rebuild every rank's inputs, so the reference needs no communication.
std::vector<double> host_reference(int world, int rows, int k, int n) {
    std::vector<double> out(std::size_t(rows) * n, 0.0);
    for (int r = 0; r < world; ++r) {
        const std::vector<float> a = random_matrix(r, rows, std::size_t(rows) * k);
        const std::vector<float> w = random_matrix(r, -rows, std::size_t(k) * n);
        for (int i = 0; i < rows; ++i)
            for (int p = 0; p < k; ++p)
                for (int j = 0; j < n; ++j) out[std::size_t(i) * n + j] += double(a[std::size_t(i) * k + p]) * w[std::size_t(p) * n + j];
    }
    return out;
}

void test_overlap_matches_serial(int world) {
    const int before = g_failures;
    const int k = 48, n = 64;
    double worst = 0.0;
    for (const int rows : {1, 7, 97, 333, 1000, 1025}) {
        const std::vector<float> a = random_matrix(g_rank, rows, std::size_t(rows) * k);
        const std::vector<float> w = random_matrix(g_rank, -rows, std::size_t(k) * n);
        const std::vector<double> ref = host_reference(world, rows, k, n);
        std::vector<float> serial(std::size_t(rows) * n);
        row_parallel(a.data(), rows, k, w.data(), n, serial.data(), 1, MPI_COMM_WORLD);
        check(worst_relative(serial, ref) <= kTolerance, "serial row_parallel matches the host reference");
        for (const int slices : {1, 2, 4, 8}) {
            std::vector<float> overlapped(serial.size(), NAN);
            row_parallel(a.data(), rows, k, w.data(), n, overlapped.data(), slices, MPI_COMM_WORLD);
            std::vector<double> serial_d(serial.begin(), serial.end());
            const double err = std::max(worst_relative(overlapped, ref), worst_relative(overlapped, serial_d));
            worst = std::max(worst, err);
            char what[128];
            std::snprintf(what, sizeof what, "slices %d at rows %d matches serial and reference: err %.3g", slices,
                          rows, err);
            check(err <= kTolerance, what);
        }
    }
    char summary[128];
    std::snprintf(summary, sizeof summary, "overlapped vs serial row_parallel, %d rank(s), slices 1/2/4/8, worst rel err %.3g",
                  world, worst);
    report(before, summary);
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int world = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    openblas_set_num_threads(1);
    test_slice_rule();
    test_resolve_and_gate();
    test_overlap_matches_serial(world);
    int failures = g_failures;
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0) std::printf("test_tp: %d rank(s), %d failure(s)\n", world, failures);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
