// The typed op API (tvk::conv2d, tvk::cat, ...) on both backends, CPU view semantics (results
// share storage, strided inputs work), the channel-shuffle pattern of ShuffleNet, and invalid
// inputs that must throw tvk::Error, as PyTorch's vulkan_api_test checked them.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>

#include "ops/activation.h"
#include "ops/custom_class.h"
#include "ops/registry.h"
#include "support/kernel_flips.h"
#include "support/test_support.h"
#include "tvk/vulkan_info.h"

using namespace tvk;
using testing_support::max_abs_diff;

TEST(OpsApi, CpuViewOpsShareStorage) {
  Tensor x = randn({2, 3, 4}, 1);
  for (const Tensor& v : {select(x, 1, 2), slice(x, 2, 1, 3), transpose(x, 0, 2), permute(x, {2, 0, 1}),
                          unsqueeze(x, 1), view(x, {6, 4}), flatten(x, 1), t(select(x, 0, 1)), expand(unsqueeze(x, 0), {5, 2, 3, 4})})
    EXPECT_EQ(v.storage(), x.storage());
  Tensor s = select(x, 1, 2);
  EXPECT_EQ(s.sizes(), (IntList{2, 4}));
  EXPECT_EQ(s.data<float>()[s.stride(0) * 1 + 3], x.data<float>()[1 * 12 + 2 * 4 + 3]);
  // reshape of a non-viewable layout copies; of a viewable one it does not.
  Tensor tr = transpose(x, 1, 2);
  EXPECT_NE(reshape(tr, {2, 12}).storage(), x.storage());
  EXPECT_EQ(reshape(tr, {2, 4, 3}).storage(), x.storage());
  EXPECT_THROW(view(tr, {2, 12}), Error);
}

TEST(OpsApi, StridedCpuInputsMatchContiguousOnes) {
  Tensor x = randn({1, 6, 9, 7}, 2);
  Tensor strided = transpose(transpose(x, 2, 3).contiguous(), 2, 3);  // same values, other strides
  ASSERT_FALSE(strided.is_contiguous());
  Tensor w = randn({4, 6, 3, 3}, 3);
  EXPECT_EQ(max_abs_diff(conv2d(strided, w), conv2d(x, w)), 0);
  EXPECT_EQ(max_abs_diff(max_pool2d(strided, {3, 3}, {2, 2}), max_pool2d(x, {3, 3}, {2, 2})), 0);
  EXPECT_EQ(max_abs_diff(mean(strided, {2, 3}), mean(x, {2, 3})), 0);
  EXPECT_EQ(max_abs_diff(cat({strided, x}, 1), cat({x, x}, 1)), 0);
  EXPECT_EQ(max_abs_diff(linear(transpose(x, 2, 3), randn({5, 9}, 4)), linear(transpose(x, 2, 3).contiguous(), randn({5, 9}, 4))), 0);
}

// ShuffleNet's channel shuffle: view -> transpose -> contiguous -> view.
TEST(OpsApi, ChannelShuffleMatchesOnVulkan) {
  TVK_NEED_VULKAN();
  auto shuffle = [](const Tensor& x, int64_t groups) {
    const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
    Tensor y = transpose(view(x, {n, groups, c / groups, h, w}), 1, 2);
    return view(call_op("aten::contiguous", {y}).toTensor(), {n, c, h, w});
  };
  Tensor x = randn({2, 12, 5, 7}, 5);
  Tensor gpu = shuffle(x.vulkan(), 3);
  EXPECT_EQ(gpu.device(), Device::Vulkan);
  EXPECT_EQ(max_abs_diff(gpu, shuffle(x, 3)), 0);
}

TEST(OpsApi, TypedCallsRunOnVulkan) {
  TVK_NEED_VULKAN();
  Tensor x = randn({2, 3, 9, 8}, 6), w = randn({8, 3, 3, 3}, 7), b = randn({8}, 8);
  auto agree = [](const Tensor& gpu, const Tensor& cpu) {
    EXPECT_EQ(gpu.device(), Device::Vulkan);
    EXPECT_LE(max_abs_diff(gpu, cpu), 1e-4 * std::max(1.0, testing_support::max_abs(cpu)));
  };
  agree(conv2d(x.vulkan(), w.vulkan(), b.vulkan(), {2}, {1}), conv2d(x, w, b, {2}, {1}));
  agree(hardswish(batch_norm(x.vulkan(), {}, {}, randn({3}, 9).vulkan(), ones({3}).vulkan())),
        hardswish(batch_norm(x, {}, {}, randn({3}, 9), ones({3}))));
  agree(adaptive_avg_pool2d(x.vulkan(), {1, 1}), adaptive_avg_pool2d(x, {1, 1}));
  agree(addmm(b.vulkan(), randn({4, 5}, 10).vulkan(), randn({5, 8}, 11).vulkan(), 0.5, 2),
        addmm(b, randn({4, 5}, 10), randn({5, 8}, 11), 0.5, 2));
  agree(softmax(flatten(x.vulkan(), 1), -1), softmax(flatten(x, 1), -1));
  agree(upsample_nearest2d(x.vulkan(), std::nullopt, std::vector<double>{2.0, 1.5}),
        upsample_nearest2d(x, std::nullopt, std::vector<double>{2.0, 1.5}));
  auto [values, indices] = adaptive_max_pool2d(x.vulkan(), {2, 3});
  auto [cpu_values, cpu_indices] = adaptive_max_pool2d(x, {2, 3});
  agree(values, cpu_values);
  EXPECT_EQ(indices.dtype(), DType::Int64);
  Tensor gi = indices.cpu();
  for (int64_t i = 0; i < gi.numel(); ++i) EXPECT_EQ(gi.data<int64_t>()[i], cpu_indices.data<int64_t>()[i]);
}

TEST(OpsApi, InvalidInputsThrow) {
  std::vector<Device> devices{Device::CPU};
  if (is_vulkan_available()) devices.push_back(Device::Vulkan);
  for (Device d : devices) {
    auto on = [d](const Tensor& t) { return t.to(d); };
    EXPECT_THROW(conv2d(on(randn({3, 224})), on(randn({4, 3, 3, 3}))), Error);
    EXPECT_THROW(conv2d(on(randn({1, 6, 8, 8})), on(randn({4, 4, 3, 3})), {}, {1}, {0}, {1}, 4), Error);
    EXPECT_THROW(select(on(randn({2, 3})), 2, 0), Error);
    EXPECT_THROW(cat({on(randn({2, 3})), on(randn({3, 4}))}, 0), Error);
    EXPECT_THROW(mm(on(randn({2, 3})), on(randn({4, 2}))), Error);
    EXPECT_THROW(max_pool2d(on(randn({1, 1, 4, 4})), {2, 2}, {2, 2}, {3, 3}), Error);
    EXPECT_THROW(mean(on(randn({2, 3})), {0, 0}), Error);
    EXPECT_THROW(batch_norm(on(randn({2, 3, 4})), {}, {}, on(randn({4})), on(ones({4}))), Error);
  }
  try {
    conv2d(randn({3, 224, 224}).view({1, 3, 224, 224}).view({3, 224, 224}), randn({4, 3, 3, 3}), {}, {1}, {0}, {1}, 2);
    FAIL() << "groups 2 with 3 input channels should throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("aten::conv2d"), std::string::npos) << e.what();
  }
}

TEST(OpsApi, ConvolutionOutputLargerThanOneStorageBindingIsWrittenInParts) {
  TVK_NEED_VULKAN();
  // 3 x 16 x 1024 x 768 floats = 151 MB of output, past lavapipe's 128 MiB maxStorageBufferRange:
  // the tiled kernel writes it in chunks of whole images (vulkan/ops/conv.cpp).
  const Tensor x = randn({3, 4, 1024, 768}, 7);
  const Tensor w = randn({16, 4, 1, 1}, 8);
  const Tensor b = randn({16}, 9);
  const Tensor expected = conv2d(x, w, b);
  testing_support::for_each_kernel_flip([&] {
    const Tensor got = conv2d(x.vulkan(), w.vulkan(), b.vulkan()).cpu();
    EXPECT_EQ(got.sizes(), expected.sizes());
    EXPECT_LE(max_abs_diff(got, expected), 1e-4 * testing_support::max_abs(expected));
  });
}

