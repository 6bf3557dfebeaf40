// Kernel tuning (vulkan/ops/tuning.h) with an injected clock: the fastest method whose output
// matches the reference is kept and used by later runs (also from the file, in a new table);
// a method that computes wrongly is rejected; corrupt, stale or foreign tuning files are
// ignored, never a wrong result. Results are checked against the CPU kernels.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <set>
#include <unistd.h>

#include "ops/registry.h"
#include "support/test_support.h"
#include "tvk/ops.h"
#include "tvk/tensor.h"

#if TVK_USE_VULKAN
#include "vulkan/api/context.h"
#include "vulkan/ops/kernel_options.h"
#include "vulkan/ops/tuning.h"

using namespace tvk;
using tvk::testing_support::max_abs;
using tvk::testing_support::max_abs_diff;

namespace {

// A convolution layer: input shape, weight shape, stride, padding, groups.
struct Layer {
  const char* name;
  IntList input, weight;
  int64_t stride, padding, groups;
};
// Shapes of several families, so that each takes a different set of candidates.
const Layer kLayers[] = {
    {"pointwise", {1, 32, 14, 14}, {48, 32, 1, 1}, 1, 0, 1},
    {"3x3 stride 2", {1, 16, 17, 19}, {32, 16, 3, 3}, 2, 1, 1},
    {"7x7 stem", {1, 3, 40, 36}, {16, 3, 7, 7}, 2, 3, 1},
    {"5x5 depthwise", {1, 24, 15, 15}, {24, 1, 5, 5}, 1, 2, 24},
    {"grouped 3x3", {2, 32, 12, 12}, {64, 8, 3, 3}, 1, 1, 4},
    {"pointwise batch 3", {3, 40, 9, 9}, {72, 40, 1, 1}, 1, 0, 1},
};

struct Weights {
  Tensor input, weight, bias;
};
Weights weights_of(const Layer& l) {
  return {tvk::rand(l.input, 11), tvk::rand(l.weight, 12), tvk::rand({l.weight[0]}, 13)};
}

Tensor run_on(const Layer& l, const Weights& w, Device device) {
  return tvk::conv2d(w.input.to(device), w.weight.to(device), w.bias.to(device), {l.stride}, {l.padding}, {1}, l.groups)
      .cpu();
}

// Times from a table (default 1 ms); records what it was asked to time; adds 0.5 to the outputs
// of `corrupt`; throws a tvk::Error instead of running `fail` (as a method whose predicate let
// through a layer it cannot run would).
class FakeClock final : public vulkan::TuningClock {
 public:
  std::map<std::string, double> times;
  std::vector<std::string> timed;
  std::string corrupt, fail;
  double time_ns(const std::string& method, const std::function<void()>& run) override {
    if (method == fail) throw Error(method + ": cannot run this layer");
    run();
    timed.push_back(method);
    const auto it = times.find(method);
    return it == times.end() ? 1e6 : it->second;
  }
  void inspect(const std::string& method, Tensor& output) override {
    if (method == corrupt) output = tvk::add(output, tvk::full(output.sizes(), 0.5).vulkan());
  }
};

// Options that tune into `table` with `clock` and log the methods run into `log`.
vulkan::KernelOptions tuning_options(Tuning mode, vulkan::TuningTable& table, vulkan::TuningClock& clock,
                                     vulkan::MethodLog& log) {
  vulkan::KernelOptions o = vulkan::kernel_options();
  o.conv = vulkan::ConvMethod::Auto;
  o.tuning = mode;
  o.tuning_table = &table;
  o.tuning_clock = &clock;
  o.log = &log;
  return o;
}

std::string identity() { return vulkan::tuning_identity(vulkan::Context::get()->device().physical()); }

double relative_error(const Tensor& got, const Tensor& want) {
  return max_abs_diff(got, want) / std::max(1.0, max_abs(want));
}

std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tvk_tuning_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// A tuning run of `l` into a fresh table with every method equally fast: the methods timed (the
// reference first), the entries written (none where one method can run it), the output.
struct Probe {
  std::vector<std::string> timed;
  size_t entries = 0;
  std::string signature, method;  // the entry's, where one was written
  Tensor output;
};
Probe probe_layer(const Layer& l, const Weights& w) {
  vulkan::TuningTable table(identity(), "");
  FakeClock clock;
  vulkan::MethodLog log;
  const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::On, table, clock, log));
  Probe probe{{}, 0, {}, {}, run_on(l, w, Device::Vulkan)};
  probe.timed = clock.timed;
  probe.entries = table.size();
  if (probe.entries) {
    const auto entries = table.entries();
    probe.signature = entries.begin()->first;
    probe.method = entries.begin()->second.method;
  }
  return probe;
}

}  // namespace

