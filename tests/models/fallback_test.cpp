// The CPU fallback on a model mixing Vulkan ops with ops that have only CPU kernels
// (make_models.py FallbackMix: topk, cumsum, sort and torchvision::nms, beside argmax and
// index_select, which have Vulkan kernels):
// off, it throws naming the op; on, eager and optimized runs equal torch; optimize_for_mobile's
// partition puts exactly those nodes on the CPU with a known number of transfers.
#include <cstring>

#include "io/npy.h"
#include "ops/registry.h"
#include "model_support.h"
#include "support/test_support.h"
#include "tvk/optimize.h"

using namespace tvk;

namespace {

using testing_support::models_dir;

constexpr int kOutputs = 6;

// Restores the process-wide switch whatever the test does.
class FallbackSwitch {
 public:
  explicit FallbackSwitch(bool on) { set_cpu_fallback(on); }
  ~FallbackSwitch() { set_cpu_fallback(false); }
};

std::vector<IValue> input() {
  std::vector<IValue> in;
  in.emplace_back(io::read_npy(models_dir() + "/fallback_mix_input.npy"));
  return in;
}

void expect_torchs_outputs(const IValue& result, const char* what) {
  ASSERT_TRUE(result.isTuple()) << what;
  ASSERT_EQ(result.toList().size(), static_cast<size_t>(kOutputs)) << what;
  for (int i = 0; i < kOutputs; ++i) {
    const Tensor want = io::read_npy(models_dir() + "/fallback_mix_expected" + std::to_string(i) + ".npy");
    const Tensor got = result.toList()[static_cast<size_t>(i)].toTensor().cpu().contiguous();
    ASSERT_EQ(got.dtype(), want.dtype()) << what << ": output " << i;
    ASSERT_EQ(got.sizes(), want.sizes()) << what << ": output " << i;
    if (want.dtype() == DType::Int64)
      EXPECT_EQ(std::memcmp(got.raw_data(), want.contiguous().raw_data(), got.nbytes()), 0)
          << what << ": output " << i << " (indices) differs from torch's";
    else
      EXPECT_LE(testing_support::relative_diff(got, want), 1e-5) << what << ": output " << i;
  }
}

}  // namespace

TEST(CpuFallback, OffAnOpWithoutAVulkanKernelThrowsAndNamesIt) {
  TVK_NEED_MODELS();
  TVK_NEED_VULKAN();
  FallbackSwitch off(false);
  jit::Module m = jit::load(models_dir() + "/fallback_mix_script.pt", Device::Vulkan);
  try {
    m.forward(input());
    FAIL() << "a model with aten::topk ran on Vulkan with the CPU fallback off";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("aten::topk"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fallback"), std::string::npos) << "the error should say how to opt in";
  }
}

TEST(CpuFallback, OnTheModelRunsOnVulkanAndEqualsTorch) {
  TVK_NEED_MODELS();
  TVK_NEED_VULKAN();
  FallbackSwitch on(true);
  jit::Module m = jit::load(models_dir() + "/fallback_mix_script.pt", Device::Vulkan);
  for (int run = 0; run < 3; ++run) expect_torchs_outputs(m.forward(input()), "eager with fallback");
  // The same model on the CPU, for comparison: the fallback must not change results.
  jit::Module cpu = jit::load(models_dir() + "/fallback_mix_script.pt", Device::CPU);
  expect_torchs_outputs(cpu.forward(input()), "CPU");
}

TEST(CpuFallback, OptimizePartitionsOntoTheCpuWithTransfersOnlyAtTheBorders) {
  TVK_NEED_MODELS();
  TVK_NEED_VULKAN();
  MobileOptimizerOptions options;
  options.backend = MobileBackend::Vulkan;
  options.cpu_fallback = true;
  OptimizationReport report;
  jit::Module optimized =
      optimize_for_mobile(jit::load(models_dir() + "/fallback_mix_script.pt"), options, &report);
  // topk, cumsum, nms and sort; their CPU inputs and outputs cross at six borders: the scores
  // to the CPU once (shared by three CPU nodes), the top-k values back for relu, topk's indices
  // to Vulkan for index_select and cumsum's output for argmax (both have Vulkan kernels; the
  // partition puts every op that has one on Vulkan), the boxes and their scores to the CPU for
  // nms.
  EXPECT_EQ(report.cpu_nodes.size(), 4u) << report.summary();
  EXPECT_EQ(report.cpu_fallback_transfers, 6) << report.summary();

  // The partitioned model needs no run-time fallback: it runs with the switch off.
  FallbackSwitch off(false);
  for (int run = 0; run < 3; ++run) expect_torchs_outputs(optimized.forward(input()), "optimized, partitioned");
  const std::string path = ::testing::TempDir() + "tvk_fallback_mix_vulkan.pt";
  optimized.save(path);
  jit::Module reloaded = jit::load(path, Device::Vulkan);
  expect_torchs_outputs(reloaded.forward(input()), "optimized, saved and loaded");
}

TEST(CpuFallback, OptimizedWithoutThePartitionTheModelNeedsTheSwitch) {
  TVK_NEED_MODELS();
  TVK_NEED_VULKAN();
  MobileOptimizerOptions options;
  options.backend = MobileBackend::Vulkan;
  OptimizationReport report;
  jit::Module optimized =
      optimize_for_mobile(jit::load(models_dir() + "/fallback_mix_script.pt"), options, &report);
  EXPECT_TRUE(report.cpu_nodes.empty());
  {
    FallbackSwitch off(false);
    EXPECT_THROW(optimized.forward(input()), UnsupportedError);
  }
  FallbackSwitch on(true);
  expect_torchs_outputs(optimized.forward(input()), "optimized, run-time fallback");
}

namespace {
Tensor scale_in_place(const Tensor& self) { return self; }  // never reached on Vulkan tensors
}  // namespace

TEST(CpuFallback, InPlaceOpsDoNotFallBack) {
  TVK_NEED_VULKAN();
  // A CPU-only op that writes its argument: falling back would write a CPU copy and leave the
  // Vulkan tensor unchanged, so the fallback refuses it.
  static const bool defined =
      (ops::Registry::global().define("tvk_test::scale_(Tensor(a!) self) -> Tensor(a!)", ops::box(scale_in_place)), true);
  ASSERT_TRUE(defined);
  FallbackSwitch on(true);
  try {
    ops::call("tvk_test::scale_", {IValue(ones({2, 2}).vulkan())});
    FAIL() << "an in-place op fell back to the CPU";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("in-place"), std::string::npos) << e.what();
  }
}