TEST(OpsApi, LinearWithAWeightLargerThanOneStorageBindingOnVulkan) {
  TVK_NEED_VULKAN();
  // alexnet's first classifier layer: a [4096, 9216] weight is 151 MB, past lavapipe's 128 MiB
  // maxStorageBufferRange (issue 10: alexnet and vgg failed on Vulkan when not optimized). The
  // matmul kernel reads its operands through texel views.
  const Tensor x = randn({2, 9216}, 14);
  const Tensor w = randn({4096, 9216}, 15);
  const Tensor b = randn({4096}, 16);
  const Tensor expected = linear(x, w, b);
  const Tensor got = linear(x.vulkan(), w.vulkan(), b.vulkan()).cpu();
  EXPECT_EQ(got.sizes(), expected.sizes());
  EXPECT_LE(max_abs_diff(got, expected), 1e-4 * testing_support::max_abs(expected));
}

TEST(OpsApi, PackedLinearWithMoreThan65535InputsOnVulkan) {
  TVK_NEED_VULKAN();
  testing_support::for_each_kernel_flip([&] {
    // lavapipe stops a shader loop after 65535 iterations: a long row is split over invocations.
    const int64_t in = 70000, out = 5;
    const Tensor x = randn({2, in}, 11);
    const Tensor w = randn({out, in}, 12);
    const Tensor b = randn({out}, 13);
    const Tensor expected = linear(x, w, b);
    const IValue ctx = ops::call("vulkan_prepack::create_linear_context", {IValue(t(w).contiguous()), IValue(b)});
    const Tensor got = ops::call("vulkan_prepack::run_linear_context", {IValue(x.vulkan()), ctx}).toTensor().cpu();
    EXPECT_EQ(got.sizes(), expected.sizes());
    EXPECT_LE(max_abs_diff(got, expected), 1e-4 * testing_support::max_abs(expected));
  });
}

TEST(OpsApi, PackedLinearOverManyRowsOnVulkan) {
  TVK_NEED_VULKAN();
  testing_support::for_each_kernel_flip([&] {
    // 16+ rows take the tiled kernel (gemm_tiled.glsl): 2 x 50 rows are two row tiles, 70 outputs
    // two column tiles (the last not a multiple of 4), 37 inputs three K steps.
    const Tensor x = randn({2, 50, 37}, 17);
    const Tensor w = randn({70, 37}, 18);
    const Tensor b = randn({70}, 19);
    const Tensor expected = linear(x, w, b);
    const IValue ctx = ops::call("vulkan_prepack::create_linear_context", {IValue(t(w).contiguous()), IValue(b)});
    const Tensor got = ops::call("vulkan_prepack::run_linear_context", {IValue(x.vulkan()), ctx}).toTensor().cpu();
    EXPECT_EQ(got.sizes(), expected.sizes());
    EXPECT_LE(max_abs_diff(got, expected), 1e-4 * testing_support::max_abs(expected));
  });
}

// fp16 precision on matrix products of 16+ rows: on devices with cooperative matrices they run
// on tensor cores (gemm_coopmat.glsl) with operands rounded to fp16, elsewhere as in fp32. Sizes
// that are not multiples of the 64 x 64 tile or the 32-deep K step, batches, transposed
// operands (read through strides: one value per texel, or quads along k or n), a broadcast
// bias with alpha and beta, and products of many tiles and batch entries (TVK_COOPMAT_TILE runs
// this test with each of the kernel's other tile shapes).
TEST(OpsApi, Fp16MatrixProductsStayWithinOnePercentOfFp32) {
  TVK_NEED_VULKAN();
  testing_support::for_each_kernel_flip([&] {
    struct RestoreFp32 {
      ~RestoreFp32() { set_vulkan_precision(Precision::FP32); }
    } restore;
    const Tensor a = randn({70, 300}, 41), b = randn({300, 90}, 42);
    const Tensor ba = randn({3, 33, 40}, 43), bb = randn({3, 40, 65}, 44);
    const Tensor bias = randn({90}, 45);
    const Tensor q = randn({2, 4, 37, 64}, 46), k = randn({2, 4, 37, 64}, 47);
    const Tensor x = randn({129, 96}, 48), w = randn({130, 96}, 49), lb = randn({130}, 50);
    const Tensor at = randn({300, 70}, 51), va = randn({3, 37, 37}, 52), vb = randn({3, 37, 64}, 53);
    const Tensor ox = randn({45, 97}, 58), ow = randn({33, 97}, 59);  // w^T: unit stride along k, no quads
    const Tensor wide_a = randn({1100, 64}, 54), wide_b = randn({64, 1100}, 55);
    const Tensor many_a = randn({16, 520, 16}, 56), many_b = randn({16, 16, 520}, 57);
    auto run_all = [&](bool on_vulkan) {
      auto dev = [on_vulkan](const Tensor& t) { return on_vulkan ? t.vulkan() : t; };
      std::vector<Tensor> out;
      out.push_back(mm(dev(a), dev(b)));
      out.push_back(bmm(dev(ba), dev(bb)));
      out.push_back(addmm(dev(bias), dev(a), dev(b), 0.5, 2.0));
      out.push_back(matmul(dev(q), transpose(dev(k), 2, 3)));
      out.push_back(linear(dev(x), dev(w), dev(lb)));
      out.push_back(mm(t(dev(at)), dev(b)));
      out.push_back(linear(dev(ox), dev(ow)));
      out.push_back(bmm(dev(va), dev(vb)));
      out.push_back(mm(dev(wide_a), dev(wide_b)));
      out.push_back(bmm(dev(many_a), dev(many_b)));
      for (Tensor& t : out) t = t.cpu();
      return out;
    };
    const std::vector<Tensor> expected = run_all(false);
    set_vulkan_precision(Precision::FP32);
    const std::vector<Tensor> full = run_all(true);
    set_vulkan_precision(Precision::FP16);
    const std::vector<Tensor> half = run_all(true);
    bool tensor_cores = false;
    for (const VulkanDeviceInfo& d : vulkan_info().devices) tensor_cores |= d.selected && !d.cooperative_matrix.empty();
    for (size_t i = 0; i < expected.size(); ++i) {
      const double scale = testing_support::max_abs(expected[i]);
      EXPECT_EQ(half[i].sizes(), expected[i].sizes()) << "case " << i;
      EXPECT_LE(max_abs_diff(full[i], expected[i]), 1e-4 * scale) << "case " << i;
      EXPECT_LE(max_abs_diff(half[i], expected[i]), 1e-2 * scale) << "case " << i;
      // Tensor cores round every operand to fp16; other devices keep these fp32 products exact.
      if (tensor_cores) {
        EXPECT_GT(max_abs_diff(half[i], full[i]), 0.0) << "case " << i << ": tensor cores unused";
      }
    }
  });
}

