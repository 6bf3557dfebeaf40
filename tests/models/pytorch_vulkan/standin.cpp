// Stand-ins for the Vulkan registrations of a Vulkan-enabled PyTorch (classes
// vulkan.Conv2dPackedContext / LinearPackedContext and the vulkan_prepack ops, with PyTorch's
// schemas and pickled state), so that Debian's CPU-only torch 1.13 can run its real
// optimize_for_mobile(backend="vulkan") and torch.jit.save a genuine Vulkan model file for
// tvk's tests. The run ops compute nothing: expected outputs come from the original model.
// Built by tests/models/pytorch_vulkan/make_model.py; not part of tvk.
#include <torch/custom_class.h>
#include <torch/library.h>
#include <torch/script.h>

namespace {

using State = c10::impl::GenericList;

struct Conv2dPackedContext : torch::CustomClassHolder {
  explicit Conv2dPackedContext(State s) : state(std::move(s)) {}
  State state;
};

struct LinearPackedContext : torch::CustomClassHolder {
  explicit LinearPackedContext(State s) : state(std::move(s)) {}
  State state;
};

c10::IValue optional(const c10::optional<at::Tensor>& t) { return t ? c10::IValue(*t) : c10::IValue(); }
c10::IValue optional(const c10::optional<at::Scalar>& s) { return s ? c10::IValue(*s) : c10::IValue(); }

c10::intrusive_ptr<Conv2dPackedContext> create_conv2d_context(at::Tensor weight, c10::optional<at::Tensor> bias,
                                                              std::vector<int64_t> stride,
                                                              std::vector<int64_t> padding,
                                                              std::vector<int64_t> dilation, int64_t groups,
                                                              const c10::optional<at::Scalar>& output_min,
                                                              const c10::optional<at::Scalar>& output_max) {
  // PyTorch's Conv2dPackedContext state: weight, bias, stride, padding, dilation, transposed,
  // quantized, output_padding, groups, output_min, output_max.
  State state(c10::AnyType::get());
  state.emplace_back(weight);
  state.emplace_back(optional(bias));
  state.emplace_back(stride);
  state.emplace_back(padding);
  state.emplace_back(dilation);
  state.emplace_back(false);
  state.emplace_back(false);
  state.emplace_back(std::vector<int64_t>{0});
  state.emplace_back(groups);
  state.emplace_back(optional(output_min));
  state.emplace_back(optional(output_max));
  return c10::make_intrusive<Conv2dPackedContext>(std::move(state));
}

at::Tensor run_conv2d_context(const at::Tensor& input, const c10::intrusive_ptr<Conv2dPackedContext>&) {
  return input;
}

c10::intrusive_ptr<LinearPackedContext> create_linear_context(at::Tensor weight_t, c10::optional<at::Tensor> bias) {
  State state(c10::AnyType::get());
  state.emplace_back(weight_t);
  state.emplace_back(optional(bias));
  return c10::make_intrusive<LinearPackedContext>(std::move(state));
}

at::Tensor run_linear_context(const at::Tensor& input, const c10::intrusive_ptr<LinearPackedContext>&) {
  return input;
}

}  // namespace

TORCH_LIBRARY(vulkan, m) {
  m.class_<Conv2dPackedContext>("Conv2dPackedContext")
      .def_pickle([](const c10::intrusive_ptr<Conv2dPackedContext>& self) -> State { return self->state; },
                  [](State state) { return c10::make_intrusive<Conv2dPackedContext>(std::move(state)); });
  m.class_<LinearPackedContext>("LinearPackedContext")
      .def_pickle([](const c10::intrusive_ptr<LinearPackedContext>& self) -> State { return self->state; },
                  [](State state) { return c10::make_intrusive<LinearPackedContext>(std::move(state)); });
}

TORCH_LIBRARY(vulkan_prepack, m) {
  m.def("create_conv2d_context(Tensor W, Tensor? B, int[2] stride, int[2] padding, int[2] dilation, int groups, "
        "Scalar? output_min=None, Scalar? output_max=None) -> __torch__.torch.classes.vulkan.Conv2dPackedContext",
        &create_conv2d_context);
  m.def("run_conv2d_context(Tensor X, __torch__.torch.classes.vulkan.Conv2dPackedContext W_prepack) -> Tensor Y",
        &run_conv2d_context);
  m.def("create_linear_context(Tensor W, Tensor? B) -> __torch__.torch.classes.vulkan.LinearPackedContext",
        &create_linear_context);
  m.def("run_linear_context(Tensor X, __torch__.torch.classes.vulkan.LinearPackedContext BW_prepack) -> Tensor Y",
        &run_linear_context);
}
