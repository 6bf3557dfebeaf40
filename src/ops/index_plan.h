// aten::index with tensor indices (x[idx], x[:, rows, cols]), shared by the CPU and Vulkan
// kernels: which dimensions are indexed, the output's shape, and for each output row the row of
// the indexed block it reads. The index tensors are read on the host (CPU tensors).
#pragma once

#include <vector>

#include "tvk/ivalue.h"
#include "tvk/tensor.h"

namespace tvk::ops {

// self read as [outer, size, inner], where `size` is the product of the indexed dimensions;
// out as [outer, rows.size(), inner].
struct IndexPlan {
  IntList out_sizes;
  int64_t outer = 1, size = 1, inner = 1;
  std::vector<int64_t> rows;  // each in [0, size)
};

// `indices`: one entry per leading dimension of self, undefined for a full slice (None); a bool
// mask stands for as many dimensions as it has (its true elements' coordinates). The
// defined ones must be int64 or bool, adjacent (as PyTorch places the result dimensions there only
// then), broadcastable to each other, and in range (negative counts from the end). Throws
// tvk::Error naming `op` otherwise.
IndexPlan index_plan(const char* op, const Tensor& self, const std::vector<Tensor>& indices);

// Calls f(from, to) for each row of p.inner elements the indexing moves: `from` its element
// offset in the indexed block (self, contiguous), `to` in the result ([outer, rows, inner]).
template <typename F>
void for_each_indexed_row(const IndexPlan& p, F&& f) {
  const int64_t count = static_cast<int64_t>(p.rows.size());
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t i = 0; i < count; ++i) f((o * p.size + p.rows[static_cast<size_t>(i)]) * p.inner, (o * count + i) * p.inner);
}

// Ops that move whole rows along one dimension by a map known on the host: flip and the
// reflection, replication and circular pads. Each is a sequence of gathers, one per dimension it
// touches: out row i of `dim` is self's row rows[i] (self read as [outer, size, inner]). Each
// device runs a gather with the op tvk::gather_dim (CPU: a copy per row; Vulkan: index_rows.glsl).
struct DimGather {
  int64_t dim = 0;
  std::vector<int64_t> rows;
};
// aten::flip: each of `dims` reversed (a dim given twice is an error, as in PyTorch).
std::vector<DimGather> flip_plan(const char* op, const Tensor& self, const IntList& dims);
// `pad`: (before, after) pairs from the last dimension backwards. mode "reflect" (the edge row
// not repeated; each pad < that dim's size), "replicate" (the edge row repeated; the dim must not
// be empty) or "circular" (wrapped; each pad <= that dim's size). Negative pads crop.
std::vector<DimGather> pad_plan_by_rows(const char* op, const Tensor& self, const IntList& pad, const std::string& mode);
// Runs `plan` on `self`'s device through tvk::gather_dim.
Tensor run_gathers(const Tensor& self, const std::vector<DimGather>& plan);

// A `Tensor?[]` argument: None elements become undefined tensors.
std::vector<Tensor> optional_tensor_list(const IValue& list);

}  // namespace tvk::ops