TEST(Tuning, FastestCorrectMethodIsChosenKeptAndReadBack) {
  TVK_NEED_VULKAN();
  int tunable = 0;
  for (const Layer& l : kLayers) {
    SCOPED_TRACE(l.name);
    const Weights w = weights_of(l);
    const Tensor want = run_on(l, w, Device::CPU);
    // First: which methods are candidates here (every one timed, all equally fast).
    const Probe probe = probe_layer(l, w);
    EXPECT_LE(relative_error(probe.output, want), 1e-4);
    const std::set<std::string> candidates(probe.timed.begin(), probe.timed.end());
    if (candidates.size() < 2) {
      EXPECT_EQ(probe.entries, 0u) << "a layer with one method needs no entry";
      continue;
    }
    ++tunable;
    // Equal times keep the reference (the rules' choice, timed first).
    ASSERT_EQ(probe.entries, 1u);
    EXPECT_EQ(probe.method, probe.timed.front());
    vulkan::MethodLog log;
    // Each candidate in turn made the fastest is the one chosen, run, and read back.
    for (const std::string& fastest : candidates) {
      SCOPED_TRACE("fastest: " + fastest);
      const std::string file = temp_file("choice.txt");
      std::filesystem::remove(file);
      {
        vulkan::TuningTable table(identity(), file);
        FakeClock clock;
        clock.times[fastest] = 2e5;
        log.clear();
        const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::On, table, clock, log));
        EXPECT_LE(relative_error(run_on(l, w, Device::Vulkan), want), 1e-4);
        ASSERT_EQ(log.entries().size(), 1u);
        EXPECT_EQ(log.entries().back().second, fastest);
        ASSERT_EQ(table.size(), 1u);
        EXPECT_EQ(table.entries().begin()->second.method, fastest);
      }
      // A new table (a new process) reads the choice from the file; Cached times nothing.
      vulkan::TuningTable reread(identity(), file);
      EXPECT_TRUE(reread.load_warning().empty()) << reread.load_warning();
      ASSERT_EQ(reread.size(), 1u);
      FakeClock idle;
      log.clear();
      const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::Cached, reread, idle, log));
      EXPECT_LE(relative_error(run_on(l, w, Device::Vulkan), want), 1e-4);
      EXPECT_TRUE(idle.timed.empty());
      ASSERT_EQ(log.entries().size(), 1u);
      EXPECT_EQ(log.entries().back().second, fastest);
      std::filesystem::remove(file);
    }
  }
  EXPECT_GE(tunable, 3) << "too few of these layers have more than one method on this device";
}

TEST(Tuning, MethodWithWrongOutputOrAnErrorIsRejected) {
  TVK_NEED_VULKAN();
  int checked = 0;
  for (const Layer& l : kLayers) {
    SCOPED_TRACE(l.name);
    const Weights w = weights_of(l);
    const Tensor want = run_on(l, w, Device::CPU);
    const Probe probe = probe_layer(l, w);
    if (probe.timed.size() < 2) continue;
    ++checked;
    vulkan::MethodLog log;
    // The fastest candidate (not the reference) computes wrongly: never chosen.
    const std::string wrong = probe.timed.back();
    vulkan::TuningTable table(identity(), "");
    FakeClock clock;
    clock.times[wrong] = 1e3;
    clock.corrupt = wrong;
    const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::On, table, clock, log));
    EXPECT_LE(relative_error(run_on(l, w, Device::Vulkan), want), 1e-4);
    ASSERT_EQ(table.size(), 1u);
    const vulkan::TuningTable::Entry e = table.entries().begin()->second;
    EXPECT_NE(e.method, wrong);
    EXPECT_NE(e.detail.find(wrong + " rejected: max error"), std::string::npos) << e.detail;
    EXPECT_NE(log.entries().back().second, wrong);
    // A candidate that throws is rejected with its error, and the next layer still runs.
    vulkan::TuningTable failing_table(identity(), "");
    FakeClock failing;
    failing.times[wrong] = 1e3;
    failing.fail = wrong;
    const vulkan::ScopedKernelOptions failing_scope(tuning_options(Tuning::On, failing_table, failing, log));
    EXPECT_LE(relative_error(run_on(l, w, Device::Vulkan), want), 1e-4);
    ASSERT_EQ(failing_table.size(), 1u);
    const vulkan::TuningTable::Entry f = failing_table.entries().begin()->second;
    EXPECT_NE(f.method, wrong);
    EXPECT_NE(f.detail.find(wrong + " rejected: " + wrong + ": cannot run this layer"), std::string::npos) << f.detail;
  }
  EXPECT_GE(checked, 3);
}

