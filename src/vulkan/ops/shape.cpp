// Vulkan shape and view ops. Vulkan tensors are always contiguous, so view, reshape, flatten and
// unsqueeze are zero-copy re-shapes, while select, slice, transpose, permute, t and expand copy
// the geometry the CPU would view (ops/view_geometry.h) into a new tensor; cat copies each
// input into its slice of the output, and roll and constant padding copy the blocks of
// ops/block_copy.h.
#include <optional>
#include <string>

#include "ops/block_copy.h"
#include "ops/registry.h"
#include "ops/view_geometry.h"
#include "vulkan/ops/shader_dispatch.h"
#include "vulkan/ops/strided_copy.h"

namespace tvk::vulkan {
namespace {

Tensor reshaped(const char* op, const Tensor& self, IntList shape) {
  ops::check_defined(op, self);
  return self.view(ops::infer_size(op, std::move(shape), self.numel()));
}
Tensor view(const Tensor& self, IntList size) { return reshaped("aten::view", self, std::move(size)); }
Tensor reshape(const Tensor& self, IntList shape) { return reshaped("aten::reshape", self, std::move(shape)); }
Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  return reshaped("aten::flatten", self, ops::flatten_sizes(self, start_dim, end_dim));
}
Tensor unsqueeze(const Tensor& self, int64_t dim) {
  return reshaped("aten::unsqueeze", self, ops::unsqueeze_geometry(self, dim).sizes);
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  return materialize("aten::select", self, ops::select_geometry(self, dim, index));
}
// Pieces are copies: Vulkan tensors are contiguous (docs/architecture.md, Tensors).
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  check_vulkan_float("aten::chunk", self);
  const ops::ChunkPlan plan = ops::chunk_plan(self, chunks, dim);
  std::vector<Tensor> out;
  for (const auto& [start, end] : plan.pieces)
    out.push_back(materialize("aten::chunk", self, ops::slice_geometry(self, plan.dim, start, end, 1)));
  return out;
}
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  return materialize("aten::slice", self, ops::slice_geometry(self, dim, start, end, step));
}
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  return materialize("aten::transpose", self, ops::transpose_geometry("aten::transpose", self, dim0, dim1));
}
// In place: the transposed data is written back into self's buffer, and the result is self's
// storage with the new shape (callers use the returned tensor, as on the CPU).
Tensor transpose_(const Tensor& self, int64_t dim0, int64_t dim1) {
  const ops::ViewGeometry g = ops::transpose_geometry("aten::transpose_", self, dim0, dim1);
  const Tensor copy = materialize("aten::transpose_", self, g);
  const Tensor result = self.as_strided(g.sizes, contiguous_strides(g.sizes), 0);
  strided_copy(result, ops::geometry_of(result), copy, ops::geometry_of(copy));
  return result;
}
Tensor permute(const Tensor& self, IntList dims) {
  return materialize("aten::permute", self, ops::permute_geometry(self, dims));
}
Tensor t(const Tensor& self) { return materialize("aten::t", self, ops::t_geometry(self)); }

Tensor expand(const Tensor& self, IntList size, bool) {
  const size_t shift = size.size() - std::min<size_t>(size.size(), static_cast<size_t>(self.dim()));
  for (size_t i = shift; i < size.size(); ++i)
    if (size[i] == -1) size[i] = self.sizes()[i - shift];
  return materialize("aten::expand", self, ops::expand_geometry("aten::expand", self, size));
}

Tensor contiguous(const Tensor& self, int64_t memory_format) {
  TVK_CHECK(memory_format == 0 || memory_format == 2, "aten::contiguous: memory_format ", memory_format,
            " is not supported (0 = contiguous_format, 2 = channels_last)");
  ops::check_defined("aten::contiguous", self);
  return self;  // already contiguous: a Vulkan invariant
}

Tensor cat_impl(const char* op, const std::vector<Tensor>& tensors, int64_t dim) {
  const ops::CatPlan plan = ops::plan_cat(op, tensors, dim);
  for (const Tensor& t : plan.inputs) check_vulkan_float(op, t, "tensors");
  Tensor out = empty_vulkan(plan.out_sizes);
  int64_t start = 0;
  for (const Tensor& t : plan.inputs) {
    const int64_t len = t.sizes()[plan.dim];
    strided_copy(out, ops::slice_geometry(out, plan.dim, start, start + len, 1), t, ops::geometry_of(t));
    start += len;
  }
  return out;
}
Tensor run_blocks(const char* op, const Tensor& self, const ops::BlockPlan& plan) {
  check_vulkan_float(op, self, "self");
  Tensor out = plan.fill ? tvk::full(plan.out_sizes, plan.value, DType::Float32, tvk::Device::Vulkan) : empty_vulkan(plan.out_sizes);
  for (const ops::Block& b : plan.blocks)
    strided_copy(out, ops::block_geometry(out, b.dst), self, ops::block_geometry(self, b.src));
  return out;
}

Tensor roll(const Tensor& self, IntList shifts, IntList dims) {
  if (dims.empty()) {  // the flattened tensor (Vulkan tensors are contiguous), in the input's shape
    const Tensor flat = self.view({self.numel()});
    return run_blocks("aten::roll", flat, ops::roll_plan(flat, shifts, dims)).view(self.sizes());
  }
  return run_blocks("aten::roll", self, ops::roll_plan(self, shifts, dims));
}

Tensor constant_pad_nd(const Tensor& self, IntList pad, double value) {
  return run_blocks("aten::constant_pad_nd", self, ops::pad_plan("aten::constant_pad_nd", self, pad, value));
}

Tensor pad(const Tensor& self, IntList pad, const std::string& mode, std::optional<double> value) {
  TVK_CHECK(mode == "constant", "aten::pad: mode \"", mode, "\" is not supported (only \"constant\")");
  return run_blocks("aten::pad", self, ops::pad_plan("aten::pad", self, pad, value.value_or(0.0)));
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) { return cat_impl("aten::cat", tensors, dim); }
Tensor cat_underscore(const std::vector<Tensor>& tensors, int64_t dim) { return cat_impl("aten::_cat", tensors, dim); }

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::roll", roll);
TVK_REGISTER_VULKAN_KERNEL("aten::constant_pad_nd", constant_pad_nd);
TVK_REGISTER_VULKAN_KERNEL("aten::pad", pad);
TVK_REGISTER_VULKAN_KERNEL("aten::view", view);
TVK_REGISTER_VULKAN_KERNEL("aten::reshape", reshape);
TVK_REGISTER_VULKAN_KERNEL("aten::flatten.using_ints", flatten);
TVK_REGISTER_VULKAN_KERNEL("aten::unsqueeze", unsqueeze);
TVK_REGISTER_VULKAN_KERNEL("aten::select.int", select);
TVK_REGISTER_VULKAN_KERNEL("aten::slice.Tensor", slice);
TVK_REGISTER_VULKAN_KERNEL("aten::chunk", chunk);
TVK_REGISTER_VULKAN_KERNEL("aten::transpose.int", transpose);
TVK_REGISTER_VULKAN_KERNEL("aten::transpose_", transpose_);
TVK_REGISTER_VULKAN_KERNEL("aten::permute", permute);
TVK_REGISTER_VULKAN_KERNEL("aten::t", t);
TVK_REGISTER_VULKAN_KERNEL("aten::expand", expand);
TVK_REGISTER_VULKAN_KERNEL("aten::contiguous", contiguous);
TVK_REGISTER_VULKAN_KERNEL("aten::cat", cat);
TVK_REGISTER_VULKAN_KERNEL("aten::_cat", cat_underscore);

}  // namespace tvk::vulkan