// fp16 precision (issue 9): convolution and packed linear weights stored as 16-bit floats.
// Within 1e-2 of fp32, and not equal to it (the halves are really used), but for a stem's and a
// depthwise convolution's, which stay fp32 (so their outputs equal fp32's).
TEST(OpsApi, Fp16WeightsStayWithinOnePercentOfFp32) {
  TVK_NEED_VULKAN();
  testing_support::for_each_kernel_flip([&] {
    struct RestoreFp32 {
      ~RestoreFp32() { set_vulkan_precision(Precision::FP32); }
    } restore;
    const Tensor x = randn({2, 16, 20, 20}, 21);
    const Tensor w = randn({24, 16, 3, 3}, 22), b = randn({24}, 23);
    const Tensor dw = randn({16, 1, 3, 3}, 24), db = randn({16}, 25);
    const Tensor lx = randn({3, 300}, 26), lw = randn({50, 300}, 27), lb = randn({50}, 28);
    const Tensor tx = randn({40, 300}, 32);  // 16+ rows: the tiled kernel
    // Batch 1, 96 channels, 1x1: conv2d_split on GPUs (and under the split4 flip); and 3x3.
    const Tensor px = randn({1, 96, 6, 6}, 29), pw = randn({20, 96, 1, 1}, 30), pb = randn({20}, 31);
    const Tensor kw = randn({20, 96, 3, 3}, 33);
    // A stem (3 input channels) keeps fp32 weights in fp16; under the conv_gemm flip its product takes
    // im2col + GEMM with the patch matrix in halves beside them (as on tensor cores).
    const Tensor sx = randn({2, 3, 20, 20}, 34), sw = randn({24, 3, 3, 3}, 35);
    auto run_all = [&] {
      std::vector<Tensor> out;
      // Stride 1 (Winograd from batch 2) and stride 2 (im2col + GEMM under the conv_gemm flip, with
      // the patches in halves in fp16, as Winograd's transformed inputs are).
      out.push_back(conv2d(x.vulkan(), w.vulkan(), b.vulkan(), {1}, {1}).cpu());
      out.push_back(conv2d(x.vulkan(), w.vulkan(), b.vulkan(), {2}, {1}).cpu());
      out.push_back(conv2d(px.vulkan(), kw.vulkan(), pb.vulkan(), {1}, {1}).cpu());
      out.push_back(conv2d(x.vulkan(), dw.vulkan(), db.vulkan(), {1}, {1}, {1}, 16).cpu());
      out.push_back(conv2d(px.vulkan(), pw.vulkan(), pb.vulkan()).cpu());
      const IValue ctx = ops::call("vulkan_prepack::create_linear_context", {IValue(t(lw).contiguous()), IValue(lb)});
      out.push_back(ops::call("vulkan_prepack::run_linear_context", {IValue(lx.vulkan()), ctx}).toTensor().cpu());
      out.push_back(ops::call("vulkan_prepack::run_linear_context", {IValue(tx.vulkan()), ctx}).toTensor().cpu());
      out.push_back(conv2d(sx.vulkan(), sw.vulkan(), b.vulkan(), {2}, {1}).cpu());
      return out;
    };
    const std::vector<Tensor> expected{conv2d(x, w, b, {1}, {1}), conv2d(x, w, b, {2}, {1}),
                                       conv2d(px, kw, pb, {1}, {1}), conv2d(x, dw, db, {1}, {1}, {1}, 16),
                                       conv2d(px, pw, pb), linear(lx, lw, lb), linear(tx, lw, lb),
                                       conv2d(sx, sw, b, {2}, {1})};
    const size_t stem = expected.size() - 1, depthwise = 3;
#if TVK_USE_VULKAN
    const bool stem_patches_in_halves = vulkan::kernel_options().conv_gemm == vulkan::Toggle::On;
#else
    const bool stem_patches_in_halves = false;
#endif
    set_vulkan_precision(Precision::FP32);
    const std::vector<Tensor> full = run_all();
    set_vulkan_precision(Precision::FP16);
    EXPECT_EQ(vulkan_precision(), Precision::FP16);
    const std::vector<Tensor> half = run_all();
    for (size_t i = 0; i < expected.size(); ++i) {
      const double scale = testing_support::max_abs(expected[i]);
      EXPECT_LE(max_abs_diff(full[i], expected[i]), 1e-4 * scale) << "case " << i;
      EXPECT_LE(max_abs_diff(half[i], expected[i]), 1e-2 * scale) << "case " << i;
      if ((i == stem && !stem_patches_in_halves) || i == depthwise)
        EXPECT_EQ(max_abs_diff(half[i], full[i]), 0.0) << "case " << i << ": the weights were rounded to fp16";
      else
        EXPECT_GT(max_abs_diff(half[i], full[i]), 0.0) << "case " << i << ": fp16 weights were not used";
    }
  });
}

// fp16 precision rounds weights, not the activations they multiply, in the kernels that keep
// activations in fp32: with weights that fp16 holds exactly, a packed linear over 16+ rows and a
// pointwise convolution at batch 2 (tiled GEMMs; on tensor cores the activations' rounding is
// kept as a second fp16 operand) give fp32's outputs up to the order of their sums.
TEST(OpsApi, Fp16KeepsActivationsOfMatrixProductsInFp32) {
  TVK_NEED_VULKAN();
  testing_support::for_each_kernel_flip([&] {
    struct RestoreFp32 {
      ~RestoreFp32() { set_vulkan_precision(Precision::FP32); }
    } restore;
    // Multiples of 2^-8 below 8 in magnitude: 11 significant bits at most, exact in fp16.
    auto exact_in_fp16 = [](Tensor t) {
      float* v = t.data<float>();
      for (int64_t i = 0; i < t.numel(); ++i) v[i] = std::clamp(std::round(v[i] * 256.0f), -2047.0f, 2047.0f) / 256.0f;
      return t;
    };
    const Tensor lx = randn({40, 300}, 60), lw = exact_in_fp16(randn({50, 300}, 61)), lb = exact_in_fp16(randn({50}, 62));
    const Tensor px = randn({2, 64, 9, 9}, 63), pw = exact_in_fp16(randn({48, 64, 1, 1}, 64));
    const Tensor pb = exact_in_fp16(randn({48}, 65));
    auto run_all = [&] {
      const IValue ctx = ops::call("vulkan_prepack::create_linear_context", {IValue(t(lw).contiguous()), IValue(lb)});
      const IValue conv = ops::call("vulkan_prepack::create_conv2d_context",
                                    {IValue(pw), IValue(pb), IValue(IntList{1, 1}), IValue(IntList{0, 0}),
                                     IValue(IntList{1, 1}), IValue(int64_t{1}), IValue(), IValue()});
      return std::vector<Tensor>{
          ops::call("vulkan_prepack::run_linear_context", {IValue(lx.vulkan()), ctx}).toTensor().cpu(),
          ops::call("vulkan_prepack::run_conv2d_context", {IValue(px.vulkan()), conv}).toTensor().cpu()};
    };
    set_vulkan_precision(Precision::FP32);
    const std::vector<Tensor> full = run_all();
    set_vulkan_precision(Precision::FP16);
    const std::vector<Tensor> half = run_all();
    const std::vector<Tensor> expected{linear(lx, lw, lb), conv2d(px, pw, pb)};
    for (size_t i = 0; i < expected.size(); ++i) {
      const double scale = testing_support::max_abs(expected[i]);
      EXPECT_LE(max_abs_diff(full[i], expected[i]), 1e-5 * scale) << "case " << i;
      // Rounding the activations to fp16 put these 2.5e-4 and 2.1e-4 off on the H200.
      EXPECT_LE(max_abs_diff(half[i], expected[i]), 1e-5 * scale) << "case " << i;
    }
  });
}