TEST(Tuning, CorruptStaleOrForeignFilesAreIgnored) {
  TVK_NEED_VULKAN();
  // The first layer more than one method can run on this device (which ones can differs: on
  // arm64 lavapipe the pointwise layer has one), and its signature, from a tuning run.
  const Layer* tunable = nullptr;
  std::string signature;
  for (const Layer& candidate : kLayers) {
    const Probe probe = probe_layer(candidate, weights_of(candidate));
    if (probe.entries == 1) {
      tunable = &candidate;
      signature = probe.signature;
      break;
    }
  }
  ASSERT_NE(tunable, nullptr) << "no layer has more than one method on this device: nothing to tune";
  const Layer& l = *tunable;
  const Weights w = weights_of(l);
  const Tensor want = run_on(l, w, Device::CPU);
  const std::string head = "tvk-tuning 1\n" + identity() + "\n";
  const std::string long_line(10000, 'x');
  static const char kBinary[] = "\x00\x01\xff\xfe garbage";
  const std::vector<std::pair<std::string, std::string>> files = {
      {"empty", ""},
      {"binary", std::string(kBinary, sizeof kBinary - 1)},  // NUL bytes included
      {"truncated header", "tvk-tuning 1\n"},
      {"no end line", head + signature + "\toc8\tx\n"},
      {"end line miscounts", head + signature + "\toc8\tx\nend 2\n"},
      {"text after the end", head + signature + "\toc8\tx\nend 1\n" + signature + "\tsplit\tx\n"},
      {"another version", "tvk-tuning 2\n" + identity() + "\n" + signature + "\toc8\tx\nend 1\n"},
      {"another device", "tvk-tuning 1\nSome GPU 10de:2330 driver 1 tvk 0 shaders 0\n" + signature + "\toc8\tx\nend 1\n"},
      {"no tabs", head + signature + " oc8\nend 1\n"},
      {"empty method", head + signature + "\t\tx\nend 1\n"},
      {"line too long", head + signature + "\toc8\t" + long_line + "\nend 1\n"},
  };
  for (const auto& [what, text] : files) {
    SCOPED_TRACE(what);
    const std::string file = temp_file("corrupt.txt");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    vulkan::TuningTable table(identity(), file);
    EXPECT_EQ(table.size(), 0u);
    EXPECT_NE(table.load_warning().find("ignoring the tuning file"), std::string::npos);
    FakeClock clock;
    vulkan::MethodLog log;
    const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::Cached, table, clock, log));
    EXPECT_LE(relative_error(run_on(l, w, Device::Vulkan), want), 1e-4);
    EXPECT_TRUE(clock.timed.empty());
    std::filesystem::remove(file);
  }
  // Entries naming no method, or one that cannot run this layer, leave it to the rules.
  vulkan::MethodLog ruled;
  {
    vulkan::TuningTable none(identity(), "");
    FakeClock clock;
    const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::Off, none, clock, ruled));
    run_on(l, w, Device::Vulkan);
  }
  for (const std::string method : {"no_such_method", "auto", "depthwise", "transposed"}) {
    if (method == "depthwise" && l.groups > 1) continue;  // it can run a grouped layer
    SCOPED_TRACE(method);
    const std::string file = temp_file("stale.txt");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << head << signature << '\t' << method << "\tstale\nend 1\n";
    vulkan::TuningTable table(identity(), file);
    EXPECT_EQ(table.size(), 1u);
    FakeClock clock;
    vulkan::MethodLog log;
    const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::Cached, table, clock, log));
    EXPECT_LE(relative_error(run_on(l, w, Device::Vulkan), want), 1e-4);
    ASSERT_EQ(log.entries().size(), 1u);
    EXPECT_EQ(log.entries().back().second, ruled.entries().back().second);
    std::filesystem::remove(file);
  }
}

