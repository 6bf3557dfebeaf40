// Shape helpers shared by CPU and Vulkan kernels: broadcasting, dim wrapping, checks whose
// messages name the op and the shapes.
#pragma once

#include <string>

#include "tvk/tensor.h"

namespace tvk::ops {

// NumPy broadcasting of two shapes; throws naming `op` when they are incompatible.
IntList broadcast_shapes(const char* op, const IntList& a, const IntList& b);
// Strides to read `t` as if it had `sizes` (0 on broadcast dimensions), right-aligned.
IntList broadcast_strides(const Tensor& t, const IntList& sizes);
// Wraps a possibly negative dim into [0, rank); throws naming `op` when out of range.
int64_t wrap_dim(const char* op, int64_t dim, int64_t rank);
void check_float(const char* op, const Tensor& t, const char* arg = "self");
void check_defined(const char* op, const Tensor& t, const char* arg = "self");

}  // namespace tvk::ops
