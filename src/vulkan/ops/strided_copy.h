// Strided copies between Vulkan buffers (shader strided_copy.glsl): how Vulkan view ops, whose
// results must be contiguous, materialise the geometry the CPU would view.
#pragma once

#include "ops/view_geometry.h"
#include "tvk/tensor.h"

namespace tvk::vulkan {

// Copies the elements `src_view` reads from `src`'s buffer into the positions `dst_view`
// addresses in `dst`'s buffer (same sizes, rank <= 6).
void strided_copy(const Tensor& dst, const ops::ViewGeometry& dst_view, const Tensor& src,
                  const ops::ViewGeometry& src_view);
// A new contiguous Vulkan tensor holding `view` of `src`'s buffer.
Tensor materialize(const char* op, const Tensor& src, const ops::ViewGeometry& view);

}  // namespace tvk::vulkan
