// PyTorch Mobile's CPU-prepacked weights: the custom classes
// __torch__.torch.classes.xnnpack.Conv2dOpContext / LinearOpContext that optimize_for_mobile
// with the default CPU backend writes, and prepacked::conv2d_clamp_run / linear_clamp_run. tvk
// keeps the weights as they were given (XNNPACK's own packing is internal to it) and runs them
// as conv2d / linear followed by the clamp, on the CPU or on Vulkan; tvk optimize --backend
// vulkan unpacks them into ATen ops, which its Vulkan passes then pack.
#pragma once

#include <optional>

#include "tvk/ivalue.h"
#include "tvk/tensor.h"

namespace tvk::ops {

inline constexpr const char* kXnnpackConvClass = "__torch__.torch.classes.xnnpack.Conv2dOpContext";
inline constexpr const char* kXnnpackLinearClass = "__torch__.torch.classes.xnnpack.LinearOpContext";

struct XnnpackConv2dContext final : CustomClassPayload {
  Tensor weight, bias;  // OIHW, and [O] or undefined
  IntList stride, padding, dilation;
  int64_t groups = 1;
  std::optional<double> output_min, output_max;
};

struct XnnpackLinearContext final : CustomClassPayload {
  Tensor weight, bias;  // [out, in] as nn.Linear holds it, and [out] or undefined
  std::optional<double> output_min, output_max;
};

// The payload of an xnnpack context object, or nullptr when `v` is not one.
const XnnpackConv2dContext* xnnpack_conv_context(const IValue& v);
const XnnpackLinearContext* xnnpack_linear_context(const IValue& v);

}  // namespace tvk::ops
