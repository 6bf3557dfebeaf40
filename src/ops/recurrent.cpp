// Recurrent layers (aten::lstm, gru, rnn_tanh, rnn_relu and the single-step cells), one kernel
// for both devices: per layer and direction, the input's contribution to every time step is one
// matrix product (linear over [T, B, F]); each step adds the hidden state's product and applies
// the gates. The gates of a step are one op, tvk::lstm_gates / tvk::gru_gates, with a kernel per
// device (on Vulkan one dispatch: lstm_gates.glsl, gru_gates.glsl), so a step is two dispatches
// plus the copy that places its output. Inference only: dropout between layers is refused in
// training mode.
#include <tuple>
#include <vector>

#include "ops/custom_class.h"
#include "ops/device_tensors.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

enum class Cell { Lstm, Gru, RnnTanh, RnnRelu };

int64_t gate_count(Cell cell) { return cell == Cell::Lstm ? 4 : cell == Cell::Gru ? 3 : 1; }
const char* cell_op(Cell cell) {
  switch (cell) {
    case Cell::Lstm: return "aten::lstm";
    case Cell::Gru: return "aten::gru";
    case Cell::RnnTanh: return "aten::rnn_tanh";
    default: return "aten::rnn_relu";
  }
}

// One layer and direction's weights: w_ih [G H, F], w_hh [G H, P], biases [G H] or undefined,
// w_hr [P, H] (LSTM with proj_size) or undefined; P = proj_size or H.
struct Weights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

void check_weight(const char* op, const Tensor& t, const char* what, int64_t rank) {
  check_defined(op, t, what);
  TVK_CHECK(t.dim() == rank, op, ": ", what, " must be ", rank, "-D, got ", t.shape_string());
}

// Splits `params` as PyTorch's _flat_weights orders them: per layer, per direction, w_ih, w_hh,
// then b_ih, b_hh when has_biases, then w_hr (LSTM with proj_size).
std::vector<Weights> split_weights(const char* op, Cell cell, const std::vector<Tensor>& params, bool has_biases,
                                   int64_t layers, int64_t dirs) {
  TVK_CHECK(layers > 0, op, ": num_layers must be positive, got ", layers);
  const int64_t base = has_biases ? 4 : 2, groups = layers * dirs, n = static_cast<int64_t>(params.size());
  const bool proj = cell == Cell::Lstm && n == groups * (base + 1);
  TVK_CHECK(n == groups * base || proj, op, ": expected ", groups * base, " weight tensors (", layers, " layers, ", dirs,
            " directions", has_biases ? ", with biases" : "", "), got ", n);
  const int64_t per = base + (proj ? 1 : 0);
  std::vector<Weights> out;
  for (int64_t g = 0; g < groups; ++g) {
    const Tensor* p = params.data() + g * per;
    Weights w{p[0], p[1], has_biases ? p[2] : Tensor(), has_biases ? p[3] : Tensor(), proj ? p[per - 1] : Tensor()};
    check_weight(op, w.w_ih, "w_ih", 2);
    check_weight(op, w.w_hh, "w_hh", 2);
    if (proj) check_weight(op, w.w_hr, "w_hr", 2);
    out.push_back(w);
  }
  return out;
}

// The state after one step: h (the output, projected for LSTM with proj_size) and c (LSTM).
struct State {
  Tensor h, c;
};

State step(Cell cell, const Weights& w, const Tensor& gates_x, int64_t t, const State& s) {
  const Tensor gates_h = linear(s.h, w.w_hh, w.b_hh);
  switch (cell) {
    case Cell::Lstm: {
      const IValue r = call("tvk::lstm_gates", {IValue(gates_x), IValue(t), IValue(gates_h), IValue(s.c)});
      const Tensor h = r.toList()[0].toTensor();
      return {w.w_hr.defined() ? linear(h, w.w_hr) : h, r.toList()[1].toTensor()};
    }
    case Cell::Gru:
      return {call("tvk::gru_gates", {IValue(gates_x), IValue(t), IValue(gates_h), IValue(s.h)}).toTensor(), {}};
    default: {
      const Tensor pre = add(select(gates_x, 0, t), gates_h);
      return {cell == Cell::RnnTanh ? tanh(pre) : relu(pre), {}};
    }
  }
}

