// The CPU fallback on a model mixing Vulkan ops with ops that have only CPU kernels
// (make_models.py FallbackMix: topk, cumsum, sort and torchvision::nms, beside argmax and
// index_select, which have Vulkan kernels):
// off, it throws naming the op; on, eager and optimized runs equal torch; optimize_for_mobile's
// partition (a minimum cut) puts a known set of nodes on the CPU with a known number of
// transfers, and the partitioned model runs planned, cut where the CPU needs GPU data.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "io/npy.h"
#include "jit/passes/passes.h"
#include "jit/runtime/graph_executor.h"
#include "jit/serialization/import.h"
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
  // topk, cumsum, nms and sort have no Vulkan kernel. The partition is a minimum cut (each
  // transfer weighs as 4 small ops): argmax of the CPU cumsum, index_select by topk's indices
  // from the scores the CPU already has, relu and the two muls before the method returns
  // their results cost less on the CPU than the transfers they would need on Vulkan. Three
  // values cross: the class scores to the CPU (shared by five CPU nodes), the boxes and their
  // scores for nms. The box arithmetic stays on Vulkan: on the CPU it would need the box
  // tensor moved once, with four ops, which costs as much.
  EXPECT_EQ(report.cpu_nodes.size(), 9u) << report.summary();
  EXPECT_EQ(report.cpu_fallback_transfers, 3) << report.summary();

  // The partitioned model needs no run-time fallback: it runs with the switch off.
  FallbackSwitch off(false);
  for (int run = 0; run < 3; ++run) expect_torchs_outputs(optimized.forward(input()), "optimized, partitioned");
  const std::string path = ::testing::TempDir() + "tvk_fallback_mix_vulkan.pt";
  optimized.save(path);
  jit::Module reloaded = jit::load(path, Device::Vulkan);
  for (int run = 0; run < 3; ++run) expect_torchs_outputs(reloaded.forward(input()), "optimized, saved and loaded");
  if (!jit::planned_execution_enabled()) return;
  // Planned: recorded once, then replayed. The GPU work is cut where a CPU node needs its data
  // (topk reads the class scores; nms the boxes), so two recordings, each submitted once per
  // call, with the CPU nodes run between and after them.
  const jit::ExecutionStats s = reloaded.state()->graphs.at("forward")->stats();
  EXPECT_EQ(s.plans_built, 1u) << s.last_fallback;
  EXPECT_EQ(s.replays, 2u);
  EXPECT_EQ(s.eager_runs, 0u);
  EXPECT_EQ(s.segments, 2u);
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
// An op with a CPU kernel only, for good: the partition tests must not depend on which of tvk's
// own ops lack a Vulkan kernel today (cumsum, which these tests used, has one now).
Tensor cpu_only_running_sum(const Tensor& self, int64_t dim, const Tensor&) {
  return ops::call("aten::cumsum", {IValue(self), IValue(dim), IValue()}).toTensor();
}
TVK_REGISTER_OP("tvk_test::cpu_only(Tensor self, int dim, Tensor? unused=None) -> Tensor", cpu_only_running_sum);

// x -> to(vulkan) -> tvk_test::cpu_only -> relu -> mul [-> linear] -> to(cpu): the partition
// of a small graph, built by hand.
jit::PartitionReport partition_chain(bool ends_in_linear) {
  using jit::Arg;
  jit::Graph graph;
  auto add = [&](const char* op, std::vector<Arg> args) {
    auto node = std::make_unique<jit::Node>();
    node->kind = jit::NodeKind::Op;
    node->op = &ops::require_op(op);
    node->args = std::move(args);
    node->outputs.push_back(graph.new_value(jit::ValueType::Tensor));
    return graph.append(std::move(node))->outputs[0];
  };
  const auto to = [&](jit::Value* v, Device d) {
    return add("aten::to.prim_Device",
               {Arg::of(v), Arg::of(IValue(d)), Arg::of(IValue()), Arg::of(IValue(false)), Arg::of(IValue(false))});
  };
  jit::Value* x = to(graph.add_input("x", jit::ValueType::Tensor), Device::Vulkan);
  jit::Value* y = add("tvk_test::cpu_only", {Arg::of(x), Arg::of(IValue(int64_t{1})), Arg::of(IValue())});
  y = add("aten::mul.Scalar", {Arg::of(add("aten::relu", {Arg::of(y)})), Arg::of(IValue(2.0))});
  if (ends_in_linear) y = add("aten::linear", {Arg::of(y), Arg::of(IValue(rand({3, 5}, 1))), Arg::of(IValue())});
  graph.outputs().push_back(Arg::of(to(y, Device::CPU)));
  return jit::partition_for_cpu_fallback(graph, Device::Vulkan);
}
}  // namespace

