// Vulkan shape and view ops. Vulkan tensors are always contiguous, so view, reshape, flatten and
// unsqueeze are zero-copy re-shapes, while select, slice, chunk, transpose, permute, t and
// expand copy the geometry the CPU would view (ops/view_geometry.h) into a new tensor. Those
// copies (expand's aside) note where they came from (core/storage.h, ViewSource), so that an
// in-place op on one, copy_ included, writes through to the tensor it was taken from. cat
// (and stack, a cat of unsqueezed inputs) copies each input into its slice of the output, repeat
// copies a view with stride 0 along the repeats, and roll and constant padding copy the
// blocks of ops/block_copy.h.
#include <optional>
#include <string>

#include "core/storage.h"
#include "ops/block_copy.h"
#include "ops/index_plan.h"
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

// A copy of the view `geometry` gives of self, noting where its elements came from: the view of
// self's root (the first storage that is no such copy) that the same view op gives when applied
// to self's own place in that root.
template <typename Geometry>
Tensor copy_view(const char* op, const Tensor& self, Geometry&& geometry) {
  const ops::ViewGeometry g = geometry(self);
  // A view of all of self (x[:], the printer's torch.slice(x) before a real slice) is self:
  // writes through it reach self, as through PyTorch's view.
  const ops::ViewGeometry whole = ops::geometry_of(self);
  if (g.sizes == whole.sizes && g.strides == whole.strides && g.offset == whole.offset) return self;
  Tensor out = materialize(op, self, g);
  const ViewSource* parent = self.storage()->view_source();
  if (parent == nullptr) {
    out.storage()->set_view_source(ViewSource{self.storage(), g.sizes, g.strides, g.offset, self.dtype(), true});
    return out;
  }
  const std::shared_ptr<Storage> root = parent->root.lock();
  if (!root) return out;  // nothing can read what a write-back would give it
  // self is a reshape of its storage: express the parent's view in self's shape first.
  const std::optional<IntList> strides = ops::view_strides(parent->sizes, parent->strides, self.sizes());
  if (!strides || !parent->writable) {
    out.storage()->set_view_source(ViewSource{root, {}, {}, 0, self.dtype(), false});
    return out;
  }
  const ops::ViewGeometry in_root = geometry(Tensor(root, self.sizes(), *strides, parent->offset, self.dtype()));
  out.storage()->set_view_source(ViewSource{root, in_root.sizes, in_root.strides, in_root.offset, self.dtype(), true});
  return out;
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  return copy_view("aten::select", self, [&](const Tensor& t) { return ops::select_geometry(t, dim, index); });
}
// Pieces are copies: Vulkan tensors are contiguous (docs/architecture.md, Tensors).
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  check_vulkan_float("aten::chunk", self);
  const ops::ChunkPlan plan = ops::chunk_plan(self, chunks, dim);
  std::vector<Tensor> out;
  for (const auto& [start, end] : plan.pieces)
    out.push_back(copy_view("aten::chunk", self, [&, start = start, end = end](const Tensor& t) {
      return ops::slice_geometry(t, plan.dim, start, end, 1);
    }));
  return out;
}
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  return copy_view("aten::slice", self, [&](const Tensor& t) { return ops::slice_geometry(t, dim, start, end, step); });
}
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  return copy_view("aten::transpose", self,
                   [&](const Tensor& t) { return ops::transpose_geometry("aten::transpose", t, dim0, dim1); });
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
  return copy_view("aten::permute", self, [&](const Tensor& t) { return ops::permute_geometry(t, dims); });
}
Tensor t(const Tensor& self) {
  return copy_view("aten::t", self, [](const Tensor& x) { return ops::t_geometry(x); });
}