// The whole layer stack. input [T, B, F] ([B, T, F] when batch_first); h0 [L D, B, P]; c0 [L D,
// B, H] (LSTM). Returns the output and the final h (and c) of every layer and direction.
std::tuple<Tensor, Tensor, Tensor> run_layers(Cell cell, const Tensor& input, const Tensor& h0, const Tensor& c0,
                                              const std::vector<Tensor>& params, bool has_biases, int64_t layers,
                                              double dropout, bool train, bool bidirectional, bool batch_first) {
  const char* op = cell_op(cell);
  check_defined(op, input, "input");
  TVK_CHECK(input.dim() == 3, op, ": input must have 3 dimensions, got ", input.dim());
  TVK_CHECK(!(train && dropout > 0 && layers > 1), op,
            ": dropout between layers in training mode is not supported (tvk runs inference; call eval())");
  const int64_t dirs = bidirectional ? 2 : 1;
  const std::vector<Weights> weights = split_weights(op, cell, params, has_biases, layers, dirs);
  Tensor x = batch_first ? transpose(input, 0, 1) : input;
  const int64_t steps = x.sizes()[0], batch = x.sizes()[1];
  TVK_CHECK(steps > 0, op, ": expected sequence length to be larger than 0 in RNN");
  const int64_t gates = gate_count(cell);
  check_defined(op, h0, "hx");
  TVK_CHECK(h0.dim() == 3 && h0.sizes()[0] == layers * dirs && h0.sizes()[1] == batch, op, ": expected hidden state of ",
            layers * dirs, " layers and directions and batch ", batch, ", got ", h0.shape_string());
  if (cell == Cell::Lstm) {
    check_defined(op, c0, "cx");
    TVK_CHECK(c0.dim() == 3 && c0.sizes()[0] == layers * dirs && c0.sizes()[1] == batch, op, ": expected cell state of ",
              layers * dirs, " layers and directions and batch ", batch, ", got ", c0.shape_string());
  }
  std::vector<Tensor> h_n, c_n;
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<Tensor> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const Weights& w = weights[static_cast<size_t>(l * dirs + d)];
      const int64_t hidden = w.w_ih.sizes()[0] / gates, out_size = w.w_hr.defined() ? w.w_hr.sizes()[0] : hidden;
      TVK_CHECK(w.w_ih.sizes()[0] == gates * hidden && w.w_ih.sizes()[1] == x.sizes()[2], op, ": layer ", l,
                " expects w_ih of shape [", gates * hidden, ", ", x.sizes()[2], "], got ", w.w_ih.shape_string());
      TVK_CHECK(w.w_hh.sizes()[0] == gates * hidden && w.w_hh.sizes()[1] == out_size, op, ": layer ", l,
                " expects w_hh of shape [", gates * hidden, ", ", out_size, "], got ", w.w_hh.shape_string());
      State s{select(h0, 0, l * dirs + d), c0.defined() ? select(c0, 0, l * dirs + d) : Tensor()};
      TVK_CHECK(s.h.dim() == 2 && s.h.sizes()[0] == batch && s.h.sizes()[1] == out_size, op,
                ": expected hidden size [", layers * dirs, ", ", batch, ", ", out_size, "], got ", h0.shape_string());
      if (cell == Cell::Lstm)
        TVK_CHECK(s.c.dim() == 2 && s.c.sizes()[0] == batch && s.c.sizes()[1] == hidden, op,
                  ": expected cell size [", layers * dirs, ", ", batch, ", ", hidden, "], got ", c0.shape_string());
      const Tensor gates_x = linear(x, w.w_ih, w.b_ih);  // every step's input product at once
      std::vector<IValue> hs(static_cast<size_t>(steps));
      for (int64_t i = 0; i < steps; ++i) {
        const int64_t t = d == 0 ? i : steps - 1 - i;
        s = step(cell, w, gates_x, t, s);
        hs[static_cast<size_t>(t)] = IValue(s.h);
      }
      outs.push_back(call("aten::stack", {IValue::list(List(hs.begin(), hs.end())), IValue(int64_t{0})}).toTensor());
      h_n.push_back(s.h);
      if (cell == Cell::Lstm) c_n.push_back(s.c);
    }
    x = dirs == 1 ? outs[0] : cat(outs, 2);
  }
  auto stacked = [](const std::vector<Tensor>& ts) {
    if (ts.empty()) return Tensor();
    return call("aten::stack", {IValue::list(List(ts.begin(), ts.end())), IValue(int64_t{0})}).toTensor();
  };
  return {batch_first ? transpose(x, 0, 1) : x, stacked(h_n), stacked(c_n)};
}

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, std::vector<Tensor> hx, std::vector<Tensor> params,
                                        bool has_biases, int64_t num_layers, double dropout, bool train,
                                        bool bidirectional, bool batch_first) {
  TVK_CHECK(hx.size() == 2, "aten::lstm: hx must hold h0 and c0, got ", hx.size(), " tensors");
  return run_layers(Cell::Lstm, input, hx[0], hx[1], params, has_biases, num_layers, dropout, train, bidirectional,
                    batch_first);
}

