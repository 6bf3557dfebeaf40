// The geometry (sizes, strides, offset) of PyTorch's view ops, computed once for both backends:
// the CPU kernels return it as a real view, the Vulkan kernels copy it into a new contiguous
// tensor (Vulkan tensors are always contiguous).
#pragma once

#include <utility>
#include <vector>

#include <optional>

#include "tvk/tensor.h"

namespace tvk::ops {

struct ViewGeometry {
  IntList sizes;
  IntList strides;
  int64_t offset = 0;
};

ViewGeometry geometry_of(const Tensor& t);
ViewGeometry select_geometry(const Tensor& t, int64_t dim, int64_t index);
// aten::chunk: the wrapped dimension and the [start, end) of each piece along it, as PyTorch
// splits (pieces of ceil(size / chunks), the last smaller; `chunks` empty pieces of an empty dim).
struct ChunkPlan {
  int64_t dim = 0;
  std::vector<std::pair<int64_t, int64_t>> pieces;
};
ChunkPlan chunk_plan(const Tensor& t, int64_t chunks, int64_t dim);

ViewGeometry slice_geometry(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                            int64_t step);
ViewGeometry transpose_geometry(const char* op, const Tensor& t, int64_t dim0, int64_t dim1);
ViewGeometry permute_geometry(const Tensor& t, const IntList& dims);
ViewGeometry unsqueeze_geometry(const Tensor& t, int64_t dim);
ViewGeometry t_geometry(const Tensor& t);
// Broadcast of `t` to `sizes` (stride 0 on expanded dims), as expand() would view it.
ViewGeometry expand_geometry(const char* op, const Tensor& t, const IntList& sizes);
// repeat(): a view indexed [r0, s0, r1, s1, ...] (size-1 entries left out) reading t at
// [s0, s1, ...], stride 0 along each r; copied contiguous, it is the result, of `out_sizes`
// ([r0 * s0, r1 * s1, ...]).
ViewGeometry repeat_geometry(const char* op, const Tensor& t, const IntList& repeats, IntList* out_sizes);
// aten::as_strided: sizes, strides and offset (default: t's own) into t's storage, checked to
// lie inside it, with no negative stride.
ViewGeometry as_strided_geometry(const Tensor& t, const IntList& sizes, const IntList& strides,
                                 std::optional<int64_t> offset);
// The shape flatten(start_dim, end_dim) gives `t`.
IntList flatten_sizes(const Tensor& t, int64_t start_dim, int64_t end_dim);

// A CPU view of `t` with geometry `g`.
inline Tensor as_view(const Tensor& t, const ViewGeometry& g) { return t.as_strided(g.sizes, g.strides, g.offset); }

}  // namespace tvk::ops