// fp32 matrix products keep fp32's accuracy at any scale: over operands of mixed scales, of 1e-6
// and of 1e6 (outside fp16's range), each output is held to 2e-6 of the sum of its terms'
// magnitudes (the same product over |a| and |b|). On the H200, operands rounded to fp16 failed
// it (3.1e-4, 5.6e-3, inf), and so did fp16 halves without scaling (docs/benchmarks.md, "fp32 on
// tensor cores, tried and dropped").
TEST(OpsApi, Fp32MatrixProductsKeepTheirBitsAtAnyScale) {
  TVK_NEED_VULKAN();
  auto magnitude = [](const Tensor& x) {
    Tensor m = x.contiguous().clone();
    float* v = m.data<float>();
    for (int64_t i = 0; i < m.numel(); ++i) v[i] = std::fabs(v[i]);
    return m;
  };
  // Inner dimensions whose slices mix scales 1e-4 to 1e4, or hold only tiny or huge values.
  Tensor mixed = randn({70, 300}, 80);
  for (int64_t i = 0; i < mixed.numel(); ++i) mixed.data<float>()[i] *= std::pow(10.0f, static_cast<float>(i % 9) - 4.0f);
  const Tensor b = randn({300, 90}, 81);
  const Tensor tiny = mul(randn({70, 300}, 82), 1e-6), huge = mul(randn({70, 300}, 83), 1e6);
  const Tensor px = mul(randn({2, 64, 9, 9}, 84), 1e-6), pw = randn({48, 64, 1, 1}, 85);
  const Tensor sx = mul(randn({2, 32, 12, 12}, 86), 1e6), sw = randn({40, 32, 3, 3}, 87);
  const Tensor lx = mul(randn({40, 300}, 88), 1e6), lw = randn({50, 300}, 89);
  using Product = std::function<Tensor(const Tensor&, const Tensor&)>;
  const Product matrix = [](const Tensor& x, const Tensor& y) { return mm(x, y); };
  // Batch 2: the GEMM kernels (pointwise; im2col or the implicit GEMM for stride 2).
  const Product pointwise = [](const Tensor& x, const Tensor& w) { return conv2d(x, w); };
  const Product strided = [](const Tensor& x, const Tensor& w) { return conv2d(x, w, Tensor(), {2}, {1}); };
  const Product packed_linear = [](const Tensor& x, const Tensor& w) {  // 16+ rows: the tiled GEMM
    if (!x.is_vulkan()) return linear(x, w);
    const IValue ctx = ops::call("vulkan_prepack::create_linear_context", {IValue(t(w).contiguous()), IValue()});
    return ops::call("vulkan_prepack::run_linear_context", {IValue(x), ctx}).toTensor();
  };
  const struct {
    const char* name;
    Product product;
    Tensor x, y;
  } cases[] = {{"mixed scales", matrix, mixed, b},  {"tiny", matrix, tiny, b},
               {"huge", matrix, huge, b},           {"pointwise, tiny", pointwise, px, pw},
               {"strided, huge", strided, sx, sw},  {"packed linear, huge", packed_linear, lx, lw}};
  ASSERT_EQ(vulkan_precision(), Precision::FP32);
  for (const auto& c : cases) {
    const Tensor got = c.product(c.x.vulkan(), c.y.vulkan()).cpu(), expected = c.product(c.x, c.y);
    const Tensor bound = c.product(magnitude(c.x), magnitude(c.y));
    ASSERT_EQ(got.sizes(), expected.sizes()) << c.name;
    double worst = 0.0;
    for (int64_t i = 0; i < got.numel(); ++i)
      worst = std::max(worst, std::fabs(double(got.data<float>()[i]) - expected.data<float>()[i]) /
                                  double(bound.data<float>()[i]));
    EXPECT_LE(worst, 2e-6) << c.name;
  }
}

// On GPUs a packed convolution holds only what batch 1 reads (conv2d_split's packing) until a
// call of batch 2+: Winograd's sets (4x the weights) and the GEMM's matrix are made then, from
// the context's host copy, and give the results they gave when made at packing. The split4
// flip runs this with the GPU kernels on lavapipe, whose own kernels pack everything at once.
TEST(OpsApi, PackedConvolutionsMakeBatchWeightsAtFirstUse) {
  TVK_NEED_VULKAN();
  testing_support::for_each_kernel_flip([&] {
    const Tensor w = randn({64, 64, 3, 3}, 70), b = randn({64}, 71);
    const Tensor x1 = randn({1, 64, 12, 12}, 72), x2 = randn({2, 64, 12, 12}, 73);
    auto context = [&](int64_t stride) {
      return ops::call("vulkan_prepack::create_conv2d_context",
                       {IValue(w), IValue(b), IValue(IntList{stride, stride}), IValue(IntList{1, 1}),
                        IValue(IntList{1, 1}), IValue(int64_t{1}), IValue(), IValue()});
    };
    auto run = [](const IValue& ctx, const Tensor& x) {
      return ops::call("vulkan_prepack::run_conv2d_context", {IValue(x.vulkan()), ctx}).toTensor().cpu();
    };
    vulkan_synchronize();
    const uint64_t start = vulkan_counters().used_bytes;
    // Stride 1: Winograd at batch 2+ on GPUs; stride 2: the implicit GEMM's matrix.
    const IValue same = context(1), strided = context(2);
    std::vector<Tensor> out{run(same, x1), run(strided, x1)};
    vulkan_synchronize();
    const uint64_t at_batch1 = vulkan_counters().used_bytes - start;
    out.push_back(run(same, x2));
    out.push_back(run(strided, x2));
    out.push_back(run(same, x2));  // made once: the second call reuses them
    vulkan_synchronize();
    const uint64_t at_batch2 = vulkan_counters().used_bytes - start;
    const std::vector<Tensor> expected{conv2d(x1, w, b, {1}, {1}), conv2d(x1, w, b, {2}, {1}), conv2d(x2, w, b, {1}, {1}),
                                       conv2d(x2, w, b, {2}, {1}), conv2d(x2, w, b, {1}, {1})};
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_LE(max_abs_diff(out[i], expected[i]), 1e-4 * testing_support::max_abs(expected[i])) << "case " << i;
    // Where the GPU kernels run in fp32 with their defaults, both contexts defer.
    bool deferred = false;
#if TVK_USE_VULKAN
    const VulkanInfo info = vulkan_info();
    const vulkan::KernelOptions& options = vulkan::kernel_options();
    bool gpu_kernels = options.reduction_split > 0 || options.gpu_shapes == vulkan::Toggle::On;
    for (const VulkanDeviceInfo& d : info.devices) gpu_kernels |= d.selected && d.type != "CPU";
    deferred = gpu_kernels && vulkan_precision() == Precision::FP32 && options.conv_gemm == vulkan::Toggle::Auto &&
               options.gemm_tile128 && options.winograd && options.defer_weights;
#endif
    if (deferred) {
      const uint64_t weight_bytes = static_cast<uint64_t>(w.nbytes() + b.nbytes());
      const uint64_t winograd_bytes = 36 * 64 * 64 * sizeof(float);
      EXPECT_LT(at_batch1, 3 * weight_bytes) << "batch 1 held more than one packing of each context's weights";
      EXPECT_GE(at_batch2, at_batch1 + winograd_bytes + w.nbytes()) << "batch 2 made no Winograd sets or GEMM matrix";
    }
  });
}