// In place into self, which may be a strided view of a storage (a write-back, above): src
// broadcast to self's shape.
// int64 tensors (fill_ of an index tensor) are copied as pairs of 32-bit words, bits unchanged.
Tensor as_words(const Tensor& t) {
  if (t.dtype() != DType::Int64) return t;
  IntList sizes = t.sizes(), strides = t.strides();
  for (int64_t& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  return Tensor(t.storage(), sizes, strides, t.storage_offset() * 2, DType::Float32);
}

Tensor copy_(const Tensor& self, const Tensor& src, bool) {
  const char* op = "aten::copy_";
  ops::check_defined(op, self);
  ops::check_defined(op, src, "src");
  TVK_CHECK(self.device() == tvk::Device::Vulkan && src.device() == tvk::Device::Vulkan, op,
            ": self and src must be Vulkan tensors");
  // Declines (the CPU fallback copies) other pairs: bool tensors, conversions.
  if (self.dtype() != src.dtype() || self.dtype() == DType::Bool)
    throw UnsupportedError(detail::concat(op, ": Vulkan copies float32 into float32 and int64 into int64, got ",
                                          to_string(src.dtype()), " into ", to_string(self.dtype()),
                                          " (the CPU fallback, --cpu-fallback or TVK_CPU_FALLBACK=1, copies it)"));
  // A source that shares self's buffer is copied out first, so no element is read after it was written.
  Tensor from = src;
  if (src.storage() == self.storage()) {
    from = empty(src.sizes(), src.dtype(), tvk::Device::Vulkan);
    strided_copy(as_words(from), ops::geometry_of(as_words(from)), as_words(src), ops::geometry_of(as_words(src)));
  }
  const ops::ViewGeometry read = ops::expand_geometry(op, from, self.sizes());
  const Tensor dst = as_words(self);
  const Tensor src_words = as_words(Tensor(from.storage(), read.sizes, read.strides, read.offset, from.dtype()));
  strided_copy(dst, ops::geometry_of(dst), src_words, ops::geometry_of(src_words));
  return self;
}

Tensor expand(const Tensor& self, IntList size, bool) {
  const size_t shift = size.size() - std::min<size_t>(size.size(), static_cast<size_t>(self.dim()));
  for (size_t i = shift; i < size.size(); ++i)
    if (size[i] == -1) size[i] = self.sizes()[i - shift];
  return materialize("aten::expand", self, ops::expand_geometry("aten::expand", self, size));
}

// Into self's own buffer, which holds only self (Vulkan tensors are contiguous copies), where
// on the CPU the storage may be a larger tensor's. The copy is marked so that in-place ops on it
// fail rather than write nowhere.
Tensor as_strided(const Tensor& self, IntList size, IntList stride, std::optional<int64_t> storage_offset) {
  Tensor out = materialize("aten::as_strided", self, ops::as_strided_geometry(self, size, stride, storage_offset));
  out.storage()->set_view_source(ViewSource{self.storage(), {}, {}, 0, self.dtype(), false});
  return out;
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
  if (mode != "constant") {
    TVK_CHECK(!value || *value == 0.0, "aten::pad: padding mode \"", mode, "\" doesn't take in value argument");
    return ops::run_gathers(self, ops::pad_plan_by_rows("aten::pad", self, pad, mode));
  }
  return run_blocks("aten::pad", self, ops::pad_plan("aten::pad", self, pad, value.value_or(0.0)));
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) { return cat_impl("aten::cat", tensors, dim); }
Tensor cat_underscore(const std::vector<Tensor>& tensors, int64_t dim) { return cat_impl("aten::_cat", tensors, dim); }
// The geometry's rank (two dims per repeated one, fewer where a size or repeat is 1) must fit
// strided_copy's 6.
Tensor repeat(const Tensor& self, IntList repeats) {
  check_vulkan_float("aten::repeat", self, "self");
  IntList out_sizes;
  const ops::ViewGeometry g = ops::repeat_geometry("aten::repeat", self, repeats, &out_sizes);
  if (numel_of(out_sizes) == 0) return empty_vulkan(out_sizes);
  if (g.sizes.size() > 6)
    throw UnsupportedError(detail::concat("aten::repeat: repeats ", shape_string(repeats), " of ", self.shape_string(),
                                          " need a copy of rank ", g.sizes.size(), "; Vulkan copies have rank <= 6"));
  return materialize("aten::repeat", self, g).view(out_sizes);
}
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  const auto [parts, d] = ops::stack_as_cat("aten::stack", tensors, dim);
  return cat_impl("aten::stack", parts, d);
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::roll", roll);
TVK_REGISTER_VULKAN_KERNEL("aten::constant_pad_nd", constant_pad_nd);
TVK_REGISTER_VULKAN_KERNEL("aten::pad", pad);
TVK_REGISTER_VULKAN_KERNEL("aten::view", view);
TVK_REGISTER_VULKAN_KERNEL("aten::as_strided", as_strided);
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
TVK_REGISTER_VULKAN_KERNEL("aten::copy_", copy_);
TVK_REGISTER_VULKAN_KERNEL("aten::cat", cat);
TVK_REGISTER_VULKAN_KERNEL("aten::_cat", cat_underscore);
TVK_REGISTER_VULKAN_KERNEL("aten::stack", stack);
TVK_REGISTER_VULKAN_KERNEL("aten::repeat", repeat);

}  // namespace tvk::vulkan
