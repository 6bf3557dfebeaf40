#include "vulkan/ops/strided_copy.h"

#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

constexpr size_t kMaxRank = 6;

struct CopyParams {
  uint32_t numel, src_offset, dst_offset;
  uint32_t sizes[kMaxRank];
  uint32_t src_strides[kMaxRank];
  uint32_t dst_strides[kMaxRank];
};

// Values are in range: check_view_in_bounds has seen them inside a buffer of at most
// maxStorageBufferRange bytes, and to_i32 checks again.
void pad_into(uint32_t (&dst)[kMaxRank], const IntList& values, uint32_t fill) {
  const size_t shift = kMaxRank - values.size();
  for (size_t i = 0; i < kMaxRank; ++i)
    dst[i] = i < shift ? fill : static_cast<uint32_t>(to_i32("strided copy", values[i - shift]));
}

}  // namespace

void strided_copy(const Tensor& dst, const ops::ViewGeometry& dst_view, const Tensor& src,
                  const ops::ViewGeometry& src_view) {
  TVK_CHECK(src_view.sizes.size() <= kMaxRank && src_view.sizes == dst_view.sizes,
            "strided copy: unsupported sizes ", shape_string(src_view.sizes), " -> ", shape_string(dst_view.sizes),
            " (rank <= 6, equal sizes)");
  // The one place a geometry reaches a Vulkan kernel: both views must lie inside their buffers.
  check_view_in_bounds(src_view.sizes, src_view.strides, src_view.offset, element_size(src.dtype()),
                       src.storage()->nbytes());
  check_view_in_bounds(dst_view.sizes, dst_view.strides, dst_view.offset, element_size(dst.dtype()),
                       dst.storage()->nbytes());
  CopyParams p{};
  p.numel = static_cast<uint32_t>(to_i32("strided copy", numel_of(src_view.sizes)));
  p.src_offset = static_cast<uint32_t>(to_i32("strided copy", src_view.offset));
  p.dst_offset = static_cast<uint32_t>(to_i32("strided copy", dst_view.offset));
  pad_into(p.sizes, src_view.sizes, 1);
  pad_into(p.src_strides, src_view.strides, 0);
  pad_into(p.dst_strides, dst_view.strides, 0);
  launch(ShaderLaunch{"strided_copy", elementwise_global(p.numel), {64, 1, 1}, {}}, {dst, src}, p);
}

Tensor materialize(const char* op, const Tensor& src, const ops::ViewGeometry& view) {
  check_vulkan_float(op, src);
  TVK_CHECK(view.sizes.size() <= kMaxRank, op, ": Vulkan view ops support rank <= 6, got ", shape_string(view.sizes));
  Tensor out = empty_vulkan(view.sizes);
  strided_copy(out, ops::geometry_of(out), src, view);
  return out;
}

}  // namespace tvk::vulkan
