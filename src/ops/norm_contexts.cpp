// PyTorch's batch-norm and layer-norm contexts (vulkan_prepack::create_batchnorm_context /
// run_batchnorm_context, create_layernorm_context / run_layernorm_context), which its
// optimize_for_mobile(backend="vulkan") writes for norms it cannot fold into a convolution: the
// parameters kept once, run by aten::batch_norm and aten::layer_norm on the input's device.
// Pickled as PyTorch's unpack() gives them: [weight, bias, running_mean, running_var, eps] and
// [weight, bias, eps] (newer PyTorch appends an allocation label, which is read and ignored).
#include "ops/custom_class.h"
#include "ops/device_tensors.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

constexpr const char* kBatchNormClass = "__torch__.torch.classes.vulkan.BatchNormPackedContext";
constexpr const char* kLayerNormClass = "__torch__.torch.classes.vulkan.LayernormPackedContext";

struct NormContext final : CustomClassPayload {
  DeviceTensors tensors;  // batch norm: weight, bias, mean, var; layer norm: weight, bias
  double eps = 1e-5;
};

std::shared_ptr<Object> make_norm(const char* cls, const std::vector<Tensor>& tensors, double eps) {
  for (const Tensor& t : tensors)
    if (t.defined()) check_float(cls, t, "parameter");
  auto ctx = std::make_shared<NormContext>();
  ctx->tensors.set(tensors);
  ctx->eps = eps;
  auto obj = std::make_shared<Object>();
  obj->type_name = cls;
  obj->payload = ctx;
  return obj;
}


IValue create_batchnorm_context(const Tensor& weight, const Tensor& bias, const Tensor& mean, const Tensor& var,
                                bool training, double, double eps, bool) {
  const char* op = "vulkan_prepack::create_batchnorm_context";
  TVK_CHECK(!training, op, ": training mode is not supported (tvk runs inference)");
  TVK_CHECK(mean.defined() && var.defined(), op, ": running_mean and running_var must be given");
  return IValue(make_norm(kBatchNormClass, {weight, bias, mean, var}, eps));
}

Tensor run_batchnorm_context(const Tensor& input, const IValue& context) {
  const NormContext& c = context_payload<NormContext>(context, kBatchNormClass, "vulkan_prepack::run_batchnorm_context");
  check_defined("vulkan_prepack::run_batchnorm_context", input, "input_vk");
  const std::vector<Tensor>& t = c.tensors.on(input.device());
  return batch_norm(input, t[0], t[1], t[2], t[3], false, 0.1, c.eps);
}

IValue create_layernorm_context(const Tensor& weight, const Tensor& bias, double eps) {
  return IValue(make_norm(kLayerNormClass, {weight, bias}, eps));
}

Tensor run_layernorm_context(const Tensor& input, IntList normalized_shape, const IValue& context) {
  const NormContext& c = context_payload<NormContext>(context, kLayerNormClass, "vulkan_prepack::run_layernorm_context");
  check_defined("vulkan_prepack::run_layernorm_context", input, "X");
  const std::vector<Tensor>& t = c.tensors.on(input.device());
  return layer_norm(input, normalized_shape, t[0], t[1], c.eps);
}

IValue norm_get_state(const Object& self) {
  const NormContext& c = payload_of<NormContext>(self);
  List state;
  for (const Tensor& t : c.tensors.cpu()) state.push_back(t.defined() ? IValue(t) : IValue());
  state.emplace_back(c.eps);
  return IValue::list(std::move(state));
}

template <size_t N>
void norm_set_state(Object& self, const IValue& state, const char* cls) {
  TVK_CHECK((state.isList() || state.isTuple()) && (state.toList().size() == N + 1 || state.toList().size() == N + 2),
            cls, " state must be a list of ", N + 1, " items");
  const List& s = state.toList();
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < N; ++i) {
    TVK_CHECK(s[i].isNone() || s[i].isTensor(), cls, " state: item ", i, " must be a tensor or None");
    tensors.push_back(s[i].isNone() ? Tensor() : s[i].toTensor());
  }
  TVK_CHECK(s[N].isNumber(), cls, " state: item ", N, " (eps) must be a number");
  self.payload = make_norm(cls, tensors, s[N].toDouble())->payload;
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("vulkan_prepack::create_batchnorm_context(Tensor? weight_opt, Tensor? bias_opt, "
                           "Tensor? running_mean_opt, Tensor? running_var_opt, bool training, float momentum, "
                           "float eps, bool cudnn_enable) -> __torch__.torch.classes.vulkan.BatchNormPackedContext",
                           create_batchnorm_context);
TVK_REGISTER_OP_ANY_DEVICE("vulkan_prepack::run_batchnorm_context(Tensor input_vk, "
                           "__torch__.torch.classes.vulkan.BatchNormPackedContext context) -> Tensor out",
                           run_batchnorm_context);
TVK_REGISTER_OP_ANY_DEVICE("vulkan_prepack::create_layernorm_context(Tensor? W, Tensor? B, float eps) -> "
                           "__torch__.torch.classes.vulkan.LayernormPackedContext",
                           create_layernorm_context);
TVK_REGISTER_OP_ANY_DEVICE("vulkan_prepack::run_layernorm_context(Tensor X, SymInt[] normalized_shape, "
                           "__torch__.torch.classes.vulkan.LayernormPackedContext BW_prepack) -> Tensor Y",
                           run_layernorm_context);
TVK_REGISTER_CUSTOM_CLASS(CustomClass{kBatchNormClass, norm_get_state,
                                      [](Object& self, const IValue& s) { norm_set_state<4>(self, s, kBatchNormClass); }});
TVK_REGISTER_CUSTOM_CLASS(CustomClass{kLayerNormClass, norm_get_state,
                                      [](Object& self, const IValue& s) { norm_set_state<2>(self, s, kLayerNormClass); }});

}  // namespace tvk::ops