// tvk::run_conv2d_contexts_cat (what squeezenet's fire modules become when loaded): at batch 1
// the convolutions write their channel slices of the result in place; other batches, dims and
// slices the device cannot bind at their offset run the convolutions, then cat. Each case
// against the CPU's conv2d + clamp + cat.
TEST(OpsApi, PackedConvolutionsConcatenatedOnVulkan) {
  TVK_NEED_VULKAN();
  testing_support::for_each_kernel_flip([&] {
    const Tensor w1 = randn({12, 16, 1, 1}, 40), b1 = randn({12}, 41);
    const Tensor w2 = randn({5, 8, 3, 3}, 42), b2 = randn({5}, 43);
    const Tensor w3 = randn({20, 8, 3, 3}, 44);
    auto context = [](const Tensor& w, const Tensor& b, int64_t pad, IValue lo, IValue hi) {
      return ops::call("vulkan_prepack::create_conv2d_context",
                       {IValue(w), b.defined() ? IValue(b) : IValue(), IValue(IntList{1, 1}), IValue(IntList{pad, pad}),
                        IValue(IntList{1, 1}), IValue(int64_t{1}), std::move(lo), std::move(hi)});
    };
    const IValue c1 = context(w1, b1, 0, IValue(0.0), IValue()), c2 = context(w2, b2, 1, IValue(0.0), IValue(6.0));
    const IValue c3 = context(w3, Tensor(), 1, IValue(), IValue());
    auto fused = [](const List& inputs, const std::vector<IValue>& contexts, int64_t dim) {
      return ops::call("tvk::run_conv2d_contexts_cat", {IValue::list(inputs), IValue::list(List(contexts)), IValue(dim)})
          .toTensor();
    };
    for (const IntList& plane : {IntList{8, 8}, IntList{9, 7}})
      for (int64_t batch : {1, 2}) {
        const Tensor x1 = randn({batch, 16, plane[0], plane[1]}, 45), x2 = randn({batch, 8, plane[0], plane[1]}, 46);
        // Slices start at multiples of 256 bytes on 8x8 planes. On 9x7 ones, 5 channels end at
        // byte 1260, not a multiple of 16 (lavapipe's and NVIDIA's alignment): the slices after
        // them go through the fallback's cat there.
        const std::vector<std::pair<std::vector<IValue>, Tensor>> cases{
            {{c1, c3}, cat({clamp(conv2d(x1, w1, b1), 0.0, std::nullopt), conv2d(x2, w3, Tensor(), {1}, {1})}, 1)},
            {{c1, c2, c3},
             cat({clamp(conv2d(x1, w1, b1), 0.0, std::nullopt), clamp(conv2d(x2, w2, b2, {1}, {1}), 0.0, 6.0),
                  conv2d(x2, w3, Tensor(), {1}, {1})},
                 1)},
            {{c2, c3}, cat({clamp(conv2d(x2, w2, b2, {1}, {1}), 0.0, 6.0), conv2d(x2, w3, Tensor(), {1}, {1})}, 1)}};
        for (size_t i = 0; i < cases.size(); ++i) {
          List inputs;
          for (const IValue& c : cases[i].first)
            inputs.emplace_back(c.toObject() == c1.toObject() ? x1.vulkan() : x2.vulkan());
          for (int64_t dim : {1, -3}) {
            const Tensor got = fused(inputs, cases[i].first, dim);
            EXPECT_EQ(got.device(), Device::Vulkan);
            EXPECT_EQ(got.sizes(), cases[i].second.sizes());
            EXPECT_LE(max_abs_diff(got.cpu(), cases[i].second), 1e-4 * testing_support::max_abs(cases[i].second))
                << "batch " << batch << ", plane " << plane[0] << "x" << plane[1] << ", case " << i << ", dim " << dim;
          }
        }
      }
    // In place, the result costs the convolutions' dispatches and no copy.
    const Tensor x1 = randn({1, 16, 8, 8}, 45).vulkan(), x2 = randn({1, 8, 8, 8}, 46).vulkan();
    uint64_t before = vulkan_counters().dispatches;
    ops::call("vulkan_prepack::run_conv2d_context", {IValue(x1), c1});
    ops::call("vulkan_prepack::run_conv2d_context", {IValue(x2), c3});
    const uint64_t separate = vulkan_counters().dispatches - before;
    before = vulkan_counters().dispatches;
    fused(List{IValue(x1), IValue(x2)}, {c1, c3}, 1);
    EXPECT_EQ(vulkan_counters().dispatches - before, separate);
    // Outputs of different planes cannot be concatenated along channels.
    const Tensor small = randn({1, 16, 4, 4}, 47);
    EXPECT_THROW(ops::call("tvk::run_conv2d_contexts_cat",
                           {IValue::list(List{IValue(small.vulkan()), IValue(randn({1, 8, 9, 7}, 48).vulkan())}),
                            IValue::list(List{c1, c3}), IValue(int64_t{1})}),
                 Error);
  });
}

// Convolutions of batch 2+ large enough for gemm_tile128 (128 x 128 tiles), where GPUs run them
// as GEMMs in fp32 (conv_gemm_fp32; the split4 flip takes the GPU choices on lavapipe):
// Winograd's products, im2col'd stride-2 layers over planes that are not whole texels (scalar
// stores), a fused residual and clamp, 64 output channels (64-row tiles) and 128 columns; the
// im2col'd ones as one product over the batch (TVK_IM2COL_ONE_PRODUCT=0: one per image), and
// products split along K. Elsewhere the same calls run the other kernels.
TEST(OpsApi, ConvolutionsAsLargeGemmsMatchCpu) {
  TVK_NEED_VULKAN();
  testing_support::for_each_kernel_flip([&] {
    const Tensor x = randn({2, 24, 66, 66}, 50), w = randn({72, 24, 3, 3}, 51), b = randn({72}, 52);
    const Tensor odd = randn({2, 24, 41, 41}, 53);
    auto close = [](const Tensor& gpu, const Tensor& cpu, const char* what) {
      EXPECT_EQ(gpu.sizes(), cpu.sizes()) << what;
      EXPECT_LE(max_abs_diff(gpu.cpu(), cpu), 1e-4 * testing_support::max_abs(cpu)) << what;
    };
    close(conv2d(x.vulkan(), w.vulkan(), b.vulkan(), {1}, {1}), conv2d(x, w, b, {1}, {1}), "3x3 stride 1");
    close(conv2d(odd.vulkan(), w.vulkan(), b.vulkan(), {2}, {1}), conv2d(odd, w, b, {2}, {1}), "3x3 stride 2, 21x21");
    const Tensor w64 = randn({64, 24, 3, 3}, 55), b64 = randn({64}, 56);
    close(conv2d(x.vulkan(), w64.vulkan(), b64.vulkan(), {1}, {1}), conv2d(x, w64, b64, {1}, {1}), "64 channels");
    close(conv2d(odd.vulkan(), w64.vulkan(), b64.vulkan(), {2}, {1}), conv2d(odd, w64, b64, {2}, {1}),
          "64 channels, stride 2");
    const Tensor x32 = randn({2, 24, 32, 32}, 57);  // Winograd: 2 x 64 tiles, 128 columns
    close(conv2d(x32.vulkan(), w.vulkan(), b.vulkan(), {1}, {1}), conv2d(x32, w, b, {1}, {1}), "128 columns");
    // The packed convolution with a fused residual and relu (tvk::run_conv2d_context_add) against
    // the CPU's conv, add and clamp.
    auto check_fused = [&](const Tensor& input, const Tensor& weight, int64_t stride, const Tensor& residual,
                           const char* what) {
      const IValue ctx = ops::call("vulkan_prepack::create_conv2d_context",
                                   {IValue(weight), IValue(b), IValue(IntList{stride, stride}), IValue(IntList{1, 1}),
                                    IValue(IntList{1, 1}), IValue(int64_t{1}), IValue(), IValue()});
      const Tensor fused = ops::call("tvk::run_conv2d_context_add",
                                     {IValue(input.vulkan()), ctx, IValue(residual.vulkan()), IValue(0.0), IValue()})
                               .toTensor();
      close(fused, clamp(add(conv2d(input, weight, b, {stride}, {1}), residual), 0.0, std::nullopt), what);
    };
    check_fused(x, w, 1, randn({2, 72, 66, 66}, 54), "residual + relu");
    // Winograd onto rows of whole vec4s (width 20; conv2d_wino_out's ALIGNED rows, the residual
    // read as RGBA32 texels), with a last row of tiles cut at the image's bottom edge (height 18).
    check_fused(randn({2, 24, 18, 20}, 66), w, 1, randn({2, 72, 18, 20}, 67), "Winograd vec4 rows, residual");
    // Stride 2 onto 20 x 20 planes (whole texels: vec4 stores) with a residual: on GPUs one product
    // over the batch, its columns the two images' pixels side by side.
    check_fused(randn({2, 24, 40, 40}, 58), w, 2, randn({2, 72, 20, 20}, 59), "stride 2, residual");
    // Products of few tiles and 256+ terms, split along K and summed by gemm_split_sum: one over
    // the batch with a residual and clamp (whole texels), one over 3 images of 121 pixels, and
    // Winograd's 36 products of 128 columns.
    const Tensor w32 = randn({72, 32, 3, 3}, 60);
    check_fused(randn({2, 32, 24, 24}, 61), w32, 2, randn({2, 72, 12, 12}, 62), "split K, residual");
    const Tensor x22 = randn({3, 32, 22, 22}, 63);
    close(conv2d(x22.vulkan(), w32.vulkan(), b.vulkan(), {2}, {1}), conv2d(x22, w32, b, {2}, {1}), "split K, 11 x 11");
    const Tensor w256 = randn({72, 256, 3, 3}, 64), x256 = randn({2, 256, 32, 32}, 65);
    close(conv2d(x256.vulkan(), w256.vulkan(), b.vulkan(), {1}, {1}), conv2d(x256, w256, b, {1}, {1}),
          "split K, Winograd");
  });
}

