// The gate ops of a recurrent step (ops/recurrent.cpp), shared by their CPU and Vulkan kernels:
//   tvk::lstm_gates(gates_x, t, gates_h, c) -> (h, c'):  gates_x [T, B, 4H] (every step's input
//     product and bias), gates_h [B, 4H] (this step's hidden product and bias), c [B, H];
//     i, f, g, o = the four H-wide parts of gates_x[t] + gates_h, in PyTorch's order;
//     c' = sigmoid(f) c + sigmoid(i) tanh(g), h = sigmoid(o) tanh(c').
//   tvk::gru_gates(gates_x, t, gates_h, h) -> h':  the three parts r, z, n of each;
//     r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z), n = tanh(x_n + r h_n), h' = (1 - z) n + z h.
#pragma once

#include "ops/shape_utils.h"
#include "tvk/tensor.h"

namespace tvk::ops {

struct GateShape {
  int64_t batch = 0, hidden = 0;
};

inline GateShape check_gates(const char* op, const Tensor& gates_x, int64_t t, const Tensor& gates_h,
                             const Tensor& state, int64_t gates) {
  check_defined(op, gates_x, "gates_x");
  check_defined(op, gates_h, "gates_h");
  check_defined(op, state, "state");
  TVK_CHECK(gates_x.dim() == 3 && gates_h.dim() == 2 && state.dim() == 2, op,
            ": expected gates_x [T, B, G H], gates_h [B, G H] and a state [B, H], got ", gates_x.shape_string(), ", ",
            gates_h.shape_string(), " and ", state.shape_string());
  const int64_t batch = state.sizes()[0], hidden = state.sizes()[1];
  TVK_CHECK(gates_x.sizes()[1] == batch && gates_x.sizes()[2] == gates * hidden && gates_h.sizes()[0] == batch &&
                gates_h.sizes()[1] == gates * hidden,
            op, ": gates ", gates_x.shape_string(), " and ", gates_h.shape_string(), " do not fit a state of ",
            state.shape_string(), " (", gates, " gates)");
  TVK_CHECK(t >= 0 && t < gates_x.sizes()[0], op, ": step ", t, " is out of range for ", gates_x.sizes()[0], " steps");
  return {batch, hidden};
}

}  // namespace tvk::ops
