// Limits on running a model's code. A TorchScript file is a program: loading it runs its
// __setstate__ methods and calling it runs its code, so every run has budgets for time, steps,
// stack and host memory. docs/reliability.md lists the defaults and the tests behind them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace tvk {

// A flag any thread sets to stop runs that share it, at their next step (a statement, a loop
// iteration, a graph node): the run ends with a tvk::LimitError.
class CancelToken {
 public:
  void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> cancelled_{false};
};

struct Limits {
  // Wall-clock seconds one run may take (a load, a method call, an optimize); 0: no limit.
  double timeout_s = 0;
  // Statements, loop iterations and graph nodes one run may execute. Real models take
  // thousands; a hang in model code stops here within seconds (docs/reliability.md).
  uint64_t max_steps = 10'000'000;
  // Host bytes that what model code creates may hold at once: CPU tensors, the archive's
  // inflated records, and large values (strings, lists) counted as they are made.
  // 0: default_max_memory(). Going past it is a tvk::OutOfMemoryError.
  uint64_t max_memory = 0;
  // Device bytes that Vulkan tensors the model's code makes may hold at once (its weights moved
  // at load among them; a plan's recorded buffers are not counted). 0: the size of the device's
  // largest device-local memory heap, what its driver says it holds (lavapipe's is host memory).
  // Going past it is a tvk::OutOfMemoryError.
  uint64_t max_device_memory = 0;
  std::shared_ptr<CancelToken> cancel;
};

// Half of this machine's physical memory, at most 8 GiB (every torchvision model fits at
// batch 32 on the CPU).
uint64_t default_max_memory();

// "512M", "2G", "1048576" (K, M, G, T: powers of 1024) as bytes; throws tvk::Error naming the
// text when it is not a size.
uint64_t parse_size(const std::string& text);

}  // namespace tvk