// Convolutions as implicit GEMMs (conv2d_igemm, the patch matrix gathered as it is read), which
// GPUs run in fp32 at batch 2+ for ungrouped kernels larger than 1x1 that Winograd does not take
// (the split4 flip takes the GPU choices on lavapipe): the images' pixels side by side in one
// product over planes that are whole texels (vec4 stores) and are not, 64-row and 128-row tiles
// with rows past the last channel, 64- and 128-column tiles, stride 2, dilation with padding, a
// 7x7 stem of 3 channels, sums short enough to run whole and long enough to split along K, and
// a fused residual and relu. Elsewhere the same calls run the other kernels.
TEST(OpsApi, ConvolutionsAsImplicitGemmsMatchCpu) {
  TVK_NEED_VULKAN();
  testing_support::for_each_kernel_flip([&] {
    auto close = [](const Tensor& gpu, const Tensor& cpu, const std::string& what) {
      EXPECT_EQ(gpu.sizes(), cpu.sizes()) << what;
      EXPECT_LE(max_abs_diff(gpu.cpu(), cpu), 1e-4 * testing_support::max_abs(cpu)) << what;
    };
    struct Case {
      IntList input, weight;
      IntList stride, padding, dilation;
      const char* what;
    };
    // 3x3 stride-1 layers of 16+ channels on both sides are Winograd's at batch 2+.
    const Case cases[] = {
        {{2, 24, 9, 7}, {72, 24, 5, 5}, {1}, {2}, {1}, "5x5, 9x7 planes, 72 channels"},
        {{2, 8, 16, 16}, {64, 8, 3, 3}, {1}, {1}, {1}, "3x3, 16x16 planes, 64 channels, 72 terms"},
        {{2, 24, 21, 21}, {64, 24, 3, 3}, {2}, {1}, {1}, "stride 2"},
        {{2, 8, 15, 17}, {36, 8, 5, 5}, {1}, {3}, {2}, "5x5, dilation 2, padding 3"},
        {{2, 3, 30, 30}, {64, 3, 7, 7}, {2}, {3}, {1}, "7x7 stem"},
        {{2, 128, 14, 14}, {144, 128, 3, 3}, {2}, {1}, {1}, "7x7 planes, 1152 terms"},
        {{3, 24, 22, 22}, {72, 24, 3, 3}, {2}, {1}, {1}, "batch 3, 11x11 planes"},
        {{2, 16, 12, 10}, {40, 16, 3, 3}, {2, 1}, {1, 2}, {1}, "strides 2, 1, padding 1, 2"},
    };
    int64_t seed = 70;
    for (const Case& c : cases) {
      const Tensor x = randn(c.input, seed++), w = randn(c.weight, seed++), b = randn({c.weight[0]}, seed++);
      const IntList &s = c.stride, &pad = c.padding, &d = c.dilation;
      close(conv2d(x.vulkan(), w.vulkan(), b.vulkan(), s, pad, d), conv2d(x, w, b, s, pad, d), c.what);
      close(conv2d(x.vulkan(), w.vulkan(), Tensor(), s, pad, d), conv2d(x, w, Tensor(), s, pad, d),
            std::string(c.what) + ", no bias");
    }
    // The packed convolution with a fused residual and relu against the CPU's conv, add and clamp:
    // added by the product's epilogue (72 terms: whole) into vec4 and scalar stores, and by
    // gemm_split_sum (800 terms).
    for (const IntList& shape : {IntList{2, 8, 14, 14}, IntList{2, 8, 9, 7}, IntList{2, 32, 9, 7}}) {
      const int64_t k = shape[1] >= 16 ? 5 : 3;
      const Tensor x = randn(shape, seed++), w = randn({96, shape[1], k, k}, seed++), b = randn({96}, seed++);
      const Tensor residual = randn({shape[0], 96, shape[2], shape[3]}, seed++);
      const IValue ctx = ops::call("vulkan_prepack::create_conv2d_context",
                                   {IValue(w), IValue(b), IValue(IntList{1, 1}), IValue(IntList{k / 2, k / 2}),
                                    IValue(IntList{1, 1}), IValue(int64_t{1}), IValue(), IValue()});
      const Tensor fused = ops::call("tvk::run_conv2d_context_add",
                                     {IValue(x.vulkan()), ctx, IValue(residual.vulkan()), IValue(0.0), IValue()})
                               .toTensor();
      close(fused, clamp(add(conv2d(x, w, b, {1}, {k / 2}), residual), 0.0, std::nullopt),
            "residual + relu, " + std::to_string(shape[0]) + "x" + std::to_string(shape[2]) + "x" + std::to_string(shape[3]));
    }
  });
}

// Integer division of the lowest int64 by -1 overflows; on x86 the machine instruction traps
// (torch 1.13 itself dies of SIGFPE there). tvk's kernels give the two's complement wrap, the
// lowest value again, and a division by zero is an error: neither takes the process down.
TEST(OpsApi, IntegerDivisionOverflowAndDivisionByZeroDoNotTrap) {
  Tensor lowest = empty({2}, DType::Int64);
  lowest.data<int64_t>()[0] = std::numeric_limits<int64_t>::min();
  lowest.data<int64_t>()[1] = 5;
  Tensor minus_one = empty({2}, DType::Int64);
  minus_one.data<int64_t>()[0] = minus_one.data<int64_t>()[1] = -1;
  for (const char* mode : {"trunc", "floor"}) {
    const Tensor q = ops::call("aten::div.Tensor_mode", Stack{IValue(lowest), IValue(minus_one), IValue(std::string(mode))})
                         .toTensor();
    ASSERT_EQ(q.dtype(), DType::Int64) << mode;
    EXPECT_EQ(q.data<int64_t>()[0], std::numeric_limits<int64_t>::min()) << mode;
    EXPECT_EQ(q.data<int64_t>()[1], -5) << mode;
  }
  const Tensor r = ops::call("aten::remainder.Tensor", Stack{IValue(lowest), IValue(minus_one)}).toTensor();
  EXPECT_EQ(r.data<int64_t>()[0], 0);
  Tensor zero = zeros({2}, DType::Int64);
  EXPECT_THROW(ops::call("aten::div.Tensor_mode", Stack{IValue(lowest), IValue(zero), IValue(std::string("trunc"))}),
               Error);
}

