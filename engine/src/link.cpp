#include "link.h"

#include <algorithm>

#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace {

// Sleeps of this thread end within ~1 us of their deadline instead of the default 50 us slack:
// the link's terms are a few hundred microseconds to milliseconds, and a late wake-up per call
// would add up to a bias against the setting that makes the most calls.
void tighten_timer_slack() {
#ifdef __linux__
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
}

}  // namespace

EmulatedLink::EmulatedLink(const LinkConfig& config) : config_(config), thread_(&EmulatedLink::serve, this) {
    tighten_timer_slack();
}

EmulatedLink::~EmulatedLink() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    work_.notify_one();
    thread_.join();
}

EmulatedLink::Clock::duration EmulatedLink::alpha() const {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(config_.alpha_us));
}

EmulatedLink::Clock::duration EmulatedLink::byte_time(std::size_t bytes) const {
    const double seconds = static_cast<double>(bytes) / (config_.gbps * 1e9);
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

EmulatedLink::Clock::duration EmulatedLink::cost(std::size_t bytes) const { return alpha() + byte_time(bytes); }

std::uint64_t EmulatedLink::send(std::size_t bytes) {
    const Clock::time_point issued = Clock::now() + alpha();
    std::this_thread::sleep_until(issued);
    std::lock_guard<std::mutex> lock(mutex_);
    const std::uint64_t ticket = next_ticket_++;
    queue_.push_back({ticket, bytes, issued});
    work_.notify_one();
    return ticket;
}

void EmulatedLink::wait(std::uint64_t ticket) {
    std::unique_lock<std::mutex> lock(mutex_);
    delivery_.wait(lock, [&] { return delivered_ >= ticket; });
}

// The link's timeline is computed from when each transfer was issued and when the one before it
// was due to finish, not from when this thread happened to wake up: a late wake-up delays what a
// rank observes, never the schedule of the transfers behind it.
void EmulatedLink::serve() {
    tighten_timer_slack();
    Clock::time_point free_at{};
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing left to deliver
        const Transfer transfer = queue_.front();
        queue_.pop_front();
        const Clock::time_point delivered_at = std::max(transfer.issued, free_at) + byte_time(transfer.bytes);
        lock.unlock();
        std::this_thread::sleep_until(delivered_at);
        lock.lock();
        delivered_ = transfer.ticket;
        delivery_.notify_all();
        free_at = delivered_at;
    }
}
