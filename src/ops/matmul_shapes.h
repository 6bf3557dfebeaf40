// Shape rules of the matrix products (mm, bmm, addmm, linear, matmul), shared by both backends.
#pragma once

#include "tvk/tensor.h"

namespace tvk::ops {

// Checks a [n, m] x [m, p] product (ranks and inner sizes), naming the op and both shapes.
void check_mm(const char* op, const Tensor& a, const Tensor& b);
// Checks a [B, n, m] x [B, m, p] product.
void check_bmm(const char* op, const Tensor& a, const Tensor& b);
// Checks linear's input [*, in], weight [out, in] and bias [out] (or undefined).
void check_linear(const Tensor& input, const Tensor& weight, const Tensor& bias);

// torch.matmul as a batched product: both operands broadcast to batch x [rows, inner] and
// batch x [inner, cols]; 1-D operands gain a dim that `out_sizes` drops again.
struct MatmulShape {
  IntList batch;      // broadcast batch dims
  IntList a_sizes;    // batch + [rows, inner]
  IntList b_sizes;    // batch + [inner, cols]
  IntList out_sizes;  // the result's shape
  int64_t rows = 0, inner = 0, cols = 0;
};
// `a_2d` / `b_2d` are the operands with 1-D inputs unsqueezed (views) for the caller to expand.
MatmulShape matmul_shape(const Tensor& a, const Tensor& b, Tensor& a_2d, Tensor& b_2d);

}  // namespace tvk::ops
