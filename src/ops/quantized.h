// Quantized models: weights dequantized at load, activations kept on the quantized grid as float32 (ops/quantized.cpp).
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

// Static quantization runs on float tensors that hold values of the quantized grid ("fake"
// quantization, aten::fake_quantize_per_tensor_affine after each quantized op).
inline constexpr const char* kQuantizedConvClass = "__torch__.torch.classes.quantized.Conv2dPackedParamsBase";

struct QuantizedConvParams final : CustomClassPayload {
  Tensor weight, bias;  // float32 [out, in / groups, kh, kw] and [out] or undefined, on the CPU
  IntList stride, padding, dilation;
  int64_t groups = 1;
};

// The payload of a Conv2dPackedParamsBase object, or nullptr when `v` is not one.
const QuantizedConvParams* quantized_conv_params(const IValue& v);

// Throws unless (scale, zero_point, quant_min, quant_max) is an affine quantizer: a positive
// finite scale, quant_min <= quant_max, the zero point between them.
void check_quantizer(const char* op, double scale, int64_t zero_point, int64_t quant_min, int64_t quant_max);

}  // namespace tvk::ops
