#include "vulkan/ops/tuning.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tvk/error.h"
#include "tvk/version.h"
#include "vulkan/api/context.h"
#include "vulkan/api/shader_library.h"

namespace tvk::vulkan {

namespace {
constexpr const char* kMagic = "tvk-tuning 1";
constexpr size_t kMaxFileBytes = size_t{16} << 20;  // a tuning file is small; a larger one is not ours
constexpr size_t kMaxLineBytes = 4096;

// FNV-1a over every embedded shader, so that a build with other kernels starts untuned.
uint64_t shader_digest() {
  uint64_t h = 1469598103934665603ull;
  size_t count = 0;
  const EmbeddedShader* shaders = embedded_shaders(&count);
  for (size_t i = 0; i < count; ++i) {
    for (const char* c = shaders[i].name; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
    for (size_t b = 0; b < shaders[i].size; ++b) h = (h ^ shaders[i].data[b]) * 1099511628211ull;
  }
  return h;
}
}  // namespace

double DeviceClock::time_ns(const std::string& /*method*/, const std::function<void()>& run) {
  CommandStream& stream = Context::get()->stream();
  run();  // warm-up: pipelines made, caches filled
  stream.synchronize();
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    double ns = 0;
    if (stream.timestamps_supported()) {
      stream.reset_timestamps();
      const uint32_t a = stream.mark_timestamp();
      run();
      const uint32_t b = stream.mark_timestamp();
      stream.synchronize();
      ns = stream.elapsed_ns(a, b);
    } else {
      const auto start = std::chrono::steady_clock::now();
      run();
      stream.synchronize();
      ns = static_cast<double>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    }
    best = round == 0 ? ns : std::min(best, ns);
  }
  return best;
}

TuningTable::TuningTable(std::string identity, std::string file) : identity_(std::move(identity)), file_(std::move(file)) {
  if (!file_.empty()) load();
}

void TuningTable::load() {
  std::error_code ec;
  if (!std::filesystem::exists(file_, ec)) return;
  const auto bytes = std::filesystem::file_size(file_, ec);
  auto ignore = [&](const std::string& why) {
    load_warning_ = "tvk: ignoring the tuning file " + file_ + ": " + why;
    std::fprintf(stderr, "%s\n", load_warning_.c_str());
    entries_.clear();
  };
  if (ec || bytes > kMaxFileBytes) return ignore(ec ? ec.message() : "larger than 16 MiB");
  std::ifstream in(file_, std::ios::binary);
  std::string line;
  if (!std::getline(in, line) || line != kMagic) return ignore("not a tvk tuning file (first line)");
  if (!std::getline(in, line)) return ignore("truncated before its device line");
  if (line != identity_) return ignore("made for another device, driver or tvk build (" + line.substr(0, 200) + ")");
  // Entries, then "end <count>": a file cut short anywhere lacks it.
  size_t number = 2;
  bool ended = false;
  while (std::getline(in, line)) {
    ++number;
    if (ended) return ignore("text after its end line");
    if (line.rfind("end ", 0) == 0) {
      if (line != "end " + std::to_string(entries_.size())) return ignore("its end line counts other entries");
      ended = true;
      continue;
    }
    // signature \t method \t detail
    const size_t a = line.find('\t');
    const size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
    if (line.size() > kMaxLineBytes || b == std::string::npos || a == 0 || b == a + 1)
      return ignore("line " + std::to_string(number) + " does not parse");
    entries_[line.substr(0, a)] = Entry{line.substr(a + 1, b - a - 1), line.substr(b + 1)};
  }
  if (!ended) return ignore("truncated (no end line)");
}

void TuningTable::save_locked() const {
  if (file_.empty()) return;
  std::error_code ec;
  const std::filesystem::path path(file_);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  const std::string tmp = file_ + ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(this));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;  // a read-only cache: the choices still hold for this process
    out << kMagic << '\n' << identity_ << '\n';
    for (const auto& [sig, e] : entries_) out << sig << '\t' << e.method << '\t' << e.detail << '\n';
    out << "end " << entries_.size() << '\n';
    if (!out.flush()) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

std::optional<TuningTable::Entry> TuningTable::find(const std::string& signature) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(signature);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void TuningTable::put(const std::string& signature, Entry entry) {
  auto clean = [](std::string s) {
    std::replace(s.begin(), s.end(), '\t', ' ');
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
  };
  std::lock_guard<std::mutex> lock(mutex_);
  entries_[clean(signature)] = Entry{clean(std::move(entry.method)), clean(std::move(entry.detail))};
  save_locked();
}

std::map<std::string, TuningTable::Entry> TuningTable::entries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_;
}

