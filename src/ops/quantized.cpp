// Dynamic-quantized linear layers (torch.quantization.quantize_dynamic): the custom class
// __torch__.torch.classes.quantized.LinearPackedParamsBase and quantized::linear_dynamic. tvk
// dequantizes int8 weights when it loads them (jit/serialization/unpickler.cpp,
// _rebuild_qtensor) and runs the layer as a float32 linear, on the CPU or on Vulkan, where
// PyTorch also quantizes the input per call: outputs differ from PyTorch's by that rounding
// (under 1e-2 of the largest output on the test models). optimize_for_mobile turns the call into
// aten::linear (jit/passes, unpack_xnnpack_contexts), which the Vulkan passes then pack.
#include "ops/quantized.h"

#include "ops/custom_class.h"
#include "ops/registry.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

// PyTorch's LinearPackedParamsBase state: (weight, bias?), the weight a quantized tensor that
// the unpickler has already dequantized (or, in files tvk wrote, float32 weights).
void set_state(Object& self, const IValue& state) {
  TVK_CHECK((state.isTuple() || state.isList()) && state.toList().size() >= 2, kQuantizedLinearClass,
            " state must be a tuple (weight, bias)");
  const List& s = state.toList();
  TVK_CHECK(s[0].isTensor() && s[0].toTensor().dim() == 2 && s[0].toTensor().dtype() == DType::Float32,
            kQuantizedLinearClass, ": the weight must be a 2-D tensor");
  TVK_CHECK(s[1].isNone() || (s[1].isTensor() && s[1].toTensor().dim() == 1 &&
                              s[1].toTensor().size(0) == s[0].toTensor().size(0)),
            kQuantizedLinearClass, ": the bias must be None or a 1-D tensor of the weight's rows");
  auto ctx = std::make_shared<QuantizedLinearParams>();
  ctx->weight = s[0].toTensor().cpu();
  if (s[1].isTensor()) ctx->bias = s[1].toTensor().cpu();
  self.payload = std::move(ctx);
}

IValue get_state(const Object& self) {
  const auto* c = dynamic_cast<const QuantizedLinearParams*>(self.payload.get());
  TVK_CHECK(c, kQuantizedLinearClass, " has no state");
  return IValue::tuple({IValue(c->weight), c->bias.defined() ? IValue(c->bias) : IValue()});
}

Tensor linear_dynamic(const Tensor& x, IValue params, bool /*reduce_range*/) {
  const QuantizedLinearParams* c = quantized_linear_params(params);
  TVK_CHECK(c, "quantized::linear_dynamic: expected a ", kQuantizedLinearClass);
  const Device d = x.device();
  return tvk::linear(x, c->weight.to(d), c->bias.defined() ? c->bias.to(d) : Tensor());
}
Tensor linear_dynamic_fp16(const Tensor& x, IValue params) { return linear_dynamic(x, std::move(params), false); }

std::tuple<Tensor, IValue> linear_unpack(IValue params) {
  const QuantizedLinearParams* c = quantized_linear_params(params);
  TVK_CHECK(c, "quantized::linear_unpack: expected a ", kQuantizedLinearClass);
  return {c->weight, c->bias.defined() ? IValue(c->bias) : IValue()};
}

}  // namespace

const QuantizedLinearParams* quantized_linear_params(const IValue& v) {
  if (!v.isObject() || v.toObject()->type_name != kQuantizedLinearClass) return nullptr;
  return dynamic_cast<const QuantizedLinearParams*>(v.toObject()->payload.get());
}

TVK_REGISTER_CUSTOM_CLASS(CustomClass{kQuantizedLinearClass, get_state, set_state});

// One kernel for both devices: it calls aten::linear, which dispatches on the input.
TVK_REGISTER_OP_ANY_DEVICE("quantized::linear_dynamic(Tensor X, __torch__.torch.classes.quantized.LinearPackedParamsBase "
                           "W_prepack, bool reduce_range=False) -> Tensor Y",
                           linear_dynamic);
TVK_REGISTER_OP_ANY_DEVICE("quantized::linear_dynamic_fp16(Tensor X, "
                           "__torch__.torch.classes.quantized.LinearPackedParamsBase W_prepack) -> Tensor Y",
                           linear_dynamic_fp16);
TVK_REGISTER_OP_ANY_DEVICE("quantized::linear_unpack(__torch__.torch.classes.quantized.LinearPackedParamsBase "
                           "W_prepack) -> (Tensor W_origin, Tensor? B_origin)",
                           linear_unpack);

}  // namespace tvk::ops
