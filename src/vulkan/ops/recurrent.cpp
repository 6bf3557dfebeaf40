// Vulkan kernels of the recurrent gate ops (ops/recurrent.h): one dispatch per step
// (lstm_gates.glsl, gru_gates.glsl).
#include <tuple>

#include "ops/recurrent.h"
#include "ops/registry.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

// Must match the push constants of lstm_gates.glsl and gru_gates.glsl.
struct GateParams {
  uint32_t count, hidden, x_base;
};

GateParams gate_params(const char* op, const ops::GateShape& s, int64_t t, int64_t gates) {
  return {static_cast<uint32_t>(to_i32(op, s.batch * s.hidden)), static_cast<uint32_t>(to_i32(op, s.hidden)),
          static_cast<uint32_t>(to_i32(op, t * s.batch * gates * s.hidden))};
}

std::tuple<Tensor, Tensor> lstm_gates(const Tensor& gates_x, int64_t t, const Tensor& gates_h, const Tensor& c) {
  const char* op = "tvk::lstm_gates";
  const ops::GateShape s = ops::check_gates(op, gates_x, t, gates_h, c, 4);
  check_vulkan_float(op, gates_x, "gates_x");
  check_vulkan_float(op, gates_h, "gates_h");
  check_vulkan_float(op, c, "c");
  Tensor h = empty_vulkan({s.batch, s.hidden}), c_out = empty_vulkan({s.batch, s.hidden});
  if (h.numel() == 0) return {h, c_out};
  launch(ShaderLaunch{"lstm_gates", elementwise_global(h.numel()), {64, 1, 1}, {}}, {h, c_out, gates_x, gates_h, c},
         gate_params(op, s, t, 4));
  return {h, c_out};
}

Tensor gru_gates(const Tensor& gates_x, int64_t t, const Tensor& gates_h, const Tensor& h) {
  const char* op = "tvk::gru_gates";
  const ops::GateShape s = ops::check_gates(op, gates_x, t, gates_h, h, 3);
  check_vulkan_float(op, gates_x, "gates_x");
  check_vulkan_float(op, gates_h, "gates_h");
  check_vulkan_float(op, h, "h");
  Tensor out = empty_vulkan({s.batch, s.hidden});
  if (out.numel() == 0) return out;
  launch(ShaderLaunch{"gru_gates", elementwise_global(out.numel()), {64, 1, 1}, {}}, {out, gates_x, gates_h, h},
         gate_params(op, s, t, 3));
  return out;
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("tvk::lstm_gates", lstm_gates);
TVK_REGISTER_VULKAN_KERNEL("tvk::gru_gates", gru_gates);

}  // namespace tvk::vulkan