TEST(CpuFallback, APartitionDoesNotSpreadTheCpuPartIntoTheNetworkAfterIt) {
  // Before linear, the values must go to Vulkan once wherever relu and mul run: they run there.
  const jit::PartitionReport network = partition_chain(true);
  ASSERT_EQ(network.cpu_nodes.size(), 1u);
  EXPECT_EQ(network.cpu_nodes[0].rfind("tvk_test::cpu_only", 0), 0u) << network.cpu_nodes[0];
  EXPECT_EQ(network.transfers, 2) << "x back to the CPU for the CPU-only op, its result to Vulkan for relu";
  // Where the method returns mul's result, relu and mul on Vulkan would cost a transfer there
  // and one back: they stay on the CPU with the CPU-only op, and nothing but x crosses.
  const jit::PartitionReport tail = partition_chain(false);
  EXPECT_EQ(tail.cpu_nodes.size(), 3u);
  EXPECT_EQ(tail.transfers, 1);
}

namespace {
// A CPU-only in-place op: doubles self where it lies.
Tensor double_in_place(const Tensor& self) {
  float* p = self.data<float>();
  for (int64_t i = 0; i < self.numel(); ++i) p[self.storage_offset() + i] *= 2.0f;
  return self;
}
}  // namespace

TEST(CpuFallback, InPlaceOpsWriteTheirResultBackToVulkan) {
  TVK_NEED_VULKAN();
  // The fallback runs the CPU kernel on a copy and uploads the result into the Vulkan tensor,
  // and through a view (x[1] here) into the tensor the view was taken from.
  static const bool defined =
      (ops::Registry::global().define("tvk_test::double_(Tensor(a!) self) -> Tensor(a!)", ops::box(double_in_place)), true);
  ASSERT_TRUE(defined);
  Tensor x = full({2, 3}, 1.5).vulkan();
  {
    FallbackSwitch off(false);
    EXPECT_THROW(ops::call("tvk_test::double_", {IValue(x)}), UnsupportedError);
  }
  FallbackSwitch on(true);
  const IValue same = ops::call("tvk_test::double_", {IValue(x)});
  EXPECT_TRUE(same.toTensor().is_same(x));
  const Tensor row = ops::call("aten::select.int", {IValue(x), IValue(int64_t{0}), IValue(int64_t{1})}).toTensor();
  ops::call("tvk_test::double_", {IValue(row)});
  const Tensor back = x.cpu().contiguous();
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.data<float>()[i], 3.0f) << "element " << i;
    EXPECT_EQ(back.data<float>()[3 + i], 6.0f) << "element " << 3 + i;
  }
}

