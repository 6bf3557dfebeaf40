// CPU kernels of the recurrent gate ops (ops/recurrent.h).
#include <cmath>
#include <tuple>

#include "ops/recurrent.h"
#include "ops/registry.h"

namespace tvk::ops::cpu {
namespace {

float sigmoidf(float x) { return 1.f / (1.f + std::exp(-x)); }

std::tuple<Tensor, Tensor> lstm_gates(const Tensor& gates_x, int64_t t, const Tensor& gates_h, const Tensor& c) {
  const char* op = "tvk::lstm_gates";
  const GateShape s = check_gates(op, gates_x, t, gates_h, c, 4);
  for (const Tensor* x : {&gates_x, &gates_h, &c}) check_float(op, *x);
  const Tensor gx = gates_x.contiguous(), gh = gates_h.contiguous(), ci = c.contiguous();
  Tensor h = empty({s.batch, s.hidden}), co = empty({s.batch, s.hidden});
  const int64_t H = s.hidden;
  for (int64_t b = 0; b < s.batch; ++b) {
    const float* x = gx.data<float>() + (t * s.batch + b) * 4 * H;
    const float* g = gh.data<float>() + b * 4 * H;
    for (int64_t j = 0; j < H; ++j) {
      const float i = sigmoidf(x[j] + g[j]), f = sigmoidf(x[H + j] + g[H + j]);
      const float cand = std::tanh(x[2 * H + j] + g[2 * H + j]), o = sigmoidf(x[3 * H + j] + g[3 * H + j]);
      const float cell = f * ci.data<float>()[b * H + j] + i * cand;
      co.data<float>()[b * H + j] = cell;
      h.data<float>()[b * H + j] = o * std::tanh(cell);
    }
  }
  return {h, co};
}

Tensor gru_gates(const Tensor& gates_x, int64_t t, const Tensor& gates_h, const Tensor& h) {
  const char* op = "tvk::gru_gates";
  const GateShape s = check_gates(op, gates_x, t, gates_h, h, 3);
  for (const Tensor* x : {&gates_x, &gates_h, &h}) check_float(op, *x);
  const Tensor gx = gates_x.contiguous(), gh = gates_h.contiguous(), hi = h.contiguous();
  Tensor out = empty({s.batch, s.hidden});
  const int64_t H = s.hidden;
  for (int64_t b = 0; b < s.batch; ++b) {
    const float* x = gx.data<float>() + (t * s.batch + b) * 3 * H;
    const float* g = gh.data<float>() + b * 3 * H;
    for (int64_t j = 0; j < H; ++j) {
      const float r = sigmoidf(x[j] + g[j]), z = sigmoidf(x[H + j] + g[H + j]);
      const float n = std::tanh(x[2 * H + j] + r * g[2 * H + j]);
      out.data<float>()[b * H + j] = (1.f - z) * n + z * hi.data<float>()[b * H + j];
    }
  }
  return out;
}

}  // namespace

TVK_REGISTER_OP("tvk::lstm_gates(Tensor gates_x, int t, Tensor gates_h, Tensor c) -> (Tensor, Tensor)", lstm_gates);
TVK_REGISTER_OP("tvk::gru_gates(Tensor gates_x, int t, Tensor gates_h, Tensor h) -> Tensor", gru_gates);

}  // namespace tvk::ops::cpu
