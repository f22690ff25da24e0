// Phase profile (TPE_PHASE_PROFILE=1).
//
// Leaf phases are exclusive: entering a phase pauses the one it is entered from, so no phase
// absorbs another's time (the nested host-profile mistake of the study). STACK, the whole
// decoder stack, is timed separately and is the denominator of every share.
#pragma once

enum class Phase : int {
    GatedDelta,
    FullAttention,
    Projections,
    AllReduce,
    Norm,
    Elementwise,
    Count
};

void profile_enable(bool on);

// Times one leaf phase for its lifetime. Costs one branch when profiling is off.
class PhaseScope {
public:
    explicit PhaseScope(Phase phase);
    ~PhaseScope();
    PhaseScope(const PhaseScope&) = delete;
    PhaseScope& operator=(const PhaseScope&) = delete;

private:
    int previous_;
};

// Times the whole decoder stack for its lifetime.
class StackScope {
public:
    StackScope();
    ~StackScope();
    StackScope(const StackScope&) = delete;
    StackScope& operator=(const StackScope&) = delete;

private:
    double start_;
};

// Forgets everything timed so far (a warm-up's or an earlier repetition's phases).
void profile_discard();

// Prints this rank's block for one measurement boundary as one write, then resets the counters.
// No-op when profiling is off.
void profile_report(const char* tag, int rank);
