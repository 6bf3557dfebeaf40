// Vulkan kernels for elementwise arithmetic with broadcasting (shader binary.glsl): add, sub,
// mul, div (and its rounding modes), pow, floor_divide, remainder, fmod, maximum, minimum and
// atan2 of two tensors, in float32 (int64 operands run on
// the CPU through the fallback).
#include <optional>
#include <string>

#include "ops/registry.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

// Must match binary.glsl.
enum BinaryOp : uint32_t {
  kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kPow = 4, kFloorDiv = 5, kRemainder = 6, kMaximum = 7, kMinimum = 8,
  kAtan2 = 9, kFmod = 10, kTruncDiv = 11,
};
constexpr size_t kMaxRank = kMaxElementwiseRank;

struct BinaryParams {
  uint32_t numel;
  float alpha;
  uint32_t sizes[kMaxRank];
  uint32_t a_strides[kMaxRank];
  uint32_t b_strides[kMaxRank];
};

void run_binary(const char* op, BinaryOp code, const Tensor& out, const Tensor& a, const Tensor& b, float alpha) {
  TVK_CHECK(out.dim() <= static_cast<int64_t>(kMaxRank), op, ": tensors of rank ", out.dim(),
            " exceed the Vulkan limit of ", kMaxRank);
  BinaryParams p{};
  p.numel = static_cast<uint32_t>(out.numel());
  p.alpha = alpha;
  right_aligned(p.sizes, out.sizes(), 1);
  right_aligned(p.a_strides, ops::broadcast_strides(a, out.sizes()), 0);
  right_aligned(p.b_strides, ops::broadcast_strides(b, out.sizes()), 0);
  launch(ShaderLaunch{"binary", elementwise_global(out.numel()), {64, 1, 1}, {code}}, {out, a, b}, p);
}

Tensor binary(const char* op, BinaryOp code, const Tensor& a, const Tensor& b, float alpha) {
  check_vulkan_float(op, a, "self");
  check_vulkan_float(op, b, "other");
  Tensor out = empty_vulkan(ops::broadcast_shapes(op, a.sizes(), b.sizes()));
  run_binary(op, code, out, a, b, alpha);
  return out;
}

Tensor add_tensor(const Tensor& self, const Tensor& other, ops::Scalar alpha) {
  return binary("aten::add", kAdd, self, other, static_cast<float>(alpha));
}
// self op= other: the result must keep self's shape (other broadcasts into it).
Tensor binary_inplace(const char* op, BinaryOp code, const Tensor& self, const Tensor& other, float alpha) {
  check_vulkan_float(op, self, "self");
  check_vulkan_float(op, other, "other");
  const IntList sizes = ops::broadcast_shapes(op, self.sizes(), other.sizes());
  TVK_CHECK(sizes == self.sizes(), op, ": output of shape ", shape_string(sizes),
            " does not match the in-place target ", self.shape_string());
  run_binary(op, code, self, self, other, alpha);
  return self;
}

Tensor add_inplace(const Tensor& self, const Tensor& other, ops::Scalar alpha) {
  return binary_inplace("aten::add_", kAdd, self, other, static_cast<float>(alpha));
}
Tensor sub_inplace(const Tensor& self, const Tensor& other, ops::Scalar alpha) {
  return binary_inplace("aten::sub_", kSub, self, other, static_cast<float>(alpha));
}
Tensor mul_inplace(const Tensor& self, const Tensor& other) { return binary_inplace("aten::mul_", kMul, self, other, 1.f); }
Tensor div_inplace(const Tensor& self, const Tensor& other) { return binary_inplace("aten::div_", kDiv, self, other, 1.f); }
Tensor sub_tensor(const Tensor& self, const Tensor& other, ops::Scalar alpha) {
  return binary("aten::sub", kSub, self, other, static_cast<float>(alpha));
}
Tensor mul_tensor(const Tensor& self, const Tensor& other) { return binary("aten::mul", kMul, self, other, 1.f); }
Tensor div_tensor(const Tensor& self, const Tensor& other) { return binary("aten::div", kDiv, self, other, 1.f); }
Tensor pow_tensor(const Tensor& self, const Tensor& other) { return binary("aten::pow", kPow, self, other, 1.f); }
Tensor pow_inplace(const Tensor& self, const Tensor& other) { return binary_inplace("aten::pow_", kPow, self, other, 1.f); }
Tensor floor_divide(const Tensor& self, const Tensor& other) {
  return binary("aten::floor_divide", kFloorDiv, self, other, 1.f);
}
Tensor floor_divide_inplace(const Tensor& self, const Tensor& other) {
  return binary_inplace("aten::floor_divide_", kFloorDiv, self, other, 1.f);
}
Tensor remainder(const Tensor& self, const Tensor& other) { return binary("aten::remainder", kRemainder, self, other, 1.f); }
Tensor maximum(const Tensor& self, const Tensor& other) { return binary("aten::maximum", kMaximum, self, other, 1.f); }
Tensor minimum(const Tensor& self, const Tensor& other) { return binary("aten::minimum", kMinimum, self, other, 1.f); }
Tensor atan2(const Tensor& self, const Tensor& other) { return binary("aten::atan2", kAtan2, self, other, 1.f); }
Tensor fmod(const Tensor& self, const Tensor& other) { return binary("aten::fmod", kFmod, self, other, 1.f); }
Tensor div_mode(const Tensor& self, const Tensor& other, std::optional<std::string> mode) {
  if (!mode) return binary("aten::div", kDiv, self, other, 1.f);
  TVK_CHECK(*mode == "trunc" || *mode == "floor", "aten::div: rounding_mode must be 'trunc', 'floor' or None, got '",
            *mode, "'");
  return binary("aten::div", *mode == "trunc" ? kTruncDiv : kFloorDiv, self, other, 1.f);
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::add.Tensor", add_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::add_.Tensor", add_inplace);
TVK_REGISTER_VULKAN_KERNEL("aten::sub.Tensor", sub_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::mul.Tensor", mul_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::div.Tensor", div_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::sub_.Tensor", sub_inplace);
TVK_REGISTER_VULKAN_KERNEL("aten::mul_.Tensor", mul_inplace);
TVK_REGISTER_VULKAN_KERNEL("aten::div_.Tensor", div_inplace);
TVK_REGISTER_VULKAN_KERNEL("aten::pow.Tensor_Tensor", pow_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::pow_.Tensor", pow_inplace);
TVK_REGISTER_VULKAN_KERNEL("aten::floor_divide", floor_divide);
TVK_REGISTER_VULKAN_KERNEL("aten::floor_divide_.Tensor", floor_divide_inplace);
TVK_REGISTER_VULKAN_KERNEL("aten::remainder.Tensor", remainder);
TVK_REGISTER_VULKAN_KERNEL("aten::maximum", maximum);
TVK_REGISTER_VULKAN_KERNEL("aten::minimum", minimum);
TVK_REGISTER_VULKAN_KERNEL("aten::max.other", maximum);
TVK_REGISTER_VULKAN_KERNEL("aten::min.other", minimum);
TVK_REGISTER_VULKAN_KERNEL("aten::atan2", atan2);
TVK_REGISTER_VULKAN_KERNEL("aten::fmod.Tensor", fmod);
TVK_REGISTER_VULKAN_KERNEL("aten::div.Tensor_mode", div_mode);

}  // namespace tvk::vulkan
