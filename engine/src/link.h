// An emulated interconnect (off unless --link-alpha-us and --link-gbps are given).
//
// The reference engine's ranks share memory, so its all-reduce has neither the study's fixed
// per-call term (1.6-1.85 ms of host-side issue on Ascend, study sections 2, 5.3 and 6) nor a link
// whose byte term a GEMM could hide. This adds both, as a cost model slept through, never spun:
//   1. issue: the calling rank sleeps alpha, as the host blocks while HCCL issues a collective.
//      Paid once per call and never hidden, but it may run while an earlier transfer is still
//      on the link (the next slice is issued while the previous one crosses);
//   2. transfer: the link, a thread of its own, then carries the bytes for bytes / beta, first in
//      first out after the transfers ahead of it, while the rank computes (the next slice's GEMM
//      runs under it, as under a NIC's DMA). The result may be used only after `wait`.
// The sum itself is computed on the host first (a blocking MPI_Allreduce, the same work whatever the
// slice count); the link then models the wire, as an offloaded collective engine would.
// A serial all-reduce therefore costs reduce + alpha + bytes/beta; S slices of one projection pay S alphas
// and hide all but the last slice's bytes under the GEMMs: the study's trade (section 2).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

struct LinkConfig {
    bool enabled = false;
    double alpha_us = 0.0;  // --link-alpha-us: fixed (issue) term per call, microseconds
    double gbps = 0.0;      // --link-gbps: payload bandwidth, 1e9 bytes per second
};

class EmulatedLink {
public:
    using Clock = std::chrono::steady_clock;

    // Starts the link's thread. Also sets the calling thread's timer slack to 1 us (Linux), so
    // the issue sleeps of the rank that sends end on time rather than up to 50 us late.
    explicit EmulatedLink(const LinkConfig& config);
    // Lets the link deliver what it holds, then stops its thread.
    ~EmulatedLink();
    EmulatedLink(const EmulatedLink&) = delete;
    EmulatedLink& operator=(const EmulatedLink&) = delete;

    // Issues a transfer of `bytes`: sleeps alpha, then queues the bytes on the link and returns
    // its ticket without waiting for them to cross.
    std::uint64_t send(std::size_t bytes);

    // Returns, sleeping meanwhile, once transfer `ticket` (and so every earlier one) has crossed.
    void wait(std::uint64_t ticket);

    // What one transfer alone costs its sender, issue to delivery: alpha + bytes / beta.
    Clock::duration cost(std::size_t bytes) const;

private:
    struct Transfer {
        std::uint64_t ticket;
        std::size_t bytes;
        Clock::time_point issued;  // when its issue (alpha) was due to end
    };

    void serve();
    Clock::duration alpha() const;
    Clock::duration byte_time(std::size_t bytes) const;

    const LinkConfig config_;
    std::mutex mutex_;
    std::condition_variable work_;       // the link thread waits here for transfers (or stop)
    std::condition_variable delivery_;   // waiters wait here for delivered_
    std::deque<Transfer> queue_;
    std::uint64_t next_ticket_ = 1;
    std::uint64_t delivered_ = 0;  // the last ticket whose bytes have crossed
    bool stop_ = false;
    std::thread thread_;  // declared last: started once every member above is initialised
};
