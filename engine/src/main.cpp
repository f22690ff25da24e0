// tp-engine: a small tensor-parallel decoder stack, one MPI rank per shard.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <dirent.h>

#include <cblas.h>
#include <mpi.h>

#include "config.h"
#include "model.h"
#include "profile.h"
#include "tp.h"

namespace {

const std::vector<std::size_t> kDefaultBenchBytes = {
    4, 64, 1024, 16384, 65536, 262144, 1048576, 4194304, 16777216, 33554432};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Weights vary with the element index so a permutation of the output also changes the sum.
double checksum(const std::vector<float>& x, std::size_t n) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += x[i] * (1.0 + static_cast<double>(i % 17) / 16.0);
    return sum;
}

// The result line's statement of the link every all-reduce crossed.
std::string link_tokens(const LinkConfig& link) {
    if (!link.enabled) return "link=off";
    char text[128];
    std::snprintf(text, sizeof text, "link=emulated link_alpha_us=%g link_gbps=%g", link.alpha_us, link.gbps);
    return text;
}

// Enough calls that small payloads are timed over many, few that large ones stay short.
int bench_calls(std::size_t bytes) {
    const std::size_t calls = (64u << 20) / bytes;
    return static_cast<int>(std::max<std::size_t>(5, std::min<std::size_t>(200, calls)));
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

// Per payload size: one warm-up call, then the calls in (up to) kBenchBatches timed batches. A
// batch's time per call is the slowest rank's (what a TP step waits for). The median batch is
// `us_per_call` and the fastest `min_us_per_call`: on a shared machine a burst of load slows some
// batches, never speeds one up, so the fastest is the least disturbed estimate of the call's cost.
constexpr int kBenchBatches = 11;

void run_allreduce_bench(const Config& cfg, int rank) {
    const std::vector<std::size_t>& sizes = cfg.bench_bytes.empty() ? kDefaultBenchBytes : cfg.bench_bytes;
    for (const std::size_t requested : sizes) {
        const std::size_t count = std::max<std::size_t>(1, requested / sizeof(float));
        std::vector<float> buf(count, 1.0f);
        const int wanted = bench_calls(count * sizeof(float));
        const int batches = std::min(wanted, kBenchBatches);
        const int per_batch = wanted / batches;
        all_reduce_sum(buf.data(), count, MPI_COMM_WORLD);  // warm-up: connection setup
        std::vector<double> per_call;
        for (int batch = 0; batch < batches; ++batch) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double start = MPI_Wtime();
            for (int i = 0; i < per_batch; ++i) all_reduce_sum(buf.data(), count, MPI_COMM_WORLD);
            double seconds = (MPI_Wtime() - start) / per_batch;
            MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            per_call.push_back(seconds);
        }
        if (rank == 0) {
            std::printf("tpe_allreduce bytes=%zu calls=%d us_per_call=%.3f min_us_per_call=%.3f batches=%d %s\n",
                        count * sizeof(float), batches * per_batch, median(per_call) * 1e6,
                        *std::min_element(per_call.begin(), per_call.end()) * 1e6, batches, link_tokens(cfg.link).c_str());
            std::fflush(stdout);
        }
    }
}

// The seconds this process's threads (every one of /proc/self/task/*) have run on a CPU and have been
// runnable but waiting for one (Linux schedstat): what the run asked of the machine, and what other work
// took from it. Zero where the kernel does not report them.
struct CpuTimes {
    double ran = 0.0;
    double waited = 0.0;
};

// One schedstat file's times; zero where it cannot be read.
CpuTimes read_schedstat(const std::string& path) {
    CpuTimes times;
    if (FILE* file = std::fopen(path.c_str(), "r")) {
        unsigned long long running = 0, waiting = 0;
        if (std::fscanf(file, "%llu %llu", &running, &waiting) == 2) {
            times.ran = static_cast<double>(running) * 1e-9;
            times.waited = static_cast<double>(waiting) * 1e-9;
        }
        std::fclose(file);
    }
    return times;
}

// Every thread of the process (MPI's and the link's too).
CpuTimes cpu_times() {
    CpuTimes total;
    DIR* tasks = opendir("/proc/self/task");
    if (tasks == nullptr) return total;
    while (const dirent* entry = readdir(tasks)) {
        if (entry->d_name[0] == '.') continue;
        const CpuTimes task = read_schedstat(std::string("/proc/self/task/") + entry->d_name + "/schedstat");
        total.ran += task.ran;
        total.waited += task.waited;
    }
    closedir(tasks);
    return total;
}

// The calling thread only: the rank's compute thread, whose share of the CPU it asked for is what
// other work takes from the prefill (the link's and MPI's threads mostly sleep).
CpuTimes thread_cpu_times() { return read_schedstat("/proc/thread-self/schedstat"); }

// One timed prefill: its seconds, the share of them the ranks (on average, every thread) waited for a
// CPU, and the share of the CPU time the ranks' compute threads asked for (ran + waited) that they got:
// 1 on an idle machine, whatever the prefill spends asleep on the link.
struct PrefillTiming {
    double seconds;
    double cpu_wait_share;
    double cpu_share;
};