template <Cell C>
std::tuple<Tensor, Tensor> recurrent(const Tensor& input, const Tensor& hx, std::vector<Tensor> params, bool has_biases,
                                     int64_t num_layers, double dropout, bool train, bool bidirectional,
                                     bool batch_first) {
  check_defined(cell_op(C), hx, "hx");
  auto [out, h, c] = run_layers(C, input, hx, Tensor(), params, has_biases, num_layers, dropout, train, bidirectional,
                                batch_first);
  (void)c;
  return {out, h};
}

// The single-step cells: input [B, F] or [F], state of the same batch.
Tensor batched(const Tensor& t) { return t.dim() == 1 ? unsqueeze(t, 0) : t; }
Tensor unbatched_like(const Tensor& t, const Tensor& input) { return input.dim() == 1 ? reshape(t, {t.numel()}) : t; }

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, std::vector<Tensor> hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  const char* op = "aten::lstm_cell";
  check_defined(op, input, "input");
  TVK_CHECK(hx.size() == 2, op, ": hx must hold h and c, got ", hx.size(), " tensors");
  const Tensor x = batched(input);
  const Tensor gates_x = unsqueeze(linear(x, w_ih, b_ih), 0);
  const Weights w{w_ih, w_hh, b_ih, b_hh, {}};
  const State s = step(Cell::Lstm, w, gates_x, 0, {batched(hx[0]), batched(hx[1])});
  return {unbatched_like(s.h, input), unbatched_like(s.c, input)};
}

Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                const Tensor& b_hh) {
  check_defined("aten::gru_cell", input, "input");
  const Tensor gates_x = unsqueeze(linear(batched(input), w_ih, b_ih), 0);
  const State s = step(Cell::Gru, {w_ih, w_hh, b_ih, b_hh, {}}, gates_x, 0, {batched(hx), {}});
  return unbatched_like(s.h, input);
}

// ---- packed contexts: PyTorch's vulkan_prepack::create_lstm_context / run_lstm_context and the
// GRU pair, which optimize_for_mobile(backend="vulkan") puts in place of aten::lstm and aten::gru
// (its own pass and tvk's). The context keeps the layers' weights in _flat_weights order and
// gives them on the device the input is on (moved there once).

constexpr const char* kLstmClass = "__torch__.torch.classes.vulkan.LstmPackedContext";
constexpr const char* kGruClass = "__torch__.torch.classes.vulkan.GruPackedContext";

struct RecurrentContext final : CustomClassPayload {
  Cell cell = Cell::Lstm;
  DeviceTensors params;  // _flat_weights order
  bool has_biases = true, train = false, bidirectional = false, batch_first = false;
  int64_t layers = 1;
  double dropout = 0;
};

const char* context_class(Cell cell) { return cell == Cell::Lstm ? kLstmClass : kGruClass; }

