// Dynamic-quantized linear weights, dequantized at load (ops/quantized.cpp).
#pragma once

#include "tvk/ivalue.h"
#include "tvk/tensor.h"

namespace tvk::ops {

inline constexpr const char* kQuantizedLinearClass = "__torch__.torch.classes.quantized.LinearPackedParamsBase";

struct QuantizedLinearParams final : CustomClassPayload {
  Tensor weight, bias;  // float32 [out, in] and [out] or undefined, on the CPU
};

// The payload of a LinearPackedParamsBase object, or nullptr when `v` is not one.
const QuantizedLinearParams* quantized_linear_params(const IValue& v);

}  // namespace tvk::ops
