// Ops whose result is blocks of the input placed into a new tensor: aten::roll (the two parts of
// each rolled dimension swapped) and constant padding (aten::constant_pad_nd, aten::pad with
// mode "constant": the input, cropped where a pad is negative, inside a tensor of the fill
// value). The plan is computed once for both backends; the CPU copies each block through views,
// Vulkan through strided_copy.
#pragma once

#include <utility>
#include <vector>

#include "ops/view_geometry.h"
#include "tvk/tensor.h"

namespace tvk::ops {

// One block: per dimension, the [begin, end) it reads from the input and writes in the output.
struct Block {
  std::vector<std::pair<int64_t, int64_t>> src, dst;
};

struct BlockPlan {
  IntList out_sizes;
  bool fill = false;  // the output starts as `value` everywhere (padding)
  double value = 0.0;
  std::vector<Block> blocks;
};

// aten::roll(self, shifts, dims): `dims` empty rolls the flattened tensor (the caller views it
// as 1-D and reshapes back; the plan is then over one dimension).
BlockPlan roll_plan(const Tensor& self, const IntList& shifts, const IntList& dims);
// Constant padding: `pad` lists (before, after) pairs from the last dimension backwards.
BlockPlan pad_plan(const char* op, const Tensor& self, const IntList& pad, double value);
// The view of `t` over per-dimension ranges.
ViewGeometry block_geometry(const Tensor& t, const std::vector<std::pair<int64_t, int64_t>>& ranges);

}  // namespace tvk::ops