// The LSTM and GRU contexts of optimize_for_mobile(backend="vulkan") read both pickled forms:
// tvk's (the layer's weights as given) and PyTorch's unpack() (each gate's weight and bias apart:
// ii, hi, if, hf, ig, hg, io, ho for LSTM; ir, hr, iz, hz, in, hn for GRU). Both must run the
// layer as aten::lstm / aten::gru does, on each device.
TEST(RecurrentContexts, PyTorchsPerGateStateRunsTheSameLayer) {
  for (const bool lstm : {true, false}) {
    SCOPED_TRACE(lstm ? "lstm" : "gru");
    const int64_t layers = 2, in = 5, hidden = 6, gates = lstm ? 4 : 3, steps = 4, batch = 3;
    std::vector<Tensor> params;
    for (int64_t l = 0; l < layers; ++l) {
      params.push_back(randn({gates * hidden, l == 0 ? in : hidden}, 10 + l));
      params.push_back(randn({gates * hidden, hidden}, 20 + l));
      params.push_back(randn({gates * hidden}, 30 + l));
      params.push_back(randn({gates * hidden}, 40 + l));
    }
    // PyTorch's form: per layer, per gate, (w_i, b_i, w_h, b_h).
    List per_gate;
    for (int64_t l = 0; l < layers; ++l)
      for (int64_t g = 0; g < gates; ++g)
        for (int k : {0, 2, 1, 3})  // w_ih, b_ih, w_hh, b_hh
          per_gate.emplace_back(slice(params[static_cast<size_t>(4 * l + k)], 0, g * hidden, (g + 1) * hidden).contiguous());
    const char* cls = lstm ? "__torch__.torch.classes.vulkan.LstmPackedContext" : "__torch__.torch.classes.vulkan.GruPackedContext";
    const ops::CustomClass* custom = ops::find_custom_class(cls);
    ASSERT_NE(custom, nullptr);
    auto from_pytorch = std::make_shared<Object>();
    from_pytorch->type_name = cls;
    custom->set_state(*from_pytorch, IValue::list({IValue::list(per_gate), IValue(true), IValue(layers), IValue(0.0),
                                                   IValue(false), IValue(false), IValue(true)}));
    // tvk's own form, through the state it pickles and back.
    const IValue made = call_op(lstm ? "vulkan_prepack::create_lstm_context" : "vulkan_prepack::create_gru_context",
                                {IValue::list(List(params.begin(), params.end())), IValue(true), IValue(layers),
                                 IValue(0.0), IValue(false), IValue(false), IValue(true)});
    auto reloaded = std::make_shared<Object>();
    reloaded->type_name = cls;
    custom->set_state(*reloaded, custom->get_state(*made.toObject()));
    const Tensor x = randn({batch, steps, in}, 50), h0 = randn({layers, batch, hidden}, 51), c0 = randn({layers, batch, hidden}, 52);
    const IValue expected =
        lstm ? call_op("aten::lstm.input", {IValue(x), IValue::list({IValue(h0), IValue(c0)}), IValue::list(List(params.begin(), params.end())),
                                            IValue(true), IValue(layers), IValue(0.0), IValue(false), IValue(false), IValue(true)})
             : call_op("aten::gru.input", {IValue(x), IValue(h0), IValue::list(List(params.begin(), params.end())), IValue(true),
                                           IValue(layers), IValue(0.0), IValue(false), IValue(false), IValue(true)});
    std::vector<Device> devices{Device::CPU};
    if (is_vulkan_available()) devices.push_back(Device::Vulkan);
    for (Device d : devices)
      for (const auto& ctx : {from_pytorch, reloaded}) {
        SCOPED_TRACE(to_string(d));
        const IValue got = lstm ? call_op("vulkan_prepack::run_lstm_context", {IValue(x.to(d)), IValue(h0.to(d)), IValue(c0.to(d)), IValue(ctx)})
                                : call_op("vulkan_prepack::run_gru_context", {IValue(x.to(d)), IValue(h0.to(d)), IValue(ctx)});
        ASSERT_EQ(got.toList().size(), expected.toList().size());
        for (size_t i = 0; i < got.toList().size(); ++i)
          EXPECT_LE(max_abs_diff(got.toList()[i].toTensor().cpu(), expected.toList()[i].toTensor()), 1e-5) << "output " << i;
      }
  }
  // A state of the wrong shape is an error naming the class, not a crash.
  const ops::CustomClass* custom = ops::find_custom_class("__torch__.torch.classes.vulkan.LstmPackedContext");
  auto bad = std::make_shared<Object>();
  bad->type_name = custom->qualified_name;
  EXPECT_THROW(custom->set_state(*bad, IValue::list({IValue::list({IValue(randn({3}, 1))}), IValue(true), IValue(int64_t{1}),
                                                     IValue(0.0), IValue(false), IValue(false), IValue(true)})),
               Error);
  EXPECT_THROW(custom->set_state(*bad, IValue::list({IValue(1.0)})), Error);
}

// PyTorch's batch-norm, layer-norm and conv1d contexts: created, run on each device against the
// plain op, pickled and read back (PyTorch's unpack() forms), and a malformed state is an error.
TEST(PackedContexts, NormAndConv1dContextsRunAsThePlainOpsAndSurviveTheirState) {
  std::vector<Device> devices{Device::CPU};
  if (is_vulkan_available()) devices.push_back(Device::Vulkan);
  auto round_trip = [](const IValue& ctx) {
    const ops::CustomClass* cls = ops::find_custom_class(ctx.toObject()->type_name);
    EXPECT_NE(cls, nullptr) << ctx.toObject()->type_name;
    auto again = std::make_shared<Object>();
    again->type_name = ctx.toObject()->type_name;
    cls->set_state(*again, cls->get_state(*ctx.toObject()));
    return IValue(again);
  };
  const Tensor x = randn({2, 5, 6, 7}, 61), w = randn({5}, 62), b = randn({5}, 63), m = randn({5}, 64);
  const Tensor v = add(mul(randn({5}, 65), randn({5}, 65)), 0.5);
  const IValue bn = call_op("vulkan_prepack::create_batchnorm_context",
                            {IValue(w), IValue(b), IValue(m), IValue(v), IValue(false), IValue(0.1), IValue(1e-3), IValue(true)});
  const Tensor bn_expected = batch_norm(x, w, b, m, v, false, 0.1, 1e-3);
  const Tensor y = randn({3, 4, 6}, 66), lw = randn({4, 6}, 67), lb = randn({4, 6}, 68);
  const IValue ln = call_op("vulkan_prepack::create_layernorm_context", {IValue(lw), IValue(lb), IValue(1e-4)});
  const Tensor ln_expected = layer_norm(y, {4, 6}, lw, lb, 1e-4);
  for (Device d : devices)
    for (const IValue& ctx : {bn, round_trip(bn)}) {
      SCOPED_TRACE(to_string(d));
      EXPECT_LE(max_abs_diff(call_op("vulkan_prepack::run_batchnorm_context", {IValue(x.to(d)), ctx}).toTensor().cpu(), bn_expected), 1e-5);
      const IValue lctx = ctx.is(bn) ? ln : round_trip(ln);
      EXPECT_LE(max_abs_diff(call_op("vulkan_prepack::run_layernorm_context", {IValue(y.to(d)), IValue(IntList{4, 6}), lctx})
                                 .toTensor()
                                 .cpu(),
                             ln_expected),
                1e-5);
    }
  if (is_vulkan_available()) {
    const Tensor seq = randn({2, 4, 30}, 70), cw = randn({6, 2, 5}, 71), cb = randn({6}, 72);
    const IValue c1 = call_op("vulkan_prepack::create_conv1d_context",
                              {IValue(cw), IValue(cb), IValue(IntList{2}), IValue(IntList{1}), IValue(IntList{3}), IValue(int64_t{2})});
    const Tensor expected = call_op("aten::conv1d", {IValue(seq), IValue(cw), IValue(cb), IValue(IntList{2}), IValue(IntList{1}),
                                                     IValue(IntList{3}), IValue(int64_t{2})})
                                .toTensor();
    for (const IValue& ctx : {c1, round_trip(c1)})
      EXPECT_LE(max_abs_diff(call_op("vulkan_prepack::run_conv1d_context", {IValue(seq.vulkan()), ctx}).toTensor().cpu(), expected), 1e-4);
  }
  const ops::CustomClass* bn_cls = ops::find_custom_class("__torch__.torch.classes.vulkan.BatchNormPackedContext");
  auto bad = std::make_shared<Object>();
  bad->type_name = bn_cls->qualified_name;
  EXPECT_THROW(bn_cls->set_state(*bad, IValue::list({IValue(w), IValue(1e-5)})), Error);
  EXPECT_THROW(bn_cls->set_state(*bad, IValue::list({IValue(w), IValue(b), IValue(m), IValue(std::string("v")), IValue(1e-5)})), Error);
}