size_t TuningTable::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

std::string tuning_identity(const PhysicalDeviceInfo& dev) {
  char ids[96];
  std::snprintf(ids, sizeof(ids), " %04x:%04x driver %08x tvk %s shaders %016llx", dev.vendor_id, dev.device_id,
                dev.driver_version, TVK_VERSION, static_cast<unsigned long long>(shader_digest()));
  std::string name = dev.name;
  std::replace(name.begin(), name.end(), '\n', ' ');
  return name + ids;
}

TuningTable& device_tuning_table() { return Context::get()->tuning(); }

double tuning_tolerance(bool fp16) { return fp16 ? 3e-2 : 1e-3; }

namespace {
std::string ms(double ns) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.4f ms", ns / 1e6);
  return b;
}
}  // namespace

std::string tune_methods(const std::string& signature, const std::vector<std::string>& methods,
                         const std::function<Tensor()>& make_output,
                         const std::function<void(const std::string& method, const Tensor& out)>& run,
                         double tolerance, TuningTable& table, TuningClock& clock) {
  TVK_CHECK(!methods.empty(), "tuning ", signature, ": no reference method");
  CommandStream& stream = Context::get()->stream();
  auto measure = [&](const std::string& m, Tensor& result) {
    result = make_output();
    const double ns = clock.time_ns(m, [&] { run(m, result); });
    stream.synchronize();
    clock.inspect(m, result);
    return ns;
  };
  Tensor reference;
  const double reference_ns = measure(methods[0], reference);
  double best_ns = reference_ns;
  std::string best = methods[0];
  std::string detail = detail::concat(methods[0], " ", ms(best_ns), " (reference)");
  for (size_t i = 1; i < methods.size(); ++i) {
    const std::string& m = methods[i];
    Tensor result;
    double ns = 0;
    std::string why;
    try {
      ns = measure(m, result);
      why = tuning_mismatch(result, reference, tolerance);
    } catch (const OutOfMemoryError&) {
      why = "out of memory";
    } catch (const Error& e) {  // a method this layer's weights or shapes do not suit after all
      why = e.what();
    }
    if (!why.empty()) {
      detail += detail::concat(", ", m, " rejected: ", why);
      continue;
    }
    detail += detail::concat(", ", m, " ", ms(ns));
    if (ns < best_ns && ns < reference_ns * (1 - kTuningMargin)) {
      best_ns = ns;
      best = m;
    }
  }
  table.put(signature, TuningTable::Entry{best, detail});
  return best;
}

std::optional<std::string> tuned_method(const KernelOptions& options, const std::function<std::string()>& signature,
                                        const TuneLayer& tune) {
  if (options.tuning == Tuning::Off) return std::nullopt;
  TuningTable& table = options.tuning_table ? *options.tuning_table : device_tuning_table();
  if (options.tuning != Tuning::On && table.size() == 0) return std::nullopt;
  const std::string key = signature();
  if (const auto entry = table.find(key)) return entry->method;
  if (options.tuning != Tuning::On) return std::nullopt;
  DeviceClock device_clock;
  return tune(key, table, options.tuning_clock ? *options.tuning_clock : device_clock);
}

std::string tuning_mismatch(const Tensor& got, const Tensor& reference, double tolerance) {
  const Tensor a = got.cpu().contiguous(), b = reference.cpu().contiguous();
  if (a.sizes() != b.sizes()) return "shape " + a.shape_string() + " differs from " + b.shape_string();
  const float* x = a.data<float>();
  const float* y = b.data<float>();
  double worst = 0, scale = 1;
  for (int64_t i = 0; i < a.numel(); ++i) {
    scale = std::max(scale, static_cast<double>(std::fabs(y[i])));
    const double d = std::fabs(static_cast<double>(x[i]) - y[i]);
    if (!(d <= worst)) worst = std::isnan(d) ? INFINITY : d;  // NaN in either counts as the worst
  }
  if (worst <= tolerance * scale) return "";
  std::ostringstream s;
  s << "max error " << worst << " > " << tolerance * scale;
  return s.str();
}

}  // namespace tvk::vulkan
