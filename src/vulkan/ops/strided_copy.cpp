#include "vulkan/ops/strided_copy.h"

#include <vector>

#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

constexpr size_t kMaxRank = 6;

struct CopyParams {
  uint32_t runs, src_offset, dst_offset, src_step, dst_step;
  uint32_t sizes[kMaxRank];
  uint32_t src_strides[kMaxRank];
  uint32_t dst_strides[kMaxRank];
};

// One dim of a copy: its size and the strides of both views along it.
struct CopyDim {
  int64_t size, src_stride, dst_stride;
};

// The copy's dims with those of size 1 dropped and each dim merged into the next where both
// views step over it contiguously (a whole inner dim per step), outermost first; at least one.
std::vector<CopyDim> merged_dims(const ops::ViewGeometry& src, const ops::ViewGeometry& dst) {
  std::vector<CopyDim> dims;
  for (size_t d = 0; d < src.sizes.size(); ++d) {
    if (src.sizes[d] == 1) continue;
    const CopyDim next{src.sizes[d], src.strides[d], dst.strides[d]};
    if (!dims.empty()) {
      CopyDim& outer = dims.back();
      if (outer.src_stride == next.src_stride * next.size && outer.dst_stride == next.dst_stride * next.size) {
        outer = {outer.size * next.size, next.src_stride, next.dst_stride};
        continue;
      }
    }
    dims.push_back(next);
  }
  if (dims.empty()) dims.push_back({1, 1, 1});
  return dims;
}

}  // namespace

void copy_words(const Tensor& dst, const ops::ViewGeometry& dst_view, const Tensor& src,
                const ops::ViewGeometry& src_view, size_t word_bytes);

namespace {
// An int64 view as a view of 32-bit words: each element two words, one more dim of size 2.
ops::ViewGeometry in_words(const ops::ViewGeometry& v) {
  ops::ViewGeometry w = v;
  for (int64_t& s : w.strides) s *= 2;
  w.offset *= 2;
  w.sizes.push_back(2);
  w.strides.push_back(1);
  return w;
}

struct ByteCopyParams {
  uint32_t numel, src_offset;
  uint32_t sizes[kMaxRank];
  uint32_t src_strides[kMaxRank];
};

// A bool view into a fresh contiguous bool tensor, byte by byte.
void copy_bytes(const Tensor& dst, const Tensor& src, const ops::ViewGeometry& src_view) {
  const char* op = "strided copy";
  check_view_in_bounds(src_view.sizes, src_view.strides, src_view.offset, 1, src.storage()->nbytes());
  const int64_t numel = numel_of(src_view.sizes);
  TVK_CHECK(dst.is_contiguous() && dst.storage_offset() == 0 && dst.numel() == numel, op,
            ": bool views are copied into whole contiguous tensors only");
  if (numel == 0) return;
  ByteCopyParams p{};
  p.numel = static_cast<uint32_t>(to_i32(op, numel));
  p.src_offset = static_cast<uint32_t>(to_i32(op, src_view.offset));
  const size_t shift = kMaxRank - src_view.sizes.size();
  for (size_t i = 0; i < kMaxRank; ++i) {
    p.sizes[i] = i < shift ? 1u : static_cast<uint32_t>(to_i32(op, src_view.sizes[i - shift]));
    p.src_strides[i] = i < shift ? 0u : static_cast<uint32_t>(to_i32(op, src_view.strides[i - shift]));
  }
  launch(ShaderLaunch{"strided_copy_u8", elementwise_global((numel + 3) / 4), {64, 1, 1}, {}}, {dst, src}, p);
}
}  // namespace

void strided_copy(const Tensor& dst, const ops::ViewGeometry& dst_view, const Tensor& src,
                  const ops::ViewGeometry& src_view) {
  TVK_CHECK(src.dtype() == dst.dtype(), "strided copy: ", to_string(src.dtype()), " into ", to_string(dst.dtype()));
  if (src.dtype() == DType::Bool) {
    TVK_CHECK(src_view.sizes == dst_view.sizes && src_view.sizes.size() <= kMaxRank, "strided copy: unsupported sizes ",
              shape_string(src_view.sizes), " -> ", shape_string(dst_view.sizes));
    return copy_bytes(dst, src, src_view);
  }
  if (src.dtype() == DType::Int64) {
    TVK_CHECK(src_view.sizes.size() < kMaxRank, "strided copy: int64 views of rank 6 are not supported on Vulkan");
    return copy_words(dst, in_words(dst_view), src, in_words(src_view), 4);
  }
  copy_words(dst, dst_view, src, src_view, 4);
}

void copy_words(const Tensor& dst, const ops::ViewGeometry& dst_view, const Tensor& src,
                const ops::ViewGeometry& src_view, size_t word_bytes) {
  TVK_CHECK(src_view.sizes.size() <= kMaxRank && src_view.sizes == dst_view.sizes,
            "strided copy: unsupported sizes ", shape_string(src_view.sizes), " -> ", shape_string(dst_view.sizes),
            " (rank <= 6, equal sizes)");
  // The one place a geometry reaches a Vulkan kernel: both views must lie inside their buffers.
  check_view_in_bounds(src_view.sizes, src_view.strides, src_view.offset, word_bytes, src.storage()->nbytes());
  check_view_in_bounds(dst_view.sizes, dst_view.strides, dst_view.offset, word_bytes, dst.storage()->nbytes());
  const int64_t numel = numel_of(src_view.sizes);
  if (numel == 0) return;
  std::vector<CopyDim> dims = merged_dims(src_view, dst_view);
  // Runs of 4 along the innermost dim where it divides: a quarter of the index arithmetic.
  CopyDim& inner = dims.back();
  const uint32_t run = inner.size % 4 == 0 ? 4 : 1;
  auto u32 = [](int64_t v) { return static_cast<uint32_t>(to_i32("strided copy", v)); };
  CopyParams p{};
  p.runs = u32(numel / run);
  p.src_offset = u32(src_view.offset);
  p.dst_offset = u32(dst_view.offset);
  p.src_step = u32(inner.src_stride);
  p.dst_step = u32(inner.dst_stride);
  inner = {inner.size / run, inner.src_stride * run, inner.dst_stride * run};
  const size_t shift = kMaxRank - dims.size();
  for (size_t i = 0; i < kMaxRank; ++i) {
    const CopyDim d = i < shift ? CopyDim{1, 0, 0} : dims[i - shift];
    p.sizes[i] = u32(d.size);
    p.src_strides[i] = u32(d.src_stride);
    p.dst_strides[i] = u32(d.dst_stride);
  }
  launch(ShaderLaunch{"strided_copy", elementwise_global(p.runs), {64, 1, 1},
                      {static_cast<uint32_t>(dims.size()), run}},
         {dst, src}, p);
}

Tensor materialize(const char* op, const Tensor& src, const ops::ViewGeometry& view) {
  ops::check_defined(op, src);
  TVK_CHECK(src.device() == tvk::Device::Vulkan, op, ": argument 'self' is not a Vulkan tensor");
  TVK_CHECK(view.sizes.size() <= kMaxRank, op, ": Vulkan view ops support rank <= 6, got ", shape_string(view.sizes));
  Tensor out = empty(view.sizes, src.dtype(), tvk::Device::Vulkan);
  strided_copy(out, ops::geometry_of(out), src, view);
  return out;
}

}  // namespace tvk::vulkan
