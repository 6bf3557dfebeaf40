#include "core/run_scope.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "tvk/error.h"

namespace tvk {

namespace {
thread_local RunScope* t_current = nullptr;

uintptr_t frame_address() { return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)); }

// The lowest address of this thread's stack (stacks grow down on every target tvk builds for).
uintptr_t stack_low() {
  thread_local uintptr_t low = [] {
    pthread_attr_t attr;
    uintptr_t result = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* addr = nullptr;
      size_t size = 0;
      if (pthread_attr_getstack(&attr, &addr, &size) == 0) result = reinterpret_cast<uintptr_t>(addr);
      pthread_attr_destroy(&attr);
    }
    return result;
  }();
  return low;
}

std::string mib(uint64_t bytes) {
  return detail::concat(bytes % (uint64_t{1} << 20) == 0 ? std::to_string(bytes >> 20)
                                                          : detail::concat(static_cast<double>(bytes) / (1 << 20)),
                        " MiB");
}
}  // namespace

uint64_t default_max_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  const uint64_t cap = uint64_t{8} << 30;
  if (pages <= 0 || page <= 0) return cap;
  return std::min(cap, static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2);
}

uint64_t parse_size(const std::string& text) {
  size_t i = 0;
  uint64_t value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (UINT64_MAX - digit) / 10) throw Error("size '" + text + "' is too large");
    value = value * 10 + digit;
    ++i;
  }
  if (i == 0) throw Error("'" + text + "' is not a size (a number of bytes, or with K, M, G or T)");
  int shift = 0;
  if (i < text.size()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : unit == 'T' ? 40 : -1;
    ++i;
    if (i < text.size() && (text[i] == 'B' || text[i] == 'b' || text[i] == 'i')) ++i;
    if (i < text.size() && (text[i] == 'B' || text[i] == 'b')) ++i;
    if (shift < 0 || i != text.size())
      throw Error("'" + text + "' is not a size (a number of bytes, or with K, M, G or T)");
  }
  if (shift > 0 && value > (UINT64_MAX >> shift)) throw Error("size '" + text + "' is too large");
  return value << shift;
}

void MemoryBudget::refuse(uint64_t nbytes, uint64_t before, const char* what) const {
  throw OutOfMemoryError(detail::concat(what, " of ", nbytes, " bytes would take the model's host memory to ",
                                        mib(before + nbytes), ", past its limit of ", mib(limit_),
                                        " (Limits::max_memory, --max-memory)"));
}

void MemoryBudget::charge(uint64_t nbytes, const char* what) {
  const uint64_t before = used_.fetch_add(nbytes, std::memory_order_relaxed);
  if (nbytes > limit_ || before > limit_ - nbytes) {
    used_.fetch_sub(nbytes, std::memory_order_relaxed);
    refuse(nbytes, before, what);
  }
}

void MemoryBudget::charge_device(uint64_t nbytes, uint64_t device_capacity, const char* what) {
  const uint64_t limit = device_limit_ ? device_limit_ : device_capacity;
  const uint64_t before = device_used_.fetch_add(nbytes, std::memory_order_relaxed);
  if (limit == 0 || (nbytes <= limit && before <= limit - nbytes)) return;
  device_used_.fetch_sub(nbytes, std::memory_order_relaxed);
  throw OutOfMemoryError(detail::concat(what, " of ", nbytes, " bytes would take the model's device memory to ",
                                        mib(before + nbytes), ", past its limit of ", mib(limit),
                                        device_limit_ ? " (Limits::max_device_memory, --max-device-memory)"
                                                      : " (the device's memory heap; Limits::max_device_memory sets another)"));
}

void MemoryBudget::check_fits(uint64_t nbytes, const char* what) const {
  const uint64_t used = used_.load(std::memory_order_relaxed);
  if (nbytes > limit_ || used > limit_ - nbytes) refuse(nbytes, used, what);
}

