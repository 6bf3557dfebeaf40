// The first ops on both backends: Vulkan results equal the CPU reference, the CPU reference
// equals the definition, and the dispatcher's device rules hold.
#include <algorithm>

#include "ops/registry.h"
#include "support/test_support.h"

using namespace tvk;
using testing_support::max_abs_diff;

namespace {

Tensor cpu_only_identity(const Tensor& t) { return t; }
TVK_REGISTER_OP("test::cpu_only(Tensor self) -> Tensor", cpu_only_identity);

const std::vector<IntList> kShapes = {{}, {1}, {7}, {3, 5}, {2, 3, 5, 7}, {1, 13, 9, 11}, {4, 6, 1, 3}, {0, 3}};

// Vulkan and CPU agree to fp32 rounding on every shape.
template <typename F>
void expect_backends_agree(F&& op, double tol = 1e-6) {
  for (const IntList& shape : kShapes) {
    Tensor x = randn(shape, 42);
    Tensor cpu = op(x);
    Tensor gpu = op(x.vulkan());
    EXPECT_EQ(gpu.device(), Device::Vulkan);
    EXPECT_LE(max_abs_diff(gpu, cpu), tol) << "shape " << shape_string(shape);
  }
}

}  // namespace

TEST(FirstOps, ReluMatchesDefinition) {
  Tensor x = randn({3, 4}, 1);
  Tensor y = relu(x);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(y.data<float>()[i], std::max(x.data<float>()[i], 0.f));
}

TEST(FirstOps, ClampAndHardtanhMatchDefinition) {
  Tensor x = randn({50}, 2);
  Tensor c = clamp(x, -0.5, std::nullopt);
  Tensor h = hardtanh(x, -0.25, 0.75);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(c.data<float>()[i], std::max(x.data<float>()[i], -0.5f));
    EXPECT_EQ(h.data<float>()[i], std::min(std::max(x.data<float>()[i], -0.25f), 0.75f));
  }
  EXPECT_THROW(clamp(x, std::nullopt, std::nullopt), Error);
}

TEST(FirstOps, AddBroadcastsWithAlpha) {
  Tensor a = randn({2, 3, 4}, 3), b = randn({3, 1}, 4);
  Tensor y = add(a, b, 0.5);
  ASSERT_EQ(y.sizes(), (IntList{2, 3, 4}));
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int w = 0; w < 4; ++w)
        EXPECT_FLOAT_EQ(y.data<float>()[(n * 3 + c) * 4 + w],
                        a.data<float>()[(n * 3 + c) * 4 + w] + 0.5f * b.data<float>()[c]);
  EXPECT_THROW(add(randn({2, 3}), randn({4})), Error);
}

TEST(FirstOps, VulkanMatchesCpuForUnaryOps) {
  TVK_NEED_VULKAN();
  expect_backends_agree([](const Tensor& x) { return relu(x); });
  expect_backends_agree([](const Tensor& x) { return clamp(x, -0.3, 0.4); });
  expect_backends_agree([](const Tensor& x) { return clamp(x, std::nullopt, 0.1); });
  expect_backends_agree([](const Tensor& x) { return hardtanh(x, -2.0, 0.5); });
  expect_backends_agree([](const Tensor& x) { return add(x, 2.5, -0.5); });
  expect_backends_agree([](const Tensor& x) { return mul(x, -1.75); });
}

TEST(FirstOps, VulkanMatchesCpuForBroadcastAdd) {
  TVK_NEED_VULKAN();
  const std::vector<std::pair<IntList, IntList>> cases = {
      {{2, 3, 5, 7}, {2, 3, 5, 7}}, {{2, 3, 5, 7}, {7}}, {{2, 3, 5, 7}, {3, 1, 1}}, {{1, 5}, {4, 1}},
      {{}, {3, 3}},                 {{6}, {}},            {{2, 1, 4}, {1, 3, 1}},   {{0, 2}, {2}}};
  for (auto& [sa, sb] : cases) {
    Tensor a = randn(sa, 5), b = randn(sb, 6);
    Tensor cpu = add(a, b, 1.5);
    Tensor gpu = add(a.vulkan(), b.vulkan(), 1.5);
    EXPECT_LE(max_abs_diff(gpu, cpu), 1e-6) << shape_string(sa) << " + " << shape_string(sb);
  }
}

TEST(FirstOps, InPlaceOpsWriteIntoTheirInput) {
  TVK_NEED_VULKAN();
  Tensor x = randn({2, 3, 4}, 7);
  Tensor other = randn({4}, 8);
  Tensor expected = relu(hardtanh(add(x, other, 2.0), -0.5, 0.5));

  Tensor g = x.vulkan();
  Tensor o = other.vulkan();
  add_(g, o, 2.0);
  hardtanh_(g, -0.5, 0.5);
  relu_(g);
  EXPECT_LE(max_abs_diff(g, expected), 1e-6);

  Tensor c = x.clone();
  add_(c, other, 2.0);
  hardtanh_(c, -0.5, 0.5);
  relu_(c);
  EXPECT_LE(max_abs_diff(c, expected), 1e-6);
  EXPECT_THROW(add_(g, randn({3, 2, 3, 4}).vulkan()), Error);  // would need to grow self
}

TEST(FirstOps, InPlaceOnNonContiguousCpuViewWritesThrough) {
  Tensor base = tensor_from({-1, 2, -3, 4, -5, 6}, {2, 3});
  Tensor view = base.as_strided({3, 2}, {1, 3}, 0);
  relu_(view);
  EXPECT_EQ(base.data<float>()[0], 0.f);
  EXPECT_EQ(base.data<float>()[1], 2.f);
}

TEST(FirstOps, OpWithoutVulkanKernelNamesTheOpAndBackend) {
  TVK_NEED_VULKAN();
  Tensor x = randn({2}).vulkan();
  try {
    call_op("test::cpu_only", {x});
    FAIL() << "expected UnsupportedError";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("test::cpu_only is not supported on the Vulkan backend"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(call_op("test::cpu_only", {x.cpu()}));
}

TEST(FirstOps, MixedDevicesAreAnErrorNamingBoth) {
  TVK_NEED_VULKAN();
  try {
    add(randn({2}), randn({2}).vulkan());
    FAIL() << "expected tvk::Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cpu"), std::string::npos) << msg;
    EXPECT_NE(msg.find("vulkan"), std::string::npos) << msg;
  }
}

TEST(FirstOps, WrongDtypeIsAnError) {
  EXPECT_THROW(relu(zeros({2}, DType::Int64)), Error);
}