std::shared_ptr<Object> make_context(Cell cell, std::vector<Tensor> params, bool has_biases, int64_t layers,
                                     double dropout, bool train, bool bidirectional, bool batch_first) {
  const char* op = cell == Cell::Lstm ? "vulkan_prepack::create_lstm_context" : "vulkan_prepack::create_gru_context";
  // The same checks the layer makes when it runs, now: a bad file fails where it loads.
  (void)split_weights(op, cell, params, has_biases, layers, bidirectional ? 2 : 1);
  auto ctx = std::make_shared<RecurrentContext>();
  ctx->cell = cell;
  ctx->params.set(params);
  ctx->has_biases = has_biases;
  ctx->layers = layers;
  ctx->dropout = dropout;
  ctx->train = train;
  ctx->bidirectional = bidirectional;
  ctx->batch_first = batch_first;
  auto obj = std::make_shared<Object>();
  obj->type_name = context_class(cell);
  obj->payload = ctx;
  return obj;
}

const RecurrentContext& context_of(const IValue& v, Cell cell, const char* op) {
  return context_payload<RecurrentContext>(v, context_class(cell), op);
}

template <Cell C>
IValue create_context(std::vector<Tensor> params, bool has_biases, int64_t num_layers, double dropout, bool train,
                      bool bidirectional, bool batch_first) {
  return IValue(make_context(C, std::move(params), has_biases, num_layers, dropout, train, bidirectional, batch_first));
}

std::tuple<Tensor, Tensor, Tensor> run_lstm_context(const Tensor& input, const Tensor& hx, const Tensor& cx,
                                                    const IValue& context) {
  const RecurrentContext& c = context_of(context, Cell::Lstm, "vulkan_prepack::run_lstm_context");
  check_defined("vulkan_prepack::run_lstm_context", input, "input_vk");
  return run_layers(Cell::Lstm, input, hx, cx, c.params.on(input.device()), c.has_biases, c.layers, c.dropout, c.train,
                    c.bidirectional, c.batch_first);
}

std::tuple<Tensor, Tensor> run_gru_context(const Tensor& input, const Tensor& hx, const IValue& context) {
  const RecurrentContext& c = context_of(context, Cell::Gru, "vulkan_prepack::run_gru_context");
  check_defined("vulkan_prepack::run_gru_context", input, "input_vk");
  auto [out, h, unused] = run_layers(Cell::Gru, input, hx, Tensor(), c.params.on(input.device()), c.has_biases,
                                     c.layers, c.dropout, c.train, c.bidirectional, c.batch_first);
  (void)unused;
  return {out, h};
}

// Pickled as PyTorch pickles its contexts: [params, has_biases, num_layers, dropout, train,
// bidirectional, batch_first]. tvk writes the layers' weights as given (4 per layer and
// direction with biases); PyTorch's unpack() writes each gate's weight and bias apart (16 per
// layer for LSTM in the order ii, hi, if, hf, ig, hg, io, ho; 12 for GRU: ir, hr, iz, hz, in,
// hn), which are joined back here.
IValue context_get_state(const Object& self) {
  const RecurrentContext& c = payload_of<RecurrentContext>(self);
  List state;
  state.push_back(IValue::list(List(c.params.cpu().begin(), c.params.cpu().end())));
  state.emplace_back(c.has_biases);
  state.emplace_back(c.layers);
  state.emplace_back(c.dropout);
  state.emplace_back(c.train);
  state.emplace_back(c.bidirectional);
  state.emplace_back(c.batch_first);
  return IValue::list(std::move(state));
}