std::shared_ptr<MemoryBudget> make_memory_budget(const Limits& limits) {
  return std::make_shared<MemoryBudget>(limits.max_memory ? limits.max_memory : default_max_memory(),
                                        limits.max_device_memory);
}

RunScope::RunScope(const Limits& limits, std::shared_ptr<MemoryBudget> memory, std::string what)
    : governs_(t_current == nullptr) {
  if (!governs_) return;
  max_steps_ = limits.max_steps;
  timeout_s_ = limits.timeout_s;
  if (limits.timeout_s > 0 && std::isfinite(limits.timeout_s))
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(std::min(limits.timeout_s, 1e9)));
  cancel_ = limits.cancel;
  memory_ = memory ? std::move(memory) : make_memory_budget(limits);
  stack_base_ = frame_address();
  what_ = std::move(what);
  t_current = this;
}

RunScope::~RunScope() {
  if (governs_) t_current = nullptr;
}

RunScope* RunScope::current() { return t_current; }

bool RunScope::exhausted_steps() {
  why_ = detail::concat(what_, " ran more than ", max_steps_, " steps (Limits::max_steps, --max-steps)");
  return false;
}

bool RunScope::check_clock() {
  if (cancel_ && cancel_->cancelled()) {
    why_ = what_ + " was cancelled";
    return false;
  }
  if (deadline_ && std::chrono::steady_clock::now() > *deadline_) {
    why_ = detail::concat(what_, " ran past its time limit of ", timeout_s_, " s (Limits::timeout_s, --timeout)");
    return false;
  }
  return true;
}

void RunScope::check_stack(const char* what) {
  const uintptr_t here = frame_address();
  if (const RunScope* run = t_current; run != nullptr && run->stack_base_ > here &&
                                       run->stack_base_ - here > kStackBudget)
    throw LimitError(detail::concat(what, " nests too deeply: ", run->what_, " used more than ", mib(kStackBudget),
                                    " of stack"));
  const uintptr_t low = stack_low();
  if (low != 0 && here > low && here - low < kStackReserve / 4)
    throw LimitError(detail::concat(what, " nests too deeply for this thread's stack"));
}

void RunScope::visit(const char* what) {
  check_stack(what);
  if (RunScope* run = t_current; run != nullptr && !run->step())
    throw LimitError(detail::concat(what, ": ", run->why_));
}

void RunScope::charge_value(uint64_t nbytes, const char* what) {
  RunScope* run = t_current;
  if (run == nullptr || nbytes < kFreeValueBytes) return;
  const uint64_t limit = run->memory_->limit();
  const uint64_t held = run->memory_->used();
  if (nbytes > limit || run->values_ > limit - nbytes || held > limit - nbytes - run->values_)
    throw OutOfMemoryError(detail::concat(what, " of ", nbytes, " bytes would take ", run->what_,
                                          "'s host memory past its limit of ", mib(limit),
                                          " (Limits::max_memory, --max-memory)"));
  run->values_ += nbytes;
}

MemoryBudget* RunScope::memory() { return t_current ? t_current->memory_.get() : nullptr; }
std::shared_ptr<MemoryBudget> RunScope::memory_owner() { return t_current ? t_current->memory_ : nullptr; }

size_t remaining_stack() {
  const uintptr_t low = stack_low();
  const uintptr_t here = frame_address();
  if (low == 0 || here <= low) return SIZE_MAX;  // unknown: assume room
  return here - low;
}

void run_with_stack(const std::function<void()>& fn) {
  struct Call {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } call{&fn, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, RunScope::kStackBudget + RunScope::kStackReserve + (size_t{1} << 20));
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* c = static_cast<Call*>(p);
        try {
          (*c->fn)();
        } catch (...) {
          c->error = std::current_exception();
        }
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attr);
  if (rc != 0) throw Error(detail::concat("could not start a thread to run model code on (error ", rc, ")"));
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

}  // namespace tvk
