// Tuning: which method runs a layer, measured on the device the model runs on (as cuDNN's
// benchmark mode does). With tuning on, a layer whose signature the table does not know has
// every method that can run it timed on random inputs of its shapes; each candidate's output is
// checked against the rules' choice (the reference) within the precision's tolerance, so a
// method that computes wrongly on this device is never kept; the fastest valid one is written
// to the table, which persists in the cache directory keyed by device, driver and the shaders
// tvk was built with. With tuning Cached (the default) the table's choices are used and nothing
// is timed. docs/architecture.md, "How a kernel is chosen".
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tvk/tensor.h"
#include "vulkan/ops/kernel_options.h"

namespace tvk::vulkan {

struct PhysicalDeviceInfo;

// How candidates are timed. The default reads GPU timestamps; tests inject their own, which
// must call run() (its output is what is checked) and return a time.
class TuningClock {
 public:
  virtual ~TuningClock() = default;
  // The time one run of `method` takes, in nanoseconds; `run` queues its work.
  virtual double time_ns(const std::string& method, const std::function<void()>& run) = 0;
  // Sees each candidate's output before it is checked (tests corrupt one here).
  virtual void inspect(const std::string& /*method*/, Tensor& /*output*/) {}
};

// Times with timestamps on the device's queue around a few runs after a warm-up (the host's
// clock around a synchronized run where the queue has no timestamps); the least of 3.
class DeviceClock final : public TuningClock {
 public:
  double time_ns(const std::string& method, const std::function<void()>& run) override;
};

// Tuned choices by layer signature ("conv2d n1 i32x112x112 o16 k3x3 ..." -> "split"). Thread-safe.
// A table with a file loads it when made and writes it back after each change (to a temporary
// file, then renamed); a file of another device, driver or build, or one that does not parse,
// is ignored with a one-line warning on stderr.
class TuningTable {
 public:
  struct Entry {
    std::string method;
    std::string detail;  // each candidate's time or why it was rejected, for `tvk tune`
  };
  // `identity`: what the choices are valid for (tuning_identity); `file` empty: memory only.
  TuningTable(std::string identity, std::string file);

  std::optional<Entry> find(const std::string& signature) const;
  void put(const std::string& signature, Entry entry);
  std::map<std::string, Entry> entries() const;
  size_t size() const;
  const std::string& file() const { return file_; }
  // Why the file was not used, when it was not (empty otherwise).
  const std::string& load_warning() const { return load_warning_; }

 private:
  void load();
  void save_locked() const;

  std::string identity_, file_, load_warning_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

// "<device name> vendor:device driver <version> tvk <version> shaders <digest>".
std::string tuning_identity(const PhysicalDeviceInfo& device);
// The table of this process's device, kept in the cache directory (tuning-<vendor>-<device>.txt;
// memory only where no cache directory is known).
TuningTable& device_tuning_table();

// How much faster than the rules' choice a method must time to replace it. The rules were
// measured on whole models; layers timed alone a few percent apart can reverse inside one (on
// an H200, resnet18's 3x3 layers tuned to Winograd 1-2% ahead of Split ran 5% slower as a whole
// model: docs/benchmarks.md).
inline constexpr double kTuningMargin = 0.05;

// One tuning run, as run_convolution and run_gemm make it for a layer their table lacks.
// `methods`[0] is the reference (the rules' choice), the rest the candidates; `run(method, out)`
// queues one run of a method into `out`, a fresh tensor from `make_output`. Each is timed by
// `clock`, and each candidate's output checked against the reference's within `tolerance`: one
// that fails, runs out of memory or throws a tvk::Error is rejected with its reason. Returns the
// fastest correct method if it times kTuningMargin ahead of the reference (else the reference),
// written to `table` under `signature` with every time and reason. Waits for its work.
std::string tune_methods(const std::string& signature, const std::vector<std::string>& methods,
                         const std::function<Tensor()>& make_output,
                         const std::function<void(const std::string& method, const Tensor& out)>& run,
                         double tolerance, TuningTable& table, TuningClock& clock);

// What the tuning table says of one layer under `options`, as run_convolution and run_gemm ask it
// for a layer whose method is not forced: nothing with tuning Off, or with an empty table that is
// only read from (Cached, the default); else the method the table names for `signature()`; else,
// with tuning On, the method `tune(signature, table, clock)` chooses (and writes to the table).
// The caller checks the method can still run the layer.
using TuneLayer = std::function<std::string(const std::string& signature, TuningTable& table, TuningClock& clock)>;
std::optional<std::string> tuned_method(const KernelOptions& options, const std::function<std::string()>& signature,
                                        const TuneLayer& tune);

// Relative tolerance of a candidate's output against the reference's: max |a - b| <= tolerance
// x max(1, max |reference|). fp16 weights: 3e-2; fp32: 1e-3.
double tuning_tolerance(bool fp16);
// Why `got` does not match `reference` within `tolerance` (empty when it does); both Vulkan or
// CPU float tensors of one shape.
std::string tuning_mismatch(const Tensor& got, const Tensor& reference, double tolerance);

}  // namespace tvk::vulkan
