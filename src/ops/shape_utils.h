// Shape helpers shared by CPU and Vulkan kernels: broadcasting, dim wrapping, argument lists,
// checks whose messages name the op and the shapes.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "tvk/tensor.h"

namespace tvk::ops {

// NumPy broadcasting of two shapes; throws naming `op` when they are incompatible.
IntList broadcast_shapes(const char* op, const IntList& a, const IntList& b);
// Strides to read `t` as if it had `sizes` (0 on broadcast dimensions), right-aligned.
IntList broadcast_strides(const Tensor& t, const IntList& sizes);
// Wraps a possibly negative dim into [0, rank); throws naming `op` when out of range.
int64_t wrap_dim(const char* op, int64_t dim, int64_t rank);
// `sizes` seen as [outer, size, inner] around `dim` (wrapped); a 0-D shape is [1, 1, 1] at dim 0,
// whatever `dim` says, as PyTorch's reductions take it.
struct DimSplit {
  int64_t dim = 0, outer = 1, size = 1, inner = 1;
};
DimSplit split_at_dim(const char* op, const IntList& sizes, int64_t dim);
// The shape a reduction over `dim` (all dims when nullopt) leaves, with keepdim as in PyTorch.
IntList reduced_sizes(const char* op, const IntList& sizes, std::optional<int64_t> dim, bool keepdim);
void check_float(const char* op, const Tensor& t, const char* arg = "self");
void check_defined(const char* op, const Tensor& t, const char* arg = "self");
// Checks `t` has one of the ranks in [min_rank, max_rank]; `layout` names the dims, e.g. "(N, C, H, W)".
void check_rank(const char* op, const Tensor& t, int64_t min_rank, int64_t max_rank, const char* layout,
                const char* arg = "input");

// The two values of an `int[2]` argument; a single value stands for both, as in PyTorch.
std::array<int64_t, 2> expand_pair(const char* op, const char* arg, const IntList& values);
// The 3-D form: 1 or 3 values, as [d, h, w].
IntList expand_triple(const char* op, const char* arg, const IntList& values);
// Resolves one -1 in a view/reshape shape for `numel` elements; throws naming `op`.
IntList infer_size(const char* op, IntList shape, int64_t numel);
// Strides that view (sizes, strides) as `shape` without copying, or nullopt when the layout
// cannot express it (PyTorch's computeStride).
std::optional<IntList> view_strides(const IntList& sizes, const IntList& strides, const IntList& shape);
// cat's inputs after the legacy rule (1-D empty tensors are skipped), the wrapped dim and the
// output shape; throws naming `op` when shapes differ outside `dim`.
struct CatPlan {
  std::vector<Tensor> inputs;
  int64_t dim = 0;
  IntList out_sizes;
};
CatPlan plan_cat(const char* op, const std::vector<Tensor>& tensors, int64_t dim);
// stack's inputs, each with a dimension of size 1 inserted at `dim` (all must share one shape),
// and the wrapped dim: cat's arguments.
std::pair<std::vector<Tensor>, int64_t> stack_as_cat(const char* op, const std::vector<Tensor>& tensors, int64_t dim);
// A reduction over `dims` (None or [] = all; negatives wrap; duplicates rejected) seen as rows:
// `order` lists the kept dims then the reduced ones, so permuting by it gives [rows, cols].
struct ReducePlan {
  IntList order;
  int64_t rows = 1, cols = 1;
  IntList out_sizes;
};
ReducePlan plan_reduce(const char* op, const Tensor& t, const std::optional<IntList>& dims, bool keepdim);
// dtype codes of PyTorch's ScalarType as TorchScript passes them (6 = float32, 4 = int64, 11 = bool).
DType dtype_from_code(const char* op, std::optional<int64_t> code);
int64_t dtype_code(DType t);
// `t` converted to `dtype` through aten::to.dtype on t's device (t itself when it has it).
Tensor to_dtype(const Tensor& t, DType dtype);
// Accepts only float32 (or None) for ops that cast their input by a `dtype` argument.
void check_float_dtype_arg(const char* op, std::optional<int64_t> code);

}  // namespace tvk::ops