template <Cell C>
void context_set_state(Object& self, const IValue& state) {
  const char* cls = context_class(C);
  TVK_CHECK((state.isList() || state.isTuple()) && state.toList().size() == 7, cls, " state must be a list of 7 items");
  const List& s = state.toList();
  TVK_CHECK(s[0].isList() && s[1].isBool() && s[2].isInt() && (s[3].isDouble() || s[3].isInt()) && s[4].isBool() &&
                s[5].isBool() && s[6].isBool(),
            cls, " state must be [Tensor[] params, bool, int, float, bool, bool, bool]");
  std::vector<Tensor> params;
  for (const IValue& p : s[0].toList()) {
    TVK_CHECK(p.isTensor() && p.toTensor().defined(), cls, " state: params must be tensors");
    params.push_back(p.toTensor());
  }
  const int64_t layers = s[2].toInt(), gates = gate_count(C), n = static_cast<int64_t>(params.size());
  TVK_CHECK(layers > 0 && layers <= 1024, cls, " state: num_layers ", layers, " is out of range");
  if (n == layers * gates * 4 && !s[5].toBool()) {
    // PyTorch's per-gate form: (w, b) pairs alternating input and hidden, gate by gate.
    std::vector<Tensor> joined;
    for (int64_t l = 0; l < layers; ++l) {
      const Tensor* p = params.data() + l * gates * 4;
      std::vector<IValue> w_ih, w_hh, b_ih, b_hh;
      for (int64_t g = 0; g < gates; ++g) {
        w_ih.emplace_back(p[4 * g]);
        b_ih.emplace_back(p[4 * g + 1]);
        w_hh.emplace_back(p[4 * g + 2]);
        b_hh.emplace_back(p[4 * g + 3]);
      }
      for (auto* part : {&w_ih, &w_hh, &b_ih, &b_hh})
        joined.push_back(call("aten::cat", {IValue::list(List(part->begin(), part->end())), IValue(int64_t{0})}).toTensor());
    }
    params = std::move(joined);
  }
  const double dropout = s[3].isDouble() ? s[3].toDouble() : static_cast<double>(s[3].toInt());
  self.payload = make_context(C, std::move(params), s[1].toBool(), layers, dropout, s[4].toBool(), s[5].toBool(),
                              s[6].toBool())->payload;
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("vulkan_prepack::create_lstm_context(Tensor[] params_cpu, bool has_biases, int num_layers, "
                           "float dropout, bool train, bool bidirectional, bool batch_first) -> "
                           "__torch__.torch.classes.vulkan.LstmPackedContext",
                           create_context<Cell::Lstm>);
TVK_REGISTER_OP_ANY_DEVICE("vulkan_prepack::run_lstm_context(Tensor input_vk, Tensor hx_vk, Tensor cx_vk, "
                           "__torch__.torch.classes.vulkan.LstmPackedContext L_prepack) -> (Tensor next_input, "
                           "Tensor hidden_state, Tensor cell_state)",
                           run_lstm_context);
TVK_REGISTER_OP_ANY_DEVICE("vulkan_prepack::create_gru_context(Tensor[] params_cpu, bool has_biases, int num_layers, "
                           "float dropout, bool train, bool bidirectional, bool batch_first) -> "
                           "__torch__.torch.classes.vulkan.GruPackedContext",
                           create_context<Cell::Gru>);
TVK_REGISTER_OP_ANY_DEVICE("vulkan_prepack::run_gru_context(Tensor input_vk, Tensor hx_vk, "
                           "__torch__.torch.classes.vulkan.GruPackedContext G_prepack) -> (Tensor next_input, "
                           "Tensor hidden_layer)",
                           run_gru_context);
TVK_REGISTER_CUSTOM_CLASS(CustomClass{kLstmClass, context_get_state, context_set_state<Cell::Lstm>});
TVK_REGISTER_CUSTOM_CLASS(CustomClass{kGruClass, context_get_state, context_set_state<Cell::Gru>});

TVK_REGISTER_OP_ANY_DEVICE("aten::lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, "
                           "int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> "
                           "(Tensor, Tensor, Tensor)",
                           lstm);
TVK_REGISTER_OP_ANY_DEVICE("aten::gru.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases, "
                           "int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> "
                           "(Tensor, Tensor)",
                           recurrent<Cell::Gru>);
TVK_REGISTER_OP_ANY_DEVICE("aten::rnn_tanh.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases, "
                           "int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> "
                           "(Tensor, Tensor)",
                           recurrent<Cell::RnnTanh>);
TVK_REGISTER_OP_ANY_DEVICE("aten::rnn_relu.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases, "
                           "int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> "
                           "(Tensor, Tensor)",
                           recurrent<Cell::RnnRelu>);
TVK_REGISTER_OP_ANY_DEVICE("aten::lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
                           "Tensor? b_hh=None) -> (Tensor, Tensor)",
                           lstm_cell);
TVK_REGISTER_OP_ANY_DEVICE("aten::gru_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
                           "Tensor? b_hh=None) -> Tensor",
                           gru_cell);

}  // namespace tvk::ops