// torchvision's ssdlite320_mobilenet_v3_large, scripted whole (make_models.py ssdlite): a list of
// images in, (losses, detections) out, with the transform, anchors, box decoding, per-class
// thresholds, top-k and batched NMS in TorchScript around the network.
namespace {

struct Detections {
  Tensor boxes, scores, labels;  // [N, 4] float32, [N] float32, [N] int64, on the CPU
};

Detections expected_detections() {
  const std::string base = models_dir() + "/ssdlite_expected_";
  return {io::read_npy(base + "boxes.npy"), io::read_npy(base + "scores.npy"), io::read_npy(base + "labels.npy")};
}

Detections run_ssdlite(jit::Module& m) {
  List images{IValue(io::read_npy(models_dir() + "/ssdlite_input.npy"))};
  const IValue result = m.forward({IValue::list(std::move(images))});
  EXPECT_TRUE(result.isTuple());
  const IValue& per_image = result.toList().at(1);
  EXPECT_EQ(per_image.toList().size(), 1u);
  const std::shared_ptr<Dict>& d = per_image.toList().at(0).toDict();
  auto get = [&](const char* key) {
    IValue* v = d->find(IValue(key));
    if (v == nullptr) throw Error(std::string("the detections have no ") + key);
    return v->toTensor().cpu().contiguous();
  };
  return {get("boxes"), get("scores"), get("labels")};
}

// Detection i of `a` and j of `b` agree: one label, scores within 1e-4, each box coordinate
// (pixels of a 320 x 320 image) within 1e-2.
bool same_detection(const Detections& a, int64_t i, const Detections& b, int64_t j) {
  if (a.labels.data<int64_t>()[i] != b.labels.data<int64_t>()[j]) return false;
  if (std::fabs(a.scores.data<float>()[i] - b.scores.data<float>()[j]) > 1e-4f) return false;
  for (int k = 0; k < 4; ++k)
    if (std::fabs(a.boxes.data<float>()[i * 4 + k] - b.boxes.data<float>()[j * 4 + k]) > 1e-2f) return false;
  return true;
}

// How many of a's detections b has too, anywhere in its list.
int64_t found_in(const Detections& a, const Detections& b) {
  int64_t n = 0;
  for (int64_t i = 0; i < a.scores.numel(); ++i)
    for (int64_t j = 0; j < b.scores.numel(); ++j)
      if (same_detection(a, i, b, j)) {
        ++n;
        break;
      }
  return n;
}

// NMS drops a box whose IoU with a kept one exceeds 0.55; a pair within float32 rounding of
// that is decided either way by any two implementations, and the 300 detections kept shift
// from there; near-equal scores swap places. So: the strongest ten in torch's order, and 97% of
// all anywhere in the list, each way. (Measured: on the CPU tvk keeps all 300 of torch's, on
// lavapipe 298; torch's order itself changes at detection 70 when its input moves by 1e-6.)
void expect_torchs_detections(const Detections& got, const char* what) {
  const Detections want = expected_detections();
  ASSERT_EQ(got.boxes.sizes(), want.boxes.sizes()) << what;
  ASSERT_EQ(got.labels.dtype(), DType::Int64) << what;
  const int64_t n = want.scores.numel();
  for (int64_t i = 0; i < std::min<int64_t>(n, 10); ++i)
    EXPECT_TRUE(same_detection(got, i, want, i)) << what << ": detection " << i << " (label "
                                                 << got.labels.data<int64_t>()[i] << ", score "
                                                 << got.scores.data<float>()[i] << ") differs from torch's";
  EXPECT_GE(found_in(want, got), n * 97 / 100) << what << ": torch's detections missing from tvk's";
  EXPECT_GE(found_in(got, want), n * 97 / 100) << what << ": tvk's detections missing from torch's";
}

}  // namespace

TEST(CpuFallback, SsdliteOnVulkanDetectsWhatTorchDetects) {
  TVK_NEED_MODELS();
  TVK_NEED_VULKAN();
  jit::Module vulkan = jit::load(models_dir() + "/ssdlite_script.pt", Device::Vulkan);
  {
    // Its anchors join shifts made on the CPU (from torch.arange, an int64 factory, which stays
    // there) with Vulkan parameters, and its box decoding multiplies by int64 sizes: without
    // the fallback, it stops at the first, saying how to opt in.
    FallbackSwitch off(false);
    try {
      run_ssdlite(vulkan);
      FAIL() << "ssdlite ran on Vulkan with the CPU fallback off";
    } catch (const UnsupportedError& e) {
      EXPECT_NE(std::string(e.what()).find("fallback"), std::string::npos) << e.what();
    }
  }
  FallbackSwitch on(true);
  for (int run = 0; run < 2; ++run) expect_torchs_detections(run_ssdlite(vulkan), "Vulkan with fallback");
  jit::Module cpu = jit::load(models_dir() + "/ssdlite_script.pt", Device::CPU);
  expect_torchs_detections(run_ssdlite(cpu), "CPU");
}
