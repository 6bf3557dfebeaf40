// Stand-ins for the Vulkan registrations of a Vulkan-enabled PyTorch (classes
// vulkan.Conv2dPackedContext / LinearPackedContext / LstmPackedContext / GruPackedContext and the
// vulkan_prepack ops, with PyTorch's schemas and pickled state), so that Debian's CPU-only torch 1.13 can run its real
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

// PyTorch's LstmPackedContext / GruPackedContext pickle what their unpack() gives: each gate's
// weight and bias apart, as the linear contexts it packs hold them (LSTM: ii, hi, if, hf, ig, hg,
// io, ho; GRU: ir, hr, iz, hz, in, hn), then has_biases, num_layers, dropout, train,
// bidirectional and batch_first.
struct RecurrentContext : torch::CustomClassHolder {
  explicit RecurrentContext(State s) : state(std::move(s)) {}
  State state;
};
struct LstmPackedContext : RecurrentContext {
  using RecurrentContext::RecurrentContext;
};
struct GruPackedContext : RecurrentContext {
  using RecurrentContext::RecurrentContext;
};

State recurrent_state(const std::vector<at::Tensor>& params, int64_t gates, bool has_biases, int64_t num_layers,
                      double dropout, bool train, bool bidirectional, bool batch_first) {
  std::vector<at::Tensor> per_gate;
  for (int64_t l = 0; l < num_layers; ++l) {
    const auto& w_ih = params.at(l * 4), &w_hh = params.at(l * 4 + 1), &b_ih = params.at(l * 4 + 2),
               &b_hh = params.at(l * 4 + 3);
    const int64_t hidden = w_ih.size(0) / gates;
    const auto wi = w_ih.split(hidden), wh = w_hh.split(hidden), bi = b_ih.split(hidden), bh = b_hh.split(hidden);
    for (int64_t g = 0; g < gates; ++g) {
      per_gate.push_back(wi[g].contiguous());
      per_gate.push_back(bi[g].contiguous());
      per_gate.push_back(wh[g].contiguous());
      per_gate.push_back(bh[g].contiguous());
    }
  }
  State state(c10::AnyType::get());
  state.emplace_back(per_gate);
  state.emplace_back(has_biases);
  state.emplace_back(num_layers);
  state.emplace_back(dropout);
  state.emplace_back(train);
  state.emplace_back(bidirectional);
  state.emplace_back(batch_first);
  return state;
}

c10::intrusive_ptr<LstmPackedContext> create_lstm_context(std::vector<at::Tensor> params, bool has_biases,
                                                          int64_t num_layers, double dropout, bool train,
                                                          bool bidirectional, bool batch_first) {
  return c10::make_intrusive<LstmPackedContext>(
      recurrent_state(params, 4, has_biases, num_layers, dropout, train, bidirectional, batch_first));
}
std::tuple<at::Tensor, at::Tensor, at::Tensor> run_lstm_context(const at::Tensor& input, const at::Tensor& hx,
                                                                const at::Tensor& cx,
                                                                const c10::intrusive_ptr<LstmPackedContext>&) {
  return {input, hx, cx};
}
c10::intrusive_ptr<GruPackedContext> create_gru_context(std::vector<at::Tensor> params, bool has_biases,
                                                        int64_t num_layers, double dropout, bool train,
                                                        bool bidirectional, bool batch_first) {
  return c10::make_intrusive<GruPackedContext>(
      recurrent_state(params, 3, has_biases, num_layers, dropout, train, bidirectional, batch_first));
}
std::tuple<at::Tensor, at::Tensor> run_gru_context(const at::Tensor& input, const at::Tensor& hx,
                                                   const c10::intrusive_ptr<GruPackedContext>&) {
  return {input, hx};
}

}  // namespace

TORCH_LIBRARY(vulkan, m) {
  m.class_<Conv2dPackedContext>("Conv2dPackedContext")
      .def_pickle([](const c10::intrusive_ptr<Conv2dPackedContext>& self) -> State { return self->state; },
                  [](State state) { return c10::make_intrusive<Conv2dPackedContext>(std::move(state)); });
  m.class_<LinearPackedContext>("LinearPackedContext")
      .def_pickle([](const c10::intrusive_ptr<LinearPackedContext>& self) -> State { return self->state; },
                  [](State state) { return c10::make_intrusive<LinearPackedContext>(std::move(state)); });
  m.class_<LstmPackedContext>("LstmPackedContext")
      .def_pickle([](const c10::intrusive_ptr<LstmPackedContext>& self) -> State { return self->state; },
                  [](State state) { return c10::make_intrusive<LstmPackedContext>(std::move(state)); });
  m.class_<GruPackedContext>("GruPackedContext")
      .def_pickle([](const c10::intrusive_ptr<GruPackedContext>& self) -> State { return self->state; },
                  [](State state) { return c10::make_intrusive<GruPackedContext>(std::move(state)); });
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
  m.def("create_lstm_context(Tensor[] params_cpu, bool has_biases, int num_layers, float dropout, bool train, "
        "bool bidirectional, bool batch_first) -> __torch__.torch.classes.vulkan.LstmPackedContext",
        &create_lstm_context);
  m.def("run_lstm_context(Tensor input_vk, Tensor hx_vk, Tensor cx_vk, "
        "__torch__.torch.classes.vulkan.LstmPackedContext L_prepack) -> (Tensor next_input, Tensor hidden_state, "
        "Tensor cell_state)",
        &run_lstm_context);
  m.def("create_gru_context(Tensor[] params_cpu, bool has_biases, int num_layers, float dropout, bool train, "
        "bool bidirectional, bool batch_first) -> __torch__.torch.classes.vulkan.GruPackedContext",
        &create_gru_context);
  m.def("run_gru_context(Tensor input_vk, Tensor hx_vk, __torch__.torch.classes.vulkan.GruPackedContext G_prepack) "
        "-> (Tensor next_input, Tensor hidden_layer)",
        &run_gru_context);
}