// The random fills draw what they say on each device: uniform values inside [from, to) with the
// mean and spread of that range, normal ones with the asked mean and standard deviation, and two
// calls draw different values.
TEST(RandomFills, UniformAndNormalHaveTheirDistributionOnEachDevice) {
  std::vector<Device> devices{Device::CPU};
  if (is_vulkan_available()) devices.push_back(Device::Vulkan);
  const int64_t n = 200000;
  auto stats = [&](const Tensor& t) {
    const Tensor c = t.cpu().contiguous();
    double sum = 0, sq = 0, lo = 1e30, hi = -1e30;
    for (int64_t i = 0; i < n; ++i) {
      const double v = c.data<float>()[i];
      sum += v;
      sq += v * v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const double mean = sum / n;
    return std::array<double, 4>{mean, std::sqrt(sq / n - mean * mean), lo, hi};
  };
  for (Device d : devices) {
    SCOPED_TRACE(to_string(d));
    const Tensor x = zeros({n}).to(d);
    const auto u = stats(call_op("aten::uniform_", {IValue(x), IValue(-2.0), IValue(3.0)}).toTensor());
    EXPECT_NEAR(u[0], 0.5, 0.02);
    EXPECT_NEAR(u[1], 5.0 / std::sqrt(12.0), 0.02);
    EXPECT_GE(u[2], -2.0);
    EXPECT_LT(u[3], 3.0);
    const auto g = stats(call_op("aten::normal_", {IValue(x), IValue(1.0), IValue(0.5)}).toTensor());
    EXPECT_NEAR(g[0], 1.0, 0.01);
    EXPECT_NEAR(g[1], 0.5, 0.01);
    const auto r = stats(call_op("aten::rand_like", {IValue(x)}).toTensor());
    EXPECT_NEAR(r[0], 0.5, 0.01);
    const auto rn = stats(call_op("aten::randn_like", {IValue(x)}).toTensor());
    EXPECT_NEAR(rn[0], 0.0, 0.01);
    EXPECT_NEAR(rn[1], 1.0, 0.01);
    const Tensor a = call_op("aten::rand_like", {IValue(x)}).toTensor(), b = call_op("aten::rand_like", {IValue(x)}).toTensor();
    EXPECT_GT(max_abs_diff(a.cpu(), b.cpu()), 0.1) << "two draws gave the same values";
  }
}

#if TVK_USE_VULKAN
// Fused activations (tvk::run_conv2d_context_act, tvk::run_linear_context_act) through every
// convolution and matrix-product method, forced in turn: each method's last kernel applies the
// activation after its clamp, and must give the unfused ops' result. The activation changes per
// (method, layer) so that every activation meets every method over the layers, while each
// pipeline is made once (a test of every pairing made PipelineVariants minutes slower).
TEST(FusedActivations, EveryConvolutionAndProductMethodMatchesTheUnfusedOps) {
  TVK_NEED_VULKAN();
  constexpr int kActivations = 7;  // ops::FusedActivation after None
  auto activation = [](size_t i) { return static_cast<ops::FusedActivation>(1 + i % kActivations); };
  struct Layer {
    IntList x, w;
    int64_t stride, padding, groups;
    bool relu;  // a clamp in the context too, before the activation
  };
  const std::vector<Layer> layers{
      {{1, 8, 12, 12}, {16, 8, 1, 1}, 1, 0, 1, false},  // pointwise
      {{2, 8, 11, 13}, {12, 8, 3, 3}, 1, 1, 1, true},   // 3x3 stride 1 (Winograd's)
      {{1, 6, 9, 9}, {8, 6, 3, 3}, 2, 1, 1, false},     // stride 2
      {{2, 8, 10, 10}, {8, 1, 5, 5}, 1, 2, 8, false},   // depthwise 5x5
      {{1, 8, 7, 7}, {8, 2, 3, 3}, 1, 1, 4, true},      // grouped
      {{1, 3, 16, 16}, {16, 3, 3, 3}, 2, 1, 1, false},  // a stem
  };
  std::set<std::string> conv_methods_taken;
  for (size_t m = 0; m < vulkan::kConvMethods.size(); ++m) {
    const vulkan::ConvMethod method = vulkan::kConvMethods[m];
    if (method == vulkan::ConvMethod::Transposed) continue;
    vulkan::MethodLog log;
    vulkan::KernelOptions options = vulkan::kernel_options();
    options.conv = method;
    options.log = &log;
    const vulkan::ScopedKernelOptions scope(options);
    for (size_t l = 0; l < layers.size(); ++l) {
      const Layer& L = layers[l];
      const ops::FusedActivation act = activation(m + l);
      SCOPED_TRACE(std::string(vulkan::to_string(method)) + " layer " + std::to_string(l) + " " + ops::to_string(act));
      const Tensor x = randn(L.x, 80 + l), w = randn(L.w, 90 + l), b = randn({L.w[0]}, 100 + l);
      const IValue ctx = ops::call("vulkan_prepack::create_conv2d_context",
                                   {IValue(w.vulkan()), IValue(b.vulkan()), IValue(IntList{L.stride, L.stride}),
                                    IValue(IntList{L.padding, L.padding}), IValue(IntList{1, 1}), IValue(L.groups),
                                    L.relu ? IValue(0.0) : IValue(), IValue()});
      log.clear();
      const Tensor got = ops::call("tvk::run_conv2d_context_act", {IValue(x.vulkan()), ctx, IValue(ops::to_string(act))})
                             .toTensor()
                             .cpu();
      Tensor want = conv2d(x, w, b, {L.stride}, {L.padding}, {1}, L.groups);
      if (L.relu) want = relu(want);
      want = ops::apply_activation(act, want);
      EXPECT_LE(max_abs_diff(got, want), 1e-4 * std::max(1.0, testing_support::max_abs(want)));
      for (const auto& [op, name] : log.entries()) conv_methods_taken.insert(name);
    }
  }
  // Every convolution method but Split (subgroup shuffles; not on every device) ran some layer.
  EXPECT_GE(conv_methods_taken.size(), vulkan::kConvMethods.size() - 2);
  for (size_t m = 0; m < vulkan::kGemmMethods.size(); ++m) {
    const vulkan::GemmMethod method = vulkan::kGemmMethods[m];
    vulkan::KernelOptions options = vulkan::kernel_options();
    options.gemm = method;
    const vulkan::ScopedKernelOptions scope(options);
    size_t l = 0;
    for (const IntList& shape : {IntList{1, 37, 10}, IntList{20, 64, 70}, IntList{70, 33, 5}}) {
      const ops::FusedActivation act = activation(m + l++);
      SCOPED_TRACE(std::string(vulkan::to_string(method)) + " linear " + std::to_string(shape[0]) + "x" +
                   std::to_string(shape[1]) + "->" + std::to_string(shape[2]) + " " + ops::to_string(act));
      const Tensor x = randn({shape[0], shape[1]}, 110 + l), w = randn({shape[2], shape[1]}, 120 + l),
                   b = randn({shape[2]}, 130 + l);
      const IValue ctx = ops::call("vulkan_prepack::create_linear_context", {IValue(t(w).contiguous()), IValue(b)});
      const Tensor got = ops::call("tvk::run_linear_context_act", {IValue(x.vulkan()), ctx, IValue(ops::to_string(act))})
                             .toTensor()
                             .cpu();
      const Tensor want = ops::apply_activation(act, linear(x, w, b));
      EXPECT_LE(max_abs_diff(got, want), 1e-4 * std::max(1.0, testing_support::max_abs(want)));
    }
  }
  EXPECT_THROW(ops::call("tvk::run_linear_context_act",
                         {IValue(randn({2, 3}).vulkan()),
                          ops::call("vulkan_prepack::create_linear_context", {IValue(randn({3, 4})), IValue()}),
                          IValue(std::string("swish"))}),
               Error);
}
#endif