// Matrix products are tuned as convolutions are (GemmMethod): each candidate made the fastest is
// chosen, logged and read back from the file; one that computes wrongly is rejected. An eager
// linear of 40 rows and a packed one of 24 (rows, register_tiles and shared_tiles can run both
// anywhere), against the CPU's linear.
TEST(Tuning, MatrixProductsAreTunedCheckedAndReadBack) {
  TVK_NEED_VULKAN();
  const Tensor x = tvk::rand({40, 300}, 21), w = tvk::rand({50, 300}, 22), b = tvk::rand({50}, 23);
  const Tensor px = tvk::rand({24, 72}, 24), pw = tvk::rand({30, 72}, 25), pb = tvk::rand({30}, 26);
  const IValue packed = ops::call("vulkan_prepack::create_linear_context", {IValue(t(pw).contiguous()), IValue(pb)});
  struct Product {
    const char* name;
    std::function<Tensor()> run;
    Tensor want;
  };
  const Product products[] = {
      {"aten::linear", [&] { return tvk::linear(x.vulkan(), w.vulkan(), b.vulkan()).cpu(); }, tvk::linear(x, w, b)},
      {"vulkan_prepack::run_linear_context",
       [&] { return ops::call("vulkan_prepack::run_linear_context", {IValue(px.vulkan()), packed}).toTensor().cpu(); },
       tvk::linear(px, pw, pb)},
  };
  for (const Product& p : products) {
    SCOPED_TRACE(p.name);
    // The candidates: every one timed, all equally fast, which keeps the reference (timed first).
    std::vector<std::string> timed;
    {
      vulkan::TuningTable table(identity(), "");
      FakeClock clock;
      vulkan::MethodLog log;
      const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::On, table, clock, log));
      EXPECT_LE(relative_error(p.run(), p.want), 1e-4);
      timed = clock.timed;
      ASSERT_EQ(table.size(), 1u);
      EXPECT_EQ(table.entries().begin()->first.rfind(std::string(p.name) + " gemm b1 ", 0), 0u)
          << table.entries().begin()->first;
      EXPECT_EQ(table.entries().begin()->second.method, timed.front());
      ASSERT_EQ(log.entries().size(), 1u);
      EXPECT_EQ(log.entries()[0].first, p.name);
    }
    const std::set<std::string> candidates(timed.begin(), timed.end());
    for (const char* method : {"rows", "register_tiles", "shared_tiles"})
      EXPECT_TRUE(candidates.count(method)) << method << " was not timed";
    vulkan::MethodLog log;
    for (const std::string& fastest : candidates) {
      SCOPED_TRACE("fastest: " + fastest);
      const std::string file = temp_file("product.txt");
      std::filesystem::remove(file);
      {
        vulkan::TuningTable table(identity(), file);
        FakeClock clock;
        clock.times[fastest] = 2e5;
        log.clear();
        const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::On, table, clock, log));
        EXPECT_LE(relative_error(p.run(), p.want), 1e-4);
        ASSERT_EQ(log.entries().size(), 1u);
        EXPECT_EQ(log.entries()[0].second, fastest);
      }
      vulkan::TuningTable reread(identity(), file);
      ASSERT_EQ(reread.size(), 1u);
      FakeClock idle;
      log.clear();
      const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::Cached, reread, idle, log));
      EXPECT_LE(relative_error(p.run(), p.want), 1e-4);
      EXPECT_TRUE(idle.timed.empty());
      ASSERT_EQ(log.entries().size(), 1u);
      EXPECT_EQ(log.entries()[0].second, fastest);
      std::filesystem::remove(file);
    }
    // The fastest candidate computes wrongly: rejected, with the reason.
    const std::string wrong = timed.back();
    ASSERT_NE(wrong, timed.front());
    vulkan::TuningTable table(identity(), "");
    FakeClock clock;
    clock.times[wrong] = 1e3;
    clock.corrupt = wrong;
    const vulkan::ScopedKernelOptions scope(tuning_options(Tuning::On, table, clock, log));
    EXPECT_LE(relative_error(p.run(), p.want), 1e-4);
    ASSERT_EQ(table.size(), 1u);
    const vulkan::TuningTable::Entry e = table.entries().begin()->second;
    EXPECT_NE(e.method, wrong);
    EXPECT_NE(e.detail.find(wrong + " rejected: max error"), std::string::npos) << e.detail;
  }
}

TEST(Tuning, ForcedMethodIsNeverTunedOver) {
  TVK_NEED_VULKAN();
  const Layer& l = kLayers[0];
  const Weights w = weights_of(l);
  vulkan::TuningTable table(identity(), "");
  FakeClock clock;
  vulkan::MethodLog log;
  vulkan::KernelOptions o = tuning_options(Tuning::On, table, clock, log);
  o.conv = vulkan::ConvMethod::Oc8;
  const vulkan::ScopedKernelOptions scope(o);
  EXPECT_LE(relative_error(run_on(l, w, Device::Vulkan), run_on(l, w, Device::CPU)), 1e-4);
  EXPECT_TRUE(clock.timed.empty());
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(log.entries().back().second, "oc8");
}

#endif  // TVK_USE_VULKAN
