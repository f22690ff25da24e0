#include "profile.h"

#include <chrono>
#include <cstdio>
#include <string>

namespace {

constexpr int kPhases = static_cast<int>(Phase::Count);
const char* const kPhaseNames[kPhases] = {
    "gated_delta", "full_attention", "projections", "tp_all_reduce", "norm", "elementwise"};

struct State {
    bool enabled = false;
    int current = -1;     // the running leaf phase, -1 outside every leaf
    double since = 0.0;   // when `current` last started or resumed
    double seconds[kPhases] = {};
    long calls[kPhases] = {};
    double stack_seconds = 0.0;
    long stack_calls = 0;
};

State g;

double now() {
    using Clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// Charges the time since the last switch to the running phase and makes `next` the running one.
void switch_to(int next) {
    const double t = now();
    if (g.current >= 0) g.seconds[g.current] += t - g.since;
    g.current = next;
    g.since = t;
}

}  // namespace

void profile_enable(bool on) { g.enabled = on; }

PhaseScope::PhaseScope(Phase phase) : previous_(g.current) {
    if (!g.enabled) return;
    const int p = static_cast<int>(phase);
    ++g.calls[p];
    switch_to(p);
}

PhaseScope::~PhaseScope() {
    if (g.enabled) switch_to(previous_);
}

StackScope::StackScope() : start_(g.enabled ? now() : 0.0) {}

StackScope::~StackScope() {
    if (!g.enabled) return;
    g.stack_seconds += now() - start_;
    ++g.stack_calls;
}

void profile_report(const char* tag, int rank) {
    if (!g.enabled) return;
    std::string block;
    char line[256];
    const double stack = g.stack_seconds > 0.0 ? g.stack_seconds : 1.0;
    double total = 0.0;
    for (int p = 0; p < kPhases; ++p) {
        std::snprintf(line, sizeof line, "tpe_phase tag=%s rank=%d phase=%s seconds=%.6f calls=%ld share=%.4f\n",
                      tag, rank, kPhaseNames[p], g.seconds[p], g.calls[p], g.seconds[p] / stack);
        block += line;
        total += g.seconds[p];
    }
    std::snprintf(line, sizeof line, "tpe_phase tag=%s rank=%d phase=STACK seconds=%.6f calls=%ld share=1.0000\n",
                  tag, rank, g.stack_seconds, g.stack_calls);
    block += line;
    std::snprintf(line, sizeof line, "tpe_phase tag=%s rank=%d phase=TOTAL seconds=%.6f\n", tag, rank, total);
    block += line;
    std::fwrite(block.data(), 1, block.size(), stdout);
    std::fflush(stdout);
    profile_discard();
}

void profile_discard() {
    const bool keep = g.enabled;
    g = State{};
    g.enabled = keep;
}