// The median timing by seconds (the mean of the middle two for an even count), and the spread of
// the seconds, (max - min) / median.
PrefillTiming median_timing(std::vector<PrefillTiming> timings, double& spread) {
    std::sort(timings.begin(), timings.end(),
              [](const PrefillTiming& a, const PrefillTiming& b) { return a.seconds < b.seconds; });
    const std::size_t n = timings.size();
    const PrefillTiming& low = timings[(n - 1) / 2];
    const PrefillTiming& high = timings[n / 2];
    const PrefillTiming mid{(low.seconds + high.seconds) / 2.0, (low.cpu_wait_share + high.cpu_wait_share) / 2.0,
                            (low.cpu_share + high.cpu_share) / 2.0};
    spread = (timings.back().seconds - timings.front().seconds) / mid.seconds;
    return mid;
}

// Prefills the prompt `cfg.prefill_reps` times (after one untimed warm prefill when more than once)
// and returns the median timing; `x` holds the last one's output and the profile its phases.
PrefillTiming timed_prefills(const Config& cfg, Model& model, int slices, int world, std::vector<float>& x,
                             double& spread) {
    const std::vector<float> prompt = model.prompt(cfg.rows);
    const int warm = cfg.prefill_reps > 1 ? 1 : 0;
    std::vector<PrefillTiming> timings;
    for (int i = 0; i < warm + cfg.prefill_reps; ++i) {
        model.reset();
        x = prompt;
        profile_discard();
        MPI_Barrier(MPI_COMM_WORLD);
        const CpuTimes before = cpu_times();
        const CpuTimes main_before = thread_cpu_times();
        const double start = MPI_Wtime();
        model.forward(x, cfg.rows, slices);
        const double seconds = MPI_Wtime() - start;
        const CpuTimes after = cpu_times();
        const CpuTimes main_after = thread_cpu_times();
        double used[3] = {after.waited - before.waited, main_after.ran - main_before.ran,
                          main_after.waited - main_before.waited};
        MPI_Allreduce(MPI_IN_PLACE, used, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        const double asked = used[1] + used[2];
        if (i < warm) continue;
        timings.push_back({seconds, used[0] / world / seconds, asked > 0.0 ? used[1] / asked : 1.0});
    }
    return median_timing(std::move(timings), spread);
}

void run_inference(const Config& cfg, int rank, int world, std::chrono::steady_clock::time_point wall_start) {
    Model model(cfg, cfg.rows, cfg.rows + cfg.new_tokens, MPI_COMM_WORLD);
    const int h = cfg.hidden;
    const int slices = resolve_slices(cfg.rows, cfg.slices);

    std::vector<float> x;
    double prefill_spread = 0.0;
    const PrefillTiming prefill = timed_prefills(cfg, model, slices, world, x, prefill_spread);
    const double prefill_seconds = prefill.seconds;
    profile_report("prefill", rank);
    double sum = checksum(x, x.size());

    // Decode feeds the last final hidden row back as the next input: one row per token, and
    // always the serial path (one row is far below any slice gate).
    std::vector<float> row(x.end() - h, x.end());
    MPI_Barrier(MPI_COMM_WORLD);
    const double decode_start = MPI_Wtime();
    for (int t = 0; t < cfg.new_tokens; ++t) {
        model.forward(row, 1, 1);
        sum += checksum(row, row.size());
    }
    const double decode_seconds = MPI_Wtime() - decode_start;
    profile_report("decode", rank);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) return;
    std::printf(
        "tpe_result ranks=%d rows=%d new=%d overlap_slices=%d prefill_seconds=%.6f prefill_tokens_per_s=%.3f "
        "decode_seconds=%.6f decode_tokens_per_s=%.3f decode_token_count=%d checksum=%.9g wall=%.6f attention_block=%d "
        "prefill_reps=%d prefill_spread=%.4f prefill_cpu_wait=%.4f prefill_cpu_share=%.4f %s\n",
        world, cfg.rows, cfg.new_tokens, slices, prefill_seconds, cfg.rows / prefill_seconds, decode_seconds,
        cfg.new_tokens > 0 ? cfg.new_tokens / decode_seconds : 0.0, cfg.new_tokens, sum,
        seconds_since(wall_start), attention_block(), cfg.prefill_reps, prefill_spread, prefill.cpu_wait_share,
        prefill.cpu_share, link_tokens(cfg.link).c_str());
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    const auto wall_start = std::chrono::steady_clock::now();
    MPI_Init(&argc, &argv);
    // Stated, not left to the default: any failed MPI call aborts the whole job with MPI's message,
    // so no rank carries on (or waits forever in a collective) after a peer's call failed.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int rank = 0;
    int world = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);

    // Every rank parses the same argv and environment, so all reach the same verdict and exit
    // together: no rank is left waiting in a collective for one that gave up.
    Config cfg;
    std::string error;
    if (!parse_config(argc, argv, world, cfg, error) || cfg.help) {
        const bool failed = !cfg.help || !error.empty();
        if (rank == 0) {
            if (failed) std::fprintf(stderr, "tp-engine: %s\n", error.c_str());
            std::fputs(usage_text(), failed ? stderr : stdout);
        }
        MPI_Finalize();
        return failed ? 2 : 0;
    }
    // Ranks are the parallelism; a threaded BLAS would oversubscribe the cores.
    openblas_set_num_threads(1);
    profile_enable(cfg.phase_profile);

    use_emulated_link(cfg.link);
    if (cfg.allreduce_bench) {
        run_allreduce_bench(cfg, rank);
    } else {
        run_inference(cfg, rank, world, wall_start);
    }
    use_emulated_link(LinkConfig{});
    MPI_Finalize();
    return 0;
}
