// One run of model code on this thread, and the budgets it runs under (tvk::Limits).
//
// Entry points (loading an archive, a method call, freezing) open a RunScope; the interpreters
// call step() per statement, loop iteration or node, recursive code calls check_stack(), and
// CPU storage charges the run's MemoryBudget. A scope opened inside another is inert: the
// outermost run governs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "tvk/limits.h"

namespace tvk {

// Host bytes held by what one module's code made. Shared by its runs and by each storage
// charged to it, so memory freed after a run (an output dropped later) is given back.
class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit, uint64_t device_limit = 0) : limit_(limit), device_limit_(device_limit) {}
  // Throws tvk::OutOfMemoryError naming `what` when `nbytes` more would pass the limit.
  void charge(uint64_t nbytes, const char* what);
  void refund(uint64_t nbytes) { used_.fetch_sub(nbytes, std::memory_order_relaxed); }
  // Throws as charge() would, charging nothing: whether `nbytes` more fit now (an archive record
  // before it is inflated).
  void check_fits(uint64_t nbytes, const char* what) const;
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }
  uint64_t limit() const { return limit_; }

  // Device memory, counted apart from host memory: against Limits::max_device_memory, else
  // `device_capacity` (the device's heap). Throws tvk::OutOfMemoryError naming `what`.
  void charge_device(uint64_t nbytes, uint64_t device_capacity, const char* what);
  void refund_device(uint64_t nbytes) { device_used_.fetch_sub(nbytes, std::memory_order_relaxed); }
  uint64_t device_used() const { return device_used_.load(std::memory_order_relaxed); }

 private:
  [[noreturn]] void refuse(uint64_t nbytes, uint64_t before, const char* what) const;
  std::atomic<uint64_t> used_{0};
  uint64_t limit_;
  std::atomic<uint64_t> device_used_{0};
  uint64_t device_limit_;
};

std::shared_ptr<MemoryBudget> make_memory_budget(const Limits& limits);

class RunScope {
 public:
  // Stack bytes model code may use below the scope's entry; the thread keeps kStackReserve more
  // for the ops and the driver beneath the deepest call. Sanitizers' frames are larger.
#if defined(__SANITIZE_ADDRESS__) || defined(TVK_SANITIZED_STACK)
  static constexpr size_t kStackBudget = size_t{8} << 20;
#else
  static constexpr size_t kStackBudget = size_t{2} << 20;
#endif
  static constexpr size_t kStackReserve = size_t{4} << 20;

  RunScope(const Limits& limits, std::shared_ptr<MemoryBudget> memory, std::string what);
  ~RunScope();
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;

  // The governing run on this thread, or nullptr outside any.
  static RunScope* current();

  // One step: false when the run must stop now (steps, time or cancel); why() says which.
  bool step() {
    if (++steps_ > max_steps_) return exhausted_steps();
    if ((steps_ & 1023) == 0) return check_clock();
    return true;
  }
  const std::string& why() const { return why_; }

  // Throws tvk::LimitError naming `what` when the thread is short of stack: past the run's
  // kStackBudget, or, outside runs, within kStackReserve / 4 of the thread's end.
  static void check_stack(const char* what);

  // check_stack, and one step of the run: for walks over nested values, whose work a shared
  // list can make exponential in the steps that built it (`a = [a, a]` in a loop).
  static void visit(const char* what);

  // Values model code makes in bulk (a repeated list, a joined string, a range): `nbytes` counts
  // toward the run's memory limit with what its storage holds, for the rest of the run. Throws
  // tvk::OutOfMemoryError naming `what` past the limit. Values under kFreeValueBytes are not
  // counted: the step budget bounds how many of them a run makes.
  static constexpr uint64_t kFreeValueBytes = 64 << 10;
  static void charge_value(uint64_t nbytes, const char* what);

  // The run's memory budget, or nullptr outside runs.
  static MemoryBudget* memory();
  static std::shared_ptr<MemoryBudget> memory_owner();

 private:
  bool exhausted_steps();
  bool check_clock();

  bool governs_;
  uint64_t steps_ = 0;
  uint64_t max_steps_ = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  double timeout_s_ = 0;
  std::shared_ptr<CancelToken> cancel_;
  std::shared_ptr<MemoryBudget> memory_;
  uintptr_t stack_base_ = 0;
  uint64_t values_ = 0;
  std::string what_;
  std::string why_;
};

// Bytes of stack left to the calling thread below this frame.
size_t remaining_stack();

// Runs `fn` on this thread when it has room for a run's stack, else on a helper thread with a
// stack of known size (a JVM or Android thread has 1 MiB or less), so that the same file meets
// the same limits from every caller. Exceptions pass through.
void run_with_stack(const std::function<void()>& fn);

template <class F>
auto with_run_stack(F&& f) -> decltype(f()) {
  using R = decltype(f());
  if (RunScope::current() != nullptr || remaining_stack() >= RunScope::kStackBudget + RunScope::kStackReserve)
    return f();
  if constexpr (std::is_void_v<R>) {
    run_with_stack([&] { f(); });
  } else {
    std::optional<R> result;
    run_with_stack([&] { result.emplace(f()); });
    return std::move(*result);
  }
}

}  // namespace tvk
